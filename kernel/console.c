/* SPDX-License-Identifier: GPL-2.0-only */
/* The console sink list and the lock that keeps lines whole. */

#include <shimk/cmdline.h>
#include <shimk/console.h>
#include <shimk/printk.h>
#include <shimk/spinlock.h>
#include <shimk/string.h>
#include <asm/processor.h>

static struct console_sink *sinks;
static DEFINE_SPINLOCK(console_lock);
static bool console_lock_busted;

/*
 * console=com1,e9,xen,pv picks sinks, as Xen's console= does; empty
 * means each sink's default (com1 and e9 on, Xen's console_io off: a
 * dom0's would print every line twice, the PV ring on in a domU).
 */
static char opt_console[64];
string_param("console", opt_console);

bool console_selected(const char *name, bool default_on)
{
    const char *p = opt_console;
    size_t n = strlen(name);

    if ( !opt_console[0] )
        return default_on;
    while ( *p )
    {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);

        if ( len == n && !memcmp(p, name, n) )
            return true;
        p += len + (end ? 1 : 0);
    }
    return false;
}

void console_apply_selection(void)
{
    struct console_sink *c = sinks, *next;

    for ( ; c; c = next )
    {
        next = c->next;
        if ( !console_selected(c->name, true) )
            console_unregister(c);
    }
}

void console_register(struct console_sink *sink)
{
    unsigned long f = spin_lock_irqsave(&console_lock);

    sink->next = sinks;
    sinks = sink;
    spin_unlock_irqrestore(&console_lock, f);
}

void console_unregister(struct console_sink *sink)
{
    unsigned long f = spin_lock_irqsave(&console_lock);

    for ( struct console_sink **p = &sinks; *p; p = &(*p)->next )
        if ( *p == sink )
        {
            *p = sink->next;
            break;
        }
    spin_unlock_irqrestore(&console_lock, f);
}

/*
 * Everything printed is also kept in a ring, so that a sink that only
 * becomes usable later in boot (Xen's PV console, once memory is
 * mapped) still gets the whole log: console_register_replay().
 */
#define LOG_RING_SIZE 16384
static char log_ring[LOG_RING_SIZE];
static uint64_t log_written;

static void write_all(const char *s, size_t len)
{
    for ( size_t i = 0; i < len; i++ )
        log_ring[(log_written + i) % LOG_RING_SIZE] = s[i];
    log_written += len;
    for ( struct console_sink *c = sinks; c; c = c->next )
        c->write(s, len);
}

void console_register_replay(struct console_sink *sink)
{
    unsigned long f = spin_lock_irqsave(&console_lock);
    uint64_t from = log_written > LOG_RING_SIZE ? log_written - LOG_RING_SIZE
                                                : 0;

    for ( uint64_t i = from; i < log_written; )
    {
        size_t off = i % LOG_RING_SIZE;
        size_t n = MIN(LOG_RING_SIZE - off, (size_t)(log_written - i));

        sink->write(log_ring + off, n);
        i += n;
    }
    sink->next = sinks;
    sinks = sink;
    spin_unlock_irqrestore(&console_lock, f);
}

void console_write(const char *s, size_t len)
{
    unsigned long f;

    if ( READ_ONCE(console_lock_busted) )
    {
        /* Panic: interleaving is better than silence. */
        write_all(s, len);
        return;
    }
    f = spin_lock_irqsave(&console_lock);
    write_all(s, len);
    spin_unlock_irqrestore(&console_lock, f);
}

void console_force_unlock(void)
{
    WRITE_ONCE(console_lock_busted, true);
}

void console_describe(char *buf, size_t size)
{
    size_t n = 0;

    buf[0] = '\0';
    for ( struct console_sink *c = sinks; c && n < size; c = c->next )
        n += ksnprintf(buf + n, size - n, "%s%s", n ? "," : "", c->name);
}
