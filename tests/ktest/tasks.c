/* SPDX-License-Identifier: GPL-2.0-only */
/* ktest: user tasks in ring 3, system calls, faults, the fuzzer. */

#include <shimk/bitops.h>
#include <shimk/errno.h>
#include <shimk/frame.h>
#include <shimk/heap.h>
#include <asm/guarded.h>
#include <asm/page.h>
#include <shimk/ktest.h>
#include <shimk/string.h>
#include <shimk/task.h>
#include <asm/desc.h>
#include <asm/percpu.h>
#include <asm/processor.h>
#include <asm/smp.h>
#include <user/programs.h>

#define TASK_MS 20000

/*
 * Frames not in use by tasks: free ones, deferred ones (they come back
 * on reuse) and the heap's, which grows for kernel stacks and thread
 * structures and never shrinks (kernel/mm/heap.c).
 */
static uint32_t frames_now(void)
{
    struct heap_stats h;

    heap_get_stats(&h);
    /* The heap and the stack slots keep what they mapped, for reuse. */
    return frames_free() + frames_dirty() +
           (uint32_t)(h.mapped_bytes / PAGE_SIZE) +
           (uint32_t)(guarded_mapped_bytes() / PAGE_SIZE);
}

KTEST(tasks, hello_on_every_cpu)
{
    unsigned int cpu;

    for_each_cpu ( cpu, &cpu_online_mask )
    {
        uint32_t before = frames_now();
        struct task *tk = task_create("hello");
        struct hello_args *a = task_args(tk);
        int code;

        KT_ASSERT(t, task_run(tk, user_hello, cpu) > 0);
        /* Read the args before task_wait frees them. */
        while ( !READ_ONCE(tk->done) )
            yield();
        KT_EQ(t, a->magic, HELLO_MAGIC);
        KT_EQ(t, a->cpu, cpu);
        KT_EQ(t, a->cs & 3, 3);
        code = task_wait(tk, TASK_MS);
        KT_EQ(t, code, 7);
        KT_ASSERTF(t, frames_now() == before, "%d frames leaked",
                   (int)(before - frames_now()));
    }
}

KTEST(tasks, faults_kill_the_task_not_the_kernel)
{
    for ( unsigned int k = 0; k < NR_CRASH_KINDS; k++ )
    {
        struct task *tk = task_create("crash");
        struct crash_args *a = task_args(tk);
        bool reached;
        int code;

        a->kind = k;
        KT_ASSERT(t, task_run(tk, user_crash, smp_processor_id()) > 0);
        while ( !READ_ONCE(tk->done) )
            yield();
        reached = a->reached_end;
        code = task_wait(tk, TASK_MS);
        KT_ASSERTF(t, !reached, "crash kind %u did not fault", k);
        KT_ASSERTF(t, code == -EFAULT, "crash kind %u: exit %d", k, code);
    }
}

/* Each step returned what it must, and nothing leaked. */
static void check_steps(struct ktest *t, const uint64_t *res,
                        const int64_t *want, unsigned int n, uint32_t before,
                        unsigned int super_before)
{
    for ( unsigned int i = 0; i < n; i++ )
        KT_ASSERTF(t, (int64_t)res[i] == want[i], "step %u returned %ld, "
                   "want %ld", i, (long)res[i], (long)want[i]);
    KT_ASSERTF(t, frames_now() == before, "%d frames leaked",
               (int)(before - frames_now()));
    KT_EQ(t, frames_2m_free(), super_before);
}

/*
 * Run a user/mm.c step list on this CPU and copy its results out;
 * task_wait()'s answer (0: it exited cleanly), or -1 if it never ran.
 */
static int run_steps(const char *name, void (*entry)(void *), uint64_t *res,
                     uint64_t *n)
{
    struct task *tk = task_create(name);
    struct mm_args *a = task_args(tk);

    if ( task_run(tk, entry, smp_processor_id()) <= 0 )
        return -1;
    while ( !READ_ONCE(tk->done) )
        yield();
    *n = a->nresults;
    for ( unsigned int i = 0; i < *n && i < 32; i++ )
        res[i] = a->result[i];
    return task_wait(tk, TASK_MS);
}

/* One hostile run; its end, and its args copied out before they go. */
static int hostile_run(unsigned int kind, unsigned int arg,
                       struct hostile_args *out, struct task_end *end)
{
    struct task *tk = task_create("hostile");
    struct hostile_args *a = task_args(tk);

    /* Each ending is checked here; hundreds of kill lines say nothing. */
    tk->quiet = kind != HOSTILE_SYSCALL_AT_TOP;
    a->kind = kind;
    a->arg = arg;
    if ( task_run(tk, user_hostile, smp_processor_id()) < 0 )
        return -1;
    while ( !READ_ONCE(tk->done) )
        yield();
    *out = *a;
    return task_wait_end(tk, TASK_MS, end);
}

/*
 * Ring-3 state the kernel must survive (SDM Vol. 2A, IRET and SYSCALL):
 * NT set by POPF across a SYSCALL, a SYSCALL whose return address is
 * not canonical, a SYSCALL from compatibility mode (CSTAR on AMD).
 */
