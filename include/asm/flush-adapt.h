/* SPDX-License-Identifier: GPL-2.0-only */
/* The run-time choice between the L0's flush and IPIs, per target count. */
#ifndef ASM_FLUSH_ADAPT_H
#define ASM_FLUSH_ADAPT_H

#include <shimk/types.h>

/*
 * Which is cheaper, the L0's flush hypercall or an IPI shootdown,
 * depends on how many CPUs a flush targets and on how busy the L0 is:
 * under Xen in TCG at 8 vCPUs the L0 flush's cost grew 40 times from 1
 * to 7 targets while IPIs grew far less (docs/tlbbench.md).  So the
 * choice is made per target-count bucket (1, 2-3, 4-7, 8 and more),
 * seeded at boot by timing both at each bucket's count, and kept
 * honest at run time: each bucket averages what its flushes cost on
 * the path they took, now and then sends one flush the other way
 * (spending at most 1/ADAPT_TRIAL_SHARE of the flushing time on
 * trials), and switches when the other path has been clearly cheaper.
 *
 * The rule is pure, for the host unit tests
 * (tests/unit/test-flush-adapt.c); arch/x86/flush/flush-adapt.c keeps
 * the state, times the flushes and says each switch on the console.
 */

#define ADAPT_BUCKETS 4

enum adapt_path
{
    ADAPT_IPI,
    ADAPT_L0,
    NR_ADAPT_PATHS
};

/* Cycles a flush cost on one path: a moving average with weight 1/8. */
struct adapt_cost
{
    uint64_t avg;           /* 0: nothing measured yet */
    uint32_t samples;       /* since the bucket's last switch */
};

struct adapt_bucket
{
    struct adapt_cost cost[NR_ADAPT_PATHS];
    uint8_t choice;         /* enum adapt_path */
    uint64_t credit;        /* cycles on the chosen path since a trial */
    uint32_t switches;
};

/* One trial of the other path per this many of its cost on the chosen. */
#define ADAPT_TRIAL_SHARE 32
/* A switch needs this many samples of each path since the last one... */
#define ADAPT_MIN_CHOSEN 16
#define ADAPT_MIN_OTHER 3
/* ... and the other path cheaper by at least an eighth. */
#define ADAPT_MARGIN_NUM 7
#define ADAPT_MARGIN_DEN 8
/* A sample above this many times the average is clipped to it. */
#define ADAPT_CLIP 8

/* The bucket of a flush with this many remote targets (at least 1). */
unsigned int adapt_bucket_of(unsigned int targets);

/* The smallest target count in a bucket: where the boot times it. */
unsigned int adapt_bucket_first(unsigned int b);

/* "1", "2-3", "4-7", "8+". */
const char *adapt_bucket_name(unsigned int b);

/* Start from the boot's timings (cycles; 0 if a path was not timed). */
void adapt_seed(struct adapt_bucket *b, uint64_t ipi, uint64_t l0);

/*
 * Should this flush try the path not chosen?  Yes once the chosen path
 * has spent ADAPT_TRIAL_SHARE times the other's average since the last
 * trial (or the other was never measured); the credit then restarts.
 */
bool adapt_take_trial(struct adapt_bucket *b);

/*
 * Account a flush that cost cycles on path p.  Returns true when the
 * bucket's choice switched to the other path.
 */
bool adapt_record(struct adapt_bucket *b, enum adapt_path p,
                  uint64_t cycles);

/* --- the kernel's side (arch/x86/flush/flush-adapt.c) --- */

#ifndef SHIMK_HOST_TEST
#include <shimk/types.h>

/* True once the buckets are seeded and the choice is live. */
extern bool flush_adapt_on;

/*
 * Every plain flush takes path p (NR_ADAPT_PATHS: the choice again),
 * for the boot's timing and for ktests of one path; returns the last.
 */
int flush_adapt_force(int p);

/* hypervisor_setup() kept the L0 hook without assisted-flush=1. */
void flush_adapt_want(void);

/* After the APs are up, interrupts on: time both paths, go live. */
void flush_adapt_seed(void);

/* Did the boot time the paths (some bucket seeded)? */
bool flush_adapt_seeded(void);

/* The path for a plain flush to this many targets (trials included). */
enum adapt_path flush_adapt_choose(unsigned int targets);

/* What that flush cost on the path it took. */
void flush_adapt_record(unsigned int targets, enum adapt_path p,
                        uint64_t cycles);

/* The current choice for this many targets (no trial). */
enum adapt_path flush_adapt_choice(unsigned int targets);

/* "1: L0 N vs IPIs M; 2-3: ...": the boot's timings, for the policy line. */
void flush_adapt_text(char *buf, size_t size);

/* A bucket's average cost on path p, cycles (0: none yet). */
uint64_t flush_adapt_avg(unsigned int targets, enum adapt_path p);

/*
 * For ktests: exchange a bucket's state with *b (false, nothing done,
 * if another CPU held the buckets), so that a test can set a choice and
 * put the live state back after.
 */
bool flush_adapt_debug_swap(unsigned int targets, struct adapt_bucket *b);

/* The run's switches and each bucket's averages, at the end. */
void flush_adapt_print(void);
#endif

#endif /* ASM_FLUSH_ADAPT_H */
