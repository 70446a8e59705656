/* SPDX-License-Identifier: GPL-2.0-only */
/* arch/x86/flush/flush-policy.c: the global-pages decision for every CPU kind. */

#include <asm/flush-policy.h>
#include <shimk/compiler.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <cmocka.h>

static const struct
{
    enum cpu_vendor vendor;
    const char *name;
    bool virtualized_default;   /* what Xen picks under a hypervisor */
} vendors[] = {
    { VENDOR_INTEL, "intel", true },
    /* SVM cannot intercept CR4.PGE alone: every toggle is a VM exit. */
    { VENDOR_AMD, "amd", false },
    { VENDOR_HYGON, "hygon", false },
    { VENDOR_CENTAUR, "centaur", true },
    { VENDOR_ZHAOXIN, "zhaoxin", true },
    { VENDOR_UNKNOWN, "unknown", true },
};

static void default_bare_metal_always_on(void **state)
{
    for ( unsigned int i = 0; i < ARRAY_SIZE(vendors); i++ )
    {
        if ( !global_pages_default(vendors[i].vendor, false) )
            fail_msg("%s on bare metal: global pages off", vendors[i].name);
    }
}

static void default_virtualized(void **state)
{
    for ( unsigned int i = 0; i < ARRAY_SIZE(vendors); i++ )
    {
        bool got = global_pages_default(vendors[i].vendor, true);

        if ( got != vendors[i].virtualized_default )
            fail_msg("%s virtualized: global pages %d, want %d",
                     vendors[i].name, got, vendors[i].virtualized_default);
    }
}

/* Without PGE nothing turns global pages on, not even the option. */
static void resolve_without_pge(void **state)
{
    for ( int option = -1; option <= 1; option++ )
        for ( unsigned int i = 0; i < ARRAY_SIZE(vendors); i++ )
            for ( int virt = 0; virt <= 1; virt++ )
                assert_false(global_pages_resolve(option, false,
                                                  vendors[i].vendor, virt));
}

/* With PGE, an explicit option wins over the vendor default. */
static void resolve_explicit_option(void **state)
{
    for ( unsigned int i = 0; i < ARRAY_SIZE(vendors); i++ )
        for ( int virt = 0; virt <= 1; virt++ )
        {
            assert_false(global_pages_resolve(0, true, vendors[i].vendor,
                                              virt));
            assert_true(global_pages_resolve(1, true, vendors[i].vendor,
                                             virt));
        }
}

/* With PGE and no option, the default decides. */
static void resolve_auto(void **state)
{
    for ( unsigned int i = 0; i < ARRAY_SIZE(vendors); i++ )
    {
        assert_true(global_pages_resolve(-1, true, vendors[i].vendor, false));
        if ( global_pages_resolve(-1, true, vendors[i].vendor, true) !=
             vendors[i].virtualized_default )
            fail_msg("%s virtualized, auto: wrong choice", vendors[i].name);
    }
}

/*
 * The measured choice: keep globals while the flush that drops them costs
 * at most 5/4 of a CR3 reload; INVPCID stands in for the CR4 pair.
 */
static void measured_choice(void **state)
{
    assert_false(global_pages_measured(0, 0, 100));     /* no PGE */
    assert_true(global_pages_measured(100, 0, 100));
    assert_true(global_pages_measured(125, 0, 100));    /* the boundary */
    assert_false(global_pages_measured(126, 0, 100));
    /* Xen 4.17 under QEMU TCG measured a CR4 pair at 318k, CR3 at 96k. */
    assert_false(global_pages_measured(318000, 0, 96000));
    /* A cheap INVPCID rescues a dear CR4 pair, and vice versa. */
    assert_true(global_pages_measured(318000, 90000, 96000));
    assert_false(global_pages_measured(90000, 318000, 96000));
    /* No overflow with cycle counts of a slow nested L0. */
    assert_true(global_pages_measured(1ull << 40, 0, 1ull << 40));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_bare_metal_always_on),
        cmocka_unit_test(default_virtualized),
        cmocka_unit_test(resolve_without_pge),
        cmocka_unit_test(resolve_explicit_option),
        cmocka_unit_test(resolve_auto),
        cmocka_unit_test(measured_choice),
    };

    return cmocka_run_group_tests_name("flush-policy", tests, NULL, NULL);
}
