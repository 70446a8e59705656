/* SPDX-License-Identifier: GPL-2.0-only */
/* GDT selectors, the 64-bit TSS and IDT set-up (SDM Vol. 3A, 3.4, 6.14, 8.7). */
#ifndef ASM_DESC_H
#define ASM_DESC_H

/*
 * GDT layout.  The user entries are ordered for SYSRET, which loads
 * SS from STAR[63:48] + 8 and a 64-bit CS from STAR[63:48] + 16
 * (SDM Vol. 2B, SYSRET): so user data sits between a 32-bit user code
 * placeholder and the 64-bit user code segment.
 */
#define GDT_KERNEL_CS   0x08
#define GDT_KERNEL_DS   0x10
#define GDT_USER_CS32   0x18
#define GDT_USER_DS     0x20
#define GDT_USER_CS     0x28
#define GDT_TSS         0x30
#define GDT_ENTRIES     8

#define KERNEL_CS  GDT_KERNEL_CS
#define KERNEL_DS  GDT_KERNEL_DS
#define USER_DS    (GDT_USER_DS | 3)
#define USER_CS    (GDT_USER_CS | 3)
#define USER_CS32  (GDT_USER_CS32 | 3)

/* Interrupt stack table slots (TSS.IST1..7). */
#define IST_NMI 1
#define IST_DF  2
#define IST_MC  3
#define IST_STACK_SIZE 8192

#define NR_VECTORS 256

#ifndef __ASSEMBLER__
#include <shimk/compiler.h>
#include <shimk/types.h>

struct tss64
{
    uint32_t reserved0;
    uint64_t rsp[3];
    uint64_t reserved1;
    uint64_t ist[7];
    uint64_t reserved2;
    uint16_t reserved3;
    uint16_t iomap_base;
} __packed;

struct cpu_info;

/* Build the IDT once, on the boot CPU. */
void idt_init(void);

/* Build and load this CPU's GDT and TSS, then load the shared IDT. */
void desc_load_cpu(struct cpu_info *ci);
#endif

#endif /* ASM_DESC_H */
