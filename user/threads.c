/* SPDX-License-Identifier: GPL-2.0-only */
/* Threads of one address space on several CPUs at once. */

#include <shimk-user.h>
#include <user/programs.h>

static void worker(void *arg)
{
    struct threads_args *a = (struct threads_args *)USER_ARGS_VA;
    uint64_t me = (uint64_t)arg;

    a->cpu_of[me] = (uint64_t)sys_cpu();
    __atomic_fetch_add(&a->started, 1, __ATOMIC_SEQ_CST);
    /*
     * Start together (bounded): on an overcommitted host a vCPU may not
     * run for milliseconds, longer than the counting takes, and threads
     * that start apart never overlap.  Threads sharing a CPU get there
     * by preemption.
     */
    for ( uint64_t spin = 0;
          __atomic_load_n(&a->started, __ATOMIC_ACQUIRE) < a->nthreads &&
          spin < (1ull << 26); spin++ )
        __asm__ __volatile__("pause");
    for ( uint64_t i = 0; i < a->rounds; i++ )
    {
        a->counter[me]++;
        /* Another thread running now, on another CPU: truly parallel. */
        if ( __atomic_load_n(&a->started, __ATOMIC_RELAXED) > 1 &&
             !a->concurrent )
            for ( uint64_t j = 0; j < a->nthreads; j++ )
                if ( j != me && a->counter[j] && a->counter[j] < a->rounds )
                    a->concurrent = 1;
    }
    __atomic_fetch_add(&a->finished, 1, __ATOMIC_SEQ_CST);
    sys_exit(0);
}

void user_threads(void *argp)
{
    struct threads_args *a = argp;
    long ncpus = sys_ncpus();

    for ( uint64_t i = 1; i < a->nthreads && i < THREADS_MAX; i++ )
        sys_spawn(worker, (void *)i, (long)(i % (uint64_t)ncpus));
    worker((void *)0);
}
