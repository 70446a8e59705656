/* SPDX-License-Identifier: GPL-2.0-only */
/* TSC-based time: frequency, conversions and bounded waits. */
#ifndef SHIMK_TIME_H
#define SHIMK_TIME_H

#include <shimk/types.h>

/* TSC frequency in kHz; 0 until time_init() has found it. */
extern uint64_t tsc_khz;

/* Its bound, parts per million: 0 where a leaf stated it. */
extern uint32_t tsc_err_ppm;

/* Where tsc_khz came from ("xen cpuid leaf", "pit calibration", ...). */
extern const char *tsc_source;

/*
 * Find the TSC frequency: the L0's word (Xen's leaf base+3; KVM's
 * 0x40000010 or kvmclock's scale; Hyper-V's frequency MSR or the
 * kvmclock beside it), CPUID 0x15, a PIT calibration, CPUID 0x16, in
 * that order.  Boot CPU, before anything waits with a bound.
 */
void time_init(void);

/*
 * After the L0 ran the guest on from a saved state (boot CPU): the rate
 * again from the boot's source, stated or measured.  Agreeing within
 * both bounds, it is kept (0); otherwise the new one is taken, said,
 * and 1 returned.  A measured rate is changed only to one that two of
 * up to three measurements agree on (rate_recheck_verdict()); none
 * agreeing is -EAGAIN, the rate kept and the disagreement said.
 * -ENODEV where the source gives nothing now.
 */
int tsc_recheck(void);

/* Until tsc_khz is known, bounds assume this (a fast, safe guess). */
#define TSC_KHZ_GUESS 4000000ull

static inline uint64_t tsc_khz_or_guess(void)
{
    return tsc_khz ? tsc_khz : TSC_KHZ_GUESS;
}

static inline uint64_t ms_to_cycles(uint64_t ms)
{
    return ms * tsc_khz_or_guess();
}

static inline uint64_t us_to_cycles(uint64_t us)
{
    return us * tsc_khz_or_guess() / 1000;
}

uint64_t cycles_to_ns(uint64_t cycles);

/* Busy-wait; early and interrupt-free. */
void udelay(uint64_t us);
void mdelay(uint64_t ms);

/* How long a lock or a rendezvous may keep a CPU waiting. */
#define WAIT_BOUND_MS 5000

#endif /* SHIMK_TIME_H */
