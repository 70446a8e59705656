/* SPDX-License-Identifier: GPL-2.0-only */
/* guest/hyperv/leaves.c: the Hyper-V CPUID leaves of recorded L0s. */

#include <guest/hyperv-tlfs.h>
#include <shimk/compiler.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

struct leaf
{
    uint32_t leaf;
    struct cpuid_leaf r;
};

/*
 * Linux 6.1 KVM under QEMU 7.2 with hv-relaxed, hv-vpindex, hv-runtime,
 * hv-time, hv-synic, hv-stimer, hv-tlbflush and hv-ipi: 0x40000003 and
 * 0x40000004 as recorded (docs/kvm-nested.md#the-cpuid-leaves-l2-sees).
 * The identity, spinlock and limit leaves were not recorded: these are
 * QEMU's defaults (build 14393, version 10.0, hv-spinlocks unset), and
 * the limits are left at zero ("not said").
 */
static const struct leaf kvm_hv[] = {
    { 0x40000002, { 0x00003839, 0x000a0000, 0, 0 } },
    { 0x40000003, { 0x0000026f, 0x00000030, 0, 0x00000008 } },
    { 0x40000004, { 0x00000c24, 0xffffffff, 0, 0 } },
    { 0x40000005, { 0, 0, 0, 0 } },
};

/* Windows Server 2022's Hyper-V (the fixture of test-cpuid-leaves.c). */
static const struct leaf windows[] = {
    { 0x40000002, { 0x4f7c, 0xa0000, 0, 0 } },
    { 0x40000003, { 0xbfff, 0x2bb9ff, 0x2, 0x17bb7e } },
    { 0x40000004, { 0x60e24, 0, 0, 0 } },
    { 0x40000005, { 0xf0, 0x400, 0, 0 } },
};

static const struct leaf *cur;
static unsigned int nr_cur, calls;

static void fixture_cpuid(uint32_t leaf, uint32_t subleaf,
                          struct cpuid_leaf *out)
{
    calls++;
    for ( unsigned int i = 0; i < nr_cur; i++ )
        if ( cur[i].leaf == leaf )
        {
            *out = cur[i].r;
            return;
        }
    memset(out, 0, sizeof(*out));
}

static struct hyperv_leaves read_from(const struct leaf *l, unsigned int n,
                                      uint32_t max_leaf)
{
    struct hyperv_leaves out;

    cur = l;
    nr_cur = n;
    calls = 0;
    memset(&out, 0xa5, sizeof(out));
    hyperv_read_leaves(fixture_cpuid, max_leaf, &out);
    return out;
}

static void kvm_enlightened(void **state)
{
    struct hyperv_leaves l = read_from(kvm_hv, ARRAY_SIZE(kvm_hv),
                                       0x40000005);
    char names[256];

    assert_int_equal(l.max_leaf, 0x40000005);
    assert_int_equal(l.build, 14393);
    assert_int_equal(l.major, 10);
    assert_int_equal(l.minor, 0);
    /* EAX is the low half of the privilege mask, EBX the high half. */
    assert_true(l.privileges == (0x30ull << 32 | 0x26f));
    assert_int_equal(l.features, 0x8);
    assert_int_equal(l.recommendations, 0xc24);
    assert_int_equal(l.spin_retries, 0xffffffff);
    assert_int_equal(l.max_vps, 0);
    assert_int_equal(calls, 4);

    assert_true(hyperv_hypercalls_usable(&l));
    assert_true(hyperv_flush_wanted(&l));
    assert_true(hyperv_cluster_ipi_wanted(&l));
    assert_true(hyperv_ex_recommended(&l));
    assert_true(l.privileges & HV_PRIV_POST_MESSAGES);
    assert_true(l.privileges & HV_PRIV_SIGNAL_EVENTS);
    assert_false(l.features & HV_FEAT_XMM_INPUT);
    assert_false(l.features & HV_FEAT_EXT_GVA_RANGES);

    hyperv_offer_names(&l, names, sizeof(names));
    assert_string_equal(names, "hypercall vp-index vp-runtime time-ref "
                               "ref-tsc synic stimer flush ex-masks "
                               "cluster-ipi relaxed-timing");

    /* A 6.2+ KVM under QEMU's hv-tlbflush-ext: named, from EDX. */
    l.features |= HV_FEAT_EXT_GVA_RANGES;
    hyperv_offer_names(&l, names, sizeof(names));
    assert_string_equal(names, "hypercall vp-index vp-runtime time-ref "
                               "ref-tsc synic stimer flush ex-masks "
                               "ext-gva-ranges cluster-ipi relaxed-timing");
}

