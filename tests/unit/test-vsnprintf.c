/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/lib/vsnprintf.c against the C library's vsnprintf as an oracle. */

#include <shimk/printk.h>

#include <limits.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#define BUF    512
#define CANARY 0xa5

/* Make the bytes of a failing case readable in the report. */
static const char *escape(const char *s, size_t n)
{
    static char out[4][4 * BUF + 1];
    static unsigned int slot;
    char *o = out[slot++ % 4], *p = o;

    for ( size_t i = 0; i < n && i < BUF; i++ )
    {
        unsigned char c = s[i];

        if ( c >= 0x20 && c < 0x7f && c != '\\' )
            *p++ = c;
        else
            p += sprintf(p, "\\x%02x", c);
    }
    *p = '\0';
    return o;
}

/*
 * The generated tables run hundreds of thousands of cases: there, one
 * cut buffer besides the whole one is enough to exercise truncation.
 */
static bool few_sizes;

/*
 * Format at several buffer sizes with both implementations, into
 * buffers pre-filled with a canary, and demand identical bytes over the
 * whole buffer: same text, same NUL, nothing written past size.
 */
static void check_va(const char *file, int line, const char *what,
                     const char *fmt, va_list ap)
{
    char want[BUF], got[BUF];
    size_t sizes[7];
    unsigned int nr_sizes;
    va_list aq;
    int full;

    va_copy(aq, ap);
    full = vsnprintf(want, sizeof(want), fmt, aq);
    va_end(aq);
    if ( full < 0 || full >= BUF )
    {
        print_error("oracle cannot format \"%s\" (%s) in %d bytes\n",
                    escape(fmt, strlen(fmt)), what, BUF);
        _fail(file, line);
    }

    sizes[0] = BUF;
    sizes[1] = full / 2;
    sizes[2] = 0;
    sizes[3] = 1;
    sizes[4] = 2;
    sizes[5] = full;
    sizes[6] = full + 1;
    nr_sizes = few_sizes ? 2 : 7;

    for ( unsigned int i = 0; i < nr_sizes; i++ )
    {
        size_t size = sizes[i];
        int wn, gn;

        memset(want, CANARY, sizeof(want));
        memset(got, CANARY, sizeof(got));
        va_copy(aq, ap);
        wn = vsnprintf(want, size, fmt, aq);
        va_end(aq);
        va_copy(aq, ap);
        gn = kvsnprintf(got, size, fmt, aq);
        va_end(aq);

        if ( gn != wn || memcmp(got, want, sizeof(got)) )
        {
            size_t longer = (size_t)(gn > wn ? gn : wn) + 1;
            size_t show = longer < size ? longer : size;

            print_error("format \"%s\" (%s), size %zu:\n"
                        "  libc   %d \"%s\"\n  kernel %d \"%s\"\n%s",
                        escape(fmt, strlen(fmt)), what, size, wn,
                        escape(want, show), gn, escape(got, show),
                        memcmp(got + show, want + show, BUF - show) ?
                            "  (kernel wrote past the terminator)\n" : "");
            _fail(file, line);
        }
    }
}

static void check_at(const char *file, int line, const char *what,
                     const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    check_va(file, line, what, fmt, ap);
    va_end(ap);
}

/*
 * Deliberately not __printf: the tables below include flag mixes that
 * GCC's format checker rejects but C defines (or glibc and the kernel
 * both ignore), and the point is to run them.
 */
#define SAME(fmt, ...) check_at(__FILE__, __LINE__, "", fmt, ##__VA_ARGS__)

/* The kernel alone, for what the C library does differently or not at all. */
static int kfmt(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = kvsnprintf(buf, size, fmt, ap);
    va_end(ap);
    return n;
}

/* --- generated integer cases -------------------------------------------- */

static const unsigned long long values[] = {
    0, 1, 7, 8, 9, 10, 15, 16, 42, 100, 127, 128, 255, 256, 4095, 32767,
    32768, 65535, 65536, 1000000, 0x7fffffff, 0x80000000, 0xffffffff,
    0x100000000ull, 0x123456789abcdefull, 0x7fffffffffffffffull,
    0x8000000000000000ull, ~0ull, -1ull, -2ull, -42ull, -128ull, -129ull,
    -32768ull, -32769ull, -1000000ull, (unsigned long long)INT_MIN,
    (unsigned long long)INT_MIN - 1,
};

