/* SPDX-License-Identifier: GPL-2.0-only */
/* The L0-or-IPI choice at run time: boot timing, per-flush use, switches. */

#include <asm/flush-adapt.h>
#include <asm/flushtlb.h>
#include <asm/percpu.h>
#include <asm/processor.h>
#include <asm/smp.h>
#include <guest/hypervisor-ops.h>
#include <shimk/cmdline.h>
#include <shimk/cpumask.h>
#include <shimk/printk.h>
#include <shimk/sort.h>

/*
 * flush-adapt=0 keeps the boot's first choice (the L0 for every plain
 * flush, as assisted-flush=1 does); absent or 1, the choice is made
 * per target count and revised at run time (include/asm/flush-adapt.h).
 */
static int8_t opt_flush_adapt = -1;
tristate_param("flush-adapt", opt_flush_adapt);

bool flush_adapt_on;
static bool adapt_wanted;
static unsigned int adapt_top;      /* buckets in use: this boot's CPUs */
static struct adapt_bucket buckets[ADAPT_BUCKETS];
static uint64_t seeded[ADAPT_BUCKETS][NR_ADAPT_PATHS];
/* Set while the boot times one path: every flush takes it. */
static volatile int adapt_force = NR_ADAPT_PATHS;

/*
 * One CPU at a time updates the buckets.  Never waited for: a CPU that
 * finds it taken skips its trial or its sample (flush_area_mask() may
 * not spin on a lock), and counts the sample it dropped.
 */
static int adapt_busy;
static uint64_t adapt_dropped, adapt_trials;

#define ADAPT_SAY_MAX 16
static unsigned int adapt_said;

