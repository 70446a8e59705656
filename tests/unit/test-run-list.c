/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/task/run-list.c: run='s names split, and every bad one skipped whole. */

#include <shimk/run-list.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

/* The list as "name name !status ..." for one comparison. */
static const char *walk(const char *list)
{
    static char out[512];
    char name[RUN_NAME_MAX + 1];
    enum run_name_status st;
    size_t pos = 0;
    unsigned int guard = 0;

    out[0] = '\0';
    while ( run_list_next(list, &pos, name, &st) )
    {
        char one[64];

        assert_true(++guard < 100);
        if ( st == RUN_NAME_OK )
            snprintf(one, sizeof(one), "%s ", name);
        else
            snprintf(one, sizeof(one), "!%d ", (int)st);
        strcat(out, one);
    }
    return out;
}

static void splits_good_names(void **state)
{
    assert_string_equal(walk(""), "");
    assert_string_equal(walk("hello"), "hello ");
    assert_string_equal(walk("a,b.c,d_e-9"), "a b.c d_e-9 ");
    /* A trailing comma adds nothing. */
    assert_string_equal(walk("a,"), "a ");
}

static void bad_names_are_skipped_whole(void **state)
{
    char long_name[64];

    assert_string_equal(walk("a,,b"), "a !1 b ");
    assert_string_equal(walk(",a"), "!1 a ");
    assert_string_equal(walk("a,..,b"), "a !3 b ");
    assert_string_equal(walk("a,.hidden,b"), "a !3 b ");
    assert_string_equal(walk("x/y,z"), "!3 z ");
    assert_string_equal(walk("KTEST:,z"), "!3 z ");
    assert_string_equal(walk("a b"), "!3 ");
    memset(long_name, 'n', 32);
    strcpy(long_name + 32, ",ok");
    assert_string_equal(walk(long_name), "!2 ok ");
    long_name[31] = '\0';
    assert_string_equal(walk(long_name), "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn ");
    assert_string_equal(run_name_status_text(RUN_NAME_LONG),
                        "a name longer than 31 bytes");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(splits_good_names),
        cmocka_unit_test(bad_names_are_skipped_whole),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
