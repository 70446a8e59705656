/* SPDX-License-Identifier: GPL-2.0-only */
/* guest/cpuid-leaves.c against CPUID fixtures recorded from real L0s. */

#include <guest/cpuid-leaves.h>
#include <shimk/compiler.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

/*
 * A fixture is the hypervisor leaves an environment answers, plus what
 * it answers for every other leaf of the range.  Real CPUs and KVM on
 * Intel hosts answer an out-of-range leaf with the highest basic leaf
 * (SDM Vol. 2A, CPUID: "If a value entered for CPUID.EAX is higher
 * than the maximum input value for basic or extended function ...");
 * QEMU's TCG does the same above 0x40000001.  Xen answers zeros.
 */
struct leaf
{
    uint32_t leaf;
    struct cpuid_leaf r;
};

struct fixture
{
    const char *name;
    const struct leaf *leaves;
    unsigned int nr;
    struct cpuid_leaf other;    /* every leaf not listed */
};

/* A 12-byte signature as EBX, ECX, EDX. */
#define SIG(eax, s)                                                        \
    {                                                                      \
        .a = (eax),                                                        \
        .b = (uint32_t)(s)[0] | (uint32_t)(s)[1] << 8 |                    \
             (uint32_t)(s)[2] << 16 | (uint32_t)(s)[3] << 24,              \
        .c = (uint32_t)(s)[4] | (uint32_t)(s)[5] << 8 |                    \
             (uint32_t)(s)[6] << 16 | (uint32_t)(s)[7] << 24,              \
        .d = (uint32_t)(s)[8] | (uint32_t)(s)[9] << 8 |                    \
             (uint32_t)(s)[10] << 16 | (uint32_t)(s)[11] << 24,            \
    }

#define HV_BIT_LEAF(l) (((l) & 0xffff0000u) == 0x40000000u)

/*
 * What TCG and KVM return for leaves they lack: the highest basic
 * leaf's data, which is no signature and no leaf count.
 */
static const struct cpuid_leaf basic_max = { 0x00000014, 0x8f3a92c1,
                                             0x0000a5b3, 0x1d7e6f00 };

/* QEMU 7.2 TCG, -cpu max. */
static const struct leaf tcg_leaves[] = {
    { 0x40000000, SIG(0x40000001, "TCGTCGTCGTCG") },
    { 0x40000001, { 0, 0, 0, 0 } },
};

/* Xen 4.17 HVM/PVH guest, viridian off. */
static const struct leaf xen_leaves[] = {
    { 0x40000000, SIG(0x40000005, "XenVMMXenVMM") },
    { 0x40000001, { 0x00040011, 0, 0, 0 } },
    { 0x40000002, { 1, 0x40000000, 0, 0 } },
    { 0x40000003, { 0, 0, 0, 0 } },
    { 0x40000004, { 0x7c, 0, 0, 0 } },
    { 0x40000005, { 0, 0, 0, 0 } },
};

/* Xen with viridian=1: Hyper-V's leaves first, Xen's moved up by 0x100. */
static const struct leaf xen_viridian_leaves[] = {
    { 0x40000000, SIG(0x40000006, "Microsoft Hv") },
    { 0x40000001, { 0x31237648, 0, 0, 0 } },     /* "Hv#1" */
    { 0x40000002, { 0, 0x00040011, 0, 0 } },
    { 0x40000003, { 0x2e7f, 0, 0, 0x3b2 } },
    { 0x40000004, { 0x2c, 0, 0, 0 } },
    { 0x40000005, { 0xffffffff, 0, 0, 0 } },
    { 0x40000006, { 0, 0, 0, 0 } },
    { 0x40000100, SIG(0x40000105, "XenVMMXenVMM") },
    { 0x40000101, { 0x00040011, 0, 0, 0 } },
    { 0x40000102, { 1, 0x40000000, 0, 0 } },
};

/* Linux KVM, QEMU -cpu host. */
static const struct leaf kvm_leaves[] = {
    { 0x40000000, SIG(0x40000001, "KVMKVMKVM\0\0\0") },
    { 0x40000001, { 0x01007afb, 0, 0, 0 } },
};

/* An old KVM host: EAX 0 at the base means "up to 0x40000001". */
static const struct leaf kvm_old_leaves[] = {
    { 0x40000000, SIG(0, "KVMKVMKVM\0\0\0") },
    { 0x40000001, { 0x000000fb, 0, 0, 0 } },
};