static bool adapt_lock(void)
{
    int free = 0;

    return __atomic_compare_exchange_n(&adapt_busy, &free, 1, false,
                                       __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static void adapt_unlock(void)
{
    __atomic_store_n(&adapt_busy, 0, __ATOMIC_RELEASE);
}

static const char *path_name(unsigned int p)
{
    return p == ADAPT_L0 ? "L0" : "IPIs";
}

int flush_adapt_force(int p)
{
    int was = adapt_force;

    adapt_force = p;
    return was;
}

void flush_adapt_want(void)
{
    adapt_wanted = opt_flush_adapt != 0;
}

enum adapt_path flush_adapt_choose(unsigned int targets)
{
    struct adapt_bucket *b;
    enum adapt_path p;

    if ( adapt_force != NR_ADAPT_PATHS )
        return adapt_force;
    if ( !flush_adapt_on )
        return ADAPT_L0;
    b = &buckets[adapt_bucket_of(targets)];
    p = READ_ONCE(b->choice);
    /* Most flushes are not trials: decide those without the flag's line. */
    if ( READ_ONCE(b->cost[!p].avg) &&
         READ_ONCE(b->credit) / ADAPT_TRIAL_SHARE < READ_ONCE(b->cost[!p].avg) )
        return p;
    if ( adapt_lock() )
    {
        if ( adapt_take_trial(b) )
        {
            p = !b->choice;
            adapt_trials++;
        }
        adapt_unlock();
    }
    return p;
}

void flush_adapt_record(unsigned int targets, enum adapt_path p,
                        uint64_t cycles)
{
    unsigned int bn = adapt_bucket_of(targets);
    struct adapt_bucket *b = &buckets[bn], seen, after;
    bool switched;

    if ( !flush_adapt_on || adapt_force != NR_ADAPT_PATHS )
        return;
    if ( !adapt_lock() )
    {
        __atomic_fetch_add(&adapt_dropped, 1, __ATOMIC_RELAXED);
        return;
    }
    seen = *b;
    switched = adapt_record(b, p, cycles);
    after = *b;
    adapt_unlock();
    if ( !switched )
        return;
    /*
     * Said where it happens: flush_area_mask() runs with interrupts on
     * and no lock held, so the console is safe here.  After
     * ADAPT_SAY_MAX lines the switches are only counted (the summary).
     * The averages are those the rule compared, this flush's included.
     */
    if ( __atomic_fetch_add(&adapt_said, 1, __ATOMIC_RELAXED) <
         ADAPT_SAY_MAX )
        pr_info("flush-policy: %s targets: %s now (%s averaged %lu cycles, "
                "%s %lu, over %u and %u flushes since the last choice)\n",
                adapt_bucket_name(bn), path_name(!seen.choice),
                path_name(seen.choice),
                (unsigned long)after.cost[seen.choice].avg,
                path_name(!seen.choice),
                (unsigned long)after.cost[!seen.choice].avg,
                seen.cost[seen.choice].samples + (p == seen.choice),
                seen.cost[!seen.choice].samples + (p != seen.choice));
}

/* The largest target count a bucket serves on this boot. */
static unsigned int bucket_last(unsigned int b, unsigned int others)
{
    unsigned int last = b + 1 < ADAPT_BUCKETS ? adapt_bucket_first(b + 1) - 1
                                              : others;

    return last < others ? last : others;
}

#define SEED_ROUNDS 16

static uint64_t time_flush(const cpumask_t *mask, enum adapt_path p)
{
    int was = flush_adapt_force(p);
    uint64_t start = rdtsc_ordered();

    flush_area_mask(mask, NULL, FLUSH_TLB);
    start = rdtsc_ordered() - start;
    flush_adapt_force(was);
    return start;
}

/*
 * Time both paths at the largest target count of each bucket this boot
 * has (p50 of SEED_ROUNDS, the two interleaved so that they share the
 * L0's moods), from the boot CPU with every AP up and idle.
 */
void flush_adapt_seed(void)
{
    unsigned int self = smp_processor_id(), others = nr_cpus_online - 1;
    uint64_t t[NR_ADAPT_PATHS][SEED_ROUNDS];

    if ( !adapt_wanted || !hypervisor_has_flush_tlb() || !others )
        return;
    for ( unsigned int b = 0; b < ADAPT_BUCKETS &&
                              adapt_bucket_first(b) <= others; b++ )
    {
        unsigned int k = bucket_last(b, others), cpu, n = 0;
        cpumask_t mask;

        cpumask_clear(&mask);
        for_each_cpu ( cpu, &cpu_online_mask )
            if ( cpu != self && n < k )
            {
                cpumask_set_cpu(cpu, &mask);
                n++;
            }
        for ( unsigned int i = 0; i < SEED_ROUNDS; i++ )
        {
            t[ADAPT_IPI][i] = time_flush(&mask, ADAPT_IPI);
            t[ADAPT_L0][i] = time_flush(&mask, ADAPT_L0);
        }
        for ( unsigned int p = 0; p < NR_ADAPT_PATHS; p++ )
        {
            sort_u64(t[p], SEED_ROUNDS);
            seeded[b][p] = percentile_sorted(t[p], SEED_ROUNDS, 50);
        }
        adapt_seed(&buckets[b], seeded[b][ADAPT_IPI], seeded[b][ADAPT_L0]);
        adapt_top = b + 1;
    }
    /* The buckets above this boot's CPU count never serve a flush. */
    for ( unsigned int b = adapt_top; b < ADAPT_BUCKETS; b++ )
        buckets[b] = buckets[adapt_top - 1];
    flush_adapt_on = true;
}

bool flush_adapt_seeded(void)
{
    return adapt_top != 0;
}

enum adapt_path flush_adapt_choice(unsigned int targets)
{
    return flush_adapt_on ? buckets[adapt_bucket_of(targets)].choice
                          : ADAPT_L0;
}

void flush_adapt_text(char *buf, size_t size)
{
    size_t len = 0;

    buf[0] = '\0';
    for ( unsigned int b = 0; b < adapt_top && len < size; b++ )
    {
        unsigned int c = buckets[b].choice;

        len += ksnprintf(buf + len, size - len, "%s%s: %s %lu vs %s %lu",
                         b ? "; " : "", adapt_bucket_name(b), path_name(c),
                         (unsigned long)seeded[b][c], path_name(!c),
                         (unsigned long)seeded[b][!c]);
    }
}

void flush_adapt_print(void)
{
    char text[256];
    size_t len = 0;
    unsigned int switches = 0;

    if ( !adapt_top )
        return;
    text[0] = '\0';
    for ( unsigned int b = 0; b < adapt_top && len < sizeof(text); b++ )
    {
        const struct adapt_bucket *k = &buckets[b];

        switches += k->switches;
        len += ksnprintf(text + len, sizeof(text) - len,
                         "%s%s: %s (L0 %lu, IPIs %lu)", b ? "; " : "",
                         adapt_bucket_name(b), path_name(k->choice),
                         (unsigned long)k->cost[ADAPT_L0].avg,
                         (unsigned long)k->cost[ADAPT_IPI].avg);
    }
    pr_info("flush-policy: %u switches, %lu trials, %lu samples dropped; "
            "by target count now: %s\n", switches,
            (unsigned long)adapt_trials, (unsigned long)adapt_dropped, text);
}

uint64_t flush_adapt_avg(unsigned int targets, enum adapt_path p)
{
    return p < NR_ADAPT_PATHS ? buckets[adapt_bucket_of(targets)].cost[p].avg
                              : 0;
}

bool flush_adapt_debug_swap(unsigned int targets, struct adapt_bucket *b)
{
    struct adapt_bucket *live = &buckets[adapt_bucket_of(targets)], was;

    if ( !adapt_lock() )
        return false;
    was = *live;
    *live = *b;
    *b = was;
    adapt_unlock();
    return true;
}