enum length
{
    L_NONE, L_HH, L_H, L_L, L_LL, L_Z, L_T, L_J, L_COUNT
};

static const char *const length_str[L_COUNT] = {
    "", "hh", "h", "l", "ll", "z", "t", "j",
};

struct star
{
    const char *text;
    int nstar;          /* how many int arguments it consumes (0 or 1) */
    int arg;
};

static const struct star widths[] = {
    { "", 0, 0 }, { "1", 0, 0 }, { "6", 0, 0 }, { "22", 0, 0 },
    { "*", 1, 7 }, { "*", 1, -7 }, { "*", 1, 0 },
};

static const struct star precisions[] = {
    { "", 0, 0 }, { ".", 0, 0 }, { ".0", 0, 0 }, { ".1", 0, 0 },
    { ".3", 0, 0 }, { ".25", 0, 0 }, { ".*", 1, 4 }, { ".*", 1, -1 },
    { ".*", 1, 0 },
};

static const char conversions[] = "diuxXo";

/* Pass v as the type that conversion conv with length len expects. */
#define CALL_TYPED(T)                                                      \
    do                                                                     \
    {                                                                      \
        if ( ns == 0 )                                                     \
            check_at(__FILE__, __LINE__, what, fmt, (T)v);                 \
        else if ( ns == 1 )                                                \
            check_at(__FILE__, __LINE__, what, fmt, s[0], (T)v);           \
        else                                                               \
            check_at(__FILE__, __LINE__, what, fmt, s[0], s[1], (T)v);     \
    } while ( 0 )

static void check_int(const char *fmt, enum length len, bool is_signed,
                      int ns, const int s[2], unsigned long long v)
{
    char what[64];

    snprintf(what, sizeof(what), "value %#llx, stars %d %d", v,
             ns > 0 ? s[0] : 0, ns > 1 ? s[1] : 0);

    switch ( len )
    {
    case L_NONE:
    case L_HH:
    case L_H:
        /* Narrow types arrive promoted; the conversion narrows them. */
        if ( is_signed )
            CALL_TYPED(int);
        else
            CALL_TYPED(unsigned int);
        break;
    case L_L:
        if ( is_signed )
            CALL_TYPED(long);
        else
            CALL_TYPED(unsigned long);
        break;
    case L_LL:
        if ( is_signed )
            CALL_TYPED(long long);
        else
            CALL_TYPED(unsigned long long);
        break;
    case L_Z:
        if ( is_signed )
            CALL_TYPED(ssize_t);
        else
            CALL_TYPED(size_t);
        break;
    case L_T:
        CALL_TYPED(ptrdiff_t);
        break;
    case L_J:
        if ( is_signed )
            CALL_TYPED(intmax_t);
        else
            CALL_TYPED(uintmax_t);
        break;
    default:
        fail();
    }
}

/* Every flag subset of "-+ #0" in a fixed order, as format text. */
static void flag_text(unsigned int mask, char out[6])
{
    static const char flags[] = "-+ #0";
    unsigned int n = 0;

    for ( unsigned int i = 0; i < 5; i++ )
        if ( mask & (1u << i) )
            out[n++] = flags[i];
    out[n] = '\0';
}

static void run_matrix(enum length len, const unsigned int *flag_masks,
                       size_t nr_masks, const unsigned long long *vals,
                       size_t nr_vals)
{
    few_sizes = true;
    for ( size_t f = 0; f < nr_masks; f++ )
        for ( size_t w = 0; w < ARRAY_SIZE(widths); w++ )
            for ( size_t p = 0; p < ARRAY_SIZE(precisions); p++ )
                for ( const char *c = conversions; *c; c++ )
                {
                    char flags[6], fmt[32];
                    int s[2], ns = 0;

                    flag_text(flag_masks[f], flags);
                    snprintf(fmt, sizeof(fmt), "%%%s%s%s%s%c", flags,
                             widths[w].text, precisions[p].text,
                             length_str[len], *c);
                    if ( widths[w].nstar )
                        s[ns++] = widths[w].arg;
                    if ( precisions[p].nstar )
                        s[ns++] = precisions[p].arg;
                    for ( size_t v = 0; v < nr_vals; v++ )
                        check_int(fmt, len, *c == 'd' || *c == 'i', ns, s,
                                  vals[v]);
                }
    few_sizes = false;
}

