/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/selfcheck-diff.c: the boot copies' sum and the first difference. */

#include <shimk/compiler.h>
#include <shimk/selfcheck.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

/*
 * The sum is the contract with tools/bootlib/memcheck.py, which computes
 * it over the same words of a memory dump: fixed values, not only
 * properties, so that a change on either side shows here.
 */
static void sum_fixed_values(void **state)
{
    const uint64_t three[] = { 1, 2, 3 };
    const uint64_t magic[] = { SELFCHECK_MAGIC };
    const uint64_t zero[] = { 0 };

    assert_int_equal(selfcheck_sum(NULL, 0), 0xcbf29ce484222325ull);
    assert_int_equal(selfcheck_sum(zero, 1), 0xaf63bd4c8601b7dfull);
    assert_int_equal(selfcheck_sum(three, 3), 0xd0aa6218672cf5abull);
    assert_int_equal(selfcheck_sum(magic, 1), 0x3abfaab341879982ull);
}

static void sum_sees_every_bit_and_order(void **state)
{
    uint64_t w[8] = { 0 }, base;

    base = selfcheck_sum(w, 8);
    for ( unsigned int i = 0; i < 8; i++ )
        for ( unsigned int bit = 0; bit < 64; bit += 7 )
        {
            w[i] ^= 1ull << bit;
            assert_true(selfcheck_sum(w, 8) != base);
            w[i] ^= 1ull << bit;
        }
    w[0] = 1;
    base = selfcheck_sum(w, 8);
    w[0] = 0;
    w[1] = 1;
    assert_true(selfcheck_sum(w, 8) != base);
}

static void first_diff_finds_the_first(void **state)
{
    unsigned char a[104], b[104];

    memset(a, 0x5a, sizeof(a));
    memcpy(b, a, sizeof(b));
    assert_int_equal(selfcheck_first_diff(a, b, sizeof(a), 0, 0), -1);
    a[0x34] ^= 1;
    a[0x60] ^= 1;
    assert_int_equal(selfcheck_first_diff(a, b, sizeof(a), 0, 0), 0x34);
    assert_int_equal(selfcheck_first_diff(a, b, 0x34, 0, 0), -1);
    assert_int_equal(selfcheck_first_diff(a, b, 0, 0, 0), -1);
}

/* The TSS's RSP0 (bytes 4-11) follows the thread and is left out. */
static void first_diff_skips_rsp0(void **state)
{
    unsigned char a[SELFCHECK_TSS_BYTES], b[SELFCHECK_TSS_BYTES];

    memset(a, 0, sizeof(a));
    memset(b, 0, sizeof(b));
    for ( unsigned int i = 0; i < SELFCHECK_TSS_RSP0_LEN; i++ )
        a[SELFCHECK_TSS_RSP0_OFF + i] = 0xff;
    assert_int_equal(selfcheck_first_diff(a, b, sizeof(a),
                                          SELFCHECK_TSS_RSP0_OFF,
                                          SELFCHECK_TSS_RSP0_LEN), -1);
    a[SELFCHECK_TSS_RSP0_OFF - 1] = 1;      /* the byte before it */
    assert_int_equal(selfcheck_first_diff(a, b, sizeof(a),
                                          SELFCHECK_TSS_RSP0_OFF,
                                          SELFCHECK_TSS_RSP0_LEN),
                     SELFCHECK_TSS_RSP0_OFF - 1);
    a[SELFCHECK_TSS_RSP0_OFF - 1] = 0;
    a[SELFCHECK_TSS_RSP0_OFF + SELFCHECK_TSS_RSP0_LEN] = 1; /* the one after */
    assert_int_equal(selfcheck_first_diff(a, b, sizeof(a),
                                          SELFCHECK_TSS_RSP0_OFF,
                                          SELFCHECK_TSS_RSP0_LEN),
                     SELFCHECK_TSS_RSP0_OFF + SELFCHECK_TSS_RSP0_LEN);
}

/* The layout the memory reader computes offsets from: only 64-bit words. */
static void layout_is_words_only(void **state)
{
    assert_int_equal(sizeof(struct selfcheck_cpu) % 8, 0);
    assert_int_equal(offsetof(struct selfcheck_cpu, gdt), 5 * 8);
    assert_int_equal(offsetof(struct selfcheck_cpu, tss_base),
                     (5 + GDT_ENTRIES) * 8);
    assert_int_equal(offsetof(struct selfcheck_ref, root_half), 8 * 8);
    assert_int_equal(offsetof(struct selfcheck_ref, idt), (8 + 256) * 8);
    assert_int_equal(offsetof(struct selfcheck_ref, cpu),
                     (8 + 256 + 512 + 1) * 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sum_fixed_values),
        cmocka_unit_test(sum_sees_every_bit_and_order),
        cmocka_unit_test(first_diff_finds_the_first),
        cmocka_unit_test(first_diff_skips_rsp0),
        cmocka_unit_test(layout_is_words_only),
    };

    return cmocka_run_group_tests_name("selfcheck", tests, NULL, NULL);
}
