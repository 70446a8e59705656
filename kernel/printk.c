/* SPDX-License-Identifier: GPL-2.0-only */
/* printk: level filtering and formatting onto the console sinks. */

#include <shimk/console.h>
#include <shimk/printk.h>

unsigned int console_loglevel = LOGLEVEL_DEFAULT;

void vprintk(const char *fmt, va_list ap)
{
    char line[PRINTK_LINE_MAX];
    unsigned int level = LOGLEVEL_DEFAULT;
    int n;

    if ( fmt[0] == KERN_SOH[0] && fmt[1] >= '0' && fmt[1] <= '7' )
    {
        level = fmt[1] - '0';
        fmt += 2;
    }
    if ( level > console_loglevel )
        return;

    /*
     * Format first, then write once: a whole line reaches the sinks
     * under the console lock, so CPUs never interleave mid-line.
     */
    n = kvsnprintf(line, sizeof(line), fmt, ap);
    if ( n >= (int)sizeof(line) )
    {
        n = sizeof(line) - 1;
        line[n - 1] = '\n';
    }
    console_write(line, n);
}

void printk(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vprintk(fmt, ap);
    va_end(ap);
}