KTEST(tasks, hostile_syscall_state)
{
    struct hostile_args a;
    struct task_end end;
    int code;

    code = hostile_run(HOSTILE_NT_SYSCALL, 0, &a, &end);
    KT_ASSERTF(t, code == 0 && a.reached_end, "NT then SYSCALL: exit %d, "
               "fault '%s'", code, end.fault);
    KT_ASSERTF(t, a.rflags & X86_EFLAGS_NT, "NT was not kept for the task "
               "(rflags %#lx)", (unsigned long)a.rflags);
    KT_ASSERT(t, a.result < nr_cpus_online);

    code = hostile_run(HOSTILE_SYSCALL_AT_TOP, 0, &a, &end);
    KT_ASSERTF(t, code == -EFAULT && !a.reached_end &&
                  strstr(end.fault, "non-canonical"),
               "SYSCALL at the top: exit %d, fault '%s'", code, end.fault);
    ktest_note("SYSCALL at the top of the user half: killed: %s", end.fault);

    code = hostile_run(HOSTILE_COMPAT_SYSCALL, 0, &a, &end);
    if ( code == 0 )
        KT_ASSERTF(t, a.reached_end && (uint32_t)a.result ==
                                           (uint32_t)-ENOSYS,
                   "compatibility-mode SYSCALL returned %#lx, not -ENOSYS",
                   (unsigned long)a.result);
    else
        KT_ASSERTF(t, code == -EFAULT && strstr(end.fault, "(#UD)"),
                   "compatibility-mode SYSCALL: exit %d, fault '%s'", code,
                   end.fault);
    ktest_note("compatibility-mode SYSCALL: %s", code == 0
               ? "-ENOSYS (CSTAR)" : "#UD (this CPU has no 32-bit SYSCALL)");
}

/*
 * Every software interrupt a task can raise kills it with a #GP or so.
 * Hundreds of tasks: not in ktest=all, but in the ring3 rows (ktest=
 * tasks selects it).
 */
KTEST_FLAGS(tasks, hostile_software_interrupts, KTEST_EXPLICIT)
{
    static const struct
    {
        unsigned int kind;
        const char *fault;
    } one_byte[] = {
        { HOSTILE_INT3, "(#GP)" },      /* gate DPL 0 */
        /* No DPL check (SDM 6.12.1.1): #DB, but QEMU TCG raises #UD. */
        { HOSTILE_ICEBP, "(#" },
        { HOSTILE_INTO, "(#UD)" },      /* invalid in 64-bit mode */
        { HOSTILE_BOUND, "(#UD)" },
    };
    struct hostile_args a;
    struct task_end end;
    uint32_t before = frames_now();
    int code;

    for ( unsigned int n = 0; n < 256; n++ )
    {
        code = hostile_run(HOSTILE_INT_N, n, &a, &end);
        KT_ASSERTF(t, code == -EFAULT && !a.reached_end &&
                      strstr(end.fault, "(#GP)"),
                   "INT %u: exit %d, fault '%s'", n, code, end.fault);
    }
    for ( unsigned int i = 0; i < ARRAY_SIZE(one_byte); i++ )
    {
        code = hostile_run(one_byte[i].kind, 0, &a, &end);
        KT_ASSERTF(t, code == -EFAULT && !a.reached_end &&
                      strstr(end.fault, one_byte[i].fault),
                   "kind %u: exit %d, fault '%s' (want %s)", one_byte[i].kind,
                   code, end.fault, one_byte[i].fault);
    }
    KT_ASSERTF(t, frames_now() == before, "%d frames leaked",
               (int)(before - frames_now()));
    ktest_note("INT 0-255, INT3, INT1, INTO, BOUND: 260 tasks killed, the "
               "kernel went on");
}

/*
 * Far jumps and calls through every selector the GDT has (and one
 * past it, every RPL, and the LDT bit): each to a UD2, so each kills
 * the task whether the transfer faults or lands (SDM Vol. 2A, JMP/CALL
 * far in 64-bit mode: only code segments and call gates qualify).
 */
KTEST_FLAGS(tasks, hostile_far_transfers, KTEST_EXPLICIT)
{
    struct hostile_args a;
    struct task_end end;
    unsigned int landed = 0;
    int code;

    for ( unsigned int kind = HOSTILE_FAR_JMP; kind <= HOSTILE_FAR_CALL;
          kind++ )
        for ( unsigned int sel = 0; sel < (GDT_ENTRIES + 1) * 8; sel++ )
        {
            code = hostile_run(kind, sel, &a, &end);
            KT_ASSERTF(t, code == -EFAULT && !a.reached_end && end.fault[0],
                       "%s through %#x: exit %d, fault '%s'",
                       kind == HOSTILE_FAR_JMP ? "jmp" : "call", sel, code,
                       end.fault);
            landed += strstr(end.fault, "(#UD)") != NULL;
        }
    ktest_note("far jmp and call through selectors 0-%#x: %u tasks killed "
               "(%u reached the UD2: the user code segments)",
               (GDT_ENTRIES + 1) * 8 - 1, 2 * (GDT_ENTRIES + 1) * 8, landed);
}

