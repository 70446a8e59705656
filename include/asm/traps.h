/* SPDX-License-Identifier: GPL-2.0-only */
/* Exception and interrupt dispatch. */
#ifndef ASM_TRAPS_H
#define ASM_TRAPS_H

#include <asm/regs.h>

#define X86_EXC_DE  0
#define X86_EXC_DB  1
#define X86_EXC_NMI 2
#define X86_EXC_BP  3
#define X86_EXC_UD  6
#define X86_EXC_NM  7
#define X86_EXC_DF  8
#define X86_EXC_GP  13
#define X86_EXC_PF  14
#define X86_EXC_MC  18
#define FIRST_EXTERNAL_VECTOR 32

/* #PF error code bits, SDM Vol. 3A, 4.7 */
#define PFEC_PRESENT (1u << 0)
#define PFEC_WRITE   (1u << 1)
#define PFEC_USER    (1u << 2)
#define PFEC_RSVD    (1u << 3)
#define PFEC_INSN    (1u << 4)

typedef void (*vector_handler_t)(struct cpu_regs *regs);

/* Route an interrupt vector (>= 32) to fn; panics if already taken. */
void set_vector_handler(unsigned int vector, vector_handler_t fn);

/*
 * A user-mode exception is offered to this hook first (the task layer
 * kills the offending task); it returns only if it handled nothing.
 */
extern void (*user_exception_hook)(struct cpu_regs *regs);

/* Handler for NMIs (panic stop, and later users); NULL = report. */
extern void (*nmi_hook)(struct cpu_regs *regs);

const char *exception_name(unsigned int vector);

void do_trap(struct cpu_regs *regs);

#endif /* ASM_TRAPS_H */
