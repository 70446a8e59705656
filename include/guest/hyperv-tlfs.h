/* SPDX-License-Identifier: GPL-2.0-only */
/* The Hyper-V interface shimk uses (TLFS), and its pure encodings. */
#ifndef GUEST_HYPERV_TLFS_H
#define GUEST_HYPERV_TLFS_H

#include <guest/cpuid-leaves.h>
#include <shimk/cpumask.h>
#include <shimk/types.h>

/*
 * Written from Microsoft's Hypervisor Top Level Functional
 * Specification (TLFS), as published on learn.microsoft.com
 * (virtualization/hyper-v-on-windows/tlfs/).  Each block names the
 * page and heading it comes from.  Only what shimk uses is here.
 */

/* --- CPUID (TLFS, Feature and Interface Discovery) --- */

/* "Hypervisor System Identity - 0x40000002": build, major.minor. */
#define HV_CPUID_IDENTITY        0x40000002u
/*
 * "Hypervisor Feature Identification - 0x40000003": EBX:EAX is the
 * partition's HV_PARTITION_PRIVILEGE_MASK, EDX further features.
 */
#define HV_CPUID_FEATURES        0x40000003u
/* "Implementation Recommendations - 0x40000004". */
#define HV_CPUID_RECOMMENDATIONS 0x40000004u
/* "Hypervisor Implementation Limits - 0x40000005". */
#define HV_CPUID_LIMITS          0x40000005u

/* HV_PARTITION_PRIVILEGE_MASK bits (TLFS, datatypes/HV_PARTITION_...). */
#define HV_PRIV_VP_RUNTIME       (1ull << 0)
#define HV_PRIV_TIME_REF_COUNT   (1ull << 1)
#define HV_PRIV_SYNIC            (1ull << 2)
#define HV_PRIV_SYNTHETIC_TIMERS (1ull << 3)
#define HV_PRIV_APIC_MSRS        (1ull << 4)
#define HV_PRIV_HYPERCALL_MSRS   (1ull << 5)    /* GUEST_OS_ID, HYPERCALL */
#define HV_PRIV_VP_INDEX         (1ull << 6)
#define HV_PRIV_RESET            (1ull << 7)
#define HV_PRIV_REFERENCE_TSC    (1ull << 9)
#define HV_PRIV_GUEST_IDLE       (1ull << 10)
#define HV_PRIV_FREQUENCY_MSRS   (1ull << 11)
#define HV_PRIV_POST_MESSAGES    (1ull << (32 + 4))
#define HV_PRIV_SIGNAL_EVENTS    (1ull << (32 + 5))

/* 0x40000003 EDX. */
#define HV_FEAT_XMM_INPUT        (1u << 4)
#define HV_FEAT_EXT_GVA_RANGES   (1u << 14)     /* large-page GVA entries */

/* 0x40000004 EAX. */
#define HV_REC_REMOTE_FLUSH      (1u << 2)  /* flush hypercalls over IPIs */
#define HV_REC_APIC_MSRS         (1u << 3)
#define HV_REC_RELAXED_TIMING    (1u << 5)
#define HV_REC_CLUSTER_IPI       (1u << 10) /* HvCallSendSyntheticClusterIpi */
#define HV_REC_EX_MASKS          (1u << 11) /* the Ex forms, HV_VP_SET */
#define HV_REC_NESTED            (1u << 12)

/* --- MSRs --- */

/* TLFS, Hypercall Interface: "Reporting the Guest OS Identity". */
#define HV_X64_MSR_GUEST_OS_ID   0x40000000u
/* TLFS, Hypercall Interface: "Establishing the Hypercall Interface". */
#define HV_X64_MSR_HYPERCALL     0x40000001u
#define HV_HYPERCALL_ENABLE      (1ull << 0)
#define HV_HYPERCALL_LOCKED      (1ull << 1)
#define HV_HYPERCALL_GPFN_SHIFT  12
/* TLFS, Virtual Processor Properties: "Virtual Processor Indices". */
#define HV_X64_MSR_VP_INDEX      0x40000002u
/*
 * TLFS, "Partition Reference Counter"/"Frequency MSRs": the TSC's rate
 * in Hz, readable with HV_PRIV_FREQUENCY_MSRS (Linux: hv_get_tsc_khz()).
 */
