/* SPDX-License-Identifier: GPL-2.0-only */
/* AP start-up trampoline: real mode to long mode, copied below 1 MiB. */

#include <asm/msr.h>
#include <asm/processor.h>

/*
 * A STARTUP IPI with vector VV starts the AP in real mode at VV00:0000
 * (SDM Vol. 3A, 9.4.4.1), so this code runs from a copy at a page
 * below 1 MiB.  It is position independent: %ebx holds the copy's
 * linear base from the first instructions on.  The fields after the
 * code are filled in by smp.c for each AP before its SIPI.
 */
#define TR_CS32 0x08
#define TR_DS   0x10
#define TR_CS64 0x18
#define OFF(x)  ((x) - trampoline_start)

        .section .rodata
        .balign 16
        .globl  trampoline_start
trampoline_start:
        .code16
        cli
        cld
        mov     %cs, %bx
        mov     %bx, %ds
        movzwl  %bx, %ebx
        shl     $4, %ebx                /* linear base of this copy */
        lgdtl   OFF(tr_gdtr)
        mov     %cr0, %eax
        or      $X86_CR0_PE, %eax
        mov     %eax, %cr0
        ljmpl   *OFF(tr_prot32_ptr)

        .code32
tr_prot32:
        mov     $TR_DS, %eax
        mov     %eax, %ds
        mov     %eax, %es
        mov     %eax, %ss
        mov     OFF(tr_cr4)(%ebx), %eax
        mov     %eax, %cr4
        mov     OFF(tr_cr3)(%ebx), %eax
        mov     %eax, %cr3
        mov     $MSR_EFER, %ecx
        rdmsr
        or      OFF(tr_efer)(%ebx), %eax
        wrmsr
        mov     %cr0, %eax
        or      $(X86_CR0_PG | X86_CR0_WP | X86_CR0_NE), %eax
        mov     %eax, %cr0
        ljmpl   *OFF(tr_long64_ptr)(%ebx)

        .code64
tr_long64:
        mov     %ebx, %ebx              /* upper half is undefined */
        mov     OFF(tr_stack)(%rbx), %rsp
        mov     OFF(tr_cpu)(%rbx), %rdi
        mov     OFF(tr_entry)(%rbx), %rax
        xor     %ebp, %ebp
        jmp     *%rax

        .balign 8
tr_gdt:
        .quad   0
        .quad   0x00cf9b000000ffff      /* 0x08: 32-bit code */
        .quad   0x00cf93000000ffff      /* 0x10: data */
        .quad   0x00af9b000000ffff      /* 0x18: 64-bit code */
        .globl  tr_gdtr, tr_prot32_ptr, tr_long64_ptr
        .globl  tr_cr3, tr_cr4, tr_efer, tr_stack, tr_cpu, tr_entry
        .globl  tr_prot32_off, tr_long64_off, tr_gdt_off
tr_gdtr:
        .word   4 * 8 - 1
        .long   0                       /* base + OFF(tr_gdt) */
tr_prot32_ptr:
        .long   0                       /* base + OFF(tr_prot32) */
        .word   TR_CS32
tr_long64_ptr:
        .long   0                       /* base + OFF(tr_long64) */
        .word   TR_CS64
        .balign 8
tr_cr3:
        .long   0
tr_cr4:
        .long   0
tr_efer:
        .long   0
        .long   0
tr_stack:
        .quad   0
tr_cpu:
        .quad   0
tr_entry:
        .quad   0
        .globl  trampoline_end
trampoline_end:

        .balign 4
tr_prot32_off:
        .long   OFF(tr_prot32)
tr_long64_off:
        .long   OFF(tr_long64)
tr_gdt_off:
        .long   OFF(tr_gdt)

        .section .note.GNU-stack, "", @progbits