/* All 32 flag sets, every width and precision form, plain int. */
static void int_flags_width_precision(void **state)
{
    unsigned int masks[32];

    for ( unsigned int i = 0; i < 32; i++ )
        masks[i] = i;
    run_matrix(L_NONE, masks, 32, values, ARRAY_SIZE(values));
}

/* Each length modifier, with the flag sets that change its output. */
static void int_length_modifiers(void **state)
{
    /* none, -, +, space, #, 0, -+#, +0, # 0 */
    static const unsigned int masks[] = { 0x00, 0x01, 0x02, 0x04, 0x08,
                                          0x10, 0x0b, 0x12, 0x1c };

    for ( enum length len = L_HH; len < L_COUNT; len++ )
        run_matrix(len, masks, ARRAY_SIZE(masks), values,
                   ARRAY_SIZE(values));
}

/* --- hand-written cases ------------------------------------------------- */

static void int_limits(void **state)
{
    SAME("%d %d %i", INT_MIN, INT_MAX, -1);
    SAME("%u %x %X %o", UINT_MAX, UINT_MAX, 0xabcdefu, UINT_MAX);
    SAME("%ld %ld %lu", LONG_MIN, LONG_MAX, ULONG_MAX);
    SAME("%lld %lld %llu %llx %#llo", LLONG_MIN, LLONG_MAX, ULLONG_MAX,
         ULLONG_MAX, ULLONG_MAX);
    SAME("%jd %ju %jx", INTMAX_MIN, UINTMAX_MAX, UINTMAX_MAX);
    SAME("%zd %zu %zx", (ssize_t)-1, SIZE_MAX, SIZE_MAX);
    SAME("%td %tx", PTRDIFF_MIN, (ptrdiff_t)PTRDIFF_MAX);
    SAME("%hhd %hhu %hhx %hd %hu %hx", 300, -1, 0x1ff, 70000, -1, 0x12345);
    SAME("%hhd %hd", -129, -32769);
}

/* C 7.21.6.1: '#' with o raises the precision only if needed. */
static void octal_alternate_form(void **state)
{
    SAME("%#o|%#.0o|%#.1o|%#.2o", 0, 0, 0, 0);
    SAME("%#o|%#.1o|%#.2o|%#.3o|%#.4o", 8, 8, 8, 8, 8);
    SAME("%#5.3o|%#-6.2o|%#06o|%#06.3o", 8, 8, 8, 8);
    SAME("%#.3o|%#.3o|%#.3o", 01, 077, 0777);
}

static void hex_alternate_form(void **state)
{
    SAME("%#x|%#X|%#.0x|%#5x|%#05x|%#-7x|", 0, 0, 0, 0, 255, 255);
    SAME("%#x|%#X|%#.4x|%#08.4x|%#010x", 255, 255, 255, 255, 0xbeef);
}

static void signs_and_zero_padding(void **state)
{
    SAME("%+d|% d|%+ d|% +d|%+.0d|% .0d|%+5.0d", 5, 5, 5, 5, 0, 0, 0);
    SAME("%+05d|% 05d|%-+5d|%-05d|%05.3d|%0-5d", -3, 3, 3, -3, 3, 3);
    SAME("%+u|% u|%+x|% o", 5u, 5u, 5u, 5u);
    SAME("%08d|%08d|%08d", INT_MIN, 0, -1);
    SAME("%.0d|%5.0d|%-5.0d|%.0x|%.0o|%.0u", 0, 0, 0, 0, 0, 0);
}

