/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/tlb-detect/power.c: placements, the controls' choice, the verdict. */

#include <shimk/tlb-detect-power.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

static cpumask_t cpus(unsigned int n)
{
    cpumask_t m;

    cpumask_setall(&m, n);
    return m;
}

static char *fmt(const cpumask_t *m)
{
    static char buf[4][64];
    static unsigned int i;
    char *b = buf[i++ % 4];

    return cpumask_format(b, 64, m);
}

#define PLACE(r, s, a) ((struct detect_place){ .remappers = (r), .spin = (s), \
                                               .away = (a) })

static void split(struct detect_place p, unsigned int n, unsigned int self,
                  const char *remap, const char *readers)
{
    cpumask_t online = cpus(n), m, r;

    assert_true(detect_place_cpus(&p, &online, self, &m, &r));
    assert_string_equal(fmt(&m), remap);
    assert_string_equal(fmt(&r), readers);
}

static void no_split(struct detect_place p, unsigned int n, unsigned int self)
{
    cpumask_t online = cpus(n), m, r;

    assert_false(detect_place_cpus(&p, &online, self, &m, &r));
}

/* As the detector always placed them: remappers from CPU1, CPU0 reads. */
static void default_split_keeps_the_old_layout(void **state)
{
    split(PLACE(2, false, false), 4, 0, "1-2", "0,3");
    split(PLACE(2, false, false), 3, 0, "1-2", "0");
    split(PLACE(1, false, false), 2, 0, "1", "0");
    split(PLACE(1, true, false), 8, 0, "1", "0,2-7");
    /* The caller's CPU is the one kept for reading, whichever it is. */
    split(PLACE(2, false, false), 4, 2, "0-1", "2-3");
}

/* Away: the controller's CPU remaps, no reader shares it. */
static void away_puts_no_reader_on_the_controllers_cpu(void **state)
{
    split(PLACE(1, true, true), 2, 0, "0", "1");
    split(PLACE(1, true, true), 4, 0, "0", "1-3");
    split(PLACE(2, true, true), 3, 0, "0-1", "2");
    split(PLACE(1, true, true), 4, 3, "3", "0-2");
}

/* One CPU does both; nothing else fits there. */
static void one_cpu_does_both(void **state)
{
    split(PLACE(1, false, false), 1, 0, "0", "0");
    split(PLACE(1, true, false), 1, 0, "0", "0");
    no_split(PLACE(1, true, true), 1, 0);
    no_split(PLACE(2, false, false), 1, 0);
}

static void misfits_are_refused(void **state)
{
    /* No reader CPU left. */
    no_split(PLACE(3, false, false), 3, 0);
    no_split(PLACE(2, true, true), 2, 0);
    no_split(PLACE(0, false, false), 4, 0);
    /* The caller is not online. */
    no_split(PLACE(1, false, false), 2, 5);
}

static void same(const struct detect_place *a, struct detect_place b)
{
    assert_int_equal(a->remappers, b.remappers);
    assert_int_equal(a->spin, b.spin);
    assert_int_equal(a->away, b.away);
}

/* The configured one first, then ever more sensitive, no repeats. */
static void places_in_order_without_repeats(void **state)
{
    struct detect_place out[DETECT_MAX_PLACES];
    struct detect_place conf = PLACE(2, false, false);
    unsigned int n;

    n = detect_places(out, DETECT_MAX_PLACES, &conf, 4);
    assert_int_equal(n, 4);
    same(&out[0], PLACE(2, false, false));
    same(&out[1], PLACE(2, true, false));
    same(&out[2], PLACE(1, true, false));
    same(&out[3], PLACE(1, true, true));

    /* Two CPUs: one remapper already, so no "one remapper" step. */
    conf = PLACE(1, false, false);
    n = detect_places(out, DETECT_MAX_PLACES, &conf, 2);
    assert_int_equal(n, 3);
    same(&out[0], PLACE(1, false, false));
    same(&out[1], PLACE(1, true, false));
    same(&out[2], PLACE(1, true, true));

    /* Readers the options already spin: that step is the first. */
    conf = PLACE(2, true, false);
    n = detect_places(out, DETECT_MAX_PLACES, &conf, 3);
    assert_int_equal(n, 3);
    same(&out[0], PLACE(2, true, false));
    same(&out[1], PLACE(1, true, false));
    same(&out[2], PLACE(1, true, true));

    /* One CPU: only the configured placement. */
    conf = PLACE(1, false, false);
    assert_int_equal(detect_places(out, DETECT_MAX_PLACES, &conf, 1), 1);
    same(&out[0], conf);

    /* max bounds it. */
    conf = PLACE(2, false, false);
    assert_int_equal(detect_places(out, 2, &conf, 4), 2);
    same(&out[1], PLACE(2, true, false));
}