/* Hyper-V (Windows Server 2022) with the TLFS leaves. */
static const struct leaf hyperv_leaves[] = {
    { 0x40000000, SIG(0x4000000b, "Microsoft Hv") },
    { 0x40000001, { 0x31237648, 0, 0, 0 } },
    { 0x40000002, { 0x4f7c, 0xa0000, 0, 0 } },
    { 0x40000003, { 0xbfff, 0x2bb9ff, 0x2, 0x17bb7e } },
    { 0x40000004, { 0x60e24, 0, 0, 0 } },
    { 0x40000005, { 0xf0, 0x400, 0, 0 } },
};

/*
 * Linux 6.1 KVM under QEMU 7.2 with its Hyper-V enlightenments
 * (docs/kvm-nested.md#the-cpuid-leaves-l2-sees): Hyper-V's leaves at
 * 0x40000000, up to 0x40000005, and KVM's own moved to 0x40000100.
 */
static const struct leaf kvm_hv_leaves[] = {
    { 0x40000000, SIG(0x40000005, "Microsoft Hv") },
    { 0x40000001, { 0x31237648, 0, 0, 0 } },
    { 0x40000003, { 0x26f, 0x30, 0, 0x8 } },
    { 0x40000004, { 0xc24, 0xffffffff, 0, 0 } },
    { 0x40000005, { 0, 0, 0, 0 } },
    { 0x40000100, SIG(0x40000101, "KVMKVMKVM\0\0\0") },
    { 0x40000101, { 0x01007afb, 0, 0, 0 } },
};

static const struct fixture tcg = { "tcg", tcg_leaves,
                                    ARRAY_SIZE(tcg_leaves), { 0 } };
static const struct fixture xen = { "xen", xen_leaves,
                                    ARRAY_SIZE(xen_leaves), { 0 } };
static const struct fixture xen_viridian = {
    "xen+viridian", xen_viridian_leaves, ARRAY_SIZE(xen_viridian_leaves),
    { 0 } };
static const struct fixture hyperv = { "hyperv", hyperv_leaves,
                                       ARRAY_SIZE(hyperv_leaves), { 0 } };

static const struct fixture *cur;
static unsigned int calls, hv_calls;

static void fixture_cpuid(uint32_t leaf, uint32_t subleaf,
                          struct cpuid_leaf *out)
{
    calls++;
    if ( HV_BIT_LEAF(leaf) )
        hv_calls++;
    for ( unsigned int i = 0; i < cur->nr; i++ )
        if ( cur->leaves[i].leaf == leaf )
        {
            *out = cur->leaves[i].r;
            return;
        }
    *out = cur->other;
}

static void use(const struct fixture *f)
{
    cur = f;
    calls = hv_calls = 0;
}

static struct hv_leaves detect(const struct fixture *f)
{
    struct hv_leaves out;

    use(f);
    memset(&out, 0xa5, sizeof(out));
    hv_detect(fixture_cpuid, true, &out);
    return out;
}

static void expect(const struct hv_leaves *got, enum hv_type type,
                   uint32_t base, uint32_t max_leaf, const char *sig)
{
    if ( got->type != type )
        print_error("%s: detected %s, want %s\n", cur->name,
                    hv_type_name(got->type), hv_type_name(type));
    assert_int_equal(got->type, type);
    assert_int_equal(got->base, base);
    assert_int_equal(got->max_leaf, max_leaf);
    assert_memory_equal(got->signature, sig, 12);
    assert_int_equal(got->signature[12], '\0');
}

/* --- detection in each environment --------------------------------------- */

static void tcg_max(void **state)
{
    struct fixture f = tcg;
    struct hv_leaves r;

    f.other = basic_max;
    r = detect(&f);
    expect(&r, HV_TCG, 0x40000000, 0x40000001, "TCGTCGTCGTCG");
}

/*
 * TCG's junk above its own leaves must not look like a hypervisor,
 * even where the junk's EAX falls in the range a real one would use.
 */
static void tcg_junk_is_not_a_signature(void **state)
{
    struct fixture f = tcg;
    struct hv_leaves r;

    f.other = (struct cpuid_leaf){ 0x40000105, 0x756e6547, 0x6c65746e,
                                   0x49656e69 };   /* "GenuineIntel" */
    r = detect(&f);
    expect(&r, HV_TCG, 0x40000000, 0x40000001, "TCGTCGTCGTCG");
}

static void xen_plain(void **state)
{
    struct hv_leaves r = detect(&xen);

    expect(&r, HV_XEN, 0x40000000, 0x40000005, "XenVMMXenVMM");
    /* Found at the first base: it stopped looking there. */
    assert_int_equal(hv_calls, 1);
}

