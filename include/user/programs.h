/* SPDX-License-Identifier: GPL-2.0-only */
/* User programs' entry points and their USER_ARGS_VA page layouts. */
#ifndef USER_PROGRAMS_H
#define USER_PROGRAMS_H

#include <shimk/types.h>

/*
 * Shared with the kernel side (tests, tlbbench): the kernel fills the
 * inputs through the args page's direct-map address before the task
 * runs and reads the outputs after it ends.
 */

#define HELLO_MAGIC 0x68656c6c6fu
struct hello_args
{
    uint64_t magic, cpu, cs;
};
void user_hello(void *arg);

/* Deliberate faults: each kind must kill the task, never the kernel. */
enum crash_kind
{
    CRASH_NULL_READ,
    CRASH_KERNEL_READ,      /* a kernel address: supervisor-only page */
    CRASH_WRITE_CODE,       /* the read-only user code */
    CRASH_PRIVILEGED,       /* HLT in ring 3: #GP */
    CRASH_UD,               /* UD2 */
    CRASH_DIVIDE,
    CRASH_NONCANONICAL,
    NR_CRASH_KINDS,
};
struct crash_args
{
    uint64_t kind;
    uint64_t reached_end;   /* set only if the fault did not happen */
};
void user_crash(void *arg);

/*
 * CPU state a task may set up on purpose at the ring-3 boundary
 * (user/hostile.c, ktest tasks: hostile-*): each either comes back
 * from the kernel as the ABI says or kills the task, never the kernel.
 */
enum hostile_kind
{
    HOSTILE_NT_SYSCALL,     /* RFLAGS.NT set by POPF, then SYSCALL */
    HOSTILE_SYSCALL_AT_TOP, /* SYSCALL in the last 2 bytes of the half */
    HOSTILE_COMPAT_SYSCALL, /* SYSCALL from compatibility mode */
    HOSTILE_INT_N,          /* INT n, n = arg (0-255) */
    HOSTILE_INT3,           /* the one-byte INT3 */
    HOSTILE_ICEBP,          /* INT1 (0xf1) */
    HOSTILE_INTO,           /* 0xce: invalid in 64-bit mode */
    HOSTILE_BOUND,          /* 0x62 /r: invalid in 64-bit mode */
    HOSTILE_FAR_JMP,        /* jmp far through selector arg to a UD2 */
    HOSTILE_FAR_CALL,       /* call far, likewise */
    NR_HOSTILE_KINDS,
};
#define HOSTILE_CODE_VA 0x10000000ull   /* below 4 GiB, for compat mode */
struct hostile_args
{
    uint64_t kind, arg;             /* in */
    uint64_t result;                /* out: RAX after the call */
    uint64_t rflags;                /* out: RFLAGS after it */
    uint64_t reached_end;           /* out: came back at all */
};
void user_hostile(void *arg);

/*
 * The ring-3 CPU-state fuzzer (user/cpufuzz.c, ktest ring3): threads on
 * every CPU doing random things at the ring-3 boundary, one mapper
 * changing the memory they pass to the kernel.  A fault kills the task;
 * the kernel side starts another with the next seed until the
 * iterations are done.
 */
#define CPUFUZZ_THREADS_MAX 16
#define CPUFUZZ_SCRATCH_VA  0x0000200000000000ull   /* the mapper's pages */
#define CPUFUZZ_SCRATCH_PAGES 16
#define CPUFUZZ_CODE_VA     0x20000000ull           /* < 4 GiB: compat */
enum cpufuzz_action
{
    CPUFUZZ_SYSCALL,        /* a random number and arguments */
    CPUFUZZ_RFLAGS,         /* POPF random flags, SYSCALL, restore */
    CPUFUZZ_SELECTOR,       /* load a selector into DS, ES, FS or GS */
    CPUFUZZ_COMPAT,         /* far jump to compatibility mode and back */
    CPUFUZZ_SYSCALL_AT,     /* SYSCALL at a random place, the top too */
    CPUFUZZ_INT,            /* INT n */
    CPUFUZZ_BYTES,          /* random instruction bytes */
    NR_CPUFUZZ_ACTIONS,
};
struct cpufuzz_thread
{
    uint64_t seed;                      /* in, then the generator's state */
    volatile uint64_t iterations;       /* out: actions begun */
    volatile uint64_t last_action;      /* out: what the last one was */
    volatile uint64_t by_action[NR_CPUFUZZ_ACTIONS];
};
struct cpufuzz_args
{
    uint64_t nthreads, iterations;      /* in: per thread */
    volatile uint64_t stop;             /* in: the kernel ends the run */
    volatile uint64_t maps;             /* out: the mapper's changes */
    struct cpufuzz_thread t[CPUFUZZ_THREADS_MAX];
};
void user_cpufuzz(void *arg);