#define HV_X64_MSR_TSC_FREQUENCY 0x40000022u

/*
 * The open-source encoding of the guest OS id ("Guest OS Identity MSR
 * for Open Source Operating Systems"): bit 63 set, OS type in 62:56.
 * Microsoft allocates OS types and has none for shimk, so the type is
 * 0; every other field is shimk's own.  Any non-zero value enables the
 * hypercall page.
 */
#define HV_GUEST_OS_ID_OPEN_SOURCE (1ull << 63)

/* --- Hypercalls (TLFS, Hypercall Interface) --- */

/* "Hypercall Inputs": the input value, RCX. */
#define HV_HCALL_FAST            (1ull << 16)
#define HV_HCALL_VARHEAD_SHIFT   17      /* 26:17, in 8-byte units */
#define HV_HCALL_VARHEAD_MAX     0x3ffu
#define HV_HCALL_REP_COUNT_SHIFT 32      /* 43:32 */
#define HV_HCALL_REP_START_SHIFT 48      /* 59:48 */
#define HV_HCALL_REP_MAX         0xfffu

/* "Hypercall Outputs": the result value, RAX. */
#define HV_RESULT_STATUS_MASK    0xffffull       /* 15:0 */
#define HV_RESULT_REPS_SHIFT     32              /* 43:32 */

/* Call codes, each from its own page under hypercalls/. */
#define HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE    0x0002  /* simple */
#define HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST     0x0003  /* rep */
#define HVCALL_SEND_SYNTHETIC_CLUSTER_IPI     0x000b  /* simple, fast */
#define HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE_EX 0x0013  /* simple, var hdr */
#define HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST_EX  0x0014  /* rep, var hdr */
#define HVCALL_SEND_SYNTHETIC_CLUSTER_IPI_EX  0x0015  /* simple, var hdr */

/*
 * HV_STATUS values: the common ones ("Hypercall Status Codes") and the
 * timeout a long call may end with.  The numbers are those of the
 * TLFS's status code appendix (also in Linux's hyperv-tlfs headers).
 */
#define HV_STATUS_SUCCESS                 0x0000
#define HV_STATUS_INVALID_HYPERCALL_CODE  0x0002
#define HV_STATUS_INVALID_HYPERCALL_INPUT 0x0003
#define HV_STATUS_INVALID_ALIGNMENT       0x0004
#define HV_STATUS_INVALID_PARAMETER       0x0005
#define HV_STATUS_ACCESS_DENIED           0x0006
#define HV_STATUS_INSUFFICIENT_MEMORY     0x000b
#define HV_STATUS_TIME_OUT                0x0078

/* HV_FLUSH_FLAGS (hypercalls/HvCallFlushVirtualAddressSpace). */
#define HV_FLUSH_ALL_PROCESSORS             (1ull << 0)
#define HV_FLUSH_ALL_VIRTUAL_ADDRESS_SPACES (1ull << 1)
#define HV_FLUSH_NON_GLOBAL_MAPPINGS_ONLY   (1ull << 2)

/* HV_VP_SET formats (datatypes/HV_VP_SET). */
#define HV_GENERIC_SET_SPARSE_4K 0ull
#define HV_GENERIC_SET_ALL       1ull
#define HV_VPS_PER_BANK          64u
#define HV_MAX_BANKS             64u     /* valid_bank_mask has 64 bits */

/*
 * A GVA list entry (hypercalls/HvCallFlushVirtualAddressList): the page
 * number in bits 63:12, the number of pages after the first in 11:0,
 * so one entry covers 1 to 4096 pages.
 */