/* Viridian puts Hyper-V's signature first; Xen must still win. */
static void xen_with_viridian(void **state)
{
    struct hv_leaves r = detect(&xen_viridian);

    expect(&r, HV_XEN, 0x40000100, 0x40000105, "XenVMMXenVMM");
}

/* Xen may sit at any multiple of 0x100 in the range, up to the last. */
static void xen_at_other_bases(void **state)
{
    static const uint32_t bases[] = { 0x40000200, 0x40001000, 0x4000ff00 };

    for ( unsigned int i = 0; i < ARRAY_SIZE(bases); i++ )
    {
        struct leaf l[] = {
            { bases[i], SIG(bases[i] + 4, "XenVMMXenVMM") },
        };
        struct fixture f = { "xen-moved", l, 1, { 0 } };
        struct hv_leaves r = detect(&f);

        expect(&r, HV_XEN, bases[i], bases[i] + 4, "XenVMMXenVMM");
    }
}

static void kvm(void **state)
{
    struct fixture f = { "kvm", kvm_leaves, ARRAY_SIZE(kvm_leaves),
                         basic_max };
    struct hv_leaves r = detect(&f);

    expect(&r, HV_KVM, 0x40000000, 0x40000001, "KVMKVMKVM\0\0\0");
}

static void kvm_old_host_eax_zero(void **state)
{
    struct fixture f = { "kvm-old", kvm_old_leaves,
                         ARRAY_SIZE(kvm_old_leaves), basic_max };
    struct hv_leaves r = detect(&f);

    expect(&r, HV_KVM, 0x40000000, 0x40000001, "KVMKVMKVM\0\0\0");
}

/*
 * kvm=off hides the signature: 0x40000000 answers like any missing
 * leaf.  Unknown, and the signature shown is made printable.
 */
static void kvm_hidden(void **state)
{
    struct fixture f = { "kvm=off", NULL, 0,
                         { 0x00000001, 0x6f6c6c00, 0x2e2e0a21,
                           0x80414243 } };
    struct hv_leaves r = detect(&f);

    expect(&r, HV_UNKNOWN, 0, 0, ".llo!...CBA.");
}

static void hyperv_alone(void **state)
{
    struct hv_leaves r = detect(&hyperv);

    expect(&r, HV_HYPERV, 0x40000000, 0x4000000b, "Microsoft Hv");
}

/* Hyper-V alone names no other interface. */
static void hyperv_has_no_other(void **state)
{
    struct hv_leaves r = detect(&hyperv);

    assert_int_equal(r.other_type, HV_NONE);
    assert_int_equal(r.other_base, 0);
    assert_string_equal(r.other_signature, "");
    /* Nothing to choose between: the choice changes nothing. */
    hv_choose_interface(&r, false, true);
    expect(&r, HV_HYPERV, 0x40000000, 0x4000000b, "Microsoft Hv");
}

/* KVM with enlightenments: Hyper-V first, KVM's leaves kept beside. */
static void kvm_with_hyperv(void **state)
{
    struct fixture f = { "kvm+hv", kvm_hv_leaves, ARRAY_SIZE(kvm_hv_leaves),
                         basic_max };
    struct hv_leaves r = detect(&f), chosen;

    expect(&r, HV_HYPERV, 0x40000000, 0x40000005, "Microsoft Hv");
    assert_int_equal(r.other_type, HV_KVM);
    assert_int_equal(r.other_base, 0x40000100);
    assert_int_equal(r.other_max_leaf, 0x40000101);
    assert_memory_equal(r.other_signature, "KVMKVMKVM\0\0\0", 13);

    /* Hyper-V's flush recommended (and built): Hyper-V's interface. */
    chosen = r;
    hv_choose_interface(&chosen, true, true);
    assert_memory_equal(&chosen, &r, sizeof(r));

    /* Not recommended, or not built: KVM's, and the two swap. */
    chosen = r;
    hv_choose_interface(&chosen, false, true);
    expect(&chosen, HV_KVM, 0x40000100, 0x40000101, "KVMKVMKVM\0\0\0");
    assert_int_equal(chosen.other_type, HV_HYPERV);
    assert_int_equal(chosen.other_base, 0x40000000);
    assert_int_equal(chosen.other_max_leaf, 0x40000005);
    assert_string_equal(chosen.other_signature, "Microsoft Hv");

    /* Without the KVM backend there is only Hyper-V's to use. */
    chosen = r;
    hv_choose_interface(&chosen, false, false);
    assert_memory_equal(&chosen, &r, sizeof(r));
}

static bool wanted_answer;
static uint32_t wanted_max_leaf;
static unsigned int wanted_calls;

