/* SPDX-License-Identifier: GPL-2.0-only */
/* Hyper-V hooks: remote TLB flush and cluster IPI by hypercall. */
/* Modelled in tests/model/shootdown.pml (docs/model.md): change both. */

#include "private.h"

#include <guest/hypervisor-ops.h>
#include <shimk/errno.h>
#include <asm/flushtlb.h>
#include <asm/percpu.h>
#include <asm/processor.h>
#include <asm/smp.h>

/*
 * The flush hook is reached only through hypervisor_flush_tlb(), which
 * flush_area_mask() calls with pure TLB flags and never for
 * FLUSH_NO_ASSIST (flush_may_assist()), and which assisted-flush= and
 * assisted-flush-fault= govern.  Its contract (guest/hypervisor-ops.h):
 * 0 when every CPU in the mask has flushed by the time it returns,
 * which the TLFS promises for the flush calls ("by the time control
 * returns back to the caller, the observable effects of all flushes on
 * the specified virtual processors have occurred"), and any -errno
 * otherwise, after which the caller sends IPIs to all.
 */

enum hyperv_form hyperv_debug_form;
unsigned int hyperv_debug_malformed;

/*
 * TLFS, Hypercall Interface: "Hypercall Inputs" (RCX the input value,
 * RDX and R8 the input and output GPAs, or the values of a fast call),
 * "Hypercall Outputs" (RAX), and "Establishing the Hypercall
 * Interface": a CALL to the start of the page, which returns like a
 * near RET, so a valid stack is needed.  "Volatile Registers" lets the
 * call change only RAX and, for rep calls, RCX; RDX and R8 are kept
 * as operands and R9-R11 clobbered anyway, since the page's code is the
 * hypervisor's and the Microsoft x64 ABI lets a callee change them.
 */
static uint64_t hv_hypercall(uint64_t control, uint64_t in, uint64_t out)
{
    register uint64_t r8 __asm__("r8") = out;
    uint64_t result;

    __asm__ __volatile__("call *%[page]"
                         : "=a"(result), "+c"(control), "+d"(in), "+r"(r8)
                         : [page] "m"(hyperv_hcall_page)
                         : "r9", "r10", "r11", "cc", "memory");
    return result;
}

static uint32_t vp_of(unsigned int cpu)
{
    return cpu_infos[cpu]->hv_vcpu_id;
}

static bool use_ex(uint32_t max_vp)
{
    if ( hyperv_debug_form != HYPERV_FORM_AUTO )
        return hyperv_debug_form == HYPERV_FORM_EX;
    /* The plain 64-bit mask cannot name VP 64 or above. */
    return hv_use_ex || max_vp >= 64;
}

/* A malformed input value, for hyperv_debug_malformed. */
static uint64_t malform(uint64_t control)
{
    unsigned int reps = (control >> HV_HCALL_REP_COUNT_SHIFT) &
                        HV_HCALL_REP_MAX;

    if ( !reps )
        /* "a non-zero rep count is passed to a non-rep call" */
        return control | 1ull << HV_HCALL_REP_COUNT_SHIFT;
    /* "The rep start index is not less than the rep count." */
    return control | (uint64_t)reps << HV_HCALL_REP_START_SHIFT;
}

static bool take_malformed(void)
{
    unsigned int n = __atomic_load_n(&hyperv_debug_malformed,
                                     __ATOMIC_RELAXED);

    while ( n )
        if ( __atomic_compare_exchange_n(&hyperv_debug_malformed, &n, n - 1,
                                         false, __ATOMIC_RELAXED,
                                         __ATOMIC_RELAXED) )
            return true;
    return false;
}

static void count_call(struct hyperv_counts *c, uint16_t code)
{
    switch ( code )
    {
    case HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE:
        c->flush_space++;
        break;
    case HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST:
        c->flush_list++;
        break;
    case HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE_EX:
        c->flush_space_ex++;
        break;
    case HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST_EX:
        c->flush_list_ex++;
        break;
    case HVCALL_SEND_SYNTHETIC_CLUSTER_IPI:
        c->ipi++;
        break;
    case HVCALL_SEND_SYNTHETIC_CLUSTER_IPI_EX:
        c->ipi_ex++;
        break;
    }
}

/*
 * One call, rep or not, to its end: a rep call the hypervisor returned
 * part-done is issued again from the first rep not done (hv_rep_next()).
 * With interrupts off: the input page is this CPU's, and an interrupt
 * handler's IPI could be using it.
 */
