#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# tools/bootlib/detector.py: the kernel's detector verdicts, a row's (TAP).

import os
import sys

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
sys.path.insert(0, HERE)
from bootlib import detector  # noqa: E402
from pytap import case  # noqa: E402
import pytap  # noqa: E402


def fixture(name):
    with open(os.path.join(HERE, "fixtures", name)) as f:
        return f.read().splitlines()


# Recorded from real runs of ktest=tlb-detector: tcg with 4 vCPUs (every
# control saw hundreds of stale reads at once); kvm-nested with 2 (the
# kvm-nested-detector row: a few dozen, and spinning readers for 2M, with
# progress lines); xl with 3 vCPUs and tlb-skip-remote=1 (the first
# user's negative control, now failing, the placements tried in turn);
# tcg with 1 vCPU (no remote flush: every case inconclusive, exit 38).
TCG = fixture("detector-tcg4-pass.txt")
NESTED = fixture("detector-kvm-nested-pass.txt")
XL_NEG = fixture("detector-xl3-negative.txt")
ONE_CPU = fixture("detector-tcg1-one-cpu.txt")
CASES = ["sync-every-mode", "huge-remap", "lazy-free-reuse-via-clock"]


@case
def passes_carry_their_power():
    for log in (TCG, NESTED):
        c = detector.read(log)
        if c.passed != CASES or c.unproven or c.failed or c.inconclusive:
            return False
        # The machinery's own check ran no clean detector run.
        if c.other != ["control-and-placements"]:
            return False
        if detector.row(c, 0, "pass") != (0, None, None):
            return False
    return True


@case
def a_pass_without_its_power_note_fails_the_row():
    log = [l for l in TCG if not l.startswith("# power: lazy")]
    c = detector.read(log)
    rc, inc, fail = detector.row(c, 0, "pass")
    return (c.unproven == ["lazy-free-reuse-via-clock"] and
            fail and "not believed" in fail and
            "lazy-free-reuse-via-clock" in fail)


@case
def the_users_negative_control_fails():
    c = detector.read(XL_NEG)
    return (c.failed == CASES and not c.passed and
            detector.row(c, 1, "fail") == (1, None, None))


@case
def inconclusive_everywhere_is_no_pass():
    c = detector.read(ONE_CPU)
    rc, inc, fail = detector.row(c, 77, "pass")
    # The row's other checks still run (as a pass), then INCONCLUSIVE.
    # One reason given three times is said once, with its cases.
    return (len(c.inconclusive) == 3 and rc == 0 and not fail and
            inc.startswith("sync-every-mode, huge-remap, "
                           "lazy-free-reuse-via-clock: inconclusive: one "
                           "CPU") and
            inc.count("inconclusive:") == 1 and
            c.skipped[0][0] == "control-and-placements")


@case
def a_negative_row_that_could_not_show_says_so():
    c = detector.read(ONE_CPU)
    rc, inc, fail = detector.row(c, 77, "fail")
    return rc is None and inc and not fail


@case
def one_inconclusive_case_makes_a_passing_row_inconclusive():
    log = []
    for l in TCG:
        if l.startswith("# power: 2M"):
            continue
        if l == "ok 2 - tlb-detector: huge-remap":
            l += (" # SKIP inconclusive: with skip-remote injected, 0 stale "
                  "reads through a TLB in 3 placements (300 flushes)")
        log.append(l)
    c = detector.read(log)
    rc, inc, fail = detector.row(c, 0, "pass")
    return (rc == 0 and not fail and inc.startswith("huge-remap: ") and
            "300 flushes" in inc)


@case
def a_failure_stays_a_failure():
    log = [l.replace("ok 2 - tlb-detector: huge-remap",
                     "ok 2 - tlb-detector: huge-remap # SKIP inconclusive: x")
           .replace("ok 1 - tlb-detector: sync-every-mode",
                    "not ok 1 - tlb-detector: sync-every-mode # 3 stale")
           for l in TCG]
    c = detector.read(log)
    return detector.row(c, 1, "pass") == (1, None, None)


@case
def console_prefixes_parse():
    c = detector.read(["(d0) " + l for l in TCG])
    return c.passed == CASES


@case
def other_suites_do_not_count_as_detector_cases():
    c = detector.read(["ok 1 - tlb: global-bit-policy",
                       "not ok 2 - guest: hv-line # x"])
    return (not c.passed and not c.unproven and c.others_passed == 1 and
            c.others_failed == 1 and
            detector.row(c, 1, "pass") == (1, None, None))


sys.exit(pytap.main())
