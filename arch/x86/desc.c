/* SPDX-License-Identifier: GPL-2.0-only */
/* GDT, TSS and IDT (SDM Vol. 3A, 3.4.5, 6.14, 8.7). */

#include <shimk/string.h>
#include <asm/desc.h>
#include <asm/msr.h>
#include <asm/processor.h>
#include <asm/percpu.h>

struct idt_gate
{
    uint16_t offset_lo;
    uint16_t selector;
    uint8_t ist;
    uint8_t type_attr;
    uint16_t offset_mid;
    uint32_t offset_hi;
    uint32_t reserved;
} __packed;

struct desc_ptr
{
    uint16_t limit;
    uint64_t base;
} __packed;

static struct idt_gate idt[NR_VECTORS] __aligned(16);

/* entry.S: one stub per vector; syscall.S: the SYSCALL entry. */
extern const uint64_t trap_stub_table[NR_VECTORS];
extern char syscall_entry[], syscall32_entry[];

#define GATE_INTERRUPT 0x8e     /* present, DPL 0, 64-bit interrupt gate */

/*
 * Every vector uses an interrupt gate, so IF is clear on entry and a
 * handler decides itself when interrupts may nest.  NMI, #DF and #MC
 * switch to their own IST stacks: they can arrive on a broken stack.
 */
void idt_init(void)
{
    for ( unsigned int v = 0; v < NR_VECTORS; v++ )
    {
        uint64_t addr = trap_stub_table[v];
        struct idt_gate *g = &idt[v];

        g->offset_lo = addr & 0xffff;
        g->selector = KERNEL_CS;
        g->ist = 0;
        g->type_attr = GATE_INTERRUPT;
        g->offset_mid = (addr >> 16) & 0xffff;
        g->offset_hi = addr >> 32;
        g->reserved = 0;
    }
    idt[2].ist = IST_NMI;
    idt[8].ist = IST_DF;
    idt[18].ist = IST_MC;
}

/* Flat 64-bit segments; only the DPL, type and L bit matter. */
#define SEG_KERNEL_CODE 0x00af9b000000ffffull
#define SEG_KERNEL_DATA 0x00cf93000000ffffull
#define SEG_USER_CODE32 0x00cffb000000ffffull
#define SEG_USER_DATA   0x00cff3000000ffffull
#define SEG_USER_CODE   0x00affb000000ffffull

static void set_tss_desc(uint64_t *gdt, const struct tss64 *tss)
{
    uint64_t base = (uint64_t)tss, limit = sizeof(*tss) - 1;

    /* 16-byte system descriptor, type 9 (available 64-bit TSS). */
    gdt[0] = (limit & 0xffff) | ((base & 0xffffff) << 16) | (0x89ull << 40) |
             (((limit >> 16) & 0xf) << 48) | (((base >> 24) & 0xff) << 56);
    gdt[1] = base >> 32;
}

void desc_load_cpu(struct cpu_info *ci)
{
    struct desc_ptr gdtr = { sizeof(ci->gdt) - 1, (uint64_t)ci->gdt };
    struct desc_ptr idtr = { sizeof(idt) - 1, (uint64_t)idt };

    ci->gdt[0] = 0;
    ci->gdt[GDT_KERNEL_CS >> 3] = SEG_KERNEL_CODE;
    ci->gdt[GDT_KERNEL_DS >> 3] = SEG_KERNEL_DATA;
    ci->gdt[GDT_USER_CS32 >> 3] = SEG_USER_CODE32;
    ci->gdt[GDT_USER_DS >> 3] = SEG_USER_DATA;
    ci->gdt[GDT_USER_CS >> 3] = SEG_USER_CODE;
    set_tss_desc(&ci->gdt[GDT_TSS >> 3], &ci->tss);

    memset(&ci->tss, 0, sizeof(ci->tss));
    ci->tss.rsp[0] = ci->kernel_stack_top;
    for ( unsigned int i = 0; i < 3; i++ )
        ci->tss.ist[i] = (uint64_t)ci->ist_stacks[i] + IST_STACK_SIZE;
    ci->tss.iomap_base = sizeof(ci->tss);   /* no I/O bitmap */

    __asm__ __volatile__("lgdt %0" :: "m"(gdtr));
    /*
     * Reload CS with a far return, and the data segments.  FS and GS
     * are left alone: loading their selectors would clear the GS base
     * that this_cpu() depends on.
     */
    __asm__ __volatile__("pushq %[cs]\n\t"
                         "leaq 1f(%%rip), %%rax\n\t"
                         "pushq %%rax\n\t"
                         "lretq\n"
                         "1:\n\t"
                         "mov %[ds], %%ss\n\t"
                         "mov %[ds], %%ds\n\t"
                         "mov %[ds], %%es"
                         :: [cs] "i"(KERNEL_CS), [ds] "r"(KERNEL_DS)
                         : "rax", "memory");
    __asm__ __volatile__("ltr %w0" :: "r"(GDT_TSS));
    __asm__ __volatile__("lidt %0" :: "m"(idtr));

    /*
     * SYSCALL (SDM Vol. 2B): kernel CS/SS from STAR[47:32], SYSRET's
     * user selectors from STAR[63:48] (see the GDT layout in
     * asm/desc.h).  SFMASK clears on entry every flag a task can set
     * that the kernel must not run with: IF, DF, TF, AC, and NT, which
     * POPF sets at CPL 3 and with which the kernel's own IRETQ would
     * #GP in 64-bit mode (SDM Vol. 2A, IRET) after SWAPGS, on the
     * user's GS.  Interrupt gates clear NT and TF themselves (SDM Vol.
     * 3A, 6.12.1.3).
     */
    wrmsr(MSR_STAR, ((uint64_t)USER_CS32 << 48) |
                        ((uint64_t)KERNEL_CS << 32));
    wrmsr(MSR_LSTAR, (uint64_t)syscall_entry);
    /*
     * The 32-bit user code segment exists (a task may far-jump into
     * compatibility mode), so a compatibility-mode SYSCALL must have an
     * entry too: on AMD it goes to CSTAR (AMD APM Vol. 3, SYSCALL),
     * which left at 0 would run ring 0 at address 0 on the user's
     * stack.  Intel raises #UD there instead.
     */
    wrmsr(MSR_CSTAR, (uint64_t)syscall32_entry);
    wrmsr(MSR_SFMASK, X86_EFLAGS_IF | X86_EFLAGS_DF | X86_EFLAGS_AC |
                          X86_EFLAGS_TF | X86_EFLAGS_NT | X86_EFLAGS_IOPL);
    /* No SYSENTER: a null SYSENTER_CS makes it #GP (SDM Vol. 2B). */
    wrmsr(MSR_SYSENTER_CS, 0);
    wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
}