static int issue(struct hv_pcpu *pc, uint64_t control, uint64_t in,
                 uint64_t out)
{
    unsigned int reps = (control >> HV_HCALL_REP_COUNT_SHIFT) &
                        HV_HCALL_REP_MAX;
    struct hv_rep r;
    int rc;

    count_call(&pc->counts, (uint16_t)control);
    hv_rep_begin(&r, control);
    while ( (rc = hv_rep_next(&r, hv_hypercall(r.control, in, out))) > 0 )
        pc->counts.reissued++;
    if ( rc )
        pc->counts.failed++;
    else
        pc->counts.reps += reps;
    return rc;
}

/*
 * Every call a flush request needs: one for a space flush, one per
 * input page of GVA entries for a list.  Interrupts go back on
 * between calls.
 */
static int flush_calls(struct hv_flush_req *req)
{
    do
    {
        unsigned long f = local_irq_save();
        struct hv_pcpu *pc = &hv_pcpu[smp_processor_id()];
        uint64_t control;
        int rc;

        if ( !pc->input )
        {
            local_irq_restore(f);
            return -ENOMEM;     /* this CPU's setup failed */
        }
        rc = hv_flush_build(pc->input, req, &control);
        if ( !rc )
        {
            if ( unlikely(take_malformed()) )
                control = malform(control);
            rc = issue(pc, control, pc->input_pa, 0);
        }
        local_irq_restore(f);
        if ( rc )
            return rc;
    } while ( req->list && req->npages );
    return 0;
}

/* Does mask hold every other online CPU (a flush of all VPs then)? */
static bool all_others(const cpumask_t *mask)
{
    cpumask_t others;

    cpumask_copy(&others, &cpu_online_mask);
    cpumask_clear_cpu(smp_processor_id(), &others);
    return !cpumask_empty(mask) && cpumask_subset(&others, mask);
}

int hyperv_flush_tlb(cpumask_t *mask, const void *va, unsigned int flags)
{
    uint32_t vps[NR_CPUS], max_vp;
    struct hv_flush_req req;
    int n = hv_collect_vps(mask, vp_of, vps, NR_CPUS, &max_vp);

    if ( n < 0 )
        return n;
    /*
     * Flushing every VP flushes this one too, which is harmless; an
     * empty mask (the boot probe) still makes the call, to prove it.
     */
    hv_flush_plan(flags, va, all_others(mask), &req);
    req.vps = vps;
    req.nr_vps = (unsigned int)n;
    req.ex = use_ex(max_vp);
    return flush_calls(&req);
}

int hyperv_flush_range(const cpumask_t *mask, uint64_t va, uint64_t npages)
{
    uint32_t vps[NR_CPUS], max_vp;
    struct hv_flush_req req = {
        .list = true,
        .hv_flags = HV_FLUSH_ALL_VIRTUAL_ADDRESS_SPACES,
        .va = va,
        .npages = npages,
    };
    int n = hv_collect_vps(mask, vp_of, vps, NR_CPUS, &max_vp);

    if ( !hyperv_hcall_page )
        return -EOPNOTSUPP;
    if ( n < 0 )
        return n;
    if ( !npages )
        return -EINVAL;
    req.vps = vps;
    req.nr_vps = (unsigned int)n;
    req.ex = use_ex(max_vp);
    return flush_calls(&req);
}

/*
 * The cluster IPI: the plain form is a fast call (no input page, no
 * memory read by the hypervisor), so it is used whenever every target
 * has a VP index below 64; the Ex form, from the input page, beyond.
 * Called with interrupts off (send_ipi_mask()).
 */
int hyperv_send_ipi_mask(const cpumask_t *mask, unsigned int vector)
{
    uint32_t vps[NR_CPUS], max_vp;
    uint64_t control, in, out;
    struct hv_pcpu *pc;
    unsigned long f;
    bool ex;
    int n = hv_collect_vps(mask, vp_of, vps, NR_CPUS, &max_vp), rc;

    if ( n <= 0 )
        return n;
    ex = hyperv_debug_form != HYPERV_FORM_AUTO ?
             hyperv_debug_form == HYPERV_FORM_EX : max_vp >= 64;
    f = local_irq_save();
    pc = &hv_pcpu[smp_processor_id()];
    if ( ex && !pc->input )
        rc = -ENOMEM;
    else
        rc = hv_ipi_build(pc->input, ex, vector, vps, (unsigned int)n,
                          &control, &in, &out);
    if ( !rc )
        rc = issue(pc, control, ex ? pc->input_pa : in, ex ? 0 : out);
    local_irq_restore(f);
    return rc;
}
