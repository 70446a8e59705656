#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# bootlib/lost_expiry.py: a lost expiry is the L0's when the APIC shows it (TAP).

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
sys.path.insert(0, HERE)
from bootlib import bounds, console, env_base, lost_expiry  # noqa: E402
from pytap import case  # noqa: E402
import pytap  # noqa: E402

# From a grub-xen run under Xen 4.17 in QEMU TCG (fresh root, 2026-12-03),
# and the line today's kernel adds to it from the same APIC state.
LOST = ("shimk: timer: CPU0: the expiry for 43341384852 (written at "
        "43345808128) was never delivered; arming again (now 53349571182; "
        "TMCCT 0, LVTT 0xfd, IRR 0 ISR 0)")
L0 = ("shimk: L0 fault: CPU0: the local APIC timer ran out (count 0, LVTT "
      "0xfd unmasked) and never raised vector 0xfd (IRR and ISR clear): an "
      "expiry lost by the L0")
NOT_OK = ("not ok 37 - timer: every-armed-one-shot-arrives # CPU0: 1 "
          "expiries counted lost (tests/ktest/timer.c:160)")
END = "KTEST: END 58 passed, 1 failed, 8 skipped"


def seen(lines):
    s = lost_expiry.Seen()
    for line in lines:
        s.line(line)
    return s


@case
def a_lost_expiry_the_apic_shows_is_the_l0s():
    v = seen([LOST, L0, NOT_OK, END]).verdict(1)
    return (v is not None and v.startswith("L0 fault, proven: timer: "
                                           "every-armed-one-shot-arrives "
                                           "lost 1 expiry on CPU0") and
            "never raised vector 0xfd" in v)


@case
def without_the_kernels_proof_it_stays_shimks():
    return seen([LOST, NOT_OK, END]).verdict(1) is None


@case
def the_proof_must_be_on_the_cpu_that_lost_it():
    other = NOT_OK.replace("# CPU0:", "# CPU1:")
    return seen([LOST, L0, other, END]).verdict(1) is None


@case
def any_other_failure_keeps_it_shimks():
    more = "not ok 38 - timer: a-halt-takes-one-interrupt # CPU1: 3 halts"
    return (seen([L0, NOT_OK, more]).verdict(2) is None and
            seen([L0, NOT_OK]).verdict(1, other_failures=1) is None and
            seen([L0, NOT_OK]).verdict(2) is None)


@case
def three_proofs_cover_many_losses():
    # The kernel reports the first three losses of a CPU in full.
    many = NOT_OK.replace("1 expiries", "7 expiries")
    return (seen([L0] * 3 + [many]).verdict(1) is not None and
            seen([L0] * 2 + [many]).verdict(1) is None)


class FakeEnv(env_base.Env):
    def __init__(self):
        super().__init__(argparse.Namespace(
            append="", mem=None, timeout=None, silence=None, gdb=False,
            host_cpus=None, xen_append="", module=[], initrd=None))


@case
def the_runner_retries_it_as_an_l0_fault():
    env = FakeEnv()
    run = console.Run(env, [], None, None)
    run.stdout_ok = False
    run.progress = bounds.Progress(time.monotonic())
    for line in ["shimk: boot hv=xen boot=pvh cpus=2", LOST, L0, NOT_OK,
                 END, "shimk: exit 1"]:
        run.guest_line(line)
    status, why = console.judge(run, 3, None)
    plain = console.Run(FakeEnv(), [], None, None)
    plain.stdout_ok = False
    for line in ["shimk: boot hv=xen boot=pvh cpus=2", LOST, NOT_OK, END,
                 "shimk: exit 1"]:
        plain.guest_line(line)
    return (status == 2 and why.startswith("L0 fault, proven") and
            env.retry_reason == why and
            console.judge(plain, 3, None) == (1, "test failure") and
            plain.env.retry_reason is None)


sys.exit(pytap.main())
