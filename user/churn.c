/* SPDX-License-Identifier: GPL-2.0-only */
/* tlbbench churn: threads on every CPU map, touch and unmap, like a parallel build. */

#include "lib.h"
#include "programs.h"

/*
 * Every unmap must be flushed on every CPU that runs a thread of this
 * space, so the threads shoot each other down all the time: the flush
 * path's share of the cycles is what the benchmark reports.
 */
static void worker(void *arg)
{
    struct churn_args *a = (struct churn_args *)USER_ARGS_VA;
    uint64_t me = (uint64_t)arg, start, errors = 0;
    unsigned long base = USER_HEAP_VA + me * 0x100000;

    __atomic_fetch_add(&a->started, 1, __ATOMIC_SEQ_CST);
    /* Start together: the flush cost depends on who else is running. */
    while ( __atomic_load_n(&a->started, __ATOMIC_ACQUIRE) < a->nthreads )
        __asm__ __volatile__("pause");
    start = u_rdtsc();
    /*
     * Rounds, or until the deadline: with more vCPUs than host CPUs a
     * shootdown can wait a host time slice for each target, and a fixed
     * amount of work would take minutes.  Throughput counts what ran.
     */
    uint64_t r;

    for ( r = 0; r < a->rounds && u_rdtsc() < a->deadline; r++ )
    {
        for ( uint64_t p = 0; p < a->pages; p++ )
        {
            volatile uint64_t *v = (volatile uint64_t *)(base + p * 4096);

            if ( sys_map(base + p * 4096, 0, UPROT_READ | UPROT_WRITE) )
                errors++;
            *v = r;
        }
        for ( uint64_t p = 0; p < a->pages; p++ )
            if ( sys_unmap(base + p * 4096, 0, 0) )
                errors++;
    }
    a->cycles[me] = u_rdtsc() - start;
    a->ops[me] = r * a->pages;
    __atomic_fetch_add(&a->errors, errors, __ATOMIC_SEQ_CST);
    __atomic_fetch_add(&a->finished, 1, __ATOMIC_SEQ_CST);
    sys_exit(0);
}

void user_churn(void *argp)
{
    struct churn_args *a = argp;

    for ( uint64_t i = 1; i < a->nthreads && i < THREADS_MAX; i++ )
        sys_spawn(worker, (void *)i, (long)i);
    worker((void *)0);
}
