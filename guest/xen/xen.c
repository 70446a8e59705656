/* SPDX-License-Identifier: GPL-2.0-only */
/* Xen backend: hypercalls, identity, console_io, shutdown, HVMOP_flush_tlbs. */
/* Modelled in tests/model/shootdown.pml (docs/model.md): change both. */

#include <guest/hypervisor.h>
#include <guest/hypervisor-ops.h>
#include <guest/xen.h>
#include <guest/xen-control.h>
#include <guest/xen-flush-late.h>
#include <shimk/boot-info.h>
#include <shimk/console.h>
#include <shimk/errno.h>
#include <shimk/panic.h>
#include <shimk/printk.h>
#include <shimk/string.h>
#include <shimk/time.h>
#include <asm/cpufeature.h>
#include <asm/cpuid.h>
#include <asm/percpu.h>
#include <asm/processor.h>
#include <xen/arch-x86/cpuid.h>
#include <xen/hvm/hvm_op.h>
#include <xen/hvm/params.h>
#include <xen/memory.h>
#include <xen/sched.h>
#include <xen/version.h>

static bool use_vmmcall __ro_after_init;
static uint32_t xen_ver __ro_after_init;
static int32_t xen_domid __ro_after_init = -1;   /* -1: not given */
static uint32_t hvm_features __ro_after_init;

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

