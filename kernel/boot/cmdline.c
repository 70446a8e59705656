/* SPDX-License-Identifier: GPL-2.0-only */
/* Kernel command-line parser (pure; host unit-tested). */

#include <shimk/cmdline.h>
#include <shimk/printk.h>
#include <shimk/string.h>

/*
 * Grammar (docs/design.md#grammar): options separated by blanks; each is
 * "name", "no-name" or "name=value"; a value may be double-quoted to
 * hold blanks.  Booleans take Xen's spellings.  Bad input of any kind
 * becomes one warning naming the option and what was kept; nothing
 * else changes, and the parser never reads past the terminator or
 * past CMDLINE_MAX bytes, so it needs no trust in the boot loader.
 */

#define SHOW_MAX 40     /* bytes of a bad name or value echoed back */

static const char *const bool_false[] = { "0", "no", "off", "false",
                                          "disable" };
static const char *const bool_true[] = { "1", "yes", "on", "true",
                                         "enable" };

static bool word_is(const char *s, size_t len, const char *word)
{
    return strlen(word) == len && !memcmp(s, word, len);
}

int parse_bool(const char *s, size_t len)
{
    for ( size_t i = 0; i < ARRAY_SIZE(bool_false); i++ )
    {
        if ( word_is(s, len, bool_false[i]) )
            return 0;
        if ( word_is(s, len, bool_true[i]) )
            return 1;
    }
    return -1;
}

