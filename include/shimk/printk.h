/* SPDX-License-Identifier: GPL-2.0-only */
/* printk, log levels and the bounded formatter behind them. */
#ifndef SHIMK_PRINTK_H
#define SHIMK_PRINTK_H

#include <stdarg.h>
#include <shimk/compiler.h>
#include <shimk/types.h>

/*
 * A message may start with a level marker, as in Linux: SOH then a
 * digit.  Messages above console_loglevel are dropped; the marker is
 * never printed.
 */
#define KERN_SOH     "\001"
#define KERN_EMERG   KERN_SOH "0"
#define KERN_ERR     KERN_SOH "3"
#define KERN_WARNING KERN_SOH "4"
#define KERN_NOTICE  KERN_SOH "5"
#define KERN_INFO    KERN_SOH "6"
#define KERN_DEBUG   KERN_SOH "7"

#define LOGLEVEL_EMERG   0
#define LOGLEVEL_ERR     3
#define LOGLEVEL_WARNING 4
#define LOGLEVEL_NOTICE  5
#define LOGLEVEL_INFO    6
#define LOGLEVEL_DEBUG   7
#define LOGLEVEL_DEFAULT LOGLEVEL_INFO

/* Longest line printk emits in one piece; longer ones are cut. */
#define PRINTK_LINE_MAX 512

extern unsigned int console_loglevel;

__printf(1, 2) void printk(const char *fmt, ...);
void vprintk(const char *fmt, va_list ap);

/*
 * C99 vsnprintf semantics (returns the length the output would have
 * had), for the conversions the kernel uses: d i u x X o c s p %, the
 * flags "-0 +#", width and precision (also "*"), and the length
 * modifiers hh h l ll z t j.  Named k* so the host unit tests can
 * link it beside the C library.
 */
int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
__printf(3, 4) int ksnprintf(char *buf, size_t size, const char *fmt, ...);

#define pr_err(fmt, ...)    printk(KERN_ERR fmt, ##__VA_ARGS__)
#define pr_notice(fmt, ...) printk(KERN_NOTICE fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...)   printk(KERN_INFO fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...)  printk(KERN_DEBUG fmt, ##__VA_ARGS__)

/* The protocol's warning line (docs/design.md#warnings). */
#define pr_warn(fmt, ...) \
    printk(KERN_WARNING "shimk: warning: " fmt, ##__VA_ARGS__)

#endif /* SHIMK_PRINTK_H */
