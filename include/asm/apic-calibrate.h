/* SPDX-License-Identifier: GPL-2.0-only */
/* The local APIC timer's rate from bracketed reads of its count (pure). */
#ifndef ASM_APIC_CALIBRATE_H
#define ASM_APIC_CALIBRATE_H

#include <shimk/types.h>

/*
 * One read of the current count register (SDM Vol. 3A, 11.5.4), with
 * ordered TSC reads just before and just after it: the count was taken
 * at some TSC in [tsc_before, tsc_after].
 */
struct apic_count_read
{
    uint64_t tsc_before;
    uint32_t count;
    uint64_t tsc_after;
};

/* One round's rate and how far off it can be. */
struct apic_calibration
{
    uint64_t khz;       /* timer ticks per millisecond */
    uint32_t err_ppm;   /* bound on |error|, parts per million */
};

/*
 * The rate between two reads a and b (b later) of a count falling at the
 * timer's rate, the TSC running at tsc_khz.  The interval between the
 * two reads lies within [b.tsc_before - a.tsc_after, b.tsc_after -
 * a.tsc_before]: the rate is taken at its midpoint and err_ppm is half
 * its width, relative.  A stall inside a bracket widens it, so it shows
 * as a larger bound instead of a wrong rate; a stall between the two
 * reads changes nothing, since both clocks run on.  The TSC's own rate
 * error is not included.  Returns false when the reads cannot be from
 * one falling count (it rose, stopped, ran out, or the TSC went back).
 */
bool apic_calib_round(const struct apic_count_read *a,
                      const struct apic_count_read *b, uint64_t tsc_khz,
                      struct apic_calibration *out);

/*
 * The index of the round with the smallest error bound among the n
 * that ok[] marks valid, or -1 when none is.
 */
int apic_calib_best(const struct apic_calibration *rounds, const bool *ok,
                    unsigned int n);

#endif /* ASM_APIC_CALIBRATE_H */
