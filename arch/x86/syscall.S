/* SPDX-License-Identifier: GPL-2.0-only */
/* SYSCALL entry and the first entry into ring 3 (SDM Vol. 2B, SYSCALL). */

#include <asm/desc.h>
#include <asm/percpu.h>
#include <asm/regs.h>

/* The vector field of a system call's frame: no IDT vector has it. */
#define SYSCALL_MARK 0x100

/*
 * SYSCALL leaves the user RSP in place, RIP in RCX and RFLAGS in R11,
 * with IF cleared by SFMASK.  The entry builds the same frame as an
 * interrupt from ring 3 (struct cpu_regs) on the thread's kernel
 * stack, and leaves through trap_return's IRETQ: SYSRET would fault in
 * ring 0 on a non-canonical RCX, which a user can arrange by placing
 * SYSCALL at the top of the user half.
 */
/*
 * The entry proper, for 64-bit and compatibility-mode callers alike;
 * cs is the user code segment to return to.  on_kstack names the first
 * instruction on the kernel stack: before it the CPU is in ring 0 on
 * the user's RSP, which tools/bootlib/memcheck.py must know of a vCPU
 * the L0 stopped there.
 */
.macro SYSCALL_ENTRY cs, on_kstack
        swapgs
        movq    %rsp, %gs:CPU_INFO_USER_RSP
        movq    %gs:CPU_INFO_KSTACK_TOP, %rsp
        .globl  \on_kstack
\on_kstack:
        pushq   $USER_DS
        pushq   %gs:CPU_INFO_USER_RSP
        pushq   %r11
        pushq   $\cs
        pushq   %rcx
        pushq   $0
        pushq   $SYSCALL_MARK
        SAVE_REGS
        cld
        sti
        movq    %rsp, %rdi
        call    do_syscall
        cli
        jmp     trap_return
.endm

        .text
        .globl  syscall_entry
syscall_entry:
        SYSCALL_ENTRY USER_CS, syscall_entry_on_kstack

/*
 * A SYSCALL from compatibility mode (AMD only; MSR_CSTAR).  RCX holds
 * the 32-bit return address; do_syscall() sees USER_CS32 in the frame
 * and answers -ENOSYS: shimk has no 32-bit system calls.
 */
        .globl  syscall32_entry
syscall32_entry:
        SYSCALL_ENTRY USER_CS32, syscall32_entry_on_kstack

/*
 * void enter_user(uint64_t rip, uint64_t rsp, uint64_t arg): drop to
 * ring 3 at rip with arg in RDI, every other register zero, IF set.
 */
        .globl  enter_user
enter_user:
        cli
        pushq   $USER_DS
        pushq   %rsi
        pushq   $0x202
        pushq   $USER_CS
        pushq   %rdi
        movq    %rdx, %rdi
        xorl    %eax, %eax
        xorl    %ebx, %ebx
        xorl    %ecx, %ecx
        xorl    %edx, %edx
        xorl    %esi, %esi
        xorl    %ebp, %ebp
        xorl    %r8d, %r8d
        xorl    %r9d, %r9d
        xorl    %r10d, %r10d
        xorl    %r11d, %r11d
        xorl    %r12d, %r12d
        xorl    %r13d, %r13d
        xorl    %r14d, %r14d
        xorl    %r15d, %r15d
        swapgs
        .globl  enter_user_iret
enter_user_iret:
        iretq

        .section .note.GNU-stack, "", @progbits
