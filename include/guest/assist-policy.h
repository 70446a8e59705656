/* SPDX-License-Identifier: GPL-2.0-only */
/* The assisted-flush decision (pure; unit-tested for every case). */
#ifndef GUEST_ASSIST_POLICY_H
#define GUEST_ASSIST_POLICY_H

#include <shimk/types.h>

enum assist_decision
{
    ASSIST_ON,                  /* hook kept, TLB clock off */
    ASSIST_OFF_OPTION,          /* assisted-flush=0 */
    ASSIST_OFF_NO_HOOK,         /* the L0 offers none */
    ASSIST_OFF_PROBE_FAILED,    /* the boot probe flush failed */
};

/* Is a probe flush needed to decide?  (A hook, and not assisted-flush=0.) */
bool assist_needs_probe(int8_t option, bool hook);

/*
 * option: -1 absent, 0 or 1 (docs/design.md#options); hook: the L0 has a
 * flush hook; probe_rc: the probe flush's result (ignored unless a
 * probe was needed).
 */
enum assist_decision assist_decide(int8_t option, bool hook, int probe_rc);

/* Does the decision contradict an explicit assisted-flush=1? */
bool assist_forced_but_off(int8_t option, enum assist_decision d);

const char *assist_decision_text(enum assist_decision d);

#endif /* GUEST_ASSIST_POLICY_H */
