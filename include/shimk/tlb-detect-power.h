/* SPDX-License-Identifier: GPL-2.0-only */
/* The detector's power: placements, what controls proved, a verdict (pure). */
#ifndef SHIMK_TLB_DETECT_POWER_H
#define SHIMK_TLB_DETECT_POWER_H

#include <shimk/cpumask.h>
#include <shimk/tlb-detect.h>
#include <shimk/types.h>

/*
 * A clean detector run that sees no stale read proves something only
 * if the same run could have seen one.  Under an L0 that empties a
 * vCPU's TLB at every exit it often cannot: a missed flush leaves
 * nothing behind to read.  So every detector case first runs a short
 * control with a bug injected (no remote flush at all), in the boot and
 * the reader placement of its clean run, and stops it at the first few
 * stale reads.  Placements are tried in turn (detect_places()) until a
 * control sees enough; the clean run then goes where it did.  Where no
 * control sees a stale read through a TLB, the case is inconclusive.
 */

/* Stale reads after which a control stops: it has shown enough. */
#define DETECT_CONTROL_STALE   8u
/*
 * Checked flushes a control may take to show them, and flushes it may
 * make in all: where readers fall behind (halting vCPUs the host seldom
 * runs), each unchecked flush waits for them, and such a placement is
 * given up sooner.
 */
#define DETECT_CONTROL_FLUSHES 100u
#define DETECT_CONTROL_MOST    200u
/* Placements tried at most (detect_places()). */
#define DETECT_MAX_PLACES      4u

/* What one control run showed, kept for the choice and the verdict. */
struct detect_power
{
    struct detect_place place;
    uint64_t flushes, unchecked, ms, stalled_ms;
    uint64_t stale;                 /* every stale read */
    uint64_t tlb_stale;             /* those through a TLB entry */
    uint64_t by[NR_DETECT_CATCH];
    cpumask_t stale_cpus;
};

enum detect_verdict
{
    DETECT_PASS,                    /* the control saw, the clean run not */
    DETECT_FAIL,                    /* stale reads where none may be */
    DETECT_INCONCLUSIVE,            /* nothing seen, nor could it be */
};

/*
 * Split the CPUs online for p: remappers and readers (disjoint but with
 * one CPU, where it does both).  self is the caller's CPU, which runs
 * the run's controller.  False when p does not fit: fewer CPUs than it
 * needs, or no reader left off the remappers' CPUs.
 */
bool detect_place_cpus(const struct detect_place *p, const cpumask_t *online,
                       unsigned int self, cpumask_t *remap,
                       cpumask_t *readers);

/*
 * The placements to try on ncpus CPUs, the configured one first, then
 * ever more likely to keep a stale entry alive: spinning readers (no
 * halt, no switch: each can be an exit that empties the TLB), one
 * remapper (more reader CPUs), readers off the controller's CPU (its
 * wake-ups are switches there).  Those that do not fit, and repeats,
 * are left out.  Returns how many went into out (at most max, at
 * least 1).
 */
unsigned int detect_places(struct detect_place *out, unsigned int max,
                           const struct detect_place *configured,
                           unsigned int ncpus);

bool detect_place_equal(const struct detect_place *a,
                        const struct detect_place *b);

/*
 * Move pref to the front of the n placements, the others keeping their
 * order; if it is not among them, the first whose readers go as pref's
 * do (spinning or not, off the controller's CPU or not).  pref is what
 * an earlier case of the same boot chose, perhaps with another remapper
 * count: the placements it found blind need not be measured again.
 * True if one matched.
 */
bool detect_places_prefer(struct detect_place *places, unsigned int n,
                          const struct detect_place *pref);

/* "readers spinning on CPU2-3, remappers on CPU0-1 (away from CPU0)". */
size_t detect_place_format(char *buf, size_t len, const struct detect_place *p,
                           const cpumask_t *remap, const cpumask_t *readers);

/*
 * Stale reads that came through a TLB entry: every catch but the table
 * walk's, which finds a freed table by walking it in software (it shows
 * a missed barrier, not a stale translation).
 */
uint64_t detect_tlb_stale(const struct detect_result *r);

/* Keep what a control run of p showed. */
void detect_power_from(struct detect_power *p, const struct detect_place *pl,
                       const struct detect_result *r);

/* Has this control shown enough to stop trying placements? */
bool detect_power_enough(const struct detect_power *p);

/*
 * Which of the n controls (in the order run) to believe: the first that
 * showed enough, else the one with the most stale reads through a TLB;
 * -1 when none showed any.
 */
int detect_power_choose(const struct detect_power *p, unsigned int n);

/*
 * The case's verdict.  chosen: the believed control, or NULL.
 * boot_bug: the boot itself injects a bug (tlb-inject=, tlb-skip-remote=),
 * so the controls are the run: any stale read they saw fails it.
 * clean_stale: the clean run's stale reads (none when it was not run).
 */
enum detect_verdict detect_verdict(const struct detect_power *ctl,
                                   unsigned int n, int chosen, bool boot_bug,
                                   uint64_t clean_stale);

/*
 * Why a case is inconclusive, with the controls' figures, for a TAP
 * SKIP line: "inconclusive: with skip-remote injected, 0 stale reads
 * through a TLB in 4 placements (400 flushes checked, 12 not, 1
 * table-walk catch)".
 */
size_t detect_power_why(char *buf, size_t len, const char *inject,
                        const struct detect_power *p, unsigned int n);

/* "remap" ... for enum detect_catch. */
const char *detect_catch_name(enum detect_catch c);

#endif /* SHIMK_TLB_DETECT_POWER_H */
