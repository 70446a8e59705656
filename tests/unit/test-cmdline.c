/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/boot/cmdline.c: Xen-style option parsing and its warning lines. */

#include <shimk/cmdline.h>
#include <shimk/printk.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "printk-capture.h"

/* One option of each kind, reset before every case. */
static bool flag;
static bool flag2;
static int8_t tri;
static unsigned int num;
static unsigned int word;
static char str[16];

static const struct kernel_param params[] = {
    { .name = "flag", .type = PARAM_BOOL, .var = &flag },
    { .name = "flag2", .type = PARAM_BOOL, .var = &flag2 },
    { .name = "global-pages", .type = PARAM_TRISTATE, .var = &tri },
    { .name = "nr-cpus", .type = PARAM_UINT, .var = &num, .min = 1,
      .max = 64 },
    { .name = "word", .type = PARAM_UINT, .var = &word, .min = 0,
      .max = UINT32_MAX },
    { .name = "str", .type = PARAM_STRING, .var = str, .size = sizeof(str) },
};

static int reset(void **state)
{
    flag = false;
    flag2 = true;
    tri = -1;
    num = 4;
    word = 0;
    strcpy(str, "def");
    capture_reset();
    return 0;
}

static unsigned int parse(const char *cmdline)
{
    return cmdline_parse(cmdline, params, ARRAY_SIZE(params));
}

/* A case that must apply cleanly: no warning, nothing printed. */
static void parse_clean(const char *cmdline)
{
    unsigned int warnings;

    capture_reset();
    warnings = parse(cmdline);
    if ( warnings || capture_lines() )
        capture_dump();
    assert_int_equal(warnings, 0);
    assert_string_equal(capture_text(), "");
}

/* A case that must print exactly one warning, this line. */
static void parse_warns(const char *cmdline, const char *line)
{
    unsigned int warnings;

    capture_reset();
    warnings = parse(cmdline);
    if ( warnings != 1 || !capture_line(0) ||
         strcmp(capture_line(0), line) )
        capture_dump();
    assert_int_equal(warnings, 1);
    assert_int_equal(capture_lines(), 1);
    assert_string_equal(capture_line(0), line);
    assert_int_equal(capture_level_count(LOGLEVEL_WARNING), 1);
}

#define W "shimk: warning: cmdline: "

/* Xen's spellings (docs/design.md#grammar), pairwise. */
static const char *const no[] = { "0", "no", "off", "false", "disable" };
static const char *const yes[] = { "1", "yes", "on", "true", "enable" };

static void parse_bool_words(void **state)
{
    for ( size_t i = 0; i < ARRAY_SIZE(no); i++ )
    {
        assert_int_equal(parse_bool(no[i], strlen(no[i])), 0);
        assert_int_equal(parse_bool(yes[i], strlen(yes[i])), 1);
    }
}

static void parse_bool_rejects(void **state)
{
    static const char *const bad[] = {
        "", "2", "00", "01", "y", "n", "ye", "of", "tru", "true1", "ON",
        "Yes", "FALSE", "enabled", " on", "on ", "-1",
    };

    for ( size_t i = 0; i < ARRAY_SIZE(bad); i++ )
        assert_int_equal(parse_bool(bad[i], strlen(bad[i])), -1);

    /* Only len bytes count: no terminator is needed or looked for. */
    assert_int_equal(parse_bool("yesno", 3), 1);
    assert_int_equal(parse_bool("offset", 3), 0);
    assert_int_equal(parse_bool("onwards", 2), 1);
    assert_int_equal(parse_bool("yes", 2), -1);
}

static void boolean_forms(void **state)
{
    char line[32];

    parse_clean("flag");
    assert_true(flag);
    parse_clean("no-flag");
    assert_false(flag);

    for ( size_t i = 0; i < ARRAY_SIZE(no); i++ )
    {
        flag = true;
        snprintf(line, sizeof(line), "flag=%s", no[i]);
        parse_clean(line);
        assert_false(flag);

        snprintf(line, sizeof(line), "flag=%s", yes[i]);
        parse_clean(line);
        assert_true(flag);
    }

    /* Neighbouring names are distinct options, not prefixes. */
    parse_clean("flag2=0 flag");
    assert_false(flag2);
    assert_true(flag);
}

