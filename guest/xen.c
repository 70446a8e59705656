/* SPDX-License-Identifier: GPL-2.0-only */
/* Xen backend: hypercall instruction, version, memory map, shutdown. */

#include <guest/hypervisor.h>
#include <guest/xen.h>
#include <shimk/boot-info.h>
#include <shimk/errno.h>
#include <shimk/printk.h>
#include <asm/cpufeature.h>
#include <xen/memory.h>
#include <xen/sched.h>
#include <xen/version.h>

static bool use_vmmcall;

void xen_hypercall_init(void)
{
    /*
     * As Xen's early_hypercall_setup(): VMMCALL on AMD and Hygon (SVM),
     * VMCALL elsewhere (VMX).  The wrong one raises #UD.
     */
    use_vmmcall = boot_cpu.vendor == VENDOR_AMD ||
                  boot_cpu.vendor == VENDOR_HYGON;
}

long xen_hypercall(unsigned int op, unsigned long a1, unsigned long a2,
                   unsigned long a3, unsigned long a4, unsigned long a5)
{
    register unsigned long r10 __asm__("r10") = a4;
    register unsigned long r8 __asm__("r8") = a5;
    long ret = op;

    /* Debug Xen builds poison the argument registers: all clobbered. */
    if ( use_vmmcall )
        __asm__ __volatile__("vmmcall"
                             : "+a"(ret), "+D"(a1), "+S"(a2), "+d"(a3),
                               "+r"(r10), "+r"(r8)
                             :: "memory");
    else
        __asm__ __volatile__("vmcall"
                             : "+a"(ret), "+D"(a1), "+S"(a2), "+d"(a3),
                               "+r"(r10), "+r"(r8)
                             :: "memory");
    return ret;
}

uint32_t xen_version(void)
{
    long v = xen_hypercall2(__HYPERVISOR_xen_version, XENVER_version, NULL);

    return v < 0 ? 0 : (uint32_t)v;
}

/* The BIOS E820 entry layout XENMEM_memory_map returns (memory.h). */
struct e820_entry
{
    uint64_t addr;
    uint64_t size;
    uint32_t type;
} __attribute__((__packed__));

int xen_fetch_memory_map(struct boot_info *bi)
{
    static struct e820_entry entries[BOOT_MMAP_MAX];
    struct xen_memory_map map = { .nr_entries = BOOT_MMAP_MAX };
    long rc;

    set_xen_guest_handle(map.buffer, entries);
    rc = xen_hypercall2(__HYPERVISOR_memory_op, XENMEM_memory_map, &map);
    if ( rc )
    {
        pr_err("xen: XENMEM_memory_map failed: %ld (%s)\n", rc,
               errno_name((int)rc));
        return (int)rc;
    }
    bi->nr_mmap = 0;
    for ( unsigned int i = 0; i < map.nr_entries && i < BOOT_MMAP_MAX; i++ )
    {
        bi->mmap[i].base = entries[i].addr;
        bi->mmap[i].len = entries[i].size;
        bi->mmap[i].type = entries[i].type;
        bi->nr_mmap++;
    }
    bi->mmap_from_hypervisor = true;
    return 0;
}

int xen_shutdown(unsigned int reason)
{
    struct sched_shutdown s = { .reason = reason };

    return (int)xen_hypercall2(__HYPERVISOR_sched_op, SCHEDOP_shutdown, &s);
}
