/* SPDX-License-Identifier: GPL-2.0-only */
/* ktest ring3: the ring-3 CPU-state fuzzer, task after task, the kernel going on. */

#include <shimk/cmdline.h>
#include <shimk/frame.h>
#include <shimk/heap.h>
#include <shimk/ktest.h>
#include <shimk/printk.h>
#include <shimk/string.h>
#include <shimk/task.h>
#include <shimk/time.h>
#include <asm/page.h>
#include <asm/percpu.h>
#include <asm/processor.h>
#include <asm/smp.h>
#include <user/programs.h>

/* Iterations over all threads and tasks; make stress asks 1,000,000. */
static unsigned int opt_iterations = 20000;
uint_param("ring3-fuzz-iterations", opt_iterations, 1, 1000000000);
static unsigned int opt_seed = 1;
uint_param("ring3-fuzz-seed", opt_seed, 0, UINT32_MAX);

/* No new iteration in this long: the task, or the kernel, is stuck. */
#define STALL_MS 20000

static const char *const action_names[NR_CPUFUZZ_ACTIONS] = {
    "syscall", "rflags", "selector", "compat", "syscall-at", "int", "bytes",
};

static uint64_t iterations_of(const struct cpufuzz_args *a)
{
    uint64_t n = 0;

    for ( unsigned int i = 0; i < a->nthreads; i++ )
        n += a->t[i].iterations;
    return n;
}

/* What killed a task, from its fault line (kernel/task/task.c). */
static const char *const killers[] = {
    "(#GP)", "(#UD)", "(#PF)", "(#DB)", "(#NP)", "(#SS)", "(#AC)", "(#DE)",
    "(#BR)", "(#BP)", "(#OF)", "non-canonical",
};
#define NR_KILLERS (ARRAY_SIZE(killers) + 1)    /* the last: other */

struct fuzz_totals
{
    uint64_t iterations, tasks, killed, maps;
    uint64_t by_action[NR_CPUFUZZ_ACTIONS];
    uint64_t by_killer[NR_KILLERS];
};

/* One task: run it until its threads are done or it dies; 0 or why not. */
static const char *one_task(struct ktest *t, struct fuzz_totals *tot,
                            unsigned int nthreads, uint64_t per_thread,
                            uint64_t seed, char *why, size_t why_size)
{
    struct task *tk = task_create("cpufuzz");
    struct cpufuzz_args *a = task_args(tk), copy;

    /* Thousands of kills: counted by cause below, not printed each. */
    tk->quiet = true;
    uint64_t last = 0, last_change = rdtsc();
    struct task_end end;

    a->nthreads = nthreads;
    a->iterations = per_thread;
    for ( unsigned int i = 0; i < nthreads; i++ )
        a->t[i].seed = seed * 0x9e3779b97f4a7c15ull + i + 1;
    if ( task_run(tk, user_cpufuzz, 0) < 0 )
        return "could not start the task";
    while ( !READ_ONCE(tk->done) )
    {
        uint64_t now = iterations_of(a);

        /* The fuzzers are done: end the mapper too. */
        if ( now >= per_thread * nthreads )
            WRITE_ONCE(a->stop, 1);
        if ( now != last )
        {
            last = now;
            last_change = rdtsc();
        }
        else if ( rdtsc() - last_change > ms_to_cycles(STALL_MS) &&
                  !READ_ONCE(tk->killed) )
        {
            ksnprintf(why, why_size, "no iteration for %u ms at %lu (last "
                      "action %lu on thread 0)", STALL_MS,
                      (unsigned long)now,
                      (unsigned long)a->t[0].last_action);
            task_kill(tk);
        }
        thread_sleep_us(1000);
    }
    copy = *a;
    task_wait_end(tk, STALL_MS, &end);
    tot->tasks++;
    tot->iterations += iterations_of(&copy);
    tot->maps += copy.maps;
    for ( unsigned int i = 0; i < nthreads; i++ )
        for ( unsigned int k = 0; k < NR_CPUFUZZ_ACTIONS; k++ )
            tot->by_action[k] += copy.t[i].by_action[k];
    if ( end.fault[0] )
    {
        unsigned int k = 0;

        while ( k < ARRAY_SIZE(killers) && !strstr(end.fault, killers[k]) )
            k++;
        tot->killed++;
        tot->by_killer[k]++;
    }
    else if ( end.code != 0 )
        ksnprintf(why, why_size, "task ended with %d without a fault",
                  end.code);
    (void)t;
    return why[0] ? why : NULL;
}

/* How often a fuzzer run says how far it got. */
#define FUZZ_PROGRESS_MS 10000

KTEST_FLAGS(ring3, cpu_state_fuzzer, KTEST_EXPLICIT)
{
    unsigned int nthreads = MIN(MAX(nr_cpus_online, 2u) - 1,
                                (unsigned int)CPUFUZZ_THREADS_MAX);
    uint64_t start = rdtsc(), seed = opt_seed, said = start;
    struct fuzz_totals *tot = kzalloc(sizeof(*tot));
    char why[160] = "", counts[256], kills[256];
    unsigned int n = 0, nk = 0;

    while ( tot->iterations < opt_iterations )
    {
        uint64_t left = opt_iterations - tot->iterations;

        /*
         * Between tasks: a long run (make stress) is never silent for
         * long, so that the runner's silence bound does not take it for
         * a hang (tools/bootlib/bounds.py).
         */
        if ( rdtsc() - said >= ms_to_cycles(FUZZ_PROGRESS_MS) )
        {
            said = rdtsc();
            printk("ring-3 fuzzer: %lu of %lu iterations in %lu ms\n",
                   (unsigned long)tot->iterations,
                   (unsigned long)opt_iterations,
                   (unsigned long)(cycles_to_ns(said - start) / 1000000));
        }
        const char *bad = one_task(t, tot, nthreads,
                                   (left + nthreads - 1) / nthreads, seed++,
                                   why, sizeof(why));

        KT_ASSERTF(t, !bad, "task %lu (seed %lu): %s",
                   (unsigned long)tot->tasks, (unsigned long)seed - 1, bad);
    }
    for ( unsigned int k = 0; k < NR_CPUFUZZ_ACTIONS; k++ )
        n += ksnprintf(counts + n, sizeof(counts) - n, "%s%s %lu",
                       k ? ", " : "", action_names[k],
                       (unsigned long)tot->by_action[k]);
    for ( unsigned int k = 0; k < NR_KILLERS; k++ )
        if ( tot->by_killer[k] )
            nk += ksnprintf(kills + nk, sizeof(kills) - nk, "%s%s %lu",
                            nk ? ", " : "",
                            k < ARRAY_SIZE(killers) ? killers[k] : "other",
                            (unsigned long)tot->by_killer[k]);
    ktest_note("ring-3 fuzzer: %lu iterations on %u threads in %lu tasks, "
               "%lu killed by a fault, %lu mapper changes, in %lu ms; 0 "
               "kernel panics", (unsigned long)tot->iterations, nthreads,
               (unsigned long)tot->tasks, (unsigned long)tot->killed,
               (unsigned long)tot->maps,
               (unsigned long)(cycles_to_ns(rdtsc() - start) / 1000000));
    ktest_note("actions: %s; tasks killed by %s", counts,
               nk ? kills : "nothing");
    kfree(tot);
}