static void boolean_bad_value(void **state)
{
    flag = true;
    parse_warns("flag=maybe", W "flag: invalid boolean 'maybe' (kept 1)");
    assert_true(flag);
    parse_warns("flag=", W "flag: invalid boolean '' (kept 1)");
    assert_true(flag);
    parse_warns("flag=On", W "flag: invalid boolean 'On' (kept 1)");
    assert_true(flag);
}

static void tristate(void **state)
{
    assert_int_equal(tri, -1);
    parse_clean("global-pages=off");
    assert_int_equal(tri, 0);
    parse_clean("global-pages");
    assert_int_equal(tri, 1);
    parse_clean("no-global-pages");
    assert_int_equal(tri, 0);
    parse_clean("global-pages=enable");
    assert_int_equal(tri, 1);
}

static void tristate_bad_value_exact_line(void **state)
{
    parse_warns("global-pages=banana",
                "shimk: warning: cmdline: global-pages: invalid boolean "
                "'banana' (kept auto)");
    assert_int_equal(tri, -1);

    parse_clean("global-pages=0");
    parse_warns("global-pages=auto",
                W "global-pages: invalid boolean 'auto' (kept 0)");
    assert_int_equal(tri, 0);
}

static void unknown_option_exact_line(void **state)
{
    parse_warns("nosuch=1",
                "shimk: warning: cmdline: nosuch: unknown option (ignored)");
    parse_warns("nosuch", W "nosuch: unknown option (ignored)");
    /* no- of an unknown name is reported under the name as written. */
    parse_warns("no-nosuch", W "no-nosuch: unknown option (ignored)");
    parse_warns("no-", W "no-: unknown option (ignored)");
    /* Names are case-sensitive, as in Xen. */
    parse_warns("FLAG", W "FLAG: unknown option (ignored)");
    assert_false(flag);
}

static void uint_values(void **state)
{
    parse_clean("nr-cpus=8");
    assert_int_equal(num, 8);
    parse_clean("nr-cpus=0x10");
    assert_int_equal(num, 16);
    parse_clean("nr-cpus=0X1f");
    assert_int_equal(num, 31);
    parse_clean("nr-cpus=0x3F");
    assert_int_equal(num, 63);
    /* Leading zeros are decimal, not octal. */
    parse_clean("nr-cpus=010");
    assert_int_equal(num, 10);
    parse_clean("nr-cpus=1 nr-cpus=64");
    assert_int_equal(num, 64);

    parse_clean("word=4294967295");
    assert_int_equal(word, UINT32_MAX);
    parse_clean("word=0xffffffff");
    assert_int_equal(word, UINT32_MAX);
    parse_clean("word=0");
    assert_int_equal(word, 0);
}

static void uint_range(void **state)
{
    parse_warns("nr-cpus=65",
                W "nr-cpus: '65' out of range 1..64 (kept 4)");
    parse_warns("nr-cpus=0", W "nr-cpus: '0' out of range 1..64 (kept 4)");
    parse_warns("nr-cpus=0x41",
                W "nr-cpus: '0x41' out of range 1..64 (kept 4)");
    assert_int_equal(num, 4);
}

static void uint_overflow(void **state)
{
    word = 7;
    parse_warns("word=4294967296",
                W "word: invalid number '4294967296' (kept 7)");
    parse_warns("word=0x100000000",
                W "word: invalid number '0x100000000' (kept 7)");
    parse_warns("word=99999999999999999999999999",
                W "word: invalid number '99999999999999999999999999' "
                "(kept 7)");
    parse_warns("word=0xfffffffffffffffff1",
                W "word: invalid number '0xfffffffffffffffff1' (kept 7)");
    assert_int_equal(word, 7);
}