static void windows_server(void **state)
{
    struct hyperv_leaves l = read_from(windows, ARRAY_SIZE(windows),
                                       0x4000000b);
    char names[256];

    assert_int_equal(l.build, 20348);
    assert_int_equal(l.major, 10);
    assert_true(l.privileges == (0x2bb9ffull << 32 | 0xbfff));
    assert_int_equal(l.recommendations, 0x60e24);
    assert_int_equal(l.max_vps, 0xf0);
    assert_int_equal(l.max_lps, 0x400);
    assert_true(hyperv_flush_wanted(&l));
    assert_true(hyperv_cluster_ipi_wanted(&l));
    assert_true(hyperv_ex_recommended(&l));
    hyperv_offer_names(&l, names, sizeof(names));
    assert_string_equal(names, "hypercall vp-index vp-runtime time-ref "
                               "ref-tsc synic stimer apic-msrs frequencies "
                               "flush ex-masks cluster-ipi relaxed-timing");
}

/* Fewer than the TLFS's leaves: nothing is read, nothing is offered. */
static void too_few_leaves(void **state)
{
    struct hyperv_leaves l = read_from(kvm_hv, ARRAY_SIZE(kvm_hv),
                                       0x40000004);
    char names[64];

    assert_int_equal(calls, 0);
    assert_int_equal(l.max_leaf, 0x40000004);
    assert_true(l.privileges == 0);
    assert_int_equal(l.recommendations, 0);
    assert_false(hyperv_hypercalls_usable(&l));
    assert_false(hyperv_flush_wanted(&l));
    hyperv_offer_names(&l, names, sizeof(names));
    assert_string_equal(names, "");
}

/* A recommendation is no use without the privilege to make the call. */
static void privilege_rules(void **state)
{
    struct hyperv_leaves l = read_from(kvm_hv, ARRAY_SIZE(kvm_hv),
                                       0x40000005);

    l.privileges &= ~HV_PRIV_HYPERCALL_MSRS;
    assert_false(hyperv_hypercalls_usable(&l));
    assert_false(hyperv_flush_wanted(&l));
    assert_false(hyperv_cluster_ipi_wanted(&l));

    l.privileges |= HV_PRIV_HYPERCALL_MSRS;
    l.privileges &= ~HV_PRIV_VP_INDEX;
    assert_false(hyperv_flush_wanted(&l));

    l.privileges |= HV_PRIV_VP_INDEX;
    l.recommendations &= ~HV_REC_REMOTE_FLUSH;
    assert_true(hyperv_hypercalls_usable(&l));
    assert_false(hyperv_flush_wanted(&l));
    assert_true(hyperv_cluster_ipi_wanted(&l));

    l.recommendations &= ~(HV_REC_CLUSTER_IPI | HV_REC_EX_MASKS);
    assert_false(hyperv_cluster_ipi_wanted(&l));
    assert_false(hyperv_ex_recommended(&l));
}

/* A short buffer truncates the names, never overruns. */
static void names_truncate(void **state)
{
    struct hyperv_leaves l = read_from(kvm_hv, ARRAY_SIZE(kvm_hv),
                                       0x40000005);
    char names[16 + 1];

    memset(names, 'x', sizeof(names));
    hyperv_offer_names(&l, names, 16);
    assert_int_equal(strlen(names), 15);
    assert_int_equal(names[16], 'x');
    assert_memory_equal(names, "hypercall vp-in", 15);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kvm_enlightened),
        cmocka_unit_test(windows_server),
        cmocka_unit_test(too_few_leaves),
        cmocka_unit_test(privilege_rules),
        cmocka_unit_test(names_truncate),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
