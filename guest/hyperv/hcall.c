/* SPDX-License-Identifier: GPL-2.0-only */
/* Hyper-V hypercall encodings: inputs, results, VP sets, GVA lists (pure). */

#include <guest/hyperv-tlfs.h>
#include <shimk/bitops.h>
#include <shimk/errno.h>
#include <shimk/string.h>
#include <asm/flushtlb.h>

/* TLFS, Hypercall Interface: "Hypercall Inputs". */
uint64_t hv_control(uint16_t code, bool fast, unsigned int varhead,
                    unsigned int rep_count, unsigned int rep_start)
{
    if ( varhead > HV_HCALL_VARHEAD_MAX || rep_count > HV_HCALL_REP_MAX ||
         rep_start > HV_HCALL_REP_MAX )
        return 0;
    return (uint64_t)code | (fast ? HV_HCALL_FAST : 0) |
           (uint64_t)varhead << HV_HCALL_VARHEAD_SHIFT |
           (uint64_t)rep_count << HV_HCALL_REP_COUNT_SHIFT |
           (uint64_t)rep_start << HV_HCALL_REP_START_SHIFT;
}

int hv_status_errno(uint16_t status)
{
    switch ( status )
    {
    case HV_STATUS_SUCCESS:
        return 0;
    case HV_STATUS_INVALID_HYPERCALL_CODE:
        return -ENOSYS;
    case HV_STATUS_INVALID_HYPERCALL_INPUT:
    case HV_STATUS_INVALID_ALIGNMENT:
    case HV_STATUS_INVALID_PARAMETER:
        return -EINVAL;
    case HV_STATUS_ACCESS_DENIED:
        return -EACCES;
    case HV_STATUS_INSUFFICIENT_MEMORY:
        return -ENOMEM;
    case HV_STATUS_TIME_OUT:
        return -ETIMEDOUT;
    default:
        return -EIO;
    }
}

int hv_collect_vps(const cpumask_t *mask, uint32_t (*vp_of)(unsigned int),
                   uint32_t *vps, unsigned int max, uint32_t *max_vp)
{
    unsigned int cpu, n = 0;

    *max_vp = 0;
    for_each_cpu ( cpu, mask )
    {
        uint32_t vp = vp_of(cpu);

        /* A CPU whose VP index was never read cannot be named. */
        if ( vp == ~0u )
            return -ENXIO;
        if ( n == max )
            return -E2BIG;
        vps[n++] = vp;
        if ( vp > *max_vp )
            *max_vp = vp;
    }
    return (int)n;
}

/*
 * The plain forms' ProcessorMask: bit n for VP index n
 * (hypercalls/HvCallFlushVirtualAddressSpace), so VPs 0-63 only.
 */
int hv_vp_mask(const uint32_t *vps, unsigned int n, uint64_t *mask)
{
    *mask = 0;
    for ( unsigned int i = 0; i < n; i++ )
    {
        if ( vps[i] >= 64 )
            return -ERANGE;
        *mask |= 1ull << vps[i];
    }
    return 0;
}

/*
 * datatypes/HV_VP_SET, "Sparse Virtual Processor Set": VP n is bit
 * n % 64 of bank n / 64; ValidBanksMask has a bit per bank present,
 * and BankContents holds the present banks only, in bank order.
 */
int hv_vp_set_sparse(const uint32_t *vps, unsigned int n, uint64_t *out,
                     unsigned int max_words)
{
    uint64_t valid = 0;
    unsigned int banks;

    for ( unsigned int i = 0; i < n; i++ )
    {
        if ( vps[i] / HV_VPS_PER_BANK >= HV_MAX_BANKS )
            return -ERANGE;
        valid |= 1ull << (vps[i] / HV_VPS_PER_BANK);
    }
    banks = hweight64(valid);
    if ( 2 + banks > max_words )
        return -ERANGE;
    out[0] = HV_GENERIC_SET_SPARSE_4K;
    out[1] = valid;
    memset(&out[2], 0, banks * sizeof(out[0]));
    for ( unsigned int i = 0; i < n; i++ )
    {
        unsigned int bank = vps[i] / HV_VPS_PER_BANK;
        /* Its place among the banks present: those below it. */
        unsigned int slot = hweight64(valid & ((1ull << bank) - 1));

        out[2 + slot] |= 1ull << (vps[i] % HV_VPS_PER_BANK);
    }
    return (int)(2 + banks);
}

