#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# The --lifecycle verdicts (env_xl.py, env_nested.py) and the matrix key (TAP).

import os
import sys
import types

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
sys.path.insert(0, HERE)
from bootlib import env_nested, env_xl, matrix  # noqa: E402
from pytap import case  # noqa: E402
import pytap  # noqa: E402


def env(steps, done, resumed=(), boots=1, went_on=()):
    """An XlEnv with only what lifecycle_verdict reads."""
    e = env_xl.XlEnv.__new__(env_xl.XlEnv)
    e.a = types.SimpleNamespace(lifecycle=list(steps))
    e.lifecycle_done = [(s, rc, 5) for s, rc in done]
    e.lifecycle_resumed = list(resumed)
    e.lifecycle_went_on = list(went_on)
    e.boots = boots
    return e


@case
def every_step_done_and_a_poweroff_passes():
    return (env(["reboot", "save-restore", "shutdown"],
                [("reboot", 0), ("save-restore", 0), ("shutdown", 0)],
                resumed=[7], boots=2).lifecycle_verdict("poweroff") is None
            and env([], []).lifecycle_verdict("reboot") is None)


@case
def a_step_not_done_or_failed_fails():
    missing = env(["reboot", "shutdown"], [("reboot", 0)], boots=2)
    failed = env(["shutdown"], [("shutdown", 1)])
    return ("dom0 did reboot" in missing.lifecycle_verdict("poweroff") and
            "xl shutdown failed (rc 1)" in
            failed.lifecycle_verdict("poweroff"))


@case
def a_save_needs_shimks_resume():
    e = env(["migrate"], [("migrate", 0)])
    return "resumed 0 times after 1 saves" in e.lifecycle_verdict("poweroff")


@case
def a_checkpoint_needs_a_cancelled_suspend_not_a_resume():
    ok = env(["checkpoint"], [("checkpoint", 0)], went_on=[4])
    new = env(["checkpoint"], [("checkpoint", 0)], resumed=[4])
    both = env(["checkpoint", "save-restore"],
               [("checkpoint", 0), ("save-restore", 0)], resumed=[6],
               went_on=[4])
    return (ok.lifecycle_verdict("poweroff") is None and
            "cancelled 0 times after 1 checkpoints" in
            env(["checkpoint"], [("checkpoint", 0)]).lifecycle_verdict(
                "poweroff") and
            new.lifecycle_verdict("poweroff") is not None and
            both.lifecycle_verdict("poweroff") is None)


@case
def a_reboot_needs_a_second_boot():
    e = env(["reboot", "shutdown"], [("reboot", 0), ("shutdown", 0)])
    return "1 boots of shimk" in e.lifecycle_verdict("poweroff")


@case
def the_end_must_be_a_poweroff_or_shimks_panic():
    e = env(["save-restore"], [("save-restore", 0)], resumed=[3])
    return ("reason suspend, not poweroff" in e.lifecycle_verdict("suspend")
            and e.lifecycle_verdict("crash") is None)


def nested(want, done, resumes, drops=(), cpus=2):
    return env_nested.nested_lifecycle_verdict(
        want, [(s, rc, 9, "downtime: 80 ms") for s, rc in done],
        list(resumes), list(drops), cpus)


@case
def nested_every_cpu_resumes_once_per_step():
    return (nested(["migrate"], [("migrate", 0)], [1, 0]) is None and
            nested(["migrate", "save-restore"],
                   [("migrate", 0), ("save-restore", 0)],
                   [0, 1, 1, 0]) is None and
            nested([], [], []) is None)


@case
def nested_a_cpu_that_never_resumed_fails():
    why = nested(["migrate"], [("migrate", 0)], [0])
    twice = nested(["migrate"], [("migrate", 0)], [0, 1, 1])
    return ("CPU1 resumed 0 times after 1 steps" in why and
            "CPU1 resumed 2 times" in twice)


@case
def nested_a_step_not_done_failed_or_an_area_dropped_fails():
    missing = nested(["migrate"], [], [])
    failed = nested(["save-restore"], [("save-restore", 1)], [0, 1])
    dropped = nested(["migrate"], [("migrate", 0)], [0, 1],
                     ["kvm: resume: CPU1: steal time at 0x1000 not "
                      "registered again: ..."])
    return ("L1 did none of it" in missing and
            "L1's save-restore failed" in failed and
            "steal time" in dropped)


@case
def nested_steps_fall_inside_the_detector_when_it_runs():
    return (env_nested.lifecycle_trigger("ktest=tlb-detector x=1") ==
            "# power: " and
            env_nested.lifecycle_trigger("idle=1") == "shimk: boot hv=")


@case
def both_nested_backends_resume_lines_count():
    """KVM's and Hyper-V's backends each say their resume and their
    dropped kvmclock area in the same words (guest/resume.c,
    guest/kvm/area.c); anything else is not a resume."""
    lines = ("kvm: resume: CPU0: the L0 stopped this vCPU and ran it on",
             "hyperv: resume: CPU1: the L0 stopped this vCPU and ran it on",
             "xen: resume: CPU1: the L0 stopped this vCPU and ran it on")
    got = [m.group(1) for m in map(env_nested.RESUME_RE.match, lines) if m]
    drop = env_nested.RESUME_DROP_RE.match(
        "hyperv: resume: CPU0: kvmclock at 0x2000 not registered again: "
        "kvmclock's stop flag is dropped on this CPU")
    return got == ["0", "1"] and drop is not None


@case
def the_matrix_key_is_xl_or_nested_and_reaches_tools_boot():
    r = matrix.parse("[a]\nenv = xl\nlifecycle = reboot,shutdown\n",
                     "t.ini")[0]
    n = matrix.parse("[a]\nenv = kvm-nested\nlifecycle = migrate\n",
                     "t.ini")[0]
    h = matrix.parse("[a]\nenv = hyperv-nested\nlifecycle = "
                     "save-restore\n", "t.ini")[0]
    if n.boot_cmd("l")[-2:] != ["--lifecycle", "migrate"]:
        return False
    if h.boot_cmd("l")[-2:] != ["--lifecycle", "save-restore"]:
        return False
    try:
        matrix.parse("[a]\nenv = xen\nlifecycle = shutdown\n", "t.ini")
    except matrix.MatrixError:
        return r.boot_cmd("l")[-2:] == ["--lifecycle", "reboot,shutdown"]
    return False


if __name__ == "__main__":
    sys.exit(pytap.main())
