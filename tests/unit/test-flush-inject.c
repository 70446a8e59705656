/* SPDX-License-Identifier: GPL-2.0-only */
/* arch/x86/flush/flush-inject.c: class names both ways, and what each bug bends. */

#include <asm/flush-inject.h>
#include <asm/flushtlb.h>
#include <asm/page.h>
#include <shimk/compiler.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

/* Every class has a distinct name that parses back to it. */
static void names_round_trip(void **state)
{
    for ( int c = 0; c < NR_TLB_INJECT; c++ )
    {
        const char *n = tlb_inject_name(c);

        assert_non_null(n);
        assert_int_equal(tlb_inject_parse(n), c);
        for ( int d = 0; d < c; d++ )
            assert_string_not_equal(n, tlb_inject_name(d));
    }
    assert_null(tlb_inject_name(NR_TLB_INJECT));
    assert_string_equal(tlb_inject_name(TLB_INJECT_SKIP_REMOTE),
                        "skip-remote");
}

/* A bad value is no class at all: the caller warns and keeps none. */
static void bad_names_are_refused(void **state)
{
    assert_int_equal(tlb_inject_parse(""), -1);
    assert_int_equal(tlb_inject_parse("skip"), -1);
    assert_int_equal(tlb_inject_parse("skip-remote "), -1);
    assert_int_equal(tlb_inject_parse("SKIP-REMOTE"), -1);
    assert_int_equal(tlb_inject_parse("none"), TLB_INJECT_NONE);
}

static void wrong_page_is_the_next_page(void **state)
{
    const char *va = (const char *)0x7000;

    assert_ptr_equal(tlb_inject_wrong_va(va), va + PAGE_SIZE);
}

/*
 * Seen through the off-by-one stamp, tlb_need_flush() says "flushed"
 * for the one case the real rule says "flush": stamp == last use.
 */
static void off_by_one_stamp_turns_equal_into_flushed(void **state)
{
    uint32_t mask = 0xffffffffu;

    assert_true(tlb_need_flush(10, 7, 7));
    assert_false(tlb_need_flush(10, tlb_inject_stamp(7, mask), 7));
    /* Elsewhere the answers agree. */
    assert_true(tlb_need_flush(10, tlb_inject_stamp(5, mask), 7));
    assert_false(tlb_need_flush(10, tlb_inject_stamp(8, mask), 7));
    /* The top of a narrow clock stays put rather than wrap to 0. */
    assert_int_equal(tlb_inject_stamp(0xff, 0xff), 0xff);
    assert_int_equal(tlb_inject_stamp(0xfe, 0xff), 0xff);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_round_trip),
        cmocka_unit_test(bad_names_are_refused),
        cmocka_unit_test(wrong_page_is_the_next_page),
        cmocka_unit_test(off_by_one_stamp_turns_equal_into_flushed),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