unsigned int hv_vp_set_all(uint64_t *out)
{
    /* Format 1: every VP of the partition; no banks follow. */
    out[0] = HV_GENERIC_SET_ALL;
    out[1] = 0;
    return 2;
}

/*
 * hypercalls/HvCallFlushVirtualAddressList: "the bottom 12 bits of the
 * GVA can be used to define a range length ... the number of
 * additional pages (beyond the initial page)".
 */
uint64_t hv_gva_entry(uint64_t va, unsigned int npages)
{
    if ( npages < 1 )
        npages = 1;
    if ( npages > HV_GVA_MAX_PAGES )
        npages = HV_GVA_MAX_PAGES;
    return (va & ~HV_GVA_EXTRA_MASK) | (npages - 1);
}

unsigned int hv_gva_fill(uint64_t *list, unsigned int max, uint64_t *va,
                         uint64_t *npages)
{
    unsigned int n = 0;

    *va &= ~HV_GVA_EXTRA_MASK;
    while ( n < max && *npages )
    {
        unsigned int chunk = *npages > HV_GVA_MAX_PAGES ? HV_GVA_MAX_PAGES
                                                        : (unsigned int)*npages;

        list[n++] = hv_gva_entry(*va, chunk);
        *va += (uint64_t)chunk << 12;
        *npages -= chunk;
    }
    return n;
}

void hv_rep_begin(struct hv_rep *r, uint64_t control)
{
    r->control = control;
    r->stalls = 0;
}

int hv_rep_next(struct hv_rep *r, uint64_t result)
{
    uint16_t status = hv_result_status(result);
    unsigned int done = hv_result_reps(result);
    unsigned int count = (r->control >> HV_HCALL_REP_COUNT_SHIFT) &
                         HV_HCALL_REP_MAX;
    unsigned int start = (r->control >> HV_HCALL_REP_START_SHIFT) &
                         HV_HCALL_REP_MAX;

    /* A simple call has no reps to go on with: its status is all. */
    if ( !count )
        return hv_status_errno(status);
    /*
     * Any other status is an error; the reps done before it are wasted
     * (the caller falls back for the whole request, and flushing twice
     * is harmless).
     */
    if ( status != HV_STATUS_SUCCESS && status != HV_STATUS_TIME_OUT )
        return hv_status_errno(status);
    if ( done > count || done < start )
        return -EIO;
    if ( done == count )
        return 0;
    /* Reissue from the first rep not done, but not forever. */
    if ( done == start )
    {
        if ( ++r->stalls >= HV_REP_MAX_STALLS )
            return -ETIMEDOUT;
    }
    else
        r->stalls = 0;
    r->control = (r->control &
                  ~((uint64_t)HV_HCALL_REP_MAX << HV_HCALL_REP_START_SHIFT)) |
                 (uint64_t)done << HV_HCALL_REP_START_SHIFT;
    return 1;
}

void hv_flush_plan(unsigned int flags, const void *va, bool all,
                   struct hv_flush_req *req)
{
    int order = flush_order(flags);