#define HV_GVA_EXTRA_MASK        0xfffull
#define HV_GVA_MAX_PAGES         4096u

/* The input page: one hypervisor page, 8-byte words. */
#define HV_PAGE_SIZE             4096u
#define HV_PAGE_WORDS            (HV_PAGE_SIZE / 8)

/* "HvCallSendSyntheticClusterIpi": vectors 0x10 to 0xff only. */
#define HV_IPI_VECTOR_MIN        0x10u
#define HV_IPI_VECTOR_MAX        0xffu

/* --- the CPUID leaves, parsed (guest/hyperv/leaves.c; pure) --- */

struct hyperv_leaves
{
    uint32_t max_leaf;
    uint32_t build;             /* 0x40000002 EAX */
    uint16_t major, minor;      /* 0x40000002 EBX 31:16, 15:0 */
    uint64_t privileges;        /* 0x40000003 EBX:EAX */
    uint32_t features;          /* 0x40000003 EDX */
    uint32_t recommendations;   /* 0x40000004 EAX */
    uint32_t spin_retries;      /* 0x40000004 EBX; ~0: never notify */
    uint32_t max_vps, max_lps;  /* 0x40000005 EAX, EBX; 0: not said */
};

/*
 * Read leaves 0x40000002-0x40000005 through fn.  max_leaf is EAX of
 * 0x40000000 (at least 0x40000005 once hv_detect() said Hyper-V);
 * leaves above it read as zero.
 */
void hyperv_read_leaves(cpuid_fn fn, uint32_t max_leaf,
                        struct hyperv_leaves *out);

/* May shimk make hypercalls: the hypercall MSRs and the VP index MSR? */
bool hyperv_hypercalls_usable(const struct hyperv_leaves *l);

/*
 * Should the Hyper-V backend flush, rather than IPIs or another
 * interface?  Hypercalls usable and the remote flush recommended.
 */
bool hyperv_flush_wanted(const struct hyperv_leaves *l);

/* Does the L0 recommend the cluster IPI / the Ex (VP set) forms? */
bool hyperv_cluster_ipi_wanted(const struct hyperv_leaves *l);
bool hyperv_ex_recommended(const struct hyperv_leaves *l);

/* What the L0 offers, for the hypervisor line ("hypercall vp-index ..."). */
void hyperv_offer_names(const struct hyperv_leaves *l, char *buf,
                        size_t size);

/* --- encodings (guest/hyperv/hcall.c; pure) --- */

/* The input value; 0 if a field does not fit its bits. */
uint64_t hv_control(uint16_t code, bool fast, unsigned int varhead,
                    unsigned int rep_count, unsigned int rep_start);

static inline uint16_t hv_result_status(uint64_t result)
{
    return (uint16_t)(result & HV_RESULT_STATUS_MASK);
}

static inline unsigned int hv_result_reps(uint64_t result)
{
    return (unsigned int)(result >> HV_RESULT_REPS_SHIFT) & HV_HCALL_REP_MAX;
}

/* A -errno for an HV_STATUS (0 for success). */
int hv_status_errno(uint16_t status);

/*
 * The target VP indices of the CPUs in mask, through vp_of (~0u: the
 * CPU has none).  Returns how many, or -ENXIO for a CPU without one.
 * *max_vp gets the highest index (0 when none).
 */
int hv_collect_vps(const cpumask_t *mask, uint32_t (*vp_of)(unsigned int),
                   uint32_t *vps, unsigned int max, uint32_t *max_vp);

/* The 64-bit processor mask of the plain forms; -ERANGE for a VP >= 64. */
int hv_vp_mask(const uint32_t *vps, unsigned int n, uint64_t *mask);

/*
 * A sparse HV_VP_SET in out (format, valid_bank_mask, then one 64-bit
 * bank per set bit of the mask, lowest bank first).  Returns the words
 * written (2 + banks), or -ERANGE when a VP's bank is past
 * HV_MAX_BANKS or the set does not fit max_words.
 */