/* Decimal or 0x-prefixed hex, no sign, no overflow past 32 bits. */
static bool parse_uint(const char *s, size_t len, unsigned int *out)
{
    unsigned int base = 10;
    uint64_t v = 0;
    size_t i = 0;

    if ( len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') )
    {
        base = 16;
        i = 2;
    }
    if ( i == len )
        return false;
    for ( ; i < len; i++ )
    {
        unsigned int d;

        if ( s[i] >= '0' && s[i] <= '9' )
            d = s[i] - '0';
        else if ( base == 16 && s[i] >= 'a' && s[i] <= 'f' )
            d = s[i] - 'a' + 10;
        else if ( base == 16 && s[i] >= 'A' && s[i] <= 'F' )
            d = s[i] - 'A' + 10;
        else
            return false;
        v = v * base + d;
        if ( v > UINT32_MAX )
            return false;
    }
    *out = (unsigned int)v;
    return true;
}

/* A printable, bounded copy of untrusted bytes for a warning. */
static void show(char *dst, size_t size, const char *s, size_t len)
{
    size_t n = 0;

    for ( size_t i = 0; i < len && n + 4 < size; i++ )
    {
        unsigned char c = s[i];

        dst[n++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
        if ( i + 1 == SHOW_MAX && len > SHOW_MAX )
        {
            memcpy(dst + n, "...", 3);
            n += 3;
            break;
        }
    }
    dst[n] = '\0';
}

/* What the option holds now, for "(kept ...)". */
static void show_current(char *dst, size_t size, const struct kernel_param *p)
{
    switch ( p->type )
    {
    case PARAM_BOOL:
        ksnprintf(dst, size, "kept %d", *(const bool *)p->var ? 1 : 0);
        break;
    case PARAM_TRISTATE:
    {
        int8_t v = *(const int8_t *)p->var;

        if ( v < 0 )
            ksnprintf(dst, size, "kept auto");
        else
            ksnprintf(dst, size, "kept %d", v ? 1 : 0);
        break;
    }
    case PARAM_UINT:
        ksnprintf(dst, size, "kept %u", *(const unsigned int *)p->var);
        break;
    case PARAM_STRING:
    {
        char v[SHOW_MAX + 4];
        const char *s = p->var;

        show(v, sizeof(v), s, strnlen(s, p->size));
        ksnprintf(dst, size, "kept '%s'", v);
        break;
    }
    }
}

static unsigned int warn(const char *name, size_t name_len,
                         const struct kernel_param *p, const char *fmt,
                         const char *arg, size_t arg_len)
{
    char n[SHOW_MAX + 4], a[SHOW_MAX + 4], problem[128], kept[64];

    show(n, sizeof(n), name, name_len);
    show(a, sizeof(a), arg ? arg : "", arg ? arg_len : 0);
    ksnprintf(problem, sizeof(problem), fmt, a);
    if ( p )
        show_current(kept, sizeof(kept), p);
    else
        ksnprintf(kept, sizeof(kept), "ignored");
    pr_warn("cmdline: %s: %s (%s)\n", n, problem, kept);
    return 1;
}

static const struct kernel_param *find(const struct kernel_param *params,
                                       size_t nr, const char *name,
                                       size_t len)
{
    for ( size_t i = 0; i < nr; i++ )
        if ( word_is(name, len, params[i].name) )
            return &params[i];
    return NULL;
}

/*
 * One option: name[=value].  value is NULL when there was no '='.
 * The value has had its quotes removed already.
 */
static unsigned int apply(const struct kernel_param *params, size_t nr,
                          const char *name, size_t name_len,
                          const char *value, size_t value_len)
{
    const struct kernel_param *p = find(params, nr, name, name_len);
    bool negated = false;

    if ( name_len == 0 )
        return warn(name, 0, NULL, "empty option name", NULL, 0);

    if ( !p && name_len > 3 && !memcmp(name, "no-", 3) )
    {
        p = find(params, nr, name + 3, name_len - 3);
        if ( p && p->type != PARAM_BOOL && p->type != PARAM_TRISTATE )
            return warn(name, name_len, p, "no- form needs a boolean option",
                        NULL, 0);
        negated = p != NULL;
    }
    if ( !p )
        return warn(name, name_len, NULL, "unknown option", NULL, 0);

    switch ( p->type )
    {
    case PARAM_BOOL:
    case PARAM_TRISTATE:
    {
        int b = 1;

        if ( negated && value )
            return warn(name, name_len, p, "negated form takes no value",
                        NULL, 0);
        if ( negated )
            b = 0;
        else if ( value )
            b = parse_bool(value, value_len);
        if ( b < 0 )
            return warn(name, name_len, p, "invalid boolean '%s'", value,
                        value_len);
        if ( p->type == PARAM_BOOL )
            *(bool *)p->var = b;
        else
            *(int8_t *)p->var = (int8_t)b;
        return 0;
    }
    case PARAM_UINT:
    {
        unsigned int v;

        if ( !value )
            return warn(name, name_len, p, "needs a value", NULL, 0);
        if ( !parse_uint(value, value_len, &v) )
            return warn(name, name_len, p, "invalid number '%s'", value,
                        value_len);
        if ( v < p->min || v > p->max )
        {
            char problem[80];

            ksnprintf(problem, sizeof(problem), "'%%s' out of range %u..%u",
                      p->min, p->max);
            return warn(name, name_len, p, problem, value, value_len);
        }
        *(unsigned int *)p->var = v;
        return 0;
    }
    case PARAM_STRING:
    {
        char *dst = p->var;

        if ( !value )
            return warn(name, name_len, p, "needs a value", NULL, 0);
        if ( value_len + 1 > p->size )
            return warn(name, name_len, p, "value too long", NULL, 0);
        memcpy(dst, value, value_len);
        dst[value_len] = '\0';
        return 0;
    }
    }
    return 0;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

unsigned int cmdline_parse(const char *cmdline,
                           const struct kernel_param *params, size_t nr)
{
    unsigned int warnings = 0;
    size_t len, i = 0;

    if ( !cmdline )
        return 0;

    len = strnlen(cmdline, CMDLINE_MAX + 1);
    if ( len > CMDLINE_MAX )
    {
        pr_warn("cmdline: *: longer than %u bytes (ignored from byte %u on)\n",
                CMDLINE_MAX, CMDLINE_MAX);
        warnings++;
        /*
         * An option cut by the limit is not parsed at all; one that
         * ends exactly at it (a blank follows) is complete.
         */
        len = CMDLINE_MAX;
        while ( len && !is_blank(cmdline[len]) )
            len--;
    }

    while ( i < len )
    {
        char value[CMDLINE_MAX];
        size_t start, name_len, value_len = 0;
        bool has_value = false, quoted = false, bad_char = false;

        while ( i < len && is_blank(cmdline[i]) )
            i++;
        if ( i == len )
            break;

        start = i;
        while ( i < len && cmdline[i] != '=' && !is_blank(cmdline[i]) )
        {
            if ( (unsigned char)cmdline[i] < 0x20 ||
                 (unsigned char)cmdline[i] >= 0x7f )
                bad_char = true;
            i++;
        }
        name_len = i - start;

        if ( i < len && cmdline[i] == '=' )
        {
            has_value = true;
            i++;
            /* Copy the value, dropping quotes; blanks end it unquoted. */
            while ( i < len && (quoted || !is_blank(cmdline[i])) )
            {
                unsigned char c = cmdline[i++];

                if ( c == '"' )
                {
                    quoted = !quoted;
                    continue;
                }
                if ( c < 0x20 || c >= 0x7f )
                    bad_char = true;
                value[value_len++] = (char)c;
            }
        }

        if ( bad_char )
            warnings += warn(cmdline + start, name_len, NULL,
                             "non-ASCII or control character", NULL, 0);
        else if ( quoted )
            warnings += warn(cmdline + start, name_len, NULL,
                             "unterminated quote", NULL, 0);
        else
            warnings += apply(params, nr, cmdline + start, name_len,
                              has_value ? value : NULL, value_len);
    }
    return warnings;
}

size_t cmdline_fit(char *dst, size_t size, const char *src, size_t len,
                   unsigned int *dropped)
{
    size_t out = 0, i = 0;

    *dropped = 0;
    if ( !size )
        return 0;
    while ( i < len && src[i] )
    {
        size_t start;
        bool quoted = false;

        while ( i < len && src[i] && is_blank(src[i]) )
            i++;
        if ( i == len || !src[i] )
            break;
        start = i;
        while ( i < len && src[i] && (quoted || !is_blank(src[i])) )
            if ( src[i++] == '"' )
                quoted = !quoted;
        /* The option, a blank before it unless first, and the NUL. */
        if ( i - start + (out ? 1 : 0) < size - out )
        {
            if ( out )
                dst[out++] = ' ';
            memcpy(dst + out, src + start, i - start);
            out += i - start;
        }
        else
            (*dropped)++;
    }
    dst[out] = '\0';
    return out;
}
