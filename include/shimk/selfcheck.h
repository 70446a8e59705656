/* SPDX-License-Identifier: GPL-2.0-only */
/* Boot copies of what a CPU needs to take an interrupt, and their checks. */
#ifndef SHIMK_SELFCHECK_H
#define SHIMK_SELFCHECK_H

/*
 * A CPU takes an interrupt through its IDT, GDT, TSS (RSP0 and the IST
 * pointers), the stacks those name and the kernel half of the root it
 * has loaded.  If any of them is trampled, the CPU triple-faults at its
 * next delivery with a sane register file, and the failure looks like
 * the L0's.  So each CPU records them as it comes up, and two readers
 * compare the live structures with these copies:
 *
 * - the kernel itself (kernel/selfcheck.c), on every CPU's timer
 *   interrupt at most every SELFCHECK_PERIOD_MS, and before a panic's
 *   report: a difference panics naming the structure, the CPU and the
 *   first bytes that changed;
 * - tools/bootlib/memcheck.py, from a dump of guest memory taken after
 *   a triple fault or a silence, for every vCPU: intact structures prove
 *   the L0 at fault, a trampled one names shimk.
 *
 * The layout below is a contract with that reader: only uint64_t words,
 * in this order, no padding.  `selfcheck_layout` (.rodata) gives the
 * sizes that vary with the build, so the reader checks them against
 * the ELF it was given.  Bump SELFCHECK_VERSION on any change.
 */

#define SELFCHECK_MAGIC   0x4645524b4d494853ull    /* "SHIMKREF" */
#define SELFCHECK_VERSION 1

/* What the boot copy of the TSS leaves out: RSP0 follows the thread. */
#define SELFCHECK_TSS_BYTES     104
#define SELFCHECK_TSS_RSP0_OFF  4
#define SELFCHECK_TSS_RSP0_LEN  8

/* Stacks a CPU owns, by index in selfcheck_cpu.stacks. */
#define SELFCHECK_STACK_CPU     0   /* the CPU's boot and idle stack */
#define SELFCHECK_STACK_NMI     1   /* IST1 */
#define SELFCHECK_STACK_DF      2   /* IST2 */
#define SELFCHECK_STACK_MC      3   /* IST3 */
#define SELFCHECK_NR_STACKS     4

#ifndef __ASSEMBLER__
#include <shimk/types.h>
#include <asm/desc.h>

struct selfcheck_cpu
{
    uint64_t valid;                 /* 1 once the CPU recorded itself */
    uint64_t cpu_info;              /* its GS base: struct cpu_info */
    uint64_t apic_id;
    uint64_t gdt_base;              /* GDTR, as loaded */
    uint64_t gdt_limit;
    uint64_t gdt[GDT_ENTRIES];      /* the GDT's bytes at load */
    uint64_t tss_base;              /* TR's descriptor base */
    uint64_t tss[SELFCHECK_TSS_BYTES / 8];  /* bytes at load; RSP0 aside */
    uint64_t stacks[SELFCHECK_NR_STACKS][2];    /* [lo, hi), mapped part */
    uint64_t sum;                   /* selfcheck_sum() of the words above */
};

struct selfcheck_ref
{
    uint64_t magic;                 /* SELFCHECK_MAGIC */
    uint64_t version;               /* SELFCHECK_VERSION */
    uint64_t nr_cpus;               /* entries in cpu[] (NR_CPUS) */
    uint64_t idt_base;              /* IDTR, shared by every CPU */
    uint64_t idt_limit;
    uint64_t kernel_root;           /* physical address of kernel_root */
    uint64_t stack_area[2];         /* [lo, hi) of guarded stacks and tables */
    uint64_t root_half[256];        /* kernel_root's PML4 entries 256-511 */
    uint64_t idt[NR_VECTORS * 2];   /* the IDT's bytes */
    uint64_t sum;                   /* selfcheck_sum() of the words above */
    struct selfcheck_cpu cpu[CONFIG_NR_CPUS];
};

/* Indices into selfcheck_layout[], each a uint64_t. */
enum selfcheck_layout_index
{
    SCL_MAGIC,
    SCL_VERSION,
    SCL_REF_SIZE,                   /* sizeof(struct selfcheck_ref) */
    SCL_CPU_OFFSET,                 /* offsetof(struct selfcheck_ref, cpu) */
    SCL_CPU_SIZE,                   /* sizeof(struct selfcheck_cpu) */
    SCL_NR_CPUS,
    SCL_GDT_ENTRIES,
    SCL_TSS_BYTES,
    SCL_NR,
};

extern struct selfcheck_ref selfcheck_ref;

/* The first difference the last check found (tests/ktest/selfcheck.c). */
struct selfcheck_finding
{
    unsigned int cpu;
    const char *what;               /* "GDT", "TSS", "IDTR", ... */
    long offset;                    /* byte offset, -1 for a register */
};
extern struct selfcheck_finding selfcheck_last;
extern const uint64_t selfcheck_layout[SCL_NR];

/* FNV-1a over 64-bit words: the reader's sum is the same. */
uint64_t selfcheck_sum(const uint64_t *words, size_t n);

/*
 * The first byte at which live and boot differ, ignoring
 * [skip, skip + skip_len); -1 when they agree.
 */
long selfcheck_first_diff(const void *live, const void *boot, size_t len,
                          size_t skip, size_t skip_len);

struct cpu_info;

/* Record the boot copies: the shared ones once, then each CPU's own. */
void selfcheck_record_shared(void);
void selfcheck_record_cpu(struct cpu_info *ci);

/* What a difference does: panic, a printed line, or only a count. */
enum selfcheck_mode
{
    SELFCHECK_PANIC,
    SELFCHECK_REPORT,
    SELFCHECK_QUIET,
};

/*
 * Compare this CPU's live structures with their copies; returns how many
 * differ, and selfcheck_last says what differed first.
 */
unsigned int selfcheck_this_cpu(enum selfcheck_mode mode);

/* From the timer interrupt: at most every SELFCHECK_PERIOD_MS a CPU. */
void selfcheck_tick(void);
#define SELFCHECK_PERIOD_MS 100

/* Before a panic's report: every CPU's copies against memory, printed. */
void selfcheck_report_all(void);
#endif

#endif /* SHIMK_SELFCHECK_H */
