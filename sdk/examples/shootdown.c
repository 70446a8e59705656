/* SPDX-License-Identifier: GPL-2.0-only */
/* Threads on every CPU cache a page; unmapping it must reach them all. */

#include <shimk-user.h>

/*
 * Each round: every reader thread reads the page at PAGE_VA, so its
 * CPU caches the translation, and says so; the main thread then unmaps
 * the page (a shootdown to every CPU running a reader), maps a fresh
 * one at the same address with the round's tag, and lets the readers
 * look again.  A reader that still sees the old frame's contents kept
 * a stale translation.  Exit 0 only when none did.
 */
#define PAGE_VA    0x100000000000ul     /* USER_HEAP_VA */
#define HOLD_VA    (PAGE_VA + 0x1000)
#define ROUNDS     200
#define MAX_READERS 15

struct reader
{
    volatile unsigned long seen_round;  /* the round it last read */
    volatile unsigned long stale, reads, cpu;
};

static struct
{
    volatile unsigned long round;       /* readers read when it moves */
    volatile unsigned long stop;
    struct reader r[MAX_READERS];
} ctl;

static void reader(void *arg)
{
    struct reader *me = arg;
    unsigned long done = 0;

    me->cpu = (unsigned long)sys_cpu();
    while ( !ctl.stop )
    {
        unsigned long round = ctl.round;

        if ( round == done )
        {
            /* Alone on a CPU the reader spins, keeping its TLB warm. */
            if ( me->cpu == 0 )
                sys_yield();
            continue;
        }
        /* The page was unmapped and mapped again before round moved. */
        if ( *(volatile unsigned long *)PAGE_VA != round )
            me->stale++;
        me->reads++;
        done = round;
        me->seen_round = round;
    }
    sys_exit(0);
}

/* Every reader has read round r (and so caches the page). */
static void wait_readers(unsigned int n, unsigned long r)
{
    for ( unsigned int i = 0; i < n; i++ )
        while ( ctl.r[i].seen_round != r )
            sys_yield();
}

int main(int argc, char **argv)
{
    long ncpus = sys_ncpus(), rc;
    unsigned int n = ncpus > 1 ? (unsigned int)ncpus - 1 : 1;
    unsigned long stale = 0, reads = 0;

    if ( n > MAX_READERS )
        n = MAX_READERS;
    if ( (rc = sys_map(PAGE_VA, 0, UPROT_READ | UPROT_WRITE)) )
    {
        u_printf("map: %ld\n", rc);
        return 2;
    }
    ctl.round = 0;
    *(volatile unsigned long *)PAGE_VA = 1;
    for ( unsigned int i = 0; i < n; i++ )
        if ( (rc = sys_spawn(reader, &ctl.r[i], 1 + i)) < 0 )
        {
            u_printf("spawn: %ld\n", rc);
            return 2;
        }
    for ( unsigned long r = 1; r <= ROUNDS; r++ )
    {
        /* Published with the page already holding r: readers check it. */
        *(volatile unsigned long *)PAGE_VA = r;
        __atomic_store_n(&ctl.round, r, __ATOMIC_SEQ_CST);
        wait_readers(n, r);
        /*
         * Every reader's CPU has the translation now: take it away.  The
         * old frame is held at HOLD_VA meanwhile, so the new page is
         * another frame and a stale read shows.
         */
        if ( (rc = sys_unmap(PAGE_VA, 0, 0)) ||
             (rc = sys_map(HOLD_VA, 0, UPROT_READ | UPROT_WRITE)) ||
             (rc = sys_map(PAGE_VA, 0, UPROT_READ | UPROT_WRITE)) ||
             (rc = sys_unmap(HOLD_VA, 0, 0)) )
        {
            u_printf("round %lu: unmap/map: %ld\n", r, rc);
            return 2;
        }
    }
    ctl.stop = 1;
    for ( unsigned int i = 0; i < n; i++ )
    {
        stale += ctl.r[i].stale;
        reads += ctl.r[i].reads;
    }
    u_printf("%u readers on CPUs 1-%u, %d rounds of unmap and map, %lu "
             "reads, %lu stale\n", n, n, ROUNDS, reads, stale);
    (void)argc;
    (void)argv;
    return stale ? 1 : 0;
}