static void uint_garbage(void **state)
{
    static const struct
    {
        const char *value, *shown;
    } bad[] = {
        { "", "" }, { "-1", "-1" }, { "+1", "+1" }, { "1k", "1k" },
        { "0x", "0x" }, { "0xg", "0xg" }, { "0x-1", "0x-1" },
        { "1.5", "1.5" }, { "0b1", "0b1" }, { "x10", "x10" },
        { " 1", "" },
        /* Quotes are gone before the number is read. */
        { "\"\"", "" }, { "\"1 \"", "1 " },
    };

    for ( size_t i = 0; i < ARRAY_SIZE(bad); i++ )
    {
        char line[64], want[128];

        snprintf(line, sizeof(line), "nr-cpus=%s", bad[i].value);
        snprintf(want, sizeof(want),
                 W "nr-cpus: invalid number '%s' (kept 4)", bad[i].shown);
        if ( bad[i].value[0] == ' ' )
        {
            /* The blank ends the value: "1" is then an unknown option. */
            capture_reset();
            assert_int_equal(parse(line), 2);
            assert_string_equal(capture_line(0), want);
            assert_string_equal(capture_line(1),
                                W "1: unknown option (ignored)");
        }
        else
            parse_warns(line, want);
        assert_int_equal(num, 4);
    }

    /* A blank after a good value just ends it. */
    parse_clean("nr-cpus=1 ");
    assert_int_equal(num, 1);
}

static void uint_missing_value(void **state)
{
    parse_warns("nr-cpus", W "nr-cpus: needs a value (kept 4)");
    parse_warns("no-nr-cpus",
                W "no-nr-cpus: no- form needs a boolean option (kept 4)");
    assert_int_equal(num, 4);
}

static void string_values(void **state)
{
    parse_clean("str=abc,def");
    assert_string_equal(str, "abc,def");
    parse_clean("str=\"a b\"");
    assert_string_equal(str, "a b");
    /* Quotes may open and close anywhere in the value. */
    parse_clean("str=x\"1 2\"y\" \"z");
    assert_string_equal(str, "x1 2y z");
    parse_clean("str=");
    assert_string_equal(str, "");
    parse_clean("str=\"\"");
    assert_string_equal(str, "");
    /* The longest value that fits, with its terminator. */
    parse_clean("str=123456789012345");
    assert_string_equal(str, "123456789012345");
}

static void string_too_long(void **state)
{
    parse_warns("str=1234567890123456",
                W "str: value too long (kept 'def')");
    assert_string_equal(str, "def");
    parse_warns("str", W "str: needs a value (kept 'def')");
    parse_warns("no-str", W "no-str: no- form needs a boolean option "
                "(kept 'def')");
    assert_string_equal(str, "def");
}

static void last_occurrence_wins(void **state)
{
    parse_clean("flag=1 nr-cpus=2 flag=0 str=a nr-cpus=3 str=b flag");
    assert_true(flag);
    assert_int_equal(num, 3);
    assert_string_equal(str, "b");

    parse_clean("global-pages=0 global-pages=1 no-global-pages");
    assert_int_equal(tri, 0);
}

static void bad_later_value_keeps_earlier(void **state)
{
    parse_warns("nr-cpus=3 nr-cpus=banana",
                W "nr-cpus: invalid number 'banana' (kept 3)");
    assert_int_equal(num, 3);
    parse_warns("str=good str=waytoolongforthebuffer",
                W "str: value too long (kept 'good')");
    assert_string_equal(str, "good");
    parse_warns("global-pages=1 global-pages=2",
                W "global-pages: invalid boolean '2' (kept 1)");
    assert_int_equal(tri, 1);
}

static void negated_with_value(void **state)
{
    flag = true;
    parse_warns("no-flag=0", W "no-flag: negated form takes no value "
                "(kept 1)");
    parse_warns("no-flag=", W "no-flag: negated form takes no value "
                "(kept 1)");
    parse_warns("no-global-pages=yes",
                W "no-global-pages: negated form takes no value (kept auto)");
    assert_true(flag);
    assert_int_equal(tri, -1);
}

static void empty_name(void **state)
{
    parse_warns("=x", W ": empty option name (ignored)");
    parse_warns("=", W ": empty option name (ignored)");
    parse_warns(" =\"a b\" ", W ": empty option name (ignored)");
}

static void empty_and_blank_input(void **state)
{
    parse_clean("");
    parse_clean("   ");
    parse_clean(" \t\r\n \n");
    assert_int_equal(cmdline_parse(NULL, params, ARRAY_SIZE(params)), 0);
    assert_string_equal(capture_text(), "");

    /* No options at all: everything is unknown, nothing crashes. */
    assert_int_equal(cmdline_parse("flag", NULL, 0), 1);
    assert_true(capture_has(W "flag: unknown option (ignored)"));

    assert_false(flag);
    assert_true(flag2);
    assert_int_equal(tri, -1);
    assert_int_equal(num, 4);
    assert_string_equal(str, "def");
}