    memset(req, 0, sizeof(*req));
    req->all = all;
    /*
     * Every address space: shimk has a CR3 per task and may tag them
     * with PCIDs, and the L0 is not told which CR3 a mapping was in.
     */
    req->hv_flags = HV_FLUSH_ALL_VIRTUAL_ADDRESS_SPACES;
    if ( va && order >= 0 && order < 32 &&
         (1u << order) <= FLUSH_INVLPG_CEILING )
    {
        /*
         * A list entry drops global translations too, as INVLPG does;
         * NON_GLOBAL_MAPPINGS_ONLY is invalid on the list calls.
         */
        req->list = true;
        req->va = (uint64_t)(uintptr_t)va;
        req->npages = 1ull << order;
    }
    else if ( !(flags & FLUSH_TLB_GLOBAL) )
        req->hv_flags |= HV_FLUSH_NON_GLOBAL_MAPPINGS_ONLY;
}

int hv_flush_build(uint64_t *page, struct hv_flush_req *req,
                   uint64_t *control)
{
    unsigned int head, varhead = 0, reps = 0;
    uint16_t code;

    /* AddressSpace is ignored with ALL_VIRTUAL_ADDRESS_SPACES. */
    page[0] = 0;
    page[1] = req->hv_flags;
    if ( !req->ex )
    {
        /* hypercalls/HvCallFlushVirtualAddressSpace and ...List. */
        if ( req->all )
        {
            page[1] |= HV_FLUSH_ALL_PROCESSORS;
            page[2] = 0;
        }
        else if ( hv_vp_mask(req->vps, req->nr_vps, &page[2]) )
            return -ERANGE;
        head = 3;
        code = req->list ? HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST
                         : HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE;
    }
    else
    {
        /*
         * The ...Ex pages: an HV_VP_SET at offset 16.  Its banks are
         * the variable header ("Variable Sized Hypercall Input
         * Headers"); the set names every VP itself.
         */
        int words = req->all ? (int)hv_vp_set_all(&page[2])
                             : hv_vp_set_sparse(req->vps, req->nr_vps,
                                                &page[2], HV_PAGE_WORDS - 3);

        if ( words < 0 )
            return -ERANGE;
        head = 2 + (unsigned int)words;
        varhead = (unsigned int)words - 2;
        code = req->list ? HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST_EX
                         : HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE_EX;
    }
    /* The rep elements follow the whole header, fixed and variable. */
    if ( req->list )
    {
        unsigned int room = HV_PAGE_WORDS - head;

        if ( room > HV_HCALL_REP_MAX )
            room = HV_HCALL_REP_MAX;
        reps = hv_gva_fill(&page[head], room, &req->va, &req->npages);
        if ( !reps )
            return -EINVAL;     /* a rep call needs at least one rep */
    }
    *control = hv_control(code, false, varhead, reps, 0);
    return 0;
}

int hv_ipi_build(uint64_t *page, bool ex, unsigned int vector,
                 const uint32_t *vps, unsigned int nr_vps,
                 uint64_t *control, uint64_t *in, uint64_t *out)
{
    int words;

    if ( vector < HV_IPI_VECTOR_MIN || vector > HV_IPI_VECTOR_MAX )
        return -EINVAL;
    if ( !ex )
    {
        /*
         * hypercalls/HvCallSendSyntheticClusterIpi, as a fast call:
         * the first 8 input bytes (Vector, TargetVtl 0 for the
         * caller's own VTL, padding) in RDX, ProcessorMask in R8.
         */
        if ( hv_vp_mask(vps, nr_vps, out) )
            return -ERANGE;
        *in = vector;
        *control = hv_control(HVCALL_SEND_SYNTHETIC_CLUSTER_IPI, true, 0, 0,
                              0);
        return 0;
    }
    /* ...IpiEx: the same first 8 bytes, then an HV_VP_SET at offset 8. */
    page[0] = vector;
    words = hv_vp_set_sparse(vps, nr_vps, &page[1], HV_PAGE_WORDS - 1);
    if ( words < 0 )
        return -ERANGE;
    *in = *out = 0;
    *control = hv_control(HVCALL_SEND_SYNTHETIC_CLUSTER_IPI_EX, false,
                          (unsigned int)words - 2, 0, 0);
    return 0;
}
