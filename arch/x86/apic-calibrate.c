/* SPDX-License-Identifier: GPL-2.0-only */
/* The local APIC timer's rate from bracketed reads of its count (pure). */

#include <asm/apic-calibrate.h>

bool apic_calib_round(const struct apic_count_read *a,
                      const struct apic_count_read *b, uint64_t tsc_khz,
                      struct apic_calibration *out)
{
    uint64_t ticks, lo, hi, mid;

    /* A count of 0 may have run out: the ticks since are unknown. */
    if ( !tsc_khz || !b->count || b->count >= a->count ||
         a->tsc_after < a->tsc_before || b->tsc_after < b->tsc_before ||
         b->tsc_before < a->tsc_after )
        return false;
    ticks = a->count - b->count;
    lo = b->tsc_before - a->tsc_after;
    hi = b->tsc_after - a->tsc_before;
    mid = lo + (hi - lo) / 2;
    if ( !mid )
        return false;
    /* ticks < 2^32 and tsc_khz < 2^32: the product fits in 64 bits. */
    out->khz = (ticks * tsc_khz + mid / 2) / mid;
    /* Half the width over the midpoint; a bracket wider than mid is 100%. */
    out->err_ppm = (hi - lo) / 2 >= mid ? 1000000
                   : (uint32_t)(((hi - lo) / 2 * 1000000 + mid - 1) / mid);
    return true;
}

int apic_calib_best(const struct apic_calibration *rounds, const bool *ok,
                    unsigned int n)
{
    int best = -1;

    for ( unsigned int i = 0; i < n; i++ )
        if ( ok[i] && (best < 0 || rounds[i].err_ppm < rounds[best].err_ppm) )
            best = (int)i;
    return best;
}