static void blank_separators(void **state)
{
    parse_clean("\tflag\nnr-cpus=7\r\nstr=x\t\tno-flag2 \n");
    assert_true(flag);
    assert_int_equal(num, 7);
    assert_string_equal(str, "x");
    assert_false(flag2);
}

static void non_ascii_and_control(void **state)
{
    parse_warns("fl\xe4g", W "fl?g: non-ASCII or control character "
                "(ignored)");
    parse_warns("str=caf\xc3\xa9",
                W "str: non-ASCII or control character (ignored)");
    parse_warns("flag\x01", W "flag?: non-ASCII or control character "
                "(ignored)");
    parse_warns("nr-cpus=5\x7f", W "nr-cpus: non-ASCII or control "
                "character (ignored)");
    parse_warns("str=\"a\x1b[31mb\"",
                W "str: non-ASCII or control character (ignored)");
    /* Quotes let a value hold spaces, but a tab stays a control byte. */
    parse_warns("str=\"a\tb\"",
                W "str: non-ASCII or control character (ignored)");
    parse_warns("\xff\xfe=1", W "??: non-ASCII or control character "
                "(ignored)");
    assert_false(flag);
    assert_int_equal(num, 4);
    assert_string_equal(str, "def");

    /* A bad byte spoils its own option only. */
    capture_reset();
    assert_int_equal(parse("flag nr-cpus=\x80 str=ok"), 1);
    assert_true(flag);
    assert_int_equal(num, 4);
    assert_string_equal(str, "ok");
}

static void unterminated_quote(void **state)
{
    parse_warns("str=\"abc def", W "str: unterminated quote (ignored)");
    assert_string_equal(str, "def");

    /* The open quote swallows the rest of the line. */
    capture_reset();
    assert_int_equal(parse("flag str=\"x flag2=0 nr-cpus=9"), 1);
    assert_true(flag);
    assert_true(flag2);
    assert_int_equal(num, 4);
    assert_string_equal(str, "def");
}

static void several_warnings_counted(void **state)
{
    unsigned int warnings;

    warnings = parse("a=1 flag b nr-cpus=99 =3 str=ok no-str c=\"");
    if ( warnings != 6 )
        capture_dump();
    assert_int_equal(warnings, 6);
    assert_int_equal(capture_lines(), 6);
    assert_int_equal(capture_count("shimk: warning: cmdline: "), 6);
    assert_true(flag);
    assert_string_equal(str, "ok");
    assert_int_equal(num, 4);
}

/* Bad names and values are echoed back bounded, never whole. */
static void long_names_shortened(void **state)
{
    char line[256], want[256];

    memset(line, 'n', 100);
    strcpy(line + 100, "=1");
    snprintf(want, sizeof(want), W "%.40s...: unknown option (ignored)",
             line);
    parse_warns(line, want);

    strcpy(line, "flag=");
    memset(line + 5, 'v', 100);
    line[105] = '\0';
    snprintf(want, sizeof(want), W "flag: invalid boolean '%.40s...' "
             "(kept 0)", line + 5);
    parse_warns(line, want);

    /* Exactly 40 bytes are shown whole. */
    memset(line, 'm', 40);
    line[40] = '\0';
    snprintf(want, sizeof(want), W "%.40s: unknown option (ignored)", line);
    parse_warns(line, want);
}

/*
 * Fill buf with a command line of exactly total bytes: head, then
 * blanks, then tail placed so that it starts at byte tail_at.
 */
static char *long_line(size_t total, const char *head, const char *tail,
                       size_t tail_at)
{
    char *buf = malloc(total + 1);

    assert_non_null(buf);
    memset(buf, ' ', total);
    memcpy(buf, head, strlen(head));
    assert_true(tail_at + strlen(tail) <= total);
    memcpy(buf + tail_at, tail, strlen(tail));
    buf[total] = '\0';
    return buf;
}

