/* SPDX-License-Identifier: GPL-2.0-only */
/* Boot headers, the PVH and multiboot2 entry points, and the 32->64 switch. */

#include <asm/msr.h>
#include <asm/page.h>
#include <asm/processor.h>
#include <xen/elfnote.h>

#define BOOT_CS32  0x08
#define BOOT_DS    0x10
#define BOOT_CS64  0x18

#define KERNEL_STACK_SIZE_ASM 16384 /* KERNEL_STACK_SIZE in asm/percpu.h */

/* enum boot_protocol in include/shimk/boot-info.h */
#define BOOT_UNKNOWN 0
#define BOOT_PVH     1
#define BOOT_MB2     2

#define MB2_HEADER_MAGIC     0xe85250d6
#define MB2_ARCH_I386        0
#define MB2_BOOTLOADER_MAGIC 0x36d76289

/*
 * Multiboot2 header (Multiboot2 spec, 3.1): 8-byte aligned within the
 * first 32 KiB of the file.  The linker script puts this section first.
 * No multiboot1 header: QEMU would try its multiboot1 loader on it and
 * refuse an ELF64 (docs/design.md#build-outputs).
 */
        .section .multiboot2, "a"
        .balign 8
mb2_header:
        .long   MB2_HEADER_MAGIC
        .long   MB2_ARCH_I386
        .long   mb2_header_end - mb2_header
        .long   0x100000000 - (MB2_HEADER_MAGIC + MB2_ARCH_I386 + \
                               (mb2_header_end - mb2_header))
        /* End tag: type 0, flags 0, size 8. */
        .balign 8
        .short  0
        .short  0
        .long   8
mb2_header_end:

/*
 * XEN_ELFNOTE_PHYS32_ENTRY (xen/elfnote.h): the 32-bit physical entry
 * used by QEMU's -kernel PVH loader and by Xen for PVH guests.  The
 * linker puts this in its own PT_NOTE segment aligned to 4 bytes.
 */
        .section .note.Xen, "a", @note
        .balign 4
        .long   4                       /* name size: "Xen\0" */
        .long   4                       /* descriptor size */
        .long   XEN_ELFNOTE_PHYS32_ENTRY
        .asciz  "Xen"
        .balign 4
        .long   pvh_entry
        .balign 4

        .section .boot.text, "ax"
        .code32

/*
 * PVH entry (xen/arch-x86/hvm/start_info.h): 32-bit protected mode,
 * paging off, flat CS/DS, %ebx = physical address of hvm_start_info.
 * Nothing is promised about GDTR or a stack.
 */
        .globl  pvh_entry
pvh_entry:
        cli
        cld
        mov     $BOOT_PVH, %ebp
        jmp     common32

/*
 * Multiboot2 entry (spec 3.3): %eax = magic, %ebx = physical address
 * of the boot information.  A wrong magic is remembered, not trusted:
 * the C code reports it once a console is up.
 */
        .globl  mb2_entry
mb2_entry:
        cli
        cld
        mov     %eax, boot_magic
        mov     $BOOT_UNKNOWN, %ebp
        cmp     $MB2_BOOTLOADER_MAGIC, %eax
        jne     common32
        mov     $BOOT_MB2, %ebp

        /* %ebp = protocol, %ebx = boot data: CPUID below clobbers %ebx. */
common32:
        mov     %ebx, boot_data_pa
        lgdt    boot_gdtr
        ljmp    $BOOT_CS32, $1f
1:      mov     $BOOT_DS, %eax
        mov     %eax, %ds
        mov     %eax, %es
        mov     %eax, %ss
        mov     %eax, %fs
        mov     %eax, %gs
        mov     $boot_stack_top, %esp

        /* Long mode is not optional: say so where a runner can see it. */
        mov     $0x80000000, %eax
        cpuid
        cmp     $0x80000001, %eax
        jb      no_long_mode
        mov     $0x80000001, %eax
        cpuid
        bt      $29, %edx
        jnc     no_long_mode
        mov     %edx, %esi              /* keep NX (bit 20) for EFER */

        /* Zero .bss through its physical address; paging is still off. */
        mov     $__bss_start_phys, %edi
        mov     $__bss_end_phys, %ecx
        sub     %edi, %ecx
        xor     %eax, %eax
        rep stosb

        mov     %cr4, %eax
        or      $X86_CR4_PAE, %eax
        mov     %eax, %cr4
        mov     $boot_pml4, %eax
        mov     %eax, %cr3

        mov     $MSR_EFER, %ecx
        rdmsr
        or      $EFER_LME, %eax
        bt      $20, %esi
        jnc     2f
        or      $EFER_NXE, %eax
