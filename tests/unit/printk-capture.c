/* SPDX-License-Identifier: GPL-2.0-only */
/* Host printk for the unit tests: keeps what the kernel code printed. */

#include <shimk/printk.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "printk-capture.h"

unsigned int console_loglevel = LOGLEVEL_DEBUG;

static char *text;
static size_t text_len, text_size;
static unsigned int level_counts[8];

static void append(const char *s, size_t n)
{
    if ( text_len + n + 1 > text_size )
    {
        text_size = (text_len + n + 1) * 2;
        text = realloc(text, text_size);
        if ( !text )
            abort();
    }
    memcpy(text + text_len, s, n);
    text_len += n;
    text[text_len] = '\0';
}

/*
 * The same steps as kernel/printk.c: take the level marker off, format
 * with the kernel's own formatter, cut at PRINTK_LINE_MAX.  Nothing is
 * filtered by level, so a test sees debug lines too.
 */
void vprintk(const char *fmt, va_list ap)
{
    char line[PRINTK_LINE_MAX];
    int level = LOGLEVEL_DEFAULT;
    int n;

    if ( fmt[0] == KERN_SOH[0] && fmt[1] >= '0' && fmt[1] <= '7' )
    {
        level = fmt[1] - '0';
        fmt += 2;
    }
    level_counts[level]++;

    n = kvsnprintf(line, sizeof(line), fmt, ap);
    if ( n >= (int)sizeof(line) )
    {
        n = sizeof(line) - 1;
        line[n - 1] = '\n';
    }
    append(line, n);
}

void printk(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vprintk(fmt, ap);
    va_end(ap);
}

void capture_reset(void)
{
    text_len = 0;
    if ( text )
        text[0] = '\0';
    memset(level_counts, 0, sizeof(level_counts));
}

const char *capture_text(void)
{
    return text ? text : "";
}

unsigned int capture_lines(void)
{
    unsigned int n = 0;

    for ( size_t i = 0; i < text_len; i++ )
        n += text[i] == '\n';
    return n;
}

bool capture_has(const char *needle)
{
    return strstr(capture_text(), needle) != NULL;
}

unsigned int capture_count(const char *needle)
{
    const char *p = capture_text();
    unsigned int n = 0;

    if ( !*needle )
        return 0;
    while ( (p = strstr(p, needle)) )
    {
        n++;
        p += strlen(needle);
    }
    return n;
}

const char *capture_line(unsigned int n)
{
    static char line[PRINTK_LINE_MAX];
    const char *p = capture_text();
    const char *end;

    while ( n-- )
    {
        p = strchr(p, '\n');
        if ( !p )
            return NULL;
        p++;
    }
    end = strchr(p, '\n');
    if ( !end )
        return NULL;
    if ( (size_t)(end - p) >= sizeof(line) )
        end = p + sizeof(line) - 1;
    memcpy(line, p, end - p);
    line[end - p] = '\0';
    return line;
}

unsigned int capture_level_count(int level)
{
    return level >= 0 && level < 8 ? level_counts[level] : 0;
}

void capture_dump(void)
{
    fprintf(stderr, "--- printk output ---\n%s--- end ---\n", capture_text());
}
