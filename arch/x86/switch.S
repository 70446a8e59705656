/* SPDX-License-Identifier: GPL-2.0-only */
/* switch_context: save callee-saved state on one stack, resume another. */

/*
 * void switch_context(uint64_t *save_rsp, uint64_t next_rsp)
 *
 * The System V ABI lets a callee clobber every other register, so a
 * switch between two C call sites only has to keep RBX, RBP and
 * R12-R15, plus the stack pointer itself.
 */
        .text
        .globl  switch_context
switch_context:
        pushq   %rbp
        pushq   %rbx
        pushq   %r12
        pushq   %r13
        pushq   %r14
        pushq   %r15
        movq    %rsp, (%rdi)
        movq    %rsi, %rsp
        popq    %r15
        popq    %r14
        popq    %r13
        popq    %r12
        popq    %rbx
        popq    %rbp
        ret

        .section .note.GNU-stack, "", @progbits