static bool stub_wanted(cpuid_fn fn, uint32_t max_leaf)
{
    wanted_calls++;
    wanted_max_leaf = max_leaf;
    return wanted_answer;
}

/* hv_identify(): the rule shimk and the Linux peer both apply. */
static void identify_is_detect_then_choose(void **state)
{
    struct fixture f = { "kvm+hv", kvm_hv_leaves, ARRAY_SIZE(kvm_hv_leaves),
                         basic_max };
    struct fixture x = { "xen", xen_leaves, ARRAY_SIZE(xen_leaves),
                         basic_max };
    struct hv_leaves r;

    use(&f);
    wanted_answer = true;
    wanted_calls = 0;
    hv_identify(fixture_cpuid, true, stub_wanted, true, &r);
    expect(&r, HV_HYPERV, 0x40000000, 0x40000005, "Microsoft Hv");
    assert_int_equal(wanted_calls, 1);
    assert_int_equal(wanted_max_leaf, 0x40000005);

    wanted_answer = false;
    hv_identify(fixture_cpuid, true, stub_wanted, true, &r);
    expect(&r, HV_KVM, 0x40000100, 0x40000101, "KVMKVMKVM\0\0\0");

    /* Hyper-V's backend not built: KVM's interface. */
    hv_identify(fixture_cpuid, true, NULL, true, &r);
    expect(&r, HV_KVM, 0x40000100, 0x40000101, "KVMKVMKVM\0\0\0");

    /* No Hyper-V: the Hyper-V leaves are not read at all. */
    use(&x);
    wanted_calls = 0;
    hv_identify(fixture_cpuid, true, stub_wanted, true, &r);
    assert_int_equal(r.type, HV_XEN);
    assert_int_equal(wanted_calls, 0);
}

/* "Microsoft Hv" without the "Hv#1" interface is not Hyper-V proper. */
static void hyperv_without_interface(void **state)
{
    struct leaf l[] = {
        { 0x40000000, SIG(0x40000005, "Microsoft Hv") },
        { 0x40000001, { 0x30237648, 0, 0, 0 } },       /* "Hv#0" */
    };
    struct fixture f = { "hv#0", l, ARRAY_SIZE(l), { 0 } };
    struct hv_leaves r = detect(&f);

    expect(&r, HV_UNKNOWN, 0, 0, "Microsoft Hv");
}

/* Hyper-V needs leaves up to 0x40000005. */
static void hyperv_too_few_leaves(void **state)
{
    struct leaf l[] = {
        { 0x40000000, SIG(0x40000004, "Microsoft Hv") },
        { 0x40000001, { 0x31237648, 0, 0, 0 } },
    };
    struct fixture f = { "hv-short", l, ARRAY_SIZE(l), { 0 } };
    struct hv_leaves r = detect(&f);

    expect(&r, HV_UNKNOWN, 0, 0, "Microsoft Hv");
}

/* Xen's hypercall leaf is base + 2: a smaller maximum is not Xen. */
static void xen_max_leaf_too_low(void **state)
{
    struct leaf l[] = {
        { 0x40000000, SIG(0x40000001, "XenVMMXenVMM") },
    };
    struct fixture f = { "xen-short", l, 1, { 0 } };
    struct hv_leaves r = detect(&f);

    expect(&r, HV_UNKNOWN, 0, 0, "XenVMMXenVMM");

    /* base + 2 exactly is enough. */
    l[0].r.a = 0x40000002;
    r = detect(&f);
    expect(&r, HV_XEN, 0x40000000, 0x40000002, "XenVMMXenVMM");
}

/* EAX must lie in [base, base + 0xff]; other values are not leaves. */
static void max_leaf_outside_range(void **state)
{
    static const uint32_t bad[] = { 0x40000100, 0x40000105, 0x4fffffff,
                                    0x00000005, 0x3fffffff };

    for ( unsigned int i = 0; i < ARRAY_SIZE(bad); i++ )
    {
        struct leaf l[] = {
            { 0x40000000, SIG(bad[i], "XenVMMXenVMM") },
        };
        struct fixture f = { "xen-bad-eax", l, 1, { 0 } };
        struct hv_leaves r = detect(&f);

        expect(&r, HV_UNKNOWN, 0, 0, "XenVMMXenVMM");

        l[0].r = (struct cpuid_leaf)SIG(bad[i], "TCGTCGTCGTCG");
        r = detect(&f);
        expect(&r, HV_UNKNOWN, 0, 0, "TCGTCGTCGTCG");
    }

    /* The upper bound itself is a valid maximum. */
    {
        struct leaf l[] = {
            { 0x40000000, SIG(0x400000ff, "KVMKVMKVM\0\0\0") },
        };
        struct fixture f = { "kvm-ff", l, 1, { 0 } };
        struct hv_leaves r = detect(&f);

        expect(&r, HV_KVM, 0x40000000, 0x400000ff, "KVMKVMKVM\0\0\0");
    }
}