/* Every listed placement splits the CPUs it was listed for. */
static void every_listed_place_fits(void **state)
{
    for ( unsigned int ncpus = 1; ncpus <= 8 && ncpus <= NR_CPUS; ncpus++ )
        for ( unsigned int r = 1; r <= 2; r++ )
            for ( unsigned int s = 0; s < 2; s++ )
            {
                struct detect_place out[DETECT_MAX_PLACES];
                struct detect_place conf = PLACE(r, s, false);
                cpumask_t online = cpus(ncpus), m, rd;
                unsigned int n;

                if ( r >= ncpus && ncpus > 1 )
                    continue;
                if ( ncpus == 1 && r > 1 )
                    continue;
                n = detect_places(out, DETECT_MAX_PLACES, &conf, ncpus);
                for ( unsigned int i = 0; i < n; i++ )
                {
                    assert_true(detect_place_cpus(&out[i], &online, 0, &m,
                                                  &rd));
                    if ( ncpus > 1 )
                        assert_false(cpumask_intersects(&m, &rd));
                }
            }
}

/* An earlier case's choice goes first, the rest keep their order. */
static void a_preferred_place_goes_first(void **state)
{
    struct detect_place p[4] = { PLACE(2, false, false),
                                 PLACE(2, true, false),
                                 PLACE(1, true, false),
                                 PLACE(1, true, true) };
    struct detect_place pref = PLACE(1, true, false);

    assert_true(detect_places_prefer(p, 4, &pref));
    same(&p[0], PLACE(1, true, false));
    same(&p[1], PLACE(2, false, false));
    same(&p[2], PLACE(2, true, false));
    same(&p[3], PLACE(1, true, true));
    /* Already first: nothing moves. */
    assert_true(detect_places_prefer(p, 4, &pref));
    same(&p[0], PLACE(1, true, false));
    same(&p[1], PLACE(2, false, false));
    /* Another remapper count: the first that reads the same way. */
    pref = PLACE(2, true, true);
    assert_true(detect_places_prefer(p, 4, &pref));
    same(&p[0], PLACE(1, true, true));
    same(&p[1], PLACE(1, true, false));
    /* None reads that way: nothing moves. */
    struct detect_place q[2] = { PLACE(1, false, false),
                                 PLACE(1, true, false) };
    pref = PLACE(1, true, true);
    assert_false(detect_places_prefer(q, 2, &pref));
    same(&q[0], PLACE(1, false, false));
    assert_false(detect_places_prefer(q, 0, &pref));
}

static void place_format_names_both_sides(void **state)
{
    cpumask_t online = cpus(4), m, r;
    struct detect_place p = PLACE(1, true, true);
    char buf[160];

    assert_true(detect_place_cpus(&p, &online, 0, &m, &r));
    detect_place_format(buf, sizeof(buf), &p, &m, &r);
    assert_string_equal(buf, "readers spinning on CPU1-3, remapper on CPU0 "
                             "(readers off the controller's CPU)");
    p = PLACE(2, false, false);
    assert_true(detect_place_cpus(&p, &online, 0, &m, &r));
    detect_place_format(buf, sizeof(buf), &p, &m, &r);
    assert_string_equal(buf, "readers halting on CPU0,3, remappers on "
                             "CPU1-2");
}

static struct detect_power power_u(uint64_t remap, uint64_t walk,
                                   uint64_t flushes, uint64_t unchecked)
{
    struct detect_result r;
    struct detect_place p = PLACE(1, false, false);
    struct detect_power pw;

    memset(&r, 0, sizeof(r));
    r.stale_by[CATCH_REMAP] = remap;
    r.stale_by[CATCH_WALK] = walk;
    r.stale_kernel = remap + walk;
    r.flushes = flushes;
    r.unchecked = unchecked;
    detect_power_from(&pw, &p, &r);
    return pw;
}

static struct detect_power power(uint64_t remap, uint64_t walk,
                                 uint64_t flushes)
{
    return power_u(remap, walk, flushes, 0);
}


