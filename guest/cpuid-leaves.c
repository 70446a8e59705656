/* SPDX-License-Identifier: GPL-2.0-only */
/* Scan the hypervisor CPUID range for a known L0 (pure; unit-tested). */

#include <guest/cpuid-leaves.h>
#include <shimk/string.h>

static void signature_of(const struct cpuid_leaf *r, char out[13])
{
    memcpy(out + 0, &r->b, 4);
    memcpy(out + 4, &r->c, 4);
    memcpy(out + 8, &r->d, 4);
    out[12] = '\0';
}

uint32_t hv_find_leaves(cpuid_fn fn, const char *sig, uint32_t min_extra,
                        uint32_t *max_leaf)
{
    for ( uint32_t base = HV_LEAF_FIRST; base <= HV_LEAF_LAST;
          base += HV_LEAF_STEP )
    {
        struct cpuid_leaf r;
        char s[13];

        fn(base, 0, &r);
        signature_of(&r, s);
        if ( memcmp(s, sig, 12) )
            continue;
        if ( r.a < base + min_extra || r.a > base + 0xff )
            continue;
        if ( max_leaf )
            *max_leaf = r.a;
        return base;
    }
    return 0;
}

/*
 * Hyper-V (TLFS 6.0, 2.4): "Microsoft Hv" at 0x40000000 only, the
 * interface signature "Hv#1" in 0x40000001 EAX, and leaves up to at
 * least 0x40000005.
 */
static bool is_hyperv(cpuid_fn fn, uint32_t *max_leaf)
{
    struct cpuid_leaf r;
    char s[13];

    fn(HV_LEAF_FIRST, 0, &r);
    signature_of(&r, s);
    if ( memcmp(s, "Microsoft Hv", 12) || r.a < HV_LEAF_FIRST + 5 ||
         r.a > HV_LEAF_FIRST + 0xff )
        return false;
    *max_leaf = r.a;
    fn(HV_LEAF_FIRST + 1, 0, &r);
    return r.a == 0x31237648; /* "Hv#1" */
}

static void found(struct hv_leaves *out, enum hv_type type, uint32_t base,
                  uint32_t max_leaf, const char *sig)
{
    out->type = type;
    out->base = base;
    out->max_leaf = max_leaf;
    memcpy(out->signature, sig, 12);
    out->signature[12] = '\0';
}

void hv_detect(cpuid_fn fn, bool hypervisor_bit, struct hv_leaves *out)
{
    static const char xen_sig[] = "XenVMMXenVMM";
    static const char kvm_sig[] = "KVMKVMKVM\0\0\0";
    static const char tcg_sig[] = "TCGTCGTCGTCG";
    struct cpuid_leaf r;
    uint32_t base, max = 0;

    memset(out, 0, sizeof(*out));
    out->type = HV_NONE;
    if ( !hypervisor_bit )
        return;

    /* Xen: base+2 (the hypercall MSR leaf) must exist, as Xen checks. */
    if ( (base = hv_find_leaves(fn, xen_sig, 2, &max)) )
    {
        found(out, HV_XEN, base, max, xen_sig);
        return;
    }

    if ( is_hyperv(fn, &max) )
    {
        found(out, HV_HYPERV, HV_LEAF_FIRST, max, "Microsoft Hv");
        /* KVM moves its own leaves up when it emulates Hyper-V's. */
        if ( (base = hv_find_leaves(fn, kvm_sig, 1, &max)) )
        {
            out->other_type = HV_KVM;
            out->other_base = base;
            out->other_max_leaf = max;
            memcpy(out->other_signature, kvm_sig, 12);
        }
        return;
    }

    if ( (base = hv_find_leaves(fn, kvm_sig, 1, &max)) )
    {
        found(out, HV_KVM, base, max, kvm_sig);
        return;
    }
    /*
     * KVM documents (Documentation/virt/kvm/x86/cpuid.rst) that EAX 0
     * at 0x40000000 means 0x40000001 is the highest leaf.
     */
    fn(HV_LEAF_FIRST, 0, &r);
    signature_of(&r, out->signature);
    if ( !memcmp(out->signature, kvm_sig, 12) && r.a == 0 )
    {
        found(out, HV_KVM, HV_LEAF_FIRST, HV_LEAF_FIRST + 1, kvm_sig);
        return;
    }

    if ( (base = hv_find_leaves(fn, tcg_sig, 0, &max)) )
    {
        found(out, HV_TCG, base, max, tcg_sig);
        return;
    }

    /* Present but unknown (KVM with kvm=off, for one): show what it says. */
    out->type = HV_UNKNOWN;
    for ( unsigned int i = 0; i < 12; i++ )
        if ( out->signature[i] < 0x20 || out->signature[i] >= 0x7f )
            out->signature[i] = '.';
}

void hv_choose_interface(struct hv_leaves *l, bool use_hyperv,
                         bool kvm_built)
{
    struct hv_leaves was = *l;

    if ( l->type != HV_HYPERV || l->other_type != HV_KVM || use_hyperv ||
         !kvm_built )
        return;
    found(l, HV_KVM, was.other_base, was.other_max_leaf,
          was.other_signature);
    l->other_type = HV_HYPERV;
    l->other_base = was.base;
    l->other_max_leaf = was.max_leaf;
    memcpy(l->other_signature, was.signature, 13);
}

void hv_identify(cpuid_fn fn, bool hypervisor_bit,
                 bool (*hyperv_wanted)(cpuid_fn fn, uint32_t max_leaf),
                 bool kvm_built, struct hv_leaves *out)
{
    hv_detect(fn, hypervisor_bit, out);
    /*
     * KVM with Hyper-V enlightenments offers both interfaces: Hyper-V's
     * when its remote flush is recommended, as that covers running
     * vCPUs, which KVM's PV flush does not; else KVM's own, for steal
     * time and its PV flush (hyperv_flush_wanted(), guest/hyperv/leaves.c).
     */
    if ( out->type == HV_HYPERV )
        hv_choose_interface(out,
                            hyperv_wanted && hyperv_wanted(fn, out->max_leaf),
                            kvm_built);
}

const char *hv_type_name(enum hv_type t)
{
    switch ( t )
    {
    case HV_NONE:
        return "none";
    case HV_XEN:
        return "xen";
    case HV_KVM:
        return "kvm";
    case HV_HYPERV:
        return "hyperv";
    case HV_TCG:
        return "tcg";
    default:
        return "unknown";
    }
}
