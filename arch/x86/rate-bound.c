/* SPDX-License-Identifier: GPL-2.0-only */
/* A clock's rate measured between bracketed reads, and two such compared. */

#include <asm/rate-bound.h>

bool rate_from_bracket(uint64_t lo, uint64_t hi, uint64_t ref_ns,
                       uint64_t *khz, uint32_t *err_ppm)
{
    uint64_t mid = lo + (hi - lo) / 2, half = (hi - lo) / 2;

    if ( hi < lo || !mid || !ref_ns )
        return false;
    /* Split so that nothing overflows (ref_ns below a few seconds). */
    *khz = mid / ref_ns * 1000000 + (mid % ref_ns) * 1000000 / ref_ns;
    *err_ppm = half >= mid ? 1000000
                           : (uint32_t)((half * 1000000 + mid - 1) / mid);
    return *khz != 0;
}

/* [khz - khz * ppm / 10^6, khz + ...], in kHz times 10^6 to stay whole. */
static void interval(uint64_t khz, uint32_t ppm, unsigned __int128 *lo,
                     unsigned __int128 *hi)
{
    unsigned __int128 scaled = (unsigned __int128)khz * 1000000;
    unsigned __int128 off = (unsigned __int128)khz * ppm;

    *lo = off >= scaled ? 0 : scaled - off;
    *hi = scaled + off;
}

bool rate_bounds_agree(uint64_t a_khz, uint32_t a_ppm, uint64_t b_khz,
                       uint32_t b_ppm)
{
    unsigned __int128 a_lo, a_hi, b_lo, b_hi;

    interval(a_khz, a_ppm, &a_lo, &a_hi);
    interval(b_khz, b_ppm, &b_lo, &b_hi);
    /*
     * Each rate is rounded to a whole kHz: half a kHz either way is
     * within the measurement.
     */
    return a_lo <= b_hi + 1000000 && b_lo <= a_hi + 1000000;
}

enum rate_verdict rate_recheck_verdict(uint64_t was_khz, uint32_t was_ppm,
                                       const struct rate_sample *s,
                                       unsigned int n, unsigned int max,
                                       unsigned int *pick)
{
    const struct rate_sample *last;

    if ( !n )
        return RATE_MEASURE_MORE;
    last = &s[n - 1];
    if ( rate_bounds_agree(was_khz, was_ppm, last->khz, last->err_ppm) )
        return RATE_KEPT;
    /* Every earlier sample disagreed with the rate in use already. */
    for ( unsigned int i = 0; i + 1 < n; i++ )
        if ( rate_bounds_agree(s[i].khz, s[i].err_ppm, last->khz,
                               last->err_ppm) )
        {
            *pick = s[i].err_ppm < last->err_ppm ? i : n - 1;
            return RATE_CHANGED;
        }
    return n < max ? RATE_MEASURE_MORE : RATE_UNSETTLED;
}
