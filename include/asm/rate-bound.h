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

#endif /* ASM_RATE_BOUND_H */