int hv_vp_set_sparse(const uint32_t *vps, unsigned int n, uint64_t *out,
                     unsigned int max_words);

/* HV_GENERIC_SET_ALL: 2 words, no banks. */
unsigned int hv_vp_set_all(uint64_t *out);

/*
 * One GVA list entry for npages (1 to HV_GVA_MAX_PAGES) pages from the
 * page holding va.
 */
uint64_t hv_gva_entry(uint64_t va, unsigned int npages);

/*
 * Fill up to max entries covering the *npages pages from *va (page
 * aligned down), each as large as the 12-bit count allows; advances
 * *va and *npages past what was written.  Returns the entries written.
 */
unsigned int hv_gva_fill(uint64_t *list, unsigned int max, uint64_t *va,
                         uint64_t *npages);

/*
 * Rep continuation ("Hypercall Classes" and "Hypercall Outputs"): a rep
 * call may return with fewer reps done than asked, with
 * HV_STATUS_SUCCESS or HV_STATUS_TIME_OUT; reps completed counts from
 * the start of the list, not from the start index.  The caller reissues
 * with the start index at that count.
 */
#define HV_REP_MAX_STALLS 16u   /* reissues in a row with no progress */

struct hv_rep
{
    uint64_t control;       /* the next call's input value */
    unsigned int stalls;
};

void hv_rep_begin(struct hv_rep *r, uint64_t control);

/*
 * After a call returned result: 0 when every rep is done, 1 to issue
 * r->control again (its start index moved on), or a -errno: the
 * status's, -EIO for a count past the rep count or going backwards,
 * -ETIMEDOUT after HV_REP_MAX_STALLS calls with no progress.  A simple
 * call (rep count 0) is done or failed by its status alone.
 */
int hv_rep_next(struct hv_rep *r, uint64_t result);

/* --- flush and IPI requests, laid out for the input page --- */

/*
 * How shimk's flush flags (asm/flushtlb.h) map to a Hyper-V flush: a
 * GVA list for va with 2^order pages up to FLUSH_INVLPG_CEILING (as a
 * local flush would use INVLPG), else the whole space.  Every address
 * space is flushed (shimk switches CR3 and may use PCIDs); a space
 * flush without FLUSH_TLB_GLOBAL may keep global entries.
 */
struct hv_flush_req
{
    bool ex;                /* the Ex forms, with an HV_VP_SET */
    bool list;              /* a GVA list, else the whole space */
    bool all;               /* every VP (the processor set ignored) */
    const uint32_t *vps;    /* otherwise these */
    unsigned int nr_vps;
    uint64_t hv_flags;      /* HV_FLUSH_* */
    uint64_t va;            /* list: the range still to flush */
    uint64_t npages;
};

void hv_flush_plan(unsigned int flags, const void *va, bool all,
                   struct hv_flush_req *req);

/*
 * Lay out one flush call in page (HV_PAGE_WORDS words): the header for
 * req's form, then as much of the GVA list as fits (req->va and
 * req->npages advance past it).  *control gets the input value (rep
 * count: the entries written).  0, or -ERANGE when the targets cannot
 * be named in this form.
 */
int hv_flush_build(uint64_t *page, struct hv_flush_req *req,
                   uint64_t *control);

/*
 * A cluster IPI.  Plain form: a fast call, *in and *out (RDX, R8) carry
 * the vector and the processor mask, page unused.  Ex form: the input
 * is laid out in page.  0, -EINVAL for a vector outside 0x10-0xff, or
 * -ERANGE when the targets cannot be named in this form.
 */
int hv_ipi_build(uint64_t *page, bool ex, unsigned int vector,
                 const uint32_t *vps, unsigned int nr_vps,
                 uint64_t *control, uint64_t *in, uint64_t *out);

#endif /* GUEST_HYPERV_TLFS_H */
