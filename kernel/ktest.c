/* SPDX-License-Identifier: GPL-2.0-only */
/* The ktest runner: selection, TAP output and the verdict. */

#include <shimk/cmdline.h>
#include <shimk/ktest.h>
#include <shimk/panic.h>
#include <shimk/printk.h>
#include <shimk/string.h>

extern const struct ktest_case __start_ktest[], __stop_ktest[];

static char opt_ktest[256];
string_param("ktest", opt_ktest);

const char *ktest_selection(void)
{
    return opt_ktest;
}

static void vset_why(struct ktest *t, const char *fmt, va_list ap)
{
    kvsnprintf(t->why, sizeof(t->why), fmt, ap);
}

void ktest_fail(struct ktest *t, const char *file, int line, const char *fmt,
                ...)
{
    va_list ap;
    char msg[128];

    va_start(ap, fmt);
    kvsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if ( !t->failed )
        ksnprintf(t->why, sizeof(t->why), "%s (%s:%d)", msg, file, line);
    t->failed = true;
}

void ktest_skip(struct ktest *t, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vset_why(t, fmt, ap);
    va_end(ap);
    t->skipped = true;
}

void ktest_note(const char *fmt, ...)
{
    char msg[PRINTK_LINE_MAX - 4];
    va_list ap;

    va_start(ap, fmt);
    kvsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    printk("# %s\n", msg);
}

/* "selftest_panic" and "selftest-panic" name the same suite. */
static bool name_matches(const char *ident, const char *s, size_t len)
{
    size_t i;

    for ( i = 0; i < len && ident[i]; i++ )
        if ( ident[i] != s[i] && !(ident[i] == '_' && s[i] == '-') )
            return false;
    return i == len && !ident[i];
}

static bool selected(const struct ktest_case *c, const char *sel)
{
    const char *p = sel;

    while ( *p )
    {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);

        if ( len == 3 && !memcmp(p, "all", 3) && !(c->flags & KTEST_EXPLICIT) )
            return true;
        if ( name_matches(c->suite, p, len) )
            return true;
        p += len + (end ? 1 : 0);
    }
    return false;
}

/* Warn about list items that name no suite: a typo must not pass. */
static void check_selection(const char *sel)
{
    const char *p = sel;

    while ( *p )
    {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        bool known = len == 3 && !memcmp(p, "all", 3);

        for ( const struct ktest_case *c = __start_ktest;
              !known && c < __stop_ktest; c++ )
            known = name_matches(c->suite, p, len);
        if ( !known )
            pr_warn("cmdline: ktest: unknown suite '%.*s' (ignored)\n",
                    (int)len, p);
        p += len + (end ? 1 : 0);
    }
}

static void print_ident(char *buf, size_t size, const char *ident)
{
    size_t i;

    for ( i = 0; i + 1 < size && ident[i]; i++ )
        buf[i] = ident[i] == '_' ? '-' : ident[i];
    buf[i] = '\0';
}

int ktest_run(const char *sel, const char *env_facts)
{
    unsigned int n = 0, total = 0, passed = 0, failed = 0, skipped = 0;

    check_selection(sel);
    for ( const struct ktest_case *c = __start_ktest; c < __stop_ktest; c++ )
        total += selected(c, sel);

    printk("KTEST: BEGIN %s\n", env_facts);
    printk("1..%u\n", total);
    for ( const struct ktest_case *c = __start_ktest; c < __stop_ktest; c++ )
    {
        struct ktest t = { 0 };
        char suite[48], name[48];

        if ( !selected(c, sel) )
            continue;
        n++;
        print_ident(suite, sizeof(suite), c->suite);
        print_ident(name, sizeof(name), c->name);
        c->fn(&t);
        if ( t.failed )
        {
            failed++;
            printk("not ok %u - %s: %s # %s\n", n, suite, name, t.why);
        }
        else if ( t.skipped )
        {
            skipped++;
            printk("ok %u - %s: %s # SKIP %s\n", n, suite, name, t.why);
        }
        else
        {
            passed++;
            printk("ok %u - %s: %s\n", n, suite, name);
        }
    }
    printk("KTEST: END %u passed, %u failed, %u skipped\n", passed, failed,
           skipped);

    if ( failed )
        return EXIT_TEST_FAILED;
    if ( !passed )
        return EXIT_ALL_SKIPPED;
    return EXIT_SUCCESS;
}
