/* SPDX-License-Identifier: GPL-2.0-only */
/* arch/x86/flush/flush-policy.c: flag decoding, the local primitive, the assist filter. */

#include <asm/flushtlb.h>
#include <shimk/compiler.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <cmocka.h>

static void order_decoding(void **state)
{
    /* The low byte is order + 1; 0 means the whole address space. */
    assert_int_equal(flush_order(FLUSH_TLB), -1);
    assert_int_equal(flush_order(FLUSH_TLB_GLOBAL), -1);
    assert_int_equal(flush_order(FLUSH_TLB | FLUSH_ORDER(0)), 0);
    assert_int_equal(flush_order(FLUSH_TLB | FLUSH_ORDER(9)), 9);
    assert_int_equal(flush_order(FLUSH_ORDER(254)), 254);
    /* Higher flags never leak into the order. */
    assert_int_equal(flush_order(FLUSH_NO_ASSIST | FLUSH_VA_VALID |
                                 FLUSH_ORDER(3)), 3);
}

static void invlpg_up_to_the_ceiling(void **state)
{
    for ( unsigned int order = 0; order <= 20; order++ )
        for ( int inv = 0; inv <= 1; inv++ )
            for ( int pge = 0; pge <= 1; pge++ )
            {
                enum flush_kind k;

                k = flush_local_kind(FLUSH_TLB | FLUSH_ORDER(order), inv, pge);
                if ( (1u << order) <= FLUSH_INVLPG_CEILING )
                    assert_int_equal(k, FLUSH_KIND_INVLPG);
                else
                    assert_int_not_equal(k, FLUSH_KIND_INVLPG);
                /* INVLPG drops global entries too: same for GLOBAL. */
                k = flush_local_kind(FLUSH_TLB_GLOBAL | FLUSH_ORDER(order),
                                     inv, pge);
                assert_int_equal(k == FLUSH_KIND_INVLPG,
                                 (1u << order) <= FLUSH_INVLPG_CEILING);
            }
}

/*
 * The full-flush rule of the issue: globals by INVPCID (all contexts)
 * when allowed, else a PGE toggle when PGE is on, else a CR3 reload.
 */
static void full_global_flush_choice(void **state)
{
    assert_int_equal(flush_local_kind(FLUSH_TLB_GLOBAL, true, true),
                     FLUSH_KIND_INVPCID_ALL);
    assert_int_equal(flush_local_kind(FLUSH_TLB_GLOBAL, true, false),
                     FLUSH_KIND_INVPCID_ALL);
    assert_int_equal(flush_local_kind(FLUSH_TLB_GLOBAL, false, true),
                     FLUSH_KIND_PGE_TOGGLE);
    assert_int_equal(flush_local_kind(FLUSH_TLB_GLOBAL, false, false),
                     FLUSH_KIND_CR3_RELOAD);
    /* GLOBAL with TLB set as well changes nothing. */
    assert_int_equal(flush_local_kind(FLUSH_TLB | FLUSH_TLB_GLOBAL, false,
                                      true), FLUSH_KIND_PGE_TOGGLE);
    /* An order above the ceiling is a full flush too. */
    assert_int_equal(flush_local_kind(FLUSH_TLB_GLOBAL | FLUSH_ORDER(9),
                                      false, true), FLUSH_KIND_PGE_TOGGLE);
}

/* Non-global only: never the (costlier) PGE toggle. */
static void full_nonglobal_flush_choice(void **state)
{
    assert_int_equal(flush_local_kind(FLUSH_TLB, true, true),
                     FLUSH_KIND_INVPCID_NONGLOBAL);
    assert_int_equal(flush_local_kind(FLUSH_TLB, false, true),
                     FLUSH_KIND_CR3_RELOAD);
    assert_int_equal(flush_local_kind(FLUSH_TLB, false, false),
                     FLUSH_KIND_CR3_RELOAD);
}

static void nothing_to_flush(void **state)
{
    assert_int_equal(flush_local_kind(0, true, true), FLUSH_KIND_NONE);
    assert_int_equal(flush_local_kind(FLUSH_VA_VALID | FLUSH_ORDER(0), true,
                                      true), FLUSH_KIND_NONE);
    assert_int_equal(flush_local_kind(FLUSH_NO_ASSIST, false, false),
                     FLUSH_KIND_NONE);
}

/* Only plain TLB flushes may go to L0 (docs/flush.md, rule 8). */
static void assist_filter(void **state)
{
    assert_true(flush_may_assist(FLUSH_TLB));
    assert_true(flush_may_assist(FLUSH_TLB_GLOBAL));
    assert_true(flush_may_assist(FLUSH_TLB | FLUSH_ORDER(0)));
    assert_true(flush_may_assist(FLUSH_TLB_GLOBAL | FLUSH_VA_VALID |
                                 FLUSH_ORDER(9)));
    /* FLUSH_NO_ASSIST is never sent to L0, whatever else is set. */
    assert_false(flush_may_assist(FLUSH_TLB | FLUSH_NO_ASSIST));
    assert_false(flush_may_assist(FLUSH_TLB_GLOBAL | FLUSH_NO_ASSIST |
                                  FLUSH_ORDER(0)));
    /* No TLB flag: nothing to assist with. */
    assert_false(flush_may_assist(0));
    assert_false(flush_may_assist(FLUSH_VA_VALID | FLUSH_ORDER(2)));
    /* Unknown flags (work on the target: cache, state) need IPIs. */
    assert_false(flush_may_assist(FLUSH_TLB | 0x400));
    assert_false(flush_may_assist(FLUSH_TLB | 0x1000));
    assert_false(flush_may_assist(FLUSH_TLB | 0x10000));
}

static void kind_names(void **state)
{
    for ( unsigned int k = 0; k < NR_FLUSH_KINDS; k++ )
        assert_string_not_equal(flush_kind_name(k), "?");
    assert_string_equal(flush_kind_name(FLUSH_KIND_PGE_TOGGLE), "pge-toggle");
    assert_string_equal(flush_kind_name(NR_FLUSH_KINDS), "?");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(order_decoding),
        cmocka_unit_test(invlpg_up_to_the_ceiling),
        cmocka_unit_test(full_global_flush_choice),
        cmocka_unit_test(full_nonglobal_flush_choice),
        cmocka_unit_test(nothing_to_flush),
        cmocka_unit_test(assist_filter),
        cmocka_unit_test(kind_names),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
