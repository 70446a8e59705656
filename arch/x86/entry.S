/* SPDX-License-Identifier: GPL-2.0-only */
/* Trap and interrupt entry: one stub per vector, one common frame builder. */

#include <asm/msr.h>
#include <asm/regs.h>

/*
 * Vectors for which the CPU pushes an error code (SDM Vol. 3A, 6.13):
 * #DF 8, #TS 10, #NP 11, #SS 12, #GP 13, #PF 14, #AC 17, #CP 21,
 * #VC 29, #SX 30.  The others get a zero pushed, so every frame has
 * the same shape (struct cpu_regs in asm/regs.h).
 */
#define HAS_ERROR_CODE(v) \
    ((v) == 8 || ((v) >= 10 && (v) <= 14) || (v) == 17 || (v) == 21 || \
     (v) == 29 || (v) == 30)

/* NMI, #DF and #MC run on IST stacks and may interrupt any GS state. */
#define IS_PARANOID(v) ((v) == 2 || (v) == 8 || (v) == 18)

        .text
        .balign 16
        .globl  trap_stubs
trap_stubs:
        .set    vec, 0
        .rept   256
        .balign 16
        .if     (HAS_ERROR_CODE(vec)) == 0
        pushq   $0
        .endif
        pushq   $vec
        .if     IS_PARANOID(vec)
        jmp     trap_common_paranoid
        .else
        jmp     trap_common
        .endif
        .set    vec, vec + 1
        .endr

        .section .rodata
        .balign 8
        .globl  trap_stub_table
trap_stub_table:
        .set    vec, 0
        .rept   256
        .quad   trap_stubs + vec * 16
        .set    vec, vec + 1
        .endr
        .text

/*
 * From ring 3 the GS base is the user's (every way back to ring 3 swaps
 * it in last), so the saved CS tells what to do.  From ring 0 it does
 * not: an entry can land on one of the instructions that run on the
 * user's GS base (a stub or this code before its SWAPGS on the way in
 * from ring 3, the instructions between SWAPGS and IRETQ or SYSRET on
 * the way out, a SYSCALL entry before its SWAPGS, and the paranoid
 * path's own prologue and epilogue), through a faulting IRETQ, an NMI,
 * #DF or #MC, or an interrupt that an L0 delivered with IF clear (Xen
 * in QEMU TCG was seen to deliver a flush IPI a second time at its own
 * stub).  Taking the kernel's GS base for granted there made do_trap()'s
 * first per-CPU load fault through the user's base, and fault again on
 * every nested entry, until the stack ran down over the heap.  So no
 * kernel-mode entry trusts GS: each reads MSR_GS_BASE (one RDMSR, which
 * neither Xen nor KVM intercepts on SVM or VMX) and swaps only when the
 * base is not the kernel's.  The frame is 176 bytes on a 16-byte
 * aligned stack, so the C call is aligned.
 */
trap_common:
        testb   $3, 24(%rsp)            /* saved CS, above vector+error */
        jz      trap_common_paranoid
        swapgs
        .globl  trap_entry_gs_done
trap_entry_gs_done:
        SAVE_REGS
        cld
        mov     %rsp, %rdi
        call    do_trap
        .globl  trap_return
trap_return:
        RESTORE_REGS
        addq    $16, %rsp               /* vector, error code */
        testb   $3, 8(%rsp)             /* saved CS */
        jz      2f
        swapgs
        .globl  trap_return_iret
trap_return_iret:
2:      iretq

/*
 * Every entry from ring 0, and NMI, #DF and #MC from anywhere (they run
 * on IST stacks and may interrupt any GS state).  The kernel's GS base
 * is a kernel address (bit 63 set) and the user's is always 0 (CR4.
 * FSGSBASE stays off, so a task cannot set another), so read it and
 * swap only if it is not ours.  %rbx is callee-saved, so it carries the
 * decision across the C call.
 */
        .globl  trap_common_paranoid
trap_common_paranoid:
        SAVE_REGS
        cld
        mov     $MSR_GS_BASE, %ecx
        rdmsr
        xor     %ebx, %ebx
        test    %edx, %edx
        js      3f
        swapgs
        mov     $1, %ebx
3:      mov     %rsp, %rdi
        call    do_trap
        test    %ebx, %ebx
        jz      4f
        swapgs
4:      RESTORE_REGS
        addq    $16, %rsp
        iretq

/*
 * void save_current_regs(struct cpu_regs *r): a snapshot of the caller's
 * registers for panic(), which has no trap frame to print.  RIP and RSP
 * are the caller's, as they will be when this returns.
 */
        .globl  save_current_regs
save_current_regs:
        movq    %r15, REGS_R15(%rdi)
        movq    %r14, REGS_R14(%rdi)
        movq    %r13, REGS_R13(%rdi)
        movq    %r12, REGS_R12(%rdi)
        movq    %rbp, REGS_RBP(%rdi)
        movq    %rbx, REGS_RBX(%rdi)
        movq    %r11, REGS_R11(%rdi)
        movq    %r10, REGS_R10(%rdi)
        movq    %r9, REGS_R9(%rdi)
        movq    %r8, REGS_R8(%rdi)
        movq    %rax, REGS_RAX(%rdi)
        movq    %rcx, REGS_RCX(%rdi)
        movq    %rdx, REGS_RDX(%rdi)
        movq    %rsi, REGS_RSI(%rdi)
        movq    %rdi, REGS_RDI(%rdi)
        movq    $0, REGS_VECTOR(%rdi)
        movq    $0, REGS_ERROR(%rdi)
        movq    (%rsp), %rax
        movq    %rax, REGS_RIP(%rdi)
        leaq    8(%rsp), %rax
        movq    %rax, REGS_RSP(%rdi)
        pushfq
        popq    %rax
        movq    %rax, REGS_RFLAGS(%rdi)
        movq    %cs, %rax
        movq    %rax, REGS_CS(%rdi)
        movq    %ss, %rax
        movq    %rax, REGS_SS(%rdi)
        movq    REGS_RAX(%rdi), %rax
        ret

        .section .note.GNU-stack, "", @progbits
