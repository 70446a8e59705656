# SPDX-License-Identifier: GPL-2.0-only
# A ktest failure that shimk's own reading of its APIC shows is the L0's.
"""Expiries the L0 lost, proven from the APIC's state.

The timer suite's every-armed-one-shot-arrives fails when an expiry is
counted lost (kernel/sched/timer.c: still undelivered 5 s after it was
due).  At that moment the kernel reads its local APIC, and when the
timer has run out with its LVT entry unmasked and the vector neither
requested nor in service, it says so in a line of its own: an APIC
that fired must have raised the vector, so only the L0's emulation can
have dropped it (oneshot_lost_by_l0(), shimk/timer-oneshot.h).

A boot whose only failures are such lost expiries, each one matched by
that line on its CPU, failed for the L0's fault, shown; anything else
stays shimk's failure.  Seen under Xen 4.17 in QEMU TCG, about once in
50 runs of the timer suite (docs/limits.md).
"""

import re

L0_LINE_RE = re.compile(r"^shimk: L0 fault: CPU(\d+): the local APIC timer "
                        r"ran out .* never raised vector")
FAILED_RE = re.compile(r"^not ok \d+ - (?P<name>\S+: \S+)(?: # (?P<why>.*))?$")
LOST_RE = re.compile(r"^CPU(\d+): (\d+) expiries counted lost")
TEST = "timer: every-armed-one-shot-arrives"
# The kernel reports the first three lost expiries of each CPU in full.
REPORTED_PER_CPU = 3


class Seen:
    """What a console showed of failed tests and lost expiries."""

    def __init__(self):
        self.failed = []        # (name, why) of each "not ok" line
        self.l0_lines = {}      # cpu -> the kernel's L0-fault lines

    def line(self, text):
        m = L0_LINE_RE.match(text)
        if m:
            self.l0_lines.setdefault(int(m.group(1)), []).append(text)
            return
        m = FAILED_RE.match(text)
        if m:
            self.failed.append((m.group("name"), m.group("why") or ""))

    def verdict(self, failed_count, other_failures=0):
        """'L0 fault, proven: ...' when every failure is a lost expiry
        the kernel proved the L0's, else None.

        failed_count: KTEST: END's failed count (None when it never came);
        other_failures: failures that are not ktests (tlbbench, run=).
        """
        if other_failures or not self.failed:
            return None
        if failed_count is not None and failed_count != len(self.failed):
            return None
        lost = {}
        for name, why in self.failed:
            m = LOST_RE.match(why)
            if name != TEST or not m:
                return None
            cpu = int(m.group(1))
            lost[cpu] = lost.get(cpu, 0) + int(m.group(2))
        for cpu, n in lost.items():
            if len(self.l0_lines.get(cpu, [])) < min(n, REPORTED_PER_CPU):
                return None
        first = next(iter(self.l0_lines[min(lost)]))
        return ("L0 fault, proven: %s lost %s, the local APIC's own state "
                "read at the loss each time (%s)"
                % (TEST, ", ".join("%d expir%s on CPU%d"
                                   % (n, "y" if n == 1 else "ies", c)
                                   for c, n in sorted(lost.items())),
                   first[len("shimk: L0 fault: "):]))
