/* SPDX-License-Identifier: GPL-2.0-only */
/* Control registers, flags and small CPU primitives. */
#ifndef ASM_PROCESSOR_H
#define ASM_PROCESSOR_H

#ifndef __ASSEMBLER__
#include <shimk/types.h>
#endif

/* SDM Vol. 3A, 2.5 */
#define X86_CR0_PE  (1 << 0)
#define X86_CR0_MP  (1 << 1)
#define X86_CR0_EM  (1 << 2)
#define X86_CR0_TS  (1 << 3)
#define X86_CR0_NE  (1 << 5)
#define X86_CR0_WP  (1 << 16)
#define X86_CR0_AM  (1 << 18)
#define X86_CR0_PG  0x80000000

#define X86_CR4_PSE        (1 << 4)
#define X86_CR4_PAE        (1 << 5)
#define X86_CR4_PGE        (1 << 7)
#define X86_CR4_OSFXSR     (1 << 9)
#define X86_CR4_OSXMMEXCPT (1 << 10)
#define X86_CR4_FSGSBASE   (1 << 16)
#define X86_CR4_PCIDE      (1 << 17)
#define X86_CR4_SMEP       (1 << 20)
#define X86_CR4_SMAP       (1 << 21)

#define X86_EFLAGS_TF  (1 << 8)
#define X86_EFLAGS_IF  (1 << 9)
#define X86_EFLAGS_DF  (1 << 10)
#define X86_EFLAGS_IOPL (3 << 12)
#define X86_EFLAGS_NT  (1 << 14)
#define X86_EFLAGS_AC  (1 << 18)

#ifndef __ASSEMBLER__
#define X86_CR3_ADDR_MASK 0x000ffffffffff000ul
#endif

#ifndef __ASSEMBLER__
#define DEFINE_CR_ACCESSORS(n)                                      \
    static inline unsigned long read_cr##n(void)                    \
    {                                                               \
        unsigned long v;                                            \
        __asm__ __volatile__("mov %%cr" #n ", %0" : "=r"(v));       \
        return v;                                                   \
    }                                                               \
    static inline void write_cr##n(unsigned long v)                 \
    {                                                               \
        __asm__ __volatile__("mov %0, %%cr" #n :: "r"(v) : "memory"); \
    }
DEFINE_CR_ACCESSORS(0)
DEFINE_CR_ACCESSORS(2)
DEFINE_CR_ACCESSORS(3)
DEFINE_CR_ACCESSORS(4)
#undef DEFINE_CR_ACCESSORS

static inline unsigned long read_rflags(void)
{
    unsigned long f;

    __asm__ __volatile__("pushf; pop %0" : "=r"(f) :: "memory");
    return f;
}

static inline void local_irq_disable(void)
{
    __asm__ __volatile__("cli" ::: "memory");
}

static inline void local_irq_enable(void)
{
    __asm__ __volatile__("sti" ::: "memory");
}

static inline bool local_irq_is_enabled(void)
{
    return read_rflags() & X86_EFLAGS_IF;
}

static inline unsigned long local_irq_save(void)
{
    unsigned long f = read_rflags();

    local_irq_disable();
    return f;
}

static inline void local_irq_restore(unsigned long f)
{
    if ( f & X86_EFLAGS_IF )
        local_irq_enable();
}

static inline void cpu_relax(void)
{
    __asm__ __volatile__("pause" ::: "memory");
}

static inline void halt(void)
{
    __asm__ __volatile__("hlt" ::: "memory");
}

/*
 * sti;hlt (arch/x86/safe-halt.S): an interrupt pending or arriving now
 * ends the HLT, even one an L0 delivers at the HLT itself.
 */
void safe_halt(void);
extern const char safe_halt_hlt[];

/* Interrupts taken at that HLT before it ran (arch/x86/traps.c). */
extern uint64_t safe_halt_races;

/*
 * External interrupts an L0 delivered with IF clear (arch/x86/traps.c),
 * and where the first MASKED_IRQ_RECORDS that were not duplicates
 * landed: a delivery anywhere but at its own stub is the kind that can
 * land on an instruction that runs on the user's GS base.
 */
#define MASKED_IRQ_RECORDS 8

struct masked_irq_record
{
    uint64_t rip;
    uint16_t cs;
    uint8_t vector;
    uint8_t cpu;
};

struct masked_irqs
{
    uint64_t count;
    uint64_t duplicates;    /* of a delivery at its own stub: dropped */
    uint64_t rip;           /* the first one's */
    unsigned int vector;
    unsigned int cpu;
    unsigned int recorded;  /* non-duplicates seen, records[] holds 8 */
    struct masked_irq_record records[MASKED_IRQ_RECORDS];
};
extern struct masked_irqs masked_irqs;

/*
 * A spinning wait reads the TSC once every SPIN_CLOCK_TURNS turns: under
 * a hypervisor RDTSC may be an exit (Xen emulates it when the host's TSC
 * is not invariant, as under QEMU TCG), and a wait that exits at every
 * turn burns the host CPU its target may need, and multiplies the exits
 * at which an emulated L0 can go wrong.  256 PAUSEs are microseconds;
 * the bounds they serve are seconds.
 */
#define SPIN_CLOCK_TURNS 256

static inline uint64_t rdtsc(void)
{
    uint32_t lo, hi;

    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

/*
 * RDTSC ordered against earlier and later instructions, for timing a
 * code sequence (SDM Vol. 2B, RDTSC: LFENCE before and after).
 */
static inline uint64_t rdtsc_ordered(void)
{
    uint32_t lo, hi;

    __asm__ __volatile__("lfence; rdtsc; lfence"
                         : "=a"(lo), "=d"(hi) :: "memory");
    return ((uint64_t)hi << 32) | lo;
}

static inline void invlpg(const void *va)
{
    __asm__ __volatile__("invlpg (%0)" :: "r"(va) : "memory");
}

static inline void mb(void)
{
    __asm__ __volatile__("mfence" ::: "memory");
}

static inline void smp_mb(void)
{
    /* A locked RMW orders like MFENCE for ordinary WB memory. */
    __asm__ __volatile__("lock addl $0, -4(%%rsp)" ::: "memory", "cc");
}

/* x86 is TSO: stores are not reordered with stores, loads with loads. */
#define smp_wmb() __asm__ __volatile__("" ::: "memory")
#define smp_rmb() __asm__ __volatile__("" ::: "memory")

__attribute__((__noreturn__)) void halt_forever(void);
#endif /* __ASSEMBLER__ */

#endif /* ASM_PROCESSOR_H */
