/* SPDX-License-Identifier: GPL-2.0-only */
/* Leaving the machine: isa-debug-exit, the L0's shutdown, or halt. */

#include <guest/hypervisor.h>
#include <shimk/panic.h>
#include <shimk/printk.h>
#include <asm/io.h>
#include <asm/processor.h>

/*
 * QEMU's isa-debug-exit device (-device isa-debug-exit,iobase=0xf4):
 * a write of c makes QEMU exit with status (c << 1) | 1.  Xen passes
 * the port through to a PVH dom0, so the same write works there.
 */
#define DEBUG_EXIT_PORT 0xf4

void halt_forever(void)
{
    for ( ;; )
    {
        local_irq_disable();
        halt();
    }
}

void machine_exit(int code)
{
    /* For runners that see only the console (a Xen domU). */
    printk("shimk: exit %d\n", code);
    local_irq_disable();
    outl(DEBUG_EXIT_PORT, (uint32_t)code);
    /* Still here: no such device (a Xen domU, real hardware). */
    hypervisor_shutdown(code);
    halt_forever();
}
