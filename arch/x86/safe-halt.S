/* SPDX-License-Identifier: GPL-2.0-only */
/* safe_halt: enable interrupts and halt, with no window for a lost wake-up. */

/*
 * STI's one-instruction shadow (SDM Vol. 2B, STI) should hold an
 * interrupt off until HLT has begun, so that it ends the HLT.  Under Xen
 * in TCG an interrupt was seen taken at the HLT itself, before it ran:
 * its handler returned to the HLT, which then waited with nothing left
 * to end it.  safe_halt_hlt names the HLT, so that do_trap() can step an
 * interrupted RIP past it: the halt ends either way.
 */
        .text
        .globl  safe_halt, safe_halt_hlt
        .type   safe_halt, @function
safe_halt:
        sti
safe_halt_hlt:
        hlt
        ret
        .size   safe_halt, . - safe_halt
