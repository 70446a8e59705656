/* SPDX-License-Identifier: GPL-2.0-only */
/* Port 0xe9 console sink: QEMU's debugcon, and "(d0)" lines under Xen. */

#include <shimk/console.h>
#include <asm/io.h>
#include <asm/serial.h>

#define DEBUGCON_PORT 0xe9

static void debugcon_write(const char *s, size_t len)
{
    /*
     * Under Xen every byte is a VM exit; Xen buffers them and prints a
     * "(d0) " line at each newline (hvm_print_line, shown only with
     * guest_loglvl=all).
     */
    for ( size_t i = 0; i < len; i++ )
        outb(DEBUGCON_PORT, s[i]);
}

static struct console_sink debugcon_sink = {
    .name = "e9",
    .write = debugcon_write,
};

void debugcon_init(void)
{
    console_register(&debugcon_sink);
}
