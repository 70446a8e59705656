/* SPDX-License-Identifier: GPL-2.0-only */
/* Exception table: faults at listed instructions resume at a fixup. */
#ifndef ASM_EXTABLE_H
#define ASM_EXTABLE_H

/*
 * Each entry pairs the address of an instruction that may fault (an
 * absent MSR, a user pointer) with where to continue.  The trap
 * handler consults the table only for faults taken in kernel mode.
 */
#ifdef __ASSEMBLER__
#define _ASM_EXTABLE(from, to)  \
    .pushsection .ex_table, "a"; \
    .balign 8;                   \
    .quad from, to;              \
    .popsection
#else
#define _ASM_EXTABLE(from, to)          \
    " .pushsection .ex_table, \"a\"\n"  \
    " .balign 8\n"                      \
    " .quad " #from ", " #to "\n"       \
    " .popsection\n"

#include <shimk/types.h>

struct exception_table_entry
{
    uint64_t insn;
    uint64_t fixup;
};

/* The fixup for a faulting RIP, or 0 when there is none. */
uint64_t search_exception_table(uint64_t rip);
#endif

#endif /* ASM_EXTABLE_H */
