/* SPDX-License-Identifier: GPL-2.0-only */
/* Per-CPU data, reached through the GS base. */
#ifndef ASM_PERCPU_H
#define ASM_PERCPU_H

/* Offsets of the fields the entry code reads with %gs: prefixes. */
#define CPU_INFO_SELF        0
#define CPU_INFO_KSTACK_TOP  8
#define CPU_INFO_USER_RSP    16

#ifndef __ASSEMBLER__
#include <asm/desc.h>
#include <asm/flushtlb.h>
#include <asm/smp.h>
#include <shimk/compiler.h>
#include <shimk/types.h>

#define KERNEL_STACK_SIZE 16384

struct aspace;

struct cpu_info
{
    struct cpu_info *self;          /* %gs:0, so this_cpu() is one load */
    uint64_t kernel_stack_top;      /* SYSCALL entry switches to this */
    uint64_t user_rsp;              /* SYSCALL entry scratch */

    unsigned int cpu;               /* logical id, 0 = boot CPU */
    uint32_t apic_id;
    bool online;

    void *stack_base;               /* kernel stack, KERNEL_STACK_SIZE */
    void *ist_stacks[3];            /* NMI, #DF, #MC */

    uint64_t gdt[GDT_ENTRIES] __aligned(16);
    struct tss64 tss __aligned(16);

    unsigned int panic_depth;       /* nested panics on this CPU */
    unsigned int irq_depth;         /* > 0 inside an interrupt or NMI */
    uint32_t irqs_taken;            /* external interrupts: a heartbeat */
    /* Spinlocks held now, and the last taken: a shootdown needs none. */
    unsigned int locks_held;
    const char *last_lock;
    volatile bool alive;            /* AP: reached C, for smp_init */
    /*
     * AP start: the AP claims STARTING -> RUNNING before it touches
     * anything shared, the BSP claims STARTING -> ABANDONED when the AP
     * is late; only one claim can win (arch/x86/smp.c).
     */
    uint32_t start_state;
    uint64_t test_delay_until;      /* smp-test-late-ap=: TSC to wait for */

    struct ipi_counters ipi;

    struct aspace *aspace;          /* loaded user space, or NULL */
    /* The root switch_cr3() loaded last (0: the boot's kernel_root). */
    volatile paddr_t root;
    uint32_t hv_vcpu_id;            /* the L0's number for this vCPU */

    /* TLB state (arch/x86/flush/flushtlb.c, arch/x86/flush/flush-smp.c). */
    unsigned long cr4;              /* shadow: CR4 reads can exit */
    uint32_t tlbflush_time;         /* TLB clock stamp of the last flush */
    /*
     * On the kernel's own root since its last full flush: no user entry
     * can be cached here, whatever the stamp says (aspace_switch()).
     */
    bool tlb_clean;
    uint64_t full_flushes;          /* count, for tlbbench's oracle */
    bool tlb_wrap_pending;          /* this CPU wrapped the clock */
    struct flush_counters flush;
    struct
    {
        const void *va;
        unsigned int flags;
        cpumask_t pending;          /* targets yet to acknowledge */
    } flush_req;
    cpumask_t flush_from;           /* initiators with a request for us */
};

extern struct cpu_info *cpu_infos[];

static inline struct cpu_info *this_cpu(void)
{
    struct cpu_info *ci;

    __asm__ __volatile__("mov %%gs:0, %0" : "=r"(ci));
    return ci;
}

static inline unsigned int smp_processor_id(void)
{
    return this_cpu()->cpu;
}

/* Point GS (and KERNEL_GS, for SWAPGS) at ci. */
void percpu_set_gs(struct cpu_info *ci);

/* Set up the boot CPU's area on static stacks and load GS; first thing. */
struct cpu_info *percpu_bsp_init(void);
#endif

#endif /* ASM_PERCPU_H */
