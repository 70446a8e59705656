/* SPDX-License-Identifier: GPL-2.0-only */
/* The detector's power: placements, what controls proved, a verdict (pure). */

#include <shimk/printk.h>
#include <shimk/string.h>
#include <shimk/tlb-detect-power.h>

static const char *const catch_names[NR_DETECT_CATCH] = {
    [CATCH_REMAP] = "remap",
    [CATCH_UNMAP] = "unmap",
    [CATCH_PROTECT] = "protect",
    [CATCH_WALK] = "table-walk",
    [CATCH_HUGE] = "2M",
};

const char *detect_catch_name(enum detect_catch c)
{
    return (unsigned int)c < NR_DETECT_CATCH ? catch_names[c] : "?";
}

bool detect_place_cpus(const struct detect_place *p, const cpumask_t *online,
                       unsigned int self, cpumask_t *remap,
                       cpumask_t *readers)
{
    unsigned int n = cpumask_weight(online), cpu;

    cpumask_clear(remap);
    cpumask_clear(readers);
    if ( !p->remappers || !cpumask_test_cpu(self, online) )
        return false;
    if ( n == 1 )
    {
        /* One CPU does both, and every flush is local. */
        if ( p->remappers > 1 || p->away )
            return false;
        cpumask_copy(remap, online);
        cpumask_copy(readers, online);
        return true;
    }
    /* At least one reader CPU besides the remappers'. */
    if ( p->remappers >= n )
        return false;
    /*
     * Not away: the controller's CPU reads, as it always did (it sleeps
     * between looks, so a remapper there would get a slice in three).
     * Away: it remaps, so no reader is switched out for its wake-ups.
     */
    if ( p->away )
        cpumask_set_cpu(self, remap);
    for_each_cpu ( cpu, online )
    {
        if ( cpumask_weight(remap) == p->remappers )
            break;
        if ( cpu != self )
            cpumask_set_cpu(cpu, remap);
    }
    cpumask_andnot(readers, online, remap);
    return true;
}

/*
 * Another placement fits when it leaves a reader CPU besides the
 * remappers'.  With one CPU there is none to try: readers spinning
 * beside the remapper would starve it, and every flush is local.
 */
static bool fits(const struct detect_place *p, unsigned int ncpus)
{
    return p->remappers && p->remappers < ncpus;
}

bool detect_place_equal(const struct detect_place *a,
                        const struct detect_place *b)
{
    return a->remappers == b->remappers && a->spin == b->spin &&
           a->away == b->away;
}

unsigned int detect_places(struct detect_place *out, unsigned int max,
                           const struct detect_place *configured,
                           unsigned int ncpus)
{
    const struct detect_place more[] = {
        *configured,
        { .remappers = configured->remappers, .spin = true,
          .away = configured->away },
        { .remappers = 1, .spin = true },
        { .remappers = 1, .spin = true, .away = true },
    };
    unsigned int n = 0;

    /* The configured one always: a case that cannot place it says so. */
    if ( max )
        out[n++] = *configured;
    for ( unsigned int i = 1; i < ARRAY_SIZE(more) && n < max; i++ )
    {
        bool seen = false;

        if ( !fits(&more[i], ncpus) )
            continue;
        for ( unsigned int j = 0; j < n && !seen; j++ )
            seen = detect_place_equal(&out[j], &more[i]);
        if ( !seen )
            out[n++] = more[i];
    }
    return n;
}

static int find_place(const struct detect_place *places, unsigned int n,
                      const struct detect_place *pref, bool exact)
{
    for ( unsigned int i = 0; i < n; i++ )
        if ( exact ? detect_place_equal(&places[i], pref)
                   : places[i].spin == pref->spin &&
                         places[i].away == pref->away )
            return i;
    return -1;
}

bool detect_places_prefer(struct detect_place *places, unsigned int n,
                          const struct detect_place *pref)
{
    int i = find_place(places, n, pref, true);
    struct detect_place p;

    if ( i < 0 )
        i = find_place(places, n, pref, false);
    if ( i < 0 )
        return false;
    p = places[i];
    for ( ; i; i-- )
        places[i] = places[i - 1];
    places[0] = p;
    return true;
}

