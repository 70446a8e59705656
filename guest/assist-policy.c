/* SPDX-License-Identifier: GPL-2.0-only */
/* The assisted-flush decision: option, hook, probe (pure; unit-tested). */

#include <guest/assist-policy.h>

/*
 * Flush rule 5 (docs/flush.md#correctness-rules): decided once,
 * on the boot CPU before the APs start.  A failed probe drops the hook
 * for good: Xen keeps calling a hook whose probe failed, paying a
 * failing exit before each IPI fallback, and may even assist later
 * with the clock still on.  Which flushes the kept hook then serves
 * is chosen per target count, after the APs are up, and revised at run
 * time (arch/x86/flush/flush-adapt.c): both paths are whole flushes with
 * the clock off, so switching between them is always safe.
 */

bool assist_needs_probe(int8_t option, bool hook)
{
    return hook && option != 0;
}

enum assist_decision assist_decide(int8_t option, bool hook, int probe_rc)
{
    if ( option == 0 )
        return ASSIST_OFF_OPTION;
    if ( !hook )
        return ASSIST_OFF_NO_HOOK;
    return probe_rc ? ASSIST_OFF_PROBE_FAILED : ASSIST_ON;
}

bool assist_forced_but_off(int8_t option, enum assist_decision d)
{
    return option == 1 && d != ASSIST_ON;
}

const char *assist_decision_text(enum assist_decision d)
{
    switch ( d )
    {
    case ASSIST_ON:
        return "on";
    case ASSIST_OFF_OPTION:
        return "off (assisted-flush=0)";
    case ASSIST_OFF_NO_HOOK:
        return "off (the L0 offers no flush hook)";
    case ASSIST_OFF_PROBE_FAILED:
        return "off (the boot probe flush failed)";
    }
    return "?";
}
