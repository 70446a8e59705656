/* SPDX-License-Identifier: GPL-2.0-only */
/* A clock's rate measured between bracketed reads, and two such compared. */
#ifndef ASM_RATE_BOUND_H
#define ASM_RATE_BOUND_H

#include <shimk/types.h>

/*
 * The rate of a clock that ran lo..hi of its cycles while a reference
 * ran ref_ns nanoseconds exactly: the true count lies in [lo, hi]
 * (two bracketed reads), so the rate is taken at the midpoint and
 * *err_ppm is half the width, relative (1000000: no better than 100 %).
 * False when there is nothing to take a rate from (hi < lo, or 0).
 */
bool rate_from_bracket(uint64_t lo, uint64_t hi, uint64_t ref_ns,
                       uint64_t *khz, uint32_t *err_ppm);

/*
 * Do two measurements of one clock (each a rate and a bound that holds
 * its true value) agree?  Yes when their intervals overlap: two that
 * do not are two different rates, whatever their noise.  A bound of
 * 0 ppm is exact (a rate the L0 or CPUID stated).
 */
bool rate_bounds_agree(uint64_t a_khz, uint32_t a_ppm, uint64_t b_khz,
                       uint32_t b_ppm);

/*
 * A measured rate asked again (a resume's clock check): the rate in use
 * is kept as soon as one measurement agrees with it; it is changed only
 * to a rate that two measurements agree on.  One measurement alone may
 * be wrong outside its own bound where the L0's clocks move against
 * each other while it runs (nested KVM on a host whose TSC it marked
 * unstable stops the guest's TSC while the vCPU is out and catches it
 * up later; two such rounds were 6 % and 34 % off): a lone outlier is
 * not a new rate.  After max measurements with neither, it is unsettled,
 * and the rate in use stays.
 */
#define RATE_RECHECK_SAMPLES 3

struct rate_sample
{
    uint64_t khz;
    uint32_t err_ppm;
};

enum rate_verdict
{
    RATE_KEPT,          /* the last sample agrees with the rate in use */
    RATE_CHANGED,       /* two samples agree on another rate: *pick */
    RATE_MEASURE_MORE,  /* neither yet: take another sample */
    RATE_UNSETTLED,     /* max samples and neither: keep, and say so */
};

enum rate_verdict rate_recheck_verdict(uint64_t was_khz, uint32_t was_ppm,
                                       const struct rate_sample *s,
                                       unsigned int n, unsigned int max,
                                       unsigned int *pick);

#endif /* ASM_RATE_BOUND_H */