/* A table-walk catch shows a missed barrier, not a stale translation. */
static void walk_catches_are_not_tlb_reads(void **state)
{
    struct detect_result r;

    memset(&r, 0, sizeof(r));
    r.stale_by[CATCH_WALK] = 5;
    assert_int_equal(detect_tlb_stale(&r), 0);
    r.stale_by[CATCH_UNMAP] = 2;
    r.stale_by[CATCH_PROTECT] = 3;
    r.stale_by[CATCH_HUGE] = 1;
    assert_int_equal(detect_tlb_stale(&r), 6);
    assert_false(detect_power_enough(&(struct detect_power){ .tlb_stale =
                                         DETECT_CONTROL_STALE - 1 }));
    assert_true(detect_power_enough(&(struct detect_power){ .tlb_stale =
                                        DETECT_CONTROL_STALE }));
}

static void choose_first_enough_else_most(void **state)
{
    struct detect_power p[4];

    p[0] = power(0, 3, 100);
    p[1] = power(2, 0, 100);
    p[2] = power(5, 0, 100);
    p[3] = power(DETECT_CONTROL_STALE, 0, 4);
    assert_int_equal(detect_power_choose(p, 4), 3);
    /* None enough: the most through a TLB, not the walk's. */
    assert_int_equal(detect_power_choose(p, 3), 2);
    assert_int_equal(detect_power_choose(p, 2), 1);
    /* Walk catches alone: nothing to believe. */
    assert_int_equal(detect_power_choose(p, 1), -1);
    assert_int_equal(detect_power_choose(p, 0), -1);
    /* The first of two that are enough. */
    p[1] = power(9, 0, 2);
    assert_int_equal(detect_power_choose(p, 4), 1);
}

static void verdicts(void **state)
{
    struct detect_power p[2] = { power(0, 0, 100), power(9, 0, 3) };
    struct detect_power walk = power(0, 1, 100);

    /* A control that saw stale reads makes a clean pass a pass. */
    assert_int_equal(detect_verdict(p, 2, 1, false, 0), DETECT_PASS);
    /* Stale reads in the clean run fail it, whatever the controls. */
    assert_int_equal(detect_verdict(p, 2, 1, false, 1), DETECT_FAIL);
    assert_int_equal(detect_verdict(p, 1, -1, false, 3), DETECT_FAIL);
    /* No control saw any: inconclusive, never a pass. */
    assert_int_equal(detect_verdict(p, 1, -1, false, 0),
                     DETECT_INCONCLUSIVE);
    assert_int_equal(detect_verdict(p, 0, -1, false, 0),
                     DETECT_INCONCLUSIVE);
    /* A chosen index must name a control that saw something. */
    assert_int_equal(detect_verdict(p, 1, 0, false, 0), DETECT_INCONCLUSIVE);
    assert_int_equal(detect_verdict(p, 1, 5, false, 0), DETECT_INCONCLUSIVE);
    /* The boot's own bug: any stale read fails, a walk's too. */
    assert_int_equal(detect_verdict(&walk, 1, -1, true, 0), DETECT_FAIL);
    assert_int_equal(detect_verdict(p, 2, 1, true, 0), DETECT_FAIL);
    assert_int_equal(detect_verdict(p, 1, -1, true, 0), DETECT_INCONCLUSIVE);
}

/* The reason carries the figures and fits a TAP SKIP (160 bytes). */
static void why_has_the_figures(void **state)
{
    struct detect_power p[4] = { power(0, 0, 100), power(0, 2, 100),
                                 power(0, 1, 100), power_u(0, 0, 37, 163) };
    char buf[160];
    size_t n;

    p[3].stalled_ms = 20000;
    n = detect_power_why(buf, sizeof(buf), "skip-remote", p, 4);
    assert_true(n < sizeof(buf));
    assert_string_equal(buf, "inconclusive: with skip-remote injected, 0 "
                             "stale reads through a TLB in 4 placements "
                             "(337 flushes checked, 163 not, 3 table-walk "
                             "catches, 1 stalled)");
    detect_power_why(buf, sizeof(buf), "wrong-page", p, 1);
    assert_string_equal(buf, "inconclusive: with wrong-page injected, 0 "
                             "stale reads through a TLB in 1 placement "
                             "(100 flushes checked, 0 not)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_split_keeps_the_old_layout),
        cmocka_unit_test(away_puts_no_reader_on_the_controllers_cpu),
        cmocka_unit_test(one_cpu_does_both),
        cmocka_unit_test(misfits_are_refused),
        cmocka_unit_test(places_in_order_without_repeats),
        cmocka_unit_test(every_listed_place_fits),
        cmocka_unit_test(a_preferred_place_goes_first),
        cmocka_unit_test(place_format_names_both_sides),
        cmocka_unit_test(walk_catches_are_not_tlb_reads),
        cmocka_unit_test(choose_first_enough_else_most),
        cmocka_unit_test(verdicts),
        cmocka_unit_test(why_has_the_figures),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
