# SPDX-License-Identifier: GPL-2.0-only
# The detector's own verdicts in a console log, and what they make of a row.
"""Every tlb-detector ktest case (tests/ktest/tlb.c) measures its own
power before it may pass: short control runs with a bug injected, in
the same boot and reader placement as its clean runs, must see stale
reads (docs/flush.md, "What a pass means").  A case whose controls did
prints a "# power: ..." note before its TAP line; one whose controls
saw none is skipped as "inconclusive: <why>", and where nothing else
passed, shimk exits with the skip code (tools/boot: 77).

read() collects the cases; row() says what they make of a matrix row,
so that the matrix agrees with the kernel: an inconclusive case makes
a row INCONCLUSIVE (counted as skipped), never PASS, and a case whose
clean runs passed without its power note is not believed (a kernel
that stopped measuring its power would otherwise pass unnoticed).
"""

import re

# "(d0) " and the like: a console prefix some paths keep.
PREFIX = r"^(?:\(d\d+\) )?"
TAP_RE = re.compile(PREFIX + r"(?P<ok>ok|not ok) \d+ - (?P<suite>[\w-]+): "
                    r"(?P<case>[\w-]+)(?: # (?P<rest>.*))?$")
POWER_RE = re.compile(PREFIX + r"# power: ")
# A clean run's report (tests/ktest/tlb.c report()): the case gave a
# detector verdict, so it needed its power measured.
CLEAN_RE = re.compile(PREFIX + r"# stale-TLB detector ")
SUITE = "tlb-detector"
SKIP = "SKIP "
INCONCLUSIVE = "inconclusive: "


class Cases:
    """The tlb-detector cases of one log, by outcome."""

    def __init__(self):
        self.passed = []        # with their power note
        self.unproven = []      # clean runs passed without one
        self.other = []         # passed without a clean run (a check of
                                # the machinery, not a detector verdict)
        self.failed = []
        self.inconclusive = []  # (case, the kernel's why)
        self.skipped = []       # (case, why): skipped for another reason
        self.others_passed = 0  # other suites' cases
        self.others_failed = 0

    def why(self):
        """The kernel's reasons, each once, with the cases it gave it."""
        cases = {}
        for case, why in self.inconclusive:
            cases.setdefault(why, []).append(case)
        return "; ".join("%s: %s" % (", ".join(c), why)
                         for why, c in cases.items())


def read(lines):
    """Cases from a console log (an iterable of lines)."""
    c = Cases()
    power = clean = False
    for line in lines:
        line = line.rstrip("\r\n")
        if POWER_RE.match(line):
            power = True
            continue
        if CLEAN_RE.match(line):
            clean = True
            continue
        m = TAP_RE.match(line)
        if not m:
            continue
        rest = m.group("rest") or ""
        ok = m.group("ok") == "ok"
        if m.group("suite") != SUITE:
            if ok and not rest.startswith(SKIP):
                c.others_passed += 1
            elif not ok:
                c.others_failed += 1
        elif not ok:
            c.failed.append(m.group("case"))
        elif rest.startswith(SKIP + INCONCLUSIVE):
            c.inconclusive.append((m.group("case"), rest[len(SKIP):]))
        elif rest.startswith(SKIP):
            c.skipped.append((m.group("case"), rest[len(SKIP):]))
        elif power:
            c.passed.append(m.group("case"))
        elif clean:
            c.unproven.append(m.group("case"))
        else:
            c.other.append(m.group("case"))
        # Notes belong to the case whose TAP line follows them.
        power = clean = False
    return c


def row(cases, rc, expect):
    """What the detector's verdicts make of a detector row.

    rc is tools/boot's exit status, expect the row's (pass, fail,
    panic).  Returns (rc, inconclusive, fail): the status to judge the
    row's other checks by (None: judge nothing more), the reason to
    call the row INCONCLUSIVE once they pass (or None), and a reason to
    fail it at once (or None).
    """
    if cases.unproven:
        return rc, None, (
            "%s: %s passed without a '# power:' note: a pass that did not "
            "measure its own power is not believed"
            % (SUITE, ", ".join(cases.unproven)))
    if not cases.inconclusive:
        return rc, None, None
    why = cases.why()
    failed = cases.failed or cases.others_failed
    if rc == 77 and not failed:
        # shimk skipped everything: the inconclusive cases are why.  A
        # row that expects a pass still has its other checks (the clean
        # runs ran, and printed their counts); a negative control that
        # could not show its bug has nothing more to show.
        return (0 if expect == "pass" else None), why, None
    if rc == 0 and expect == "pass":
        return 0, why, None
    # A failure stays a failure, inconclusive cases or not.
    return rc, None, None