/* KVM's signature with EAX naming its own base is not EAX 0 either. */
static void kvm_eax_at_base(void **state)
{
    struct leaf l[] = {
        { 0x40000000, SIG(0x40000000, "KVMKVMKVM\0\0\0") },
    };
    struct fixture f = { "kvm-eax-base", l, 1, { 0 } };
    struct hv_leaves r = detect(&f);

    expect(&r, HV_UNKNOWN, 0, 0, "KVMKVMKVM...");
}

/* A hypervisor bit with nothing behind it: all zeros. */
static void hypervisor_bit_without_leaves(void **state)
{
    struct fixture f = { "zeros", NULL, 0, { 0 } };
    struct hv_leaves r = detect(&f);

    expect(&r, HV_UNKNOWN, 0, 0, "............");
}

/* Bare metal: the hypervisor range is never read. */
static void bare_metal(void **state)
{
    struct fixture f = { "bare", NULL, 0, basic_max };
    struct hv_leaves out;

    use(&f);
    memset(&out, 0xa5, sizeof(out));
    hv_detect(fixture_cpuid, false, &out);
    assert_int_equal(calls, 0);
    assert_int_equal(hv_calls, 0);
    assert_int_equal(out.type, HV_NONE);
    assert_int_equal(out.base, 0);
    assert_int_equal(out.max_leaf, 0);
    assert_string_equal(out.signature, "");
    assert_string_equal(hv_type_name(out.type), "none");
}

/* --- the helpers on their own -------------------------------------------- */

static void find_leaves_scans_whole_range(void **state)
{
    uint32_t max = 0xdead;

    use(&xen);
    assert_int_equal(hv_find_leaves(fixture_cpuid, "KVMKVMKVM\0\0\0", 0,
                                    &max), 0);
    assert_int_equal(max, 0xdead);
    /* Every base from 0x40000000 to 0x4000ff00, once each, and no more. */
    assert_int_equal(calls, 256);
    assert_int_equal(hv_calls, 256);

    use(&xen_viridian);
    assert_int_equal(hv_find_leaves(fixture_cpuid, "XenVMMXenVMM", 2, NULL),
                     0x40000100);
    assert_int_equal(calls, 2);

    /* min_extra: Xen at 0x40000100 offers base + 5 and no more. */
    use(&xen_viridian);
    assert_int_equal(hv_find_leaves(fixture_cpuid, "XenVMMXenVMM", 6, &max),
                     0);
}

static void type_names(void **state)
{
    assert_string_equal(hv_type_name(HV_NONE), "none");
    assert_string_equal(hv_type_name(HV_XEN), "xen");
    assert_string_equal(hv_type_name(HV_KVM), "kvm");
    assert_string_equal(hv_type_name(HV_HYPERV), "hyperv");
    assert_string_equal(hv_type_name(HV_TCG), "tcg");
    assert_string_equal(hv_type_name(HV_UNKNOWN), "unknown");
    assert_string_equal(hv_type_name((enum hv_type)99), "unknown");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tcg_max),
        cmocka_unit_test(tcg_junk_is_not_a_signature),
        cmocka_unit_test(xen_plain),
        cmocka_unit_test(xen_with_viridian),
        cmocka_unit_test(xen_at_other_bases),
        cmocka_unit_test(kvm),
        cmocka_unit_test(kvm_old_host_eax_zero),
        cmocka_unit_test(kvm_hidden),
        cmocka_unit_test(hyperv_alone),
        cmocka_unit_test(hyperv_has_no_other),
        cmocka_unit_test(kvm_with_hyperv),
        cmocka_unit_test(identify_is_detect_then_choose),
        cmocka_unit_test(hyperv_without_interface),
        cmocka_unit_test(hyperv_too_few_leaves),
        cmocka_unit_test(xen_max_leaf_too_low),
        cmocka_unit_test(max_leaf_outside_range),
        cmocka_unit_test(kvm_eax_at_base),
        cmocka_unit_test(hypervisor_bit_without_leaves),
        cmocka_unit_test(bare_metal),
        cmocka_unit_test(find_leaves_scans_whole_range),
        cmocka_unit_test(type_names),
    };

    return cmocka_run_group_tests_name("cpuid-leaves", tests, NULL, NULL);
}
