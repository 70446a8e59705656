/* SPDX-License-Identifier: GPL-2.0-only */
/* Hyper-V backend: guest OS id, hypercall page, VP indices, the hooks. */

#include "private.h"

#include <guest/hypervisor.h>
#include <guest/hypervisor-ops.h>
#include <guest/kvm-area.h>
#include <shimk/errno.h>
#include <shimk/frame.h>
#include <shimk/printk.h>
#include <asm/msr.h>
#include <asm/page.h>
#include <asm/paging.h>
#include <asm/percpu.h>

/*
 * The TLFS's order ("Establishing the Hypercall Interface"): report a
 * guest OS identity, then point HV_X64_MSR_HYPERCALL at a page of the
 * guest's memory, which the hypervisor fills with the call sequence
 * (an overlay on Hyper-V; KVM writes VMCALL/VMMCALL; RET into the RAM
 * frame).  shimk takes a frame of its own for it, maps it executable
 * and read-only, and write-protects the frame's direct-map alias first,
 * so that no writable mapping of the code exists once it is there.
 * Each CPU then reads its VP index, the number the flush and IPI calls
 * name it by, and gets an input page.
 */

struct hyperv_leaves hyperv_cpuid __ro_after_init;
const void *hyperv_hcall_page __ro_after_init;
paddr_t hyperv_hcall_frame __ro_after_init;
bool hv_use_ex __ro_after_init;
struct hv_pcpu hv_pcpu[NR_CPUS];

/* Why hypercalls are off (NULL when they work). */
static const char *no_hcall_why __ro_after_init;

bool hyperv_probe(cpuid_fn fn, uint32_t max_leaf)
{
    hyperv_read_leaves(fn, max_leaf, &hyperv_cpuid);
    return hyperv_flush_wanted(&hyperv_cpuid);
}

/*
 * TLFS, Hypercall Interface, "Reporting the Guest OS Identity": the
 * open-source layout, with no OS type of its own (none is allocated to
 * shimk); bits 47:16 carry shimk's interface version, 1.
 */
#define SHIMK_GUEST_OS_ID (HV_GUEST_OS_ID_OPEN_SOURCE | (1ull << 16))

static int report_guest_os(void)
{
    uint64_t id;

    /* Partition-wide, and set by an earlier owner: leave it. */
    if ( rdmsr_safe(HV_X64_MSR_GUEST_OS_ID, &id) )
        return -ENODEV;
    if ( id )
        return 0;
    return wrmsr_safe(HV_X64_MSR_GUEST_OS_ID, SHIMK_GUEST_OS_ID) ? -ENODEV
                                                                 : 0;
}

/* TLFS, Hypercall Interface, "Establishing the Hypercall Interface". */
static int enable_hypercall_page(void)
{
    uint64_t msr, now;
    paddr_t frame;
    const void *page;

    if ( rdmsr_safe(HV_X64_MSR_HYPERCALL, &msr) )
        return -ENODEV;
    if ( (msr & HV_HYPERCALL_ENABLE) && (msr & HV_HYPERCALL_LOCKED) )
    {
        /* Locked where an earlier owner put it: use it there. */
        frame = msr & PAGE_MASK;
        page = map_l0_code_page(frame);
        if ( !page )
            return -ENOMEM;
    }
    else
    {
        frame = frame_try_alloc();
        if ( !frame )
            return -ENOMEM;
        page = map_l0_code_page(frame);
        if ( !page )
            return -ENOMEM;     /* the frame stays set aside */
        /* Bits 11:2 are RsvdP: preserved on writes. */
        msr = (msr & ~PAGE_MASK & ~(HV_HYPERCALL_ENABLE |
                                    HV_HYPERCALL_LOCKED)) |
              frame | HV_HYPERCALL_ENABLE;
        if ( wrmsr_safe(HV_X64_MSR_HYPERCALL, msr) )
            return -ENODEV;
    }
    /*
     * Without a guest OS identity "the enable bit will remain zero
     * even if a one is written to it".
     */
    if ( rdmsr_safe(HV_X64_MSR_HYPERCALL, &now) ||
         !(now & HV_HYPERCALL_ENABLE) || (now & PAGE_MASK) != frame )
        return -EIO;
    /* The frame was zeroed: a zero first byte means nothing was put in. */
    if ( !*(const volatile uint8_t *)page )
        return -EIO;
    hyperv_hcall_frame = frame;
    hyperv_hcall_page = page;
    return 0;
}

