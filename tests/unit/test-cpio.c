/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/task/cpio.c: newc archives read back, and every malformed one refused. */

#include <shimk/cpio.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

static char arc[4096];

/* Append one newc entry (as Linux's gen_init_cpio writes them). */
static size_t put(size_t at, const char *name, unsigned int mode,
                  const char *data, size_t len)
{
    size_t n = strlen(name) + 1;

    at += sprintf(arc + at, "070701%08x%08x%08x%08x%08x%08x%08zx%08x%08x"
                  "%08x%08x%08zx%08x", 1, mode, 0, 0, 1, 0, len, 0, 0, 0, 0,
                  n, 0);
    memcpy(arc + at, name, n);
    at = (at + n + 3) & ~(size_t)3;
    memcpy(arc + at, data, len);
    return (at + len + 3) & ~(size_t)3;
}

static size_t sample(void)
{
    size_t at = 0;

    memset(arc, 0, sizeof(arc));
    at = put(at, ".", 040755, "", 0);
    at = put(at, "./hello", 0100755, "HELLO", 5);
    at = put(at, "bye", 0100644, "BYE!", 4);
    return put(at, "TRAILER!!!", 0, "", 0);
}

static void finds_files_and_skips_dirs(void **state)
{
    size_t len = sample();
    struct cpio_entry e;

    assert_int_equal(cpio_find(arc, len, "hello", &e), CPIO_OK);
    assert_int_equal(e.size, 5);
    assert_memory_equal(e.data, "HELLO", 5);
    assert_int_equal(cpio_find(arc, len, "bye", &e), CPIO_OK);
    assert_memory_equal(e.data, "BYE!", 4);
    assert_int_equal(cpio_find(arc, len, ".", &e), CPIO_END);
    assert_int_equal(cpio_find(arc, len, "nope", &e), CPIO_END);
}

/* Every cut of the archive is refused or ends cleanly, never overread. */
static void every_truncation_is_safe(void **state)
{
    size_t len = sample();
    struct cpio_entry e;

    for ( size_t cut = 0; cut < len; cut++ )
    {
        enum cpio_status s = cpio_find(arc, cut, "bye", &e);

        /* "bye" ends at byte 0x128 + 4; before that it cannot be found. */
        if ( s == CPIO_OK )
            assert_true((const char *)e.data + e.size <= arc + cut);
        else
            assert_true(s == CPIO_TRUNCATED || s == CPIO_END);
    }
}

static void bad_headers(void **state)
{
    size_t len = sample(), pos = 0;
    struct cpio_entry e;

    arc[3] = '8';
    assert_int_equal(cpio_next(arc, len, &pos, &e), CPIO_BAD_MAGIC);
    sample();
    arc[6 + 8 * 6 + 2] = 'g';               /* filesize field */
    assert_int_equal(cpio_next(arc, len, &pos, &e), CPIO_BAD_FIELD);
    sample();
    memcpy(arc + 6 + 8 * 6, "ffffffff", 8); /* filesize past the end */
    assert_int_equal(cpio_next(arc, len, &pos, &e), CPIO_TRUNCATED);
    sample();
    memcpy(arc + 6 + 8 * 11, "ffffffff", 8); /* namesize past the end */
    assert_int_equal(cpio_next(arc, len, &pos, &e), CPIO_TRUNCATED);
    sample();
    memcpy(arc + 6 + 8 * 11, "00000000", 8); /* no name at all */
    assert_int_equal(cpio_next(arc, len, &pos, &e), CPIO_BAD_NAME);
    sample();
    memcpy(arc + 6 + 8 * 11, "00000002", 8);
    arc[110] = 'x';
    arc[111] = 'y';                         /* no NUL at its end */
    assert_int_equal(cpio_next(arc, len, &pos, &e), CPIO_BAD_NAME);
    sample();
    memcpy(arc + 6 + 8 * 11, "00000003", 8); /* ".\0\0": NUL inside */
    assert_int_equal(cpio_next(arc, len, &pos, &e), CPIO_BAD_NAME);
    assert_int_equal(pos, 0);
    assert_string_equal(cpio_status_name(CPIO_TRUNCATED),
                        "truncated archive");
}

/* No trailer: the walk ends at the archive's end, as truncated. */
static void missing_trailer(void **state)
{
    size_t at = put(0, "a", 0100644, "A", 1);
    struct cpio_entry e;

    assert_int_equal(cpio_find(arc, at, "b", &e), CPIO_TRUNCATED);
    assert_int_equal(cpio_find(arc, at, "a", &e), CPIO_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(finds_files_and_skips_dirs),
        cmocka_unit_test(every_truncation_is_safe),
        cmocka_unit_test(bad_headers),
        cmocka_unit_test(missing_trailer),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