size_t detect_place_format(char *buf, size_t len, const struct detect_place *p,
                           const cpumask_t *remap, const cpumask_t *readers)
{
    char r[64], m[64];

    cpumask_format(r, sizeof(r), readers);
    cpumask_format(m, sizeof(m), remap);
    return ksnprintf(buf, len, "readers %s on CPU%s, remapper%s on CPU%s%s",
                     p->spin ? "spinning" : "halting", r,
                     p->remappers > 1 ? "s" : "", m,
                     p->away ? " (readers off the controller's CPU)" : "");
}

uint64_t detect_tlb_stale(const struct detect_result *r)
{
    uint64_t n = 0;

    for ( unsigned int c = 0; c < NR_DETECT_CATCH; c++ )
        if ( c != CATCH_WALK )
            n += r->stale_by[c];
    return n;
}

void detect_power_from(struct detect_power *p, const struct detect_place *pl,
                       const struct detect_result *r)
{
    memset(p, 0, sizeof(*p));
    p->place = *pl;
    p->flushes = r->flushes;
    p->unchecked = r->unchecked;
    p->ms = r->ms;
    p->stalled_ms = r->stalled_ms;
    p->stale = r->stale_user + r->stale_kernel;
    p->tlb_stale = detect_tlb_stale(r);
    for ( unsigned int c = 0; c < NR_DETECT_CATCH; c++ )
        p->by[c] = r->stale_by[c];
    cpumask_copy(&p->stale_cpus, &r->stale_cpus);
}

bool detect_power_enough(const struct detect_power *p)
{
    return p->tlb_stale >= DETECT_CONTROL_STALE;
}

int detect_power_choose(const struct detect_power *p, unsigned int n)
{
    int best = -1;

    for ( unsigned int i = 0; i < n; i++ )
    {
        if ( detect_power_enough(&p[i]) )
            return i;
        if ( p[i].tlb_stale &&
             (best < 0 || p[i].tlb_stale > p[best].tlb_stale) )
            best = i;
    }
    return best;
}

enum detect_verdict detect_verdict(const struct detect_power *ctl,
                                   unsigned int n, int chosen, bool boot_bug,
                                   uint64_t clean_stale)
{
    /* A stale read is evidence, whatever the controls showed. */
    if ( clean_stale )
        return DETECT_FAIL;
    if ( boot_bug )
    {
        /* The boot's own bug, seen in any way, fails the run. */
        for ( unsigned int i = 0; i < n; i++ )
            if ( ctl[i].stale )
                return DETECT_FAIL;
        return DETECT_INCONCLUSIVE;
    }
    return chosen >= 0 && (unsigned int)chosen < n && ctl[chosen].tlb_stale
               ? DETECT_PASS
               : DETECT_INCONCLUSIVE;
}

size_t detect_power_why(char *buf, size_t len, const char *inject,
                        const struct detect_power *p, unsigned int n)
{
    uint64_t flushes = 0, unchecked = 0, tlb = 0, walk = 0, stalled = 0;
    size_t k;

    for ( unsigned int i = 0; i < n; i++ )
    {
        flushes += p[i].flushes;
        unchecked += p[i].unchecked;
        tlb += p[i].tlb_stale;
        walk += p[i].by[CATCH_WALK];
        stalled += !!p[i].stalled_ms;
    }
    k = ksnprintf(buf, len, "inconclusive: with %s injected, %lu stale "
                  "reads through a TLB in %u placement%s (%lu flushes "
                  "checked, %lu not", inject, (unsigned long)tlb, n,
                  n == 1 ? "" : "s", (unsigned long)flushes,
                  (unsigned long)unchecked);
    if ( walk && k < len )
        k += ksnprintf(buf + k, len - k, ", %lu table-walk catch%s",
                       (unsigned long)walk, walk == 1 ? "" : "es");
    if ( stalled && k < len )
        k += ksnprintf(buf + k, len - k, ", %lu stalled",
                       (unsigned long)stalled);
    if ( k < len )
        k += ksnprintf(buf + k, len - k, ")");
    return k;
}