/*
 * Noticing that the L0 stopped the partition and ran it on.  Hyper-V
 * itself carries a partition's whole state across a migration and asks
 * nothing of its guests; the one thing a guest can watch, the reference
 * TSC page's sequence, moves when the TSC's rate does.  KVM with Hyper-V
 * enlightenments keeps that sequence across a migration on purpose
 * (kvm_hv_setup_tsc_page() takes a migrated page as it is: tried, no
 * signal), but offers its own leaves beside them, and so kvmclock's stop
 * flag, which its VMM sets on every vCPU at each run after a stop.  So
 * where KVM's leaves are there, shimk takes that, and otherwise has no
 * signal (said at boot).
 */
static bool stop_signal_setup(void)
{
    if ( hv_info.other_type != HV_KVM )
        return false;
    return kvm_stop_signal_init(hv_info.other_base);
}

/*
 * Per CPU: the VP index (TLFS, Virtual Processor Properties, "Virtual
 * Processor Indices"; ~0u until read, and it is HV_ANY_VP's value, so
 * never a real index) and, with hypercalls, the input page.
 */
static int cpu_setup(void)
{
    struct cpu_info *ci = this_cpu();
    struct hv_pcpu *pc = &hv_pcpu[ci->cpu];
    uint64_t vp;
    paddr_t pa;

    ci->hv_vcpu_id = ~0u;
    /* Nothing to read, and no hypercall without it (hyperv_setup()). */
    if ( !(hyperv_cpuid.privileges & HV_PRIV_VP_INDEX) )
        return 0;
    if ( rdmsr_safe(HV_X64_MSR_VP_INDEX, &vp) )
        return -ENODEV;
    /* HV_ANY_VP (~0) and HV_VP_INDEX_SELF (~1) are not indices. */
    if ( vp >= 0xfffffffeull )
        return -ERANGE;
    ci->hv_vcpu_id = (uint32_t)vp;
    if ( !hyperv_hcall_page )
        return 0;
    /* Hypercall inputs: 8-byte aligned, within one page, WB. */
    pa = frame_try_alloc();
    if ( !pa )
        return -ENOMEM;
    pc->input_pa = pa;
    pc->input = phys_to_virt(pa);
    return 0;
}

static void hyperv_setup(void)
{
    int rc = -EOPNOTSUPP;

    if ( !hyperv_hypercalls_usable(&hyperv_cpuid) )
        no_hcall_why = "no hypercall or VP index privilege";
    else if ( (rc = report_guest_os()) )
        no_hcall_why = "guest OS id MSR refused";
    else if ( (rc = enable_hypercall_page()) )
        no_hcall_why = "the hypercall page did not enable";
    if ( rc )
        pr_warn("hyperv: no hypercalls: %s (%s)\n", no_hcall_why,
                errno_name(rc));
    if ( !stop_signal_setup() )
        hypervisor_ops.restarted = NULL;
    rc = cpu_setup();
    if ( rc && hyperv_hcall_page )
        pr_warn("hyperv: CPU0's VP index or input page: %s\n",
                errno_name(rc));

    hv_use_ex = hyperv_ex_recommended(&hyperv_cpuid);
    /*
     * The hooks only where the L0 recommends them over IPIs, and only
     * with hypercalls working on this CPU; assisted-flush= then
     * decides the flush (hypervisor_setup()).
     */
    if ( rc || !hyperv_hcall_page || !hyperv_flush_wanted(&hyperv_cpuid) )
        hypervisor_ops.flush_tlb = NULL;
    if ( rc || !hyperv_hcall_page ||
         !hyperv_cluster_ipi_wanted(&hyperv_cpuid) )
        hypervisor_ops.send_ipi_mask = NULL;
}

static int hyperv_ap_setup(void)
{
    kvm_stop_signal_cpu_setup();
    return cpu_setup();
}

/*
 * hypervisor_ops.resume: what a restored partition must still have.
 * The guest OS id and hypercall MSRs are partition-wide and the VP
 * index is the L0's to choose, so each is read back: a hypercall page
 * no longer enabled at its frame is enabled again (the frame and its
 * read-only mapping are shimk's own), and a VP index that changed is
 * taken, since the flush and IPI calls name CPUs by it.  Without
 * hypercalls there is nothing to keep.
 */
