/* SPDX-License-Identifier: GPL-2.0-only */
/* tlbbench churn: threads on every CPU map, touch and unmap, like a parallel build. */

#include <shimk-user.h>
#include <user/programs.h>

/*
 * Every unmap must be flushed on every CPU that runs a thread of this
 * space, so the threads shoot each other down all the time: the flush
 * path's share of the cycles is what the benchmark reports.
 *
 * Each page is checked too.  A fresh mapping must read 0 (SYS_MAP
 * hands out zeroed frames), and after the round it must still hold
 * the tag this thread wrote there, unique to thread, round and page.
 * Anything else came through a translation that should be gone: this
 * CPU still reaching the frame it unmapped before, or another CPU
 * writing into a frame it gave back and this thread was given since.
 */
#define CHURN_TAG(me, r, p) (0xc4ull << 56 | (me) << 48 | (r) << 16 | (p))

static void note_stale(struct churn_args *a, uint64_t me, uint64_t va,
                       uint64_t got, uint64_t want, uint64_t *stale)
{
    if ( !*stale )
    {
        a->bad_va[me] = va;
        a->bad_got[me] = got;
        a->bad_want[me] = want;
    }
    (*stale)++;
}

static void worker(void *arg)
{
    struct churn_args *a = (struct churn_args *)USER_ARGS_VA;
    uint64_t me = (uint64_t)arg, start, errors = 0, stale = 0, checked = 0;
    unsigned long base = USER_HEAP_VA + me * 0x100000;
    uint64_t pages = a->pages < 64 ? a->pages : 64;

    __atomic_fetch_add(&a->started, 1, __ATOMIC_SEQ_CST);
    /*
     * Start together: the flush cost depends on who else is running.
     * A thread that never came stops the wait at the deadline, and the
     * block ends with no work, which the kernel reports.
     */
    while ( __atomic_load_n(&a->started, __ATOMIC_ACQUIRE) < a->nthreads &&
            u_rdtsc() < a->deadline )
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
        uint64_t mapped = 0;

        for ( uint64_t p = 0; p < pages; p++ )
        {
            unsigned long va = base + p * 4096;
            volatile uint64_t *v = (volatile uint64_t *)va;
            uint64_t got;

            /* Touch only what is mapped: a fault would end the task. */
            int rc = sys_map(va, 0, UPROT_READ | UPROT_WRITE);

            /* Progress the kernel's wait can see (a round may be long). */
            a->steps[me]++;
            if ( rc )
            {
                errors++;
                continue;
            }
            mapped |= 1ull << p;
            got = *v;
            checked++;
            if ( got )
                note_stale(a, me, va, got, 0, &stale);
            *v = CHURN_TAG(me, r, p);
        }
        for ( uint64_t p = 0; p < pages; p++ )
        {
            unsigned long va = base + p * 4096;
            uint64_t got;

            if ( !(mapped >> p & 1) )
                continue;
            got = *(volatile uint64_t *)va;
            checked++;
            if ( got != CHURN_TAG(me, r, p) )
                note_stale(a, me, va, got, CHURN_TAG(me, r, p), &stale);
            if ( sys_unmap(va, 0, 0) )
                errors++;
            a->steps[me]++;
        }
    }
    a->cycles[me] = u_rdtsc() - start;
    a->ops[me] = r * pages;
    a->stale[me] = stale;
    a->checked[me] = checked;
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
