/* SPDX-License-Identifier: GPL-2.0-only */
/* ktest: the command line as the kernel sees it, and the parser in place. */

#include <shimk/boot-info.h>
#include <shimk/cmdline.h>
#include <shimk/ktest.h>
#include <shimk/string.h>

extern const struct kernel_param __start_params[], __stop_params[];

static const struct kernel_param *find_param(const char *name)
{
    for ( const struct kernel_param *p = __start_params; p < __stop_params;
          p++ )
        if ( !strcmp(p->name, name) )
            return p;
    return NULL;
}

KTEST(cmdline, contract_options_registered)
{
    /* A few options of the contract (docs/design.md#options). */
    static const char *const names[] = { "global-pages", "ktest",
                                         "loglevel" };

    for ( unsigned int i = 0; i < ARRAY_SIZE(names); i++ )
        KT_ASSERTF(t, find_param(names[i]), "option %s is not registered",
                   names[i]);
}

KTEST(cmdline, option_names_unique)
{
    for ( const struct kernel_param *a = __start_params; a < __stop_params;
          a++ )
        for ( const struct kernel_param *b = a + 1; b < __stop_params; b++ )
            KT_ASSERTF(t, strcmp(a->name, b->name),
                       "option %s registered twice", a->name);
}

KTEST(cmdline, ktest_value_as_parsed)
{
    const struct kernel_param *p = find_param("ktest");
    const char *arg = strstr(boot_info.cmdline, "ktest=");

    KT_ASSERT(t, p && arg);
    /* The value we run with is the last ktest= on the line. */
    while ( strstr(arg + 1, "ktest=") )
        arg = strstr(arg + 1, "ktest=");
    arg += 6;
    KT_ASSERTF(t, !strncmp(arg, p->var, strlen(p->var)),
               "ktest='%s' but the command line says '%s'",
               (const char *)p->var, arg);
}

/* The real parser on the real heap-free path, with a private table. */
KTEST(cmdline, parser_in_kernel)
{
    static bool b;
    static int8_t tri = -1;
    static unsigned int n = 7;
    static char s[16];
    static const struct kernel_param table[] = {
        { .name = "b", .type = PARAM_BOOL, .var = &b },
        { .name = "tri", .type = PARAM_TRISTATE, .var = &tri },
        { .name = "n", .type = PARAM_UINT, .var = &n, .min = 1, .max = 9 },
        { .name = "s", .type = PARAM_STRING, .var = s, .size = sizeof(s) },
    };
    unsigned int warnings;

    ktest_note("three cmdline warnings (n, bogus, tri) are expected here");
    warnings = cmdline_parse("b no-tri n=0x3 s=\"x y\" n=10 bogus tri=maybe",
                             table, ARRAY_SIZE(table));
    KT_EQ(t, warnings, 3);
    KT_EQ(t, b, true);
    KT_EQ(t, tri, 0);
    KT_EQ(t, n, 3);
    KT_ASSERTF(t, !strcmp(s, "x y"), "s='%s'", s);
}