#define LONG_WARNING \
    W "*: longer than 4096 bytes (ignored from byte 4096 on)"

static void longer_than_limit(void **state)
{
    /* str= straddles byte 4096; flag2 lies past it. */
    char *line = long_line(5000, "nr-cpus=9 flag", "str=abcdefgh no-flag2",
                           CMDLINE_MAX - 4);

    parse_warns(line, LONG_WARNING);
    assert_int_equal(num, 9);
    assert_true(flag);
    assert_string_equal(str, "def");
    assert_true(flag2);
    free(line);
}

static void limit_boundaries(void **state)
{
    char *line;

    /* Exactly 4096 bytes is not too long: the last option counts. */
    line = long_line(CMDLINE_MAX, "", "str=end", CMDLINE_MAX - 7);
    parse_clean(line);
    assert_string_equal(str, "end");
    free(line);

    /* An option ending at byte 4096, then a blank: it is complete. */
    reset(state);
    line = long_line(CMDLINE_MAX + 10, "", "str=edge", CMDLINE_MAX - 8);
    parse_warns(line, LONG_WARNING);
    assert_string_equal(str, "edge");
    free(line);

    /* The same option running one byte over is cut, so dropped. */
    reset(state);
    line = long_line(CMDLINE_MAX + 10, "", "str=edge1", CMDLINE_MAX - 8);
    parse_warns(line, LONG_WARNING);
    assert_string_equal(str, "def");
    free(line);

    /* One word of 5000 bytes: nothing is parsed at all. */
    reset(state);
    line = long_line(5000, "", "", 0);
    memset(line, 'x', 5000);
    memcpy(line, "str=", 4);
    parse_warns(line, LONG_WARNING);
    assert_string_equal(str, "def");
    free(line);
}

/* cmdline_fit: whole options only, in order, the long ones dropped. */
static void fit_keeps_whole_options(void **state)
{
    char dst[16];
    unsigned int dropped;
    static const char src[] = "  a=1 \"q r\"=2 0123456789abcdef z  ";

    assert_int_equal(cmdline_fit(dst, sizeof(dst), src, sizeof(src) - 1,
                                 &dropped), 13);
    assert_string_equal(dst, "a=1 \"q r\"=2 z");
    assert_int_equal(dropped, 1);
    /* Exactly full: 15 bytes and the NUL. */
    assert_int_equal(cmdline_fit(dst, sizeof(dst), "0123456789abcde", 15,
                                 &dropped), 15);
    assert_int_equal(dropped, 0);
    assert_int_equal(cmdline_fit(dst, sizeof(dst), "0123456789abcdef", 16,
                                 &dropped), 0);
    assert_string_equal(dst, "");
    assert_int_equal(dropped, 1);
    /* A NUL ends the line whatever len says; an open quote, the line. */
    assert_int_equal(cmdline_fit(dst, sizeof(dst), "ab\0cd", 5, &dropped),
                     2);
    assert_int_equal(cmdline_fit(dst, sizeof(dst), "x \"y z", 6, &dropped),
                     6);
    assert_string_equal(dst, "x \"y z");
    assert_int_equal(cmdline_fit(dst, 1, "abc", 3, &dropped), 0);
    assert_int_equal(dropped, 1);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup(fn, reset)
    const struct CMUnitTest tests[] = {
        T(parse_bool_words),
        T(parse_bool_rejects),
        T(boolean_forms),
        T(boolean_bad_value),
        T(tristate),
        T(tristate_bad_value_exact_line),
        T(unknown_option_exact_line),
        T(uint_values),
        T(uint_range),
        T(uint_overflow),
        T(uint_garbage),
        T(uint_missing_value),
        T(string_values),
        T(string_too_long),
        T(last_occurrence_wins),
        T(bad_later_value_keeps_earlier),
        T(negated_with_value),
        T(empty_name),
        T(empty_and_blank_input),
        T(blank_separators),
        T(non_ascii_and_control),
        T(unterminated_quote),
        T(several_warnings_counted),
        T(long_names_shortened),
        T(longer_than_limit),
        T(limit_boundaries),
        T(fit_keeps_whole_options),
    };
#undef T

    return cmocka_run_group_tests_name("cmdline", tests, NULL, NULL);
}