static void star_arguments(void **state)
{
    SAME("[%*d|%-*d|%*d]", 5, 42, 5, 42, -5, 42);
    SAME("[%.*d|%.*d|%.*d]", 4, 42, 0, 0, -3, 42);
    SAME("[%*.*d|%-*.*x]", 8, 4, -42, 8, 4, 0xab);
    SAME("[%*s|%.*s|%*.*s]", -6, "ab", 2, "abcdef", 6, 3, "abcdef");
    SAME("[%*c|%*c]", 3, 'x', -3, 'y');
}

static void strings(void **state)
{
    static const char *const strs[] = { "", "a", "hello", "hello, world" };
    static const char *const fmts[] = {
        "%s", "%1s", "%8s", "%-8s", "%.0s", "%.3s", "%.20s", "%8.3s",
        "%-8.3s", "%-1.1s", "%.s",
    };

    for ( size_t s = 0; s < ARRAY_SIZE(strs); s++ )
        for ( size_t f = 0; f < ARRAY_SIZE(fmts); f++ )
            check_at(__FILE__, __LINE__, strs[s], fmts[f], strs[s]);

    /* Precision bounds the read: the array has no terminator. */
    {
        static const char no_nul[4] = { 'a', 'b', 'c', 'd' };

        SAME("%.4s|%.2s", no_nul, no_nul);
    }
}

static void characters(void **state)
{
    SAME("%c%c%c", 'a', 'b', 'c');
    SAME("[%3c|%-3c|%1c]", 'x', 'y', 'z');
    SAME("%c", 0xff);
    SAME("%c", 0x141);
    /* An embedded NUL is counted and written like any other byte. */
    SAME("a%cb%5c", 0, 0);
}

static void pointers(void **state)
{
    int local;
    void *ptrs[] = { &local, (void *)0x1234, (void *)0xffffffff80000000ul,
                     (void *)UINTPTR_MAX };

    /* glibc prints "(nil)" for NULL; that case is the kernel's own. */
    for ( size_t i = 0; i < ARRAY_SIZE(ptrs); i++ )
    {
        SAME("%p", ptrs[i]);
        SAME("[%24p|%-24p|%3p]", ptrs[i], ptrs[i], ptrs[i]);
        SAME("[%*p]", -20, ptrs[i]);
    }
}

static void literal_text_and_percent(void **state)
{
    SAME("");
    SAME("plain text, no conversions");
    SAME("100%% sure, %d%%, %%%%", 42);
    SAME("%s=%d %s=%#lx %s", "cpu", 3, "cr3", 0x1000ul, "done\n");
    SAME("shimk: boot hv=%s boot=%s cpus=%u x2apic=%d pge=%d", "kvm", "pvh",
         2u, 1, 0);
    SAME("%-12s|%5u|%016llx|%c", "frames", 1234u, 0xdeadbeefull, '!');
}

/* Long output: what a printk line longer than its buffer looks like. */
static void long_output(void **state)
{
    char buf[16];

    memset(buf, CANARY, sizeof(buf));
    assert_int_equal(kfmt(buf, 8, "%600d", 1), 600);
    assert_string_equal(buf, "       ");
    assert_int_equal((unsigned char)buf[8], CANARY);

    SAME("%200d|%-150s|%100x", 7, "x", 0xabcu);
}

/* --- the kernel's own choices and size handling ------------------------- */

static void size_zero_and_null_buffer(void **state)
{
    char buf[8];

    assert_int_equal(ksnprintf(NULL, 0, "%d", 12345), 5);
    assert_int_equal(kfmt(NULL, 0, ""), 0);

    memset(buf, CANARY, sizeof(buf));
    assert_int_equal(ksnprintf(buf, 0, "%s", "abc"), 3);
    for ( size_t i = 0; i < sizeof(buf); i++ )
        assert_int_equal((unsigned char)buf[i], CANARY);
}

