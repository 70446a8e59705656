/* SPDX-License-Identifier: GPL-2.0-only */
/* COM1 console sink: a polled 16550 UART at I/O port 0x3f8. */

#include <shimk/compiler.h>
#include <shimk/console.h>
#include <asm/io.h>
#include <asm/processor.h>
#include <asm/serial.h>

/* Register offsets, PC16550D data sheet (National Semiconductor). */
#define COM1     0x3f8
#define UART_THR 0      /* transmit holding (DLAB=0) */
#define UART_DLL 0      /* divisor latch low (DLAB=1) */
#define UART_IER 1
#define UART_DLM 1
#define UART_FCR 2
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5
#define UART_SCR 7
#define LCR_DLAB 0x80
#define LCR_8N1  0x03
#define LSR_THRE 0x20

/*
 * A UART that never drains must not stall printk for ever: give up on
 * a byte after this many polls (far beyond one character time at
 * 115200 baud, which QEMU does not even emulate).
 */
#define THRE_POLLS 100000

static bool com1_stuck;

static void com1_putc(char c)
{
    unsigned int polls = 0;

    while ( !(inb(COM1 + UART_LSR) & LSR_THRE) )
    {
        if ( ++polls == THRE_POLLS )
        {
            com1_stuck = true;
            return;
        }
        cpu_relax();
    }
    outb(COM1 + UART_THR, c);
}

static void com1_write(const char *s, size_t len)
{
    for ( size_t i = 0; i < len && !com1_stuck; i++ )
    {
        if ( s[i] == '\n' )
            com1_putc('\r');
        com1_putc(s[i]);
    }
}

static struct console_sink com1_sink = {
    .name = "com1",
    .write = com1_write,
};

/*
 * The scratch register reads back what was written only when a UART
 * is there; under Xen, where Xen owns COM1, the ports read as ~0.
 */
static bool com1_present(void)
{
    outb(COM1 + UART_SCR, 0x5a);
    if ( inb(COM1 + UART_SCR) != 0x5a )
        return false;
    outb(COM1 + UART_SCR, 0xa5);
    return inb(COM1 + UART_SCR) == 0xa5;
}

bool serial_init(void)
{
    if ( !com1_present() )
        return false;

    outb(COM1 + UART_IER, 0);               /* polled: no interrupts */
    outb(COM1 + UART_LCR, LCR_DLAB);
    outb(COM1 + UART_DLL, 1);               /* 115200 baud */
    outb(COM1 + UART_DLM, 0);
    outb(COM1 + UART_LCR, LCR_8N1);
    outb(COM1 + UART_FCR, 0xc7);            /* FIFOs on and cleared */
    outb(COM1 + UART_MCR, 0x03);            /* DTR, RTS */
    console_register(&com1_sink);
    return true;
}