bool xen_is_dom0(void)
{
    /* The CPUID leaf says, when it has the domain id; else start info. */
    if ( xen_domid >= 0 )
        return xen_domid == 0;
    return boot_info.pvh_flags & SIF_INITDOMAIN;
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

/*
 * hypervisor_ops.boot_info_fixup: Xen's additions to what the boot
 * protocol said (before the memory map is checked).
 */
static void xen_boot_info_fixup(struct boot_info *bi)
{
    int rc;

    xen_console_reserve(bi);
    xen_store_reserve(bi);
    if ( !bi->nr_mmap )
    {
        /* Xen's PVH dom0 start info has none (docs/design.md). */
        rc = xen_fetch_memory_map(bi);
        if ( rc )
            panic("no memory map: XENMEM_memory_map failed with %s",
                  errno_name(rc));
    }
    /*
     * Xen copies a guest's command line into MAX_GUEST_CMDLINE bytes
     * (xen/include/public/xen.h) and cuts the rest before shimk runs: a
     * line of exactly that length was most likely cut, and whatever
     * followed never arrived.
     */
    if ( bi->cmdline_len == MAX_GUEST_CMDLINE - 1 )
        pr_warn("cmdline: *: %u bytes, Xen's limit for a guest's command "
                "line (MAX_GUEST_CMDLINE): options past it, if any, were cut "
                "by Xen and never reached shimk\n", MAX_GUEST_CMDLINE - 1);
}

/* Leaf base+3, sub-leaf 0, ECX = guest TSC kHz (arch-x86/cpuid.h). */
static uint64_t xen_tsc_khz(const char **source)
{
    struct cpuid_leaf r;

    *source = "xen cpuid leaf";
    if ( hv_info.max_leaf < hv_info.base + 3 )
        return 0;
    cpuid_count(hv_info.base + 3, 0, &r);
    return r.c;
}

/* The null hypercall: XENVER_version, which every guest may make. */
static void xen_null_call(void)
{
    xen_version();
}

int xen_hvm_get_param(uint32_t index, uint64_t *value)
{
    struct xen_hvm_param p = { .domid = DOMID_SELF, .index = index };
    long rc = xen_hypercall2(__HYPERVISOR_hvm_op, HVMOP_get_param, &p);

    *value = rc ? 0 : p.value;
    return (int)rc;
}

int xen_shutdown(unsigned int reason)
{
    struct sched_shutdown s = { .reason = reason };

    return (int)xen_hypercall2(__HYPERVISOR_sched_op, SCHEDOP_shutdown, &s);
}

/* --- console_io: Xen's own console, a sink on console=xen --- */

static bool console_io_broken;

static void console_io_write(const char *s, size_t len)
{
    long rc;

    if ( console_io_broken )
        return;
    /* xen.h: CONSOLEIO_write copies len bytes from the guest's buffer. */
    rc = xen_hypercall3(__HYPERVISOR_console_io, CONSOLEIO_write, len, s);
    if ( rc < 0 )
        console_io_broken = true;   /* -EPERM in a domU on a release Xen */
}

static struct console_sink console_io_sink = {
    .name = "xen",
    .write = console_io_write,
};

/* --- hypervisor_ops --- */

/* Leaf base+4 (arch-x86/cpuid.h): HVM features, vCPU id, domain id. */
static void read_hvm_leaf(uint32_t *vcpu)
{
    struct cpuid_leaf r;

    if ( hv_info.max_leaf < hv_info.base + 4 )
        return;
    cpuid_count(hv_info.base + 4, 0, &r);
    hvm_features = r.a;
    if ( r.a & XEN_HVM_CPUID_VCPU_ID_PRESENT )
        *vcpu = r.b;
    if ( r.a & XEN_HVM_CPUID_DOMID_PRESENT )
        xen_domid = (int32_t)r.c;
}

static void xen_setup(void)
{
    uint32_t vcpu = ~0u;

    xen_ver = xen_version();
    read_hvm_leaf(&vcpu);
    this_cpu()->hv_vcpu_id = vcpu;
    xen_runstate_cpu_setup();
    if ( xen_evtchn_setup() )
        hypervisor_ops.send_ipi_event = NULL;
    xen_console_init(!xen_is_dom0());
    if ( console_selected("xen", false) )
    {
        console_register(&console_io_sink);
        if ( console_io_broken )
            console_unregister(&console_io_sink);
    }
}

static int xen_ap_setup(void)
{
    struct cpuid_leaf r;

    cpuid_count(hv_info.base + 4, 0, &r);
    this_cpu()->hv_vcpu_id = (r.a & XEN_HVM_CPUID_VCPU_ID_PRESENT) ? r.b
                                                                   : ~0u;
    /* Not fatal: without it the L0 just does not say who is held off. */
    xen_runstate_cpu_setup();
    /* Not fatal: IPIs to a CPU without ports go by the APIC. */
    if ( xen_evtchn_ipi_usable() )
        xen_evtchn_cpu_setup();
    return 0;
}

/*
 * HVMOP_flush_tlbs (hvm/hvm_op.h, op 5, NULL argument): flush every
 * vCPU of this domain, globals included, and return once it is done.
 * It ignores mask, va and flags; flushing more than asked is allowed
 * (flush rule 10, docs/flush.md).  Xen may turn a busy case into a
 * continuation that the guest never sees (flush rule 12).
 */
static int hvmop_flush_tlbs(void)
{
    return (int)xen_hypercall2(__HYPERVISOR_hvm_op, HVMOP_flush_tlbs, NULL);
}

/*
 * Because one call flushes every vCPU, one call serves every request
 * made before it began: concurrent initiators share calls instead of
 * each making its own (each call makes Xen flush every pCPU the domain
 * runs on, and waits for them).  Requests are numbered; whoever holds
 * the flusher role notes the newest number, calls Xen, and publishes
 * that number as covered.  A request is done once the covered number
 * reaches it.  Ordering: a caller's PTE writes come before its number
 * (a locked RMW), the number is read before the call (a VMCALL is
 * serializing), and the covered number is published only after the
 * call returned, so covered >= n means a flush began after request n.
 *
 * The holder keeps interrupts off while it holds the role, so nothing
 * of shimk's (a flush IPI, a park for a suspend) comes between taking
 * the role, the call and giving it back: a waiter whose bound runs out
 * can then tell from evidence whether Xen kept the call or the holder's
 * vCPU (include/guest/xen-flush-late.h).
 */
static uint64_t flush_requested, flush_covered;
static int flush_holder = -1;           /* the CPU with the role, or -1 */
static bool flush_in_call;              /* it is inside the hypercall */
static unsigned int late_said;

/* flush_as_holder()'s answer when another CPU has the role. */
#define FLUSH_ROLE_TAKEN 1

static int flush_as_holder(void)
{
    unsigned long irqs = local_irq_save();
    int rc = FLUSH_ROLE_TAKEN, none = -1;

    if ( __atomic_compare_exchange_n(&flush_holder, &none,
                                     (int)smp_processor_id(), false,
                                     __ATOMIC_ACQUIRE, __ATOMIC_RELAXED) )
    {
        uint64_t upto = __atomic_load_n(&flush_requested, __ATOMIC_SEQ_CST);

        __atomic_store_n(&flush_in_call, true, __ATOMIC_RELAXED);
        rc = hvmop_flush_tlbs();
        __atomic_store_n(&flush_in_call, false, __ATOMIC_RELAXED);
        if ( !rc )
            __atomic_store_n(&flush_covered, upto, __ATOMIC_RELEASE);
        __atomic_store_n(&flush_holder, -1, __ATOMIC_RELEASE);
    }
    local_irq_restore(irqs);
    return rc;
}

/* What a waiter knows of the holder at its bound's start. */
struct flush_watch
{
    uint64_t start;
    int holder;
    uint64_t stolen;
};

static void flush_watch_begin(struct flush_watch *w)
{
    bool now;

    w->start = rdtsc();
    w->holder = __atomic_load_n(&flush_holder, __ATOMIC_ACQUIRE);
    w->stolen = w->holder >= 0 ? hypervisor_stolen_ns(w->holder, &now)
                               : ~0ULL;
}

/*
 * The bound ran out with the request not covered.  0: try again (no
 * holder now); -ETIMEDOUT: the L0 kept the holder's call or its vCPU,
 * shown, and the caller's IPIs do the flush; -EDEADLK: shimk's own
 * holder ran and did not finish, said loudly, IPIs too.
 */
static int flush_wait_late(struct flush_watch *w)
{
    struct spin_holder_sample s = {
        .holder_then = w->holder,
        .stolen_then = w->stolen,
        .waited_ns = cycles_to_ns(rdtsc() - w->start),
    };
    bool in_call;

    s.holder_now = __atomic_load_n(&flush_holder, __ATOMIC_ACQUIRE);
    in_call = __atomic_load_n(&flush_in_call, __ATOMIC_RELAXED);
    s.stolen_now = s.holder_now >= 0
                   ? hypervisor_stolen_ns(s.holder_now, &s.descheduled_now)
                   : ~0ULL;
    switch ( xen_flush_late_cause(&s, in_call) )
    {
    case XEN_FLUSH_LATE_NONE:
        flush_watch_begin(w);
        return 0;
    case XEN_FLUSH_LATE_IN_CALL:
    case XEN_FLUSH_LATE_HELD_OFF:
        /* Said once with its evidence; the rest are counted. */
        if ( !__atomic_fetch_add(&late_said, 1, __ATOMIC_RELAXED) )
            pr_warn("xen: flush: CPU%u waited %lu ms for CPU%d's "
                    "HVMOP_flush_tlbs: %s (%lu ms stolen from it in the "
                    "wait); sent by IPIs (counted as L0-late)\n",
                    smp_processor_id(),
                    (unsigned long)(s.waited_ns / 1000000), s.holder_now,
                    in_call ? "Xen has not returned from it"
                            : "Xen keeps its vCPU off a CPU",
                    (unsigned long)(s.stolen_now == ~0ULL ||
                                    s.stolen_then == ~0ULL ||
                                    s.stolen_now < s.stolen_then
                                    ? 0
                                    : (s.stolen_now - s.stolen_then) /
                                      1000000));
        return -ETIMEDOUT;
    default:
        pr_err("xen: flush: CPU%u waited %lu ms for CPU%d's "
               "HVMOP_flush_tlbs, which ran (%s) and holds the role "
               "outside the call: shimk's fault; sent by IPIs\n",
               smp_processor_id(), (unsigned long)(s.waited_ns / 1000000),
               s.holder_now,
               s.stolen_now == ~0ULL ? "Xen gives no runstate" : "runstate");
        return -EDEADLK;
    }
}

static int xen_flush_tlb(cpumask_t *mask, const void *va, unsigned int flags)
{
    uint64_t mine = __atomic_add_fetch(&flush_requested, 1, __ATOMIC_SEQ_CST);
    struct flush_watch w;
    unsigned int spins = 0;
    bool called = false, watching = false;

    while ( __atomic_load_n(&flush_covered, __ATOMIC_ACQUIRE) < mine )
    {
        int rc = flush_as_holder();

        if ( rc != FLUSH_ROLE_TAKEN )
        {
            if ( rc )
                return rc;  /* the caller falls back to IPIs */
            called = true;
            continue;
        }
        if ( !watching )
        {
            flush_watch_begin(&w);
            watching = true;
        }
        /*
         * Bounded: the holder is one hypercall away from done.  The TSC
         * only now and then: Xen emulates RDTSC here (asm/processor.h).
         * A waiter the L0 preempted may find its bound gone and the
         * request covered meanwhile: look again before giving up.
         */
        if ( !(++spins % SPIN_CLOCK_TURNS) &&
             rdtsc() - w.start > ms_to_cycles(WAIT_BOUND_MS) &&
             __atomic_load_n(&flush_covered, __ATOMIC_ACQUIRE) < mine )
        {
            rc = flush_wait_late(&w);
            if ( rc )
                return rc;
        }
        cpu_relax();
    }
    if ( !called )
        this_cpu()->flush.assisted_shared++;
    return 0;
}

static void xen_describe(char *buf, size_t size)
{
    char ipi[96];
    size_t n;

    xen_evtchn_describe(ipi, sizeof(ipi));
    n = ksnprintf(buf, size, "%u.%u", xen_ver >> 16, xen_ver & 0xffff);
    n += ksnprintf(buf + n, size - n, " %s", xen_is_dom0() ? "dom0" : "domU");
    if ( xen_domid >= 0 )
        n += ksnprintf(buf + n, size - n, " (domid %d)", xen_domid);
    n += ksnprintf(buf + n, size - n, ", offers HVMOP_flush_tlbs%s%s%s, "
                   "uses inline %s%s%s",
                   hvm_features & XEN_HVM_CPUID_X2APIC_VIRT ?
                       ", x2APIC virt" : "",
                   hvm_features & XEN_HVM_CPUID_APIC_ACCESS_VIRT ?
                       ", APIC access virt" : "",
                   hvm_features & XEN_HVM_CPUID_VCPU_ID_PRESENT ?
                       ", vCPU ids" : "",
                   use_vmmcall ? "VMMCALL" : "VMCALL",
                   xen_runstate_registered(0) ? ", runstate areas" : "",
                   ipi);
}

static void xen_exit(int code)
{
    unsigned int reason;

    if ( xen_is_dom0() )
        /*
         * Reboot, not poweroff, which would leave a dom0-less Xen
         * halted and QEMU running; under -no-reboot QEMU then exits
         * (docs/design.md#exit-codes).  The code itself already went to
         * port 0xf4.
         */
        reason = SHUTDOWN_reboot;
    else
        /*
         * A domU has no isa-debug-exit: the toolstack sees the verdict
         * as the shutdown reason (docs/xen-deployment.md).
         */
        switch ( code )
        {
        case 0:
        case 38:
            reason = SHUTDOWN_poweroff;
            break;
        case 1:
            reason = SHUTDOWN_reboot;
            break;
        default:
            reason = SHUTDOWN_crash;
            break;
        }
    xen_shutdown(reason);
}

static void xen_reboot(void)
{
    xen_shutdown(SHUTDOWN_reboot);
}

/* Boot CPU, every AP up: the IPI choice, then (a domU) the control client. */
static void xen_smp_ready(void)
{
    xen_evtchn_smp_ready();
    if ( !xen_is_dom0() )
        xen_control_start();
}

const struct hypervisor_ops xen_ops = {
    .name = "xen",
    .boot_info_fixup = xen_boot_info_fixup,
    .own_start_info = true,
    .tsc_khz = xen_tsc_khz,
    .null_call = xen_null_call,
    .setup = xen_setup,
    .ap_setup = xen_ap_setup,
    .resume = xen_resume_cpu,
    .cpu_up = xen_vcpu_start,
    .cpu_down = xen_vcpu_stop,
    .flush_tlb = xen_flush_tlb,
    .stolen_ns = xen_stolen_ns,
    .yield_to = xen_yield_to,
    .send_ipi_event = xen_send_ipi_event,
    .smp_ready = xen_smp_ready,
    .describe = xen_describe,
    .shutdown = xen_exit,
    .reboot = xen_reboot,
};