static void truncation_always_terminates(void **state)
{
    char buf[8];

    memset(buf, CANARY, sizeof(buf));
    assert_int_equal(ksnprintf(buf, 1, "%s", "abc"), 3);
    assert_int_equal(buf[0], '\0');
    assert_int_equal((unsigned char)buf[1], CANARY);

    memset(buf, CANARY, sizeof(buf));
    assert_int_equal(ksnprintf(buf, 5, "%s", "abcd"), 4);
    assert_string_equal(buf, "abcd");
    assert_int_equal((unsigned char)buf[5], CANARY);

    memset(buf, CANARY, sizeof(buf));
    assert_int_equal(ksnprintf(buf, 4, "%s", "abcd"), 4);
    assert_string_equal(buf, "abc");
    assert_int_equal((unsigned char)buf[4], CANARY);

    /* Cut in the middle of a number, of padding, of a prefix. */
    assert_int_equal(ksnprintf(buf, 4, "%d", -123456), 7);
    assert_string_equal(buf, "-12");
    assert_int_equal(ksnprintf(buf, 3, "%#x", 0xabc), 5);
    assert_string_equal(buf, "0x");
    assert_int_equal(ksnprintf(buf, 2, "%-6d|", 1), 7);
    assert_string_equal(buf, "1");
}

static void unknown_conversion_verbatim(void **state)
{
    char buf[64];

    /* Shown as is, consuming no argument: the 5 goes to the %d. */
    assert_int_equal(kfmt(buf, sizeof(buf), "%y|%d", 5), 4);
    assert_string_equal(buf, "%y|5");

    /* No %n: it must not treat an argument as a pointer to write. */
    assert_int_equal(kfmt(buf, sizeof(buf), "%n%d", 7), 3);
    assert_string_equal(buf, "%n7");

    /* Floating point is not supported and shows up plainly. */
    assert_int_equal(kfmt(buf, sizeof(buf), "%f %s", "x"), 4);
    assert_string_equal(buf, "%f x");

    /* Flags, width, precision and length are dropped from the echo. */
    assert_int_equal(kfmt(buf, sizeof(buf), "[%-08.3ly]"), 4);
    assert_string_equal(buf, "[%y]");
}

static void trailing_lone_percent(void **state)
{
    char buf[16];

    assert_int_equal(kfmt(buf, sizeof(buf), "%"), 1);
    assert_string_equal(buf, "%");
    assert_int_equal(kfmt(buf, sizeof(buf), "100%"), 4);
    assert_string_equal(buf, "100%");

    /* A specification cut off by the terminator is not read past. */
    assert_int_equal(kfmt(buf, sizeof(buf), "a%-5"), 2);
    assert_string_equal(buf, "a%");
    assert_int_equal(kfmt(buf, sizeof(buf), "b%.*"), 2);
    assert_string_equal(buf, "b%");
    assert_int_equal(kfmt(buf, sizeof(buf), "c%ll"), 2);
    assert_string_equal(buf, "c%");
    assert_int_equal(kfmt(buf, sizeof(buf), "d%h"), 2);
    assert_string_equal(buf, "d%");
}

static void null_string_and_pointer(void **state)
{
    char buf[32];

    assert_int_equal(kfmt(buf, sizeof(buf), "[%s]", (char *)NULL), 8);
    assert_string_equal(buf, "[(null)]");
    assert_int_equal(kfmt(buf, sizeof(buf), "[%8s]", (char *)NULL), 10);
    assert_string_equal(buf, "[  (null)]");
}

/* A failed matrix case jumps out of run_matrix: start every test afresh. */
static int all_sizes(void **state)
{
    few_sizes = false;
    return 0;
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup(fn, all_sizes)
    const struct CMUnitTest tests[] = {
        T(int_flags_width_precision),
        T(int_length_modifiers),
        T(int_limits),
        T(octal_alternate_form),
        T(hex_alternate_form),
        T(signs_and_zero_padding),
        T(star_arguments),
        T(strings),
        T(characters),
        T(pointers),
        T(literal_text_and_percent),
        T(long_output),
        T(size_zero_and_null_buffer),
        T(truncation_always_terminates),
        T(unknown_conversion_verbatim),
        T(trailing_lone_percent),
        T(null_string_and_pointer),
    };
#undef T

    return cmocka_run_group_tests_name("vsnprintf", tests, NULL, NULL);
}
