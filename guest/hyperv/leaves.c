/* SPDX-License-Identifier: GPL-2.0-only */
/* Hyper-V CPUID leaves 0x40000002-0x40000005, parsed (pure; unit-tested). */

#include <guest/hyperv-tlfs.h>
#include <shimk/printk.h>
#include <shimk/string.h>

/*
 * TLFS, Feature and Interface Discovery.  hv_detect() has already seen
 * "Microsoft Hv" and "Hv#1" with a maximum leaf of at least
 * 0x40000005, which the TLFS says implies these leaves and the three
 * MSRs; the privilege bits still say which of them this partition may
 * touch.
 */
void hyperv_read_leaves(cpuid_fn fn, uint32_t max_leaf,
                        struct hyperv_leaves *out)
{
    struct cpuid_leaf r;

    memset(out, 0, sizeof(*out));
    out->max_leaf = max_leaf;
    if ( max_leaf < HV_CPUID_LIMITS )
        return;

    /* "Hypervisor System Identity - 0x40000002". */
    fn(HV_CPUID_IDENTITY, 0, &r);
    out->build = r.a;
    out->major = (uint16_t)(r.b >> 16);
    out->minor = (uint16_t)r.b;

    /*
     * "Hypervisor Feature Identification - 0x40000003": EAX is bits
     * 31:0 of HV_PARTITION_PRIVILEGE_MASK, EBX bits 63:32.
     */
    fn(HV_CPUID_FEATURES, 0, &r);
    out->privileges = (uint64_t)r.b << 32 | r.a;
    out->features = r.d;

    /* "Implementation Recommendations - 0x40000004". */
    fn(HV_CPUID_RECOMMENDATIONS, 0, &r);
    out->recommendations = r.a;
    out->spin_retries = r.b;

    /* "Hypervisor Implementation Limits - 0x40000005". */
    fn(HV_CPUID_LIMITS, 0, &r);
    out->max_vps = r.a;
    out->max_lps = r.b;
}

bool hyperv_hypercalls_usable(const struct hyperv_leaves *l)
{
    /*
     * AccessHypercallMsrs covers GUEST_OS_ID and HYPERCALL; without
     * AccessVpIndex no target could be named.
     */
    return (l->privileges & HV_PRIV_HYPERCALL_MSRS) &&
           (l->privileges & HV_PRIV_VP_INDEX);
}

bool hyperv_flush_wanted(const struct hyperv_leaves *l)
{
    return hyperv_hypercalls_usable(l) &&
           (l->recommendations & HV_REC_REMOTE_FLUSH);
}

bool hyperv_leaves_want_flush(cpuid_fn fn, uint32_t max_leaf)
{
    struct hyperv_leaves l;

    hyperv_read_leaves(fn, max_leaf, &l);
    return hyperv_flush_wanted(&l);
}

bool hyperv_cluster_ipi_wanted(const struct hyperv_leaves *l)
{
    return hyperv_hypercalls_usable(l) &&
           (l->recommendations & HV_REC_CLUSTER_IPI);
}

bool hyperv_ex_recommended(const struct hyperv_leaves *l)
{
    return l->recommendations & HV_REC_EX_MASKS;
}

void hyperv_offer_names(const struct hyperv_leaves *l, char *buf,
                        size_t size)
{
    static const struct
    {
        uint64_t priv;          /* a privilege bit, or 0 */
        uint32_t rec;           /* else a recommendation bit, or 0 */
        uint32_t feat;          /* else a feature bit (0x40000003 EDX) */
        const char *name;
    } names[] = {
        { HV_PRIV_HYPERCALL_MSRS, 0, 0, "hypercall" },
        { HV_PRIV_VP_INDEX, 0, 0, "vp-index" },
        { HV_PRIV_VP_RUNTIME, 0, 0, "vp-runtime" },
        { HV_PRIV_TIME_REF_COUNT, 0, 0, "time-ref" },
        { HV_PRIV_REFERENCE_TSC, 0, 0, "ref-tsc" },
        { HV_PRIV_SYNIC, 0, 0, "synic" },
        { HV_PRIV_SYNTHETIC_TIMERS, 0, 0, "stimer" },
        { HV_PRIV_APIC_MSRS, 0, 0, "apic-msrs" },
        { HV_PRIV_FREQUENCY_MSRS, 0, 0, "frequencies" },
        { 0, HV_REC_REMOTE_FLUSH, 0, "flush" },
        { 0, HV_REC_EX_MASKS, 0, "ex-masks" },
        /*
         * Offered by a KVM of 6.2 or later under QEMU's hv-tlbflush-ext;
         * shimk's GVA entries keep the page-and-count form, which is all
         * KVM decodes (docs/kvm-nested.md).
         */
        { 0, 0, HV_FEAT_EXT_GVA_RANGES, "ext-gva-ranges" },
        { 0, HV_REC_CLUSTER_IPI, 0, "cluster-ipi" },
        { 0, HV_REC_RELAXED_TIMING, 0, "relaxed-timing" },
        { 0, HV_REC_NESTED, 0, "nested" },
    };
    size_t n = 0;

    buf[0] = '\0';
    for ( unsigned int i = 0; i < sizeof(names) / sizeof(names[0]); i++ )
    {
        bool on = names[i].priv ? (l->privileges & names[i].priv) != 0
                  : names[i].rec ? (l->recommendations & names[i].rec) != 0
                                 : (l->features & names[i].feat) != 0;

        if ( on && n < size )
            n += ksnprintf(buf + n, size - n, "%s%s", n ? " " : "",
                           names[i].name);
    }
}