KTEST(tasks, memory_syscalls)
{
    /* What user/mm.c's steps must return, in order. */
    static const int64_t want[] = {
        0, 0, -EEXIST, 0, 0, 0, -ENOENT, 0, 0, 0, -EINVAL, -EINVAL, -EPERM,
        -EPERM, -EPERM, -EINVAL, -EINVAL, -EFAULT, -EFAULT,
    };
    uint32_t before = frames_now();
    unsigned int super_before = frames_2m_free();
    uint64_t res[32], n;

    KT_EQ(t, run_steps("mm", user_mm, res, &n), 0);
    KT_EQ(t, n, ARRAY_SIZE(want));
    check_steps(t, res, want, ARRAY_SIZE(want), before, super_before);
}

/*
 * Its own case, so that a boot with no free 2 MiB frame reports the
 * superpage steps as skipped rather than passed.
 */
KTEST(tasks, memory_superpage)
{
    /* Map, zeroed, read back what was written, unmap. */
    static const int64_t want[] = { 0, 0, 0, 0 };
    uint32_t before = frames_now();
    unsigned int super_before = frames_2m_free();
    uint64_t res[32], n;

    KT_EQ(t, run_steps("mm-2m", user_mm_superpage, res, &n), 0);
    KT_ASSERT(t, n >= 1);
    /* Only SYS_MAP takes superpages: none free is the only excuse. */
    if ( (int64_t)res[0] == -ENOMEM && !super_before )
        KT_SKIP(t, "no free 2 MiB frame: the superpage steps did not run");
    KT_ASSERTF(t, (int64_t)res[0] == 0, "mapping a superpage returned %ld "
               "with %u free", (long)res[0], super_before);
    KT_EQ(t, n, ARRAY_SIZE(want));
    check_steps(t, res, want, ARRAY_SIZE(want), before, super_before);
}

KTEST(tasks, threads_run_in_parallel)
{
    struct task *tk = task_create("threads");
    struct threads_args *a = task_args(tk);
    unsigned int n = MIN(2 * nr_cpus_online, (unsigned int)THREADS_MAX);
    uint64_t started, finished, concurrent, cpus = 0;

    a->nthreads = n;
    a->rounds = 200000;
    KT_ASSERT(t, task_run(tk, user_threads, smp_processor_id()) > 0);
    while ( !READ_ONCE(tk->done) )
        yield();
    started = a->started;
    finished = a->finished;
    concurrent = a->concurrent;
    for ( unsigned int i = 0; i < n; i++ )
    {
        KT_ASSERTF(t, a->counter[i] == a->rounds, "thread %u counted %lu",
                   i, (unsigned long)a->counter[i]);
        cpus |= 1ull << (a->cpu_of[i] & 63);
    }
    KT_EQ(t, task_wait(tk, TASK_MS), 0);
    KT_EQ(t, started, n);
    KT_EQ(t, finished, n);
    if ( nr_cpus_online > 1 )
    {
        KT_ASSERTF(t, hweight64(cpus) >= 2,
                   "all %u threads ran on one CPU", n);
        KT_ASSERTF(t, concurrent, "threads never ran at the same time");
    }
    ktest_note("%u threads of one space on %d CPUs", n,
               hweight64(cpus));
}

KTEST(tasks, syscall_fuzzer)
{
    uint32_t before = frames_now();
    struct task *tk = task_create("fuzz");
    struct fuzz_args *a = task_args(tk);
    uint64_t done, errors, ok, finished;
    uint64_t efault, einval, enosys, eperm;

    a->seed = 0x5eed + smp_processor_id();
    a->calls = 3000;
    KT_ASSERT(t, task_run(tk, user_fuzz, smp_processor_id()) > 0);
    while ( !READ_ONCE(tk->done) )
        yield();
    done = a->done;
    errors = a->errors;
    ok = a->ok;
    finished = a->finished;
    efault = a->by_errno[EFAULT];
    einval = a->by_errno[EINVAL];
    enosys = a->by_errno[ENOSYS];
    eperm = a->by_errno[EPERM];
    KT_EQ(t, task_wait(tk, TASK_MS), 0);
    KT_ASSERT(t, finished);
    KT_EQ(t, done, 3004);
    KT_EQ(t, errors + ok, done);
    /* Hostile input must have been refused, and each way of refusing seen. */
    KT_ASSERT(t, errors > done / 2);
    KT_ASSERTF(t, efault && einval && enosys && eperm,
               "EFAULT %lu EINVAL %lu ENOSYS %lu EPERM %lu",
               (unsigned long)efault, (unsigned long)einval,
               (unsigned long)enosys, (unsigned long)eperm);
    KT_ASSERTF(t, frames_now() == before, "%d frames leaked",
               (int)(before - frames_now()));
    ktest_note("fuzzer: %lu calls, %lu errors returned (EFAULT %lu, EINVAL "
               "%lu, ENOSYS %lu, EPERM %lu), %lu succeeded",
               (unsigned long)done, (unsigned long)errors,
               (unsigned long)efault, (unsigned long)einval,
               (unsigned long)enosys, (unsigned long)eperm,
               (unsigned long)ok);
}
