/* SPDX-License-Identifier: GPL-2.0-only */
/* The register frame every trap and interrupt entry builds. */
#ifndef ASM_REGS_H
#define ASM_REGS_H

/* Offsets used by entry.S; checked against the struct in traps.c. */
#define REGS_R15     0
#define REGS_R14     8
#define REGS_R13     16
#define REGS_R12     24
#define REGS_RBP     32
#define REGS_RBX     40
#define REGS_R11     48
#define REGS_R10     56
#define REGS_R9      64
#define REGS_R8      72
#define REGS_RAX     80
#define REGS_RCX     88
#define REGS_RDX     96
#define REGS_RSI     104
#define REGS_RDI     112
#define REGS_VECTOR  120
#define REGS_ERROR   128
#define REGS_RIP     136
#define REGS_CS      144
#define REGS_RFLAGS  152
#define REGS_RSP     160
#define REGS_SS      168
#define REGS_SIZE    176

#ifdef __ASSEMBLER__
/*
 * The general registers of struct cpu_regs, pushed below the vector and
 * error code (the last push is r15, at offset 0), and popped back: the
 * one definition that the trap entry (entry.S) and the SYSCALL entry
 * (syscall.S) both build their frames with.
 */
.macro SAVE_REGS
    pushq   %rdi
    pushq   %rsi
    pushq   %rdx
    pushq   %rcx
    pushq   %rax
    pushq   %r8
    pushq   %r9
    pushq   %r10
    pushq   %r11
    pushq   %rbx
    pushq   %rbp
    pushq   %r12
    pushq   %r13
    pushq   %r14
    pushq   %r15
.endm

.macro RESTORE_REGS
    popq    %r15
    popq    %r14
    popq    %r13
    popq    %r12
    popq    %rbp
    popq    %rbx
    popq    %r11
    popq    %r10
    popq    %r9
    popq    %r8
    popq    %rax
    popq    %rcx
    popq    %rdx
    popq    %rsi
    popq    %rdi
.endm

#else
#include <shimk/types.h>

struct cpu_regs
{
    uint64_t r15, r14, r13, r12, rbp, rbx, r11, r10, r9, r8;
    uint64_t rax, rcx, rdx, rsi, rdi;
    uint64_t vector, error_code;
    /* Pushed by the CPU. */
    uint64_t rip, cs, rflags, rsp, ss;
};

static inline bool regs_from_user(const struct cpu_regs *r)
{
    return (r->cs & 3) == 3;
}
#endif

#endif /* ASM_REGS_H */