static int hyperv_resume(void)
{
    struct cpu_info *ci = this_cpu();
    uint64_t msr, vp;
    int rc = kvm_stop_signal_resume("hyperv");

    if ( !hyperv_hcall_page )
        return rc;
    if ( rdmsr_safe(HV_X64_MSR_GUEST_OS_ID, &msr) ||
         (!msr && wrmsr_safe(HV_X64_MSR_GUEST_OS_ID, SHIMK_GUEST_OS_ID)) )
        return -ENODEV;
    if ( rdmsr_safe(HV_X64_MSR_HYPERCALL, &msr) )
        return -ENODEV;
    if ( !(msr & HV_HYPERCALL_ENABLE) ||
         (msr & PAGE_MASK) != hyperv_hcall_frame )
    {
        pr_warn("hyperv: resume: CPU%u: the hypercall page was %#lx, "
                "enabled again at %#lx\n", ci->cpu, (unsigned long)msr,
                (unsigned long)hyperv_hcall_frame);
        msr = (msr & ~PAGE_MASK & ~HV_HYPERCALL_LOCKED) |
              hyperv_hcall_frame | HV_HYPERCALL_ENABLE;
        if ( wrmsr_safe(HV_X64_MSR_HYPERCALL, msr) ||
             rdmsr_safe(HV_X64_MSR_HYPERCALL, &msr) ||
             !(msr & HV_HYPERCALL_ENABLE) )
            return -EIO;
    }
    if ( ci->hv_vcpu_id == ~0u )
        return rc;
    if ( rdmsr_safe(HV_X64_MSR_VP_INDEX, &vp) || vp >= 0xfffffffeull )
        return -ENODEV;
    if ( vp != ci->hv_vcpu_id )
    {
        pr_warn("hyperv: resume: CPU%u: VP index %u now, was %u\n",
                ci->cpu, (unsigned int)vp, ci->hv_vcpu_id);
        ci->hv_vcpu_id = (uint32_t)vp;
    }
    return rc;
}

void hyperv_counts_cpu(unsigned int cpu, struct hyperv_counts *out)
{
    *out = hv_pcpu[cpu].counts;
}

static void hyperv_describe(char *buf, size_t size)
{
    const struct hyperv_leaves *l = &hyperv_cpuid;
    char offered[192];
    size_t n;

    hyperv_offer_names(l, offered, sizeof(offered));
    n = ksnprintf(buf, size, "%u.%u build %u, offers [%s]", l->major,
                  l->minor, l->build, offered);
    if ( no_hcall_why && n < size )
        n += ksnprintf(buf + n, size - n, ", no hypercalls (%s)",
                       no_hcall_why);
    if ( n < size )
        ksnprintf(buf + n, size - n, ", uses [%s%s%s%s%s]",
                  hyperv_hcall_page ? "hypercall-page" : "",
                  this_cpu()->hv_vcpu_id != ~0u ? " vp-index" : "",
                  !hypervisor_ops.flush_tlb ? ""
                  : hv_use_ex               ? " flush-ex"
                                            : " flush",
                  hypervisor_ops.send_ipi_mask ? " cluster-ipi" : "",
                  kvm_stop_signal_on() ? " kvmclock-stop-flag (KVM's leaves)"
                                       : "");
}

/*
 * The TSC's rate as the L0 states it: the frequency MSR where the
 * partition may read it (KVM: hv-frequencies), else kvmclock's scale
 * where KVM's leaves sit beside (the rate KVM counts the TSC at in
 * both).  Probed already: time_init() runs before setup.
 */
static uint64_t hyperv_tsc_khz(const char **source)
{
    uint64_t hz;

    if ( (hyperv_cpuid.privileges & HV_PRIV_FREQUENCY_MSRS) &&
         !rdmsr_safe(HV_X64_MSR_TSC_FREQUENCY, &hz) && hz >= 1000000 )
    {
        *source = "hyperv frequency msr";
        return hz / 1000;
    }
    if ( hv_info.other_type != HV_KVM )
        return 0;
    *source = "kvmclock (KVM's leaves)";
    return kvm_clock_tsc_khz(hv_info.other_base);
}

const struct hypervisor_ops hyperv_ops = {
    .name = "hyperv",
    .tsc_khz = hyperv_tsc_khz,
    /* HvCallNull is not in the TLFS's list for guests: a CPUID exit. */
    .null_call = hypervisor_cpuid_exit,
    .setup = hyperv_setup,
    .ap_setup = hyperv_ap_setup,
    .resume = hyperv_resume,
    .restarted = kvm_stop_signal_taken,
    .flush_tlb = hyperv_flush_tlb,
    .send_ipi_mask = hyperv_send_ipi_mask,
    .describe = hyperv_describe,
};