/* The system call fuzzer. */
struct fuzz_args
{
    uint64_t seed, calls;           /* in */
    uint64_t done, errors, ok;      /* out */
    uint64_t by_errno[128];         /* out: count per -errno */
    uint64_t finished;              /* out */
};
void user_fuzz(void *arg);

/* Memory system calls step by step; results in order (user/mm.c). */
struct mm_args
{
    uint64_t nresults;
    uint64_t result[32];
};
void user_mm(void *arg);
void user_mm_superpage(void *arg);      /* the 2 MiB steps, same layout */

/* tlbbench churn (user/churn.c): thread i runs on CPU i. */
struct churn_args
{
    uint64_t nthreads, rounds, pages;       /* in; pages at most 64 */
    uint64_t deadline;                      /* in: TSC; stop rounds then */
    volatile uint64_t started, finished, errors;
    uint64_t cycles[16], ops[16];           /* out, per thread */
    uint64_t checked[16], stale[16];        /* out: page reads, wrong ones */
    uint64_t bad_va[16], bad_got[16], bad_want[16]; /* out: first wrong */
    volatile uint64_t steps[16];            /* out: system calls so far */
};
void user_churn(void *arg);

/* Threads of one space on several CPUs at once. */
#define THREADS_MAX 16
struct threads_args
{
    uint64_t nthreads, rounds;      /* in */
    volatile uint64_t started;      /* out: threads that ran */
    volatile uint64_t cpu_of[THREADS_MAX];
    volatile uint64_t counter[THREADS_MAX];
    volatile uint64_t concurrent;   /* out: seen running together */
    volatile uint64_t finished;
};
void user_threads(void *arg);

/*
 * Stale-TLB detector reader (tests/ktest/tlb-detector.c): reads tagged
 * slot pages, checking each tag against the generation the remapper
 * published before the read.
 */
#define DETECT_SLOTS_MAX 64
struct detect_tag
{
    uint64_t magic;
    uint64_t slot;
    uint64_t gen;
    uint64_t frame;
};
#define DETECT_MAGIC 0x7a67u
#define DETECT_HUGE_SLOT 0x2000u     /* the 2 MiB slot's tags say this */
struct detect_control
{
    volatile uint64_t stop;
    volatile uint64_t gen[DETECT_SLOTS_MAX];
    volatile uint64_t huge_gen;
    uint64_t nslots;
    uint64_t slot_va;               /* slot s at slot_va + s * 4 KiB */
    uint64_t huge_va;               /* 0, or a 2 MiB slot: tags at its
                                       first and last 4 KiB */
    uint64_t lazy;                  /* DETECT_LAZY: slot checks only */
    uint64_t pace_us;               /* readers sleep this long... */
    uint64_t burst;                 /* ...after this many rounds */
};
struct detect_reader
{
    volatile uint64_t reads, stale, running;
    volatile uint64_t rounds;       /* full passes over the slots */
    volatile uint64_t old;          /* lazy: an older generation of the
                                       slot, through an entry cached
                                       before the remap (allowed) */
    volatile uint64_t bad_slot, bad_gen, want_gen, bad_magic;
};
#define DETECT_READERS_MAX 16
struct detect_args
{
    uint64_t control_va;            /* read-only struct detect_control */
    struct detect_reader reader[DETECT_READERS_MAX];
};
void user_detect_reader(void *arg);

#endif /* USER_PROGRAMS_H */