2:      wrmsr

        mov     %cr0, %eax
        or      $(X86_CR0_PG | X86_CR0_PE | X86_CR0_WP | X86_CR0_NE), %eax
        mov     %eax, %cr0
        ljmp    $BOOT_CS64, $long_mode

no_long_mode:
        mov     $no_lm_msg, %esi
3:      lodsb
        test    %al, %al
        jz      4f
        outb    %al, $0xe9
        jmp     3b
4:      mov     $2, %eax                /* the panic exit code */
        outl    %eax, $0xf4
5:      hlt
        jmp     5b

        .code64
long_mode:
        mov     $BOOT_DS, %eax
        mov     %eax, %ds
        mov     %eax, %es
        mov     %eax, %ss
        /* Writing a 32-bit register zero-extends: clean 64-bit args. */
        mov     %ebp, %edi
        mov     boot_data_pa(%rip), %esi
        mov     boot_magic(%rip), %edx
        movabs  $high_entry, %rax
        jmp     *%rax

        .section .boot.data, "aw"
        .balign 4
boot_data_pa:
        .long   0
boot_magic:
        .long   0
no_lm_msg:
        .asciz  "shimk: PANIC on CPU0: this CPU has no long mode\n"

        .balign 8
boot_gdt:
        .quad   0
        .quad   0x00cf9b000000ffff      /* 0x08: 32-bit code, flat */
        .quad   0x00cf93000000ffff      /* 0x10: data, flat */
        .quad   0x00af9b000000ffff      /* 0x18: 64-bit code */
boot_gdt_end:
boot_gdtr:
        .word   boot_gdt_end - boot_gdt - 1
        .long   boot_gdt

/*
 * Boot page tables: the first 4 GiB identity mapped and direct mapped
 * (PML4 slots 0 and 256 share one L3), and the first GiB again at
 * KERNEL_VIRT_BASE for the kernel image; all 2 MiB pages.  They only
 * live until mm_init() loads the kernel's own tables.
 */
        .balign PAGE_SIZE
boot_pml4:
        .quad   boot_l3 + (PTE_P | PTE_W)
        .fill   255, 8, 0
        .quad   boot_l3 + (PTE_P | PTE_W)
        .fill   254, 8, 0
        .quad   boot_l3_high + (PTE_P | PTE_W)
boot_l3:
        .quad   boot_l2 + 0x0000 + (PTE_P | PTE_W)
        .quad   boot_l2 + 0x1000 + (PTE_P | PTE_W)
        .quad   boot_l2 + 0x2000 + (PTE_P | PTE_W)
        .quad   boot_l2 + 0x3000 + (PTE_P | PTE_W)
        .fill   508, 8, 0
boot_l3_high:
        .fill   510, 8, 0
        .quad   boot_l2 + (PTE_P | PTE_W)
        .quad   0
boot_l2:
        .set    pfn2m, 0
        .rept   2048
        .quad   (pfn2m << SUPERPAGE_SHIFT) + (PTE_P | PTE_W | PTE_PS)
        .set    pfn2m, pfn2m + 1
        .endr

        .balign 16
        .fill   1024, 1, 0
boot_stack_top:

/* Long mode at last: now run at the kernel's virtual address. */
        .text
high_entry:
        movabs  $bsp_stack_top, %rsp
        xor     %ebp, %ebp
        /* %edi = protocol, %esi = boot data address, %edx = MB2 magic */
        call    kernel_start
        ud2

        /*
         * The boot CPU's stack, behind a page that mm_init() leaves
         * unmapped (asm/guarded.h): an overflow faults instead of
         * running into whatever .bss holds below.
         */
        .bss
        .balign PAGE_SIZE
        .globl  bsp_stack_guard
bsp_stack_guard:
        .skip   PAGE_SIZE
        .globl  bsp_stack
bsp_stack:
        .skip   KERNEL_STACK_SIZE_ASM
bsp_stack_top:
        .section .note.GNU-stack, "", @progbits
