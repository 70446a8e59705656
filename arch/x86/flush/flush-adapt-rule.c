/* SPDX-License-Identifier: GPL-2.0-only */
/* The L0-or-IPI choice per target count: buckets, trials, switches (pure). */

#include <asm/flush-adapt.h>

unsigned int adapt_bucket_of(unsigned int targets)
{
    if ( targets < 2 )
        return 0;
    if ( targets < 4 )
        return 1;
    if ( targets < 8 )
        return 2;
    return 3;
}

unsigned int adapt_bucket_first(unsigned int b)
{
    return b ? 1u << b : 1;
}

const char *adapt_bucket_name(unsigned int b)
{
    static const char *const names[ADAPT_BUCKETS] = {
        "1", "2-3", "4-7", "8+",
    };

    return b < ADAPT_BUCKETS ? names[b] : "?";
}

void adapt_seed(struct adapt_bucket *b, uint64_t ipi, uint64_t l0)
{
    *b = (struct adapt_bucket){
        .cost = { [ADAPT_IPI] = { .avg = ipi },
                  [ADAPT_L0] = { .avg = l0 } },
        /* Untimed counts as dearest: a path never timed is not chosen. */
        .choice = l0 && (!ipi || l0 <= ipi) ? ADAPT_L0 : ADAPT_IPI,
    };
}

bool adapt_take_trial(struct adapt_bucket *b)
{
    const struct adapt_cost *other = &b->cost[!b->choice];

    /*
     * Trials cost what the other path costs: bounded by the chosen
     * path's own spending, the overhead stays near 1/ADAPT_TRIAL_SHARE
     * however much dearer the other path is.
     */
    if ( other->avg && b->credit / ADAPT_TRIAL_SHARE < other->avg )
        return false;
    b->credit = 0;
    return true;
}

static void average_in(struct adapt_cost *c, uint64_t cycles)
{
    /*
     * A preempted target (an overcommitted L0) can make one flush cost
     * a thousand times its usual: clipped, such a flush moves the
     * average without owning it.
     */
    if ( c->avg && cycles > c->avg * ADAPT_CLIP )
        cycles = c->avg * ADAPT_CLIP;
    c->avg = c->avg ? c->avg - c->avg / 8 + cycles / 8 : cycles;
    c->samples++;
}

bool adapt_record(struct adapt_bucket *b, enum adapt_path p,
                  uint64_t cycles)
{
    struct adapt_cost *chosen, *other;

    if ( p >= NR_ADAPT_PATHS )
        return false;
    average_in(&b->cost[p], cycles);
    if ( p == b->choice )
        b->credit += cycles;
    chosen = &b->cost[b->choice];
    other = &b->cost[!b->choice];
    if ( chosen->samples < ADAPT_MIN_CHOSEN ||
         other->samples < ADAPT_MIN_OTHER ||
         other->avg * ADAPT_MARGIN_DEN >= chosen->avg * ADAPT_MARGIN_NUM )
        return false;
    /* Fresh evidence for both before the next switch: no flapping. */
    b->choice = !b->choice;
    chosen->samples = other->samples = 0;
    b->credit = 0;
    b->switches++;
    return true;
}
