/* SPDX-License-Identifier: GPL-2.0-only */
/* Console sinks: every printk line goes to each enabled sink. */
#ifndef SHIMK_CONSOLE_H
#define SHIMK_CONSOLE_H

#include <shimk/types.h>

struct console_sink
{
    const char *name;
    void (*write)(const char *s, size_t len);
    struct console_sink *next;
};

/* Add a sink; output printed before this call is not replayed. */
void console_register(struct console_sink *sink);

/*
 * Add a sink and first give it everything printed since boot (the
 * last 16 KiB), for sinks that come up late.
 */
void console_register_replay(struct console_sink *sink);

/* Remove a sink, e.g. COM1 once Xen turns out to own the UART. */
void console_unregister(struct console_sink *sink);

/* Write raw bytes to every sink, under the console lock. */
void console_write(const char *s, size_t len);

/*
 * Panic path: stop waiting for a console lock another CPU may hold
 * forever, so the panic report always gets out.
 */
void console_force_unlock(void);

/* Does console= ask for this sink (or, without console=, default_on)? */
bool console_selected(const char *name, bool default_on);

/* Drop the early sinks console= did not ask for. */
void console_apply_selection(void);

/* Comma-separated sink names, for the boot log. */
void console_describe(char *buf, size_t size);

#endif /* SHIMK_CONSOLE_H */
