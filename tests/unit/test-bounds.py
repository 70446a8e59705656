#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# bootlib/bounds.py and console.Run: silence, backstop, their verdicts (TAP).

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
sys.path.insert(0, HERE)
from bootlib import bounds, console, env_base  # noqa: E402
from pytap import case  # noqa: E402
import pytap  # noqa: E402


def progress(times_texts, start=0.0):
    p = bounds.Progress(start)
    for t, text in times_texts:
        p.line(t, text)
    return p


@case
def progress_keeps_the_longest_silence_and_the_line_that_ended_it():
    p = progress([(1, "a"), (2, "b"), (30, "c"), (31, "d")])
    return (p.longest == (28, "c", 3) and p.lines == 4 and
            p.silent_for(40) == 9 and p.last_text == "d")


@case
def recent_lines_are_those_of_the_last_minute():
    p = progress([(t, "x%d" % t) for t in range(0, 200, 10)])
    return p.recent_lines(200) == 6 and p.recent_lines(400) == 0


@case
def a_silent_run_is_a_hang_with_its_last_line():
    p = progress([(1, "boot: hello"), (5, "ok 3 - tlb: sync")])
    status, why = bounds.silent(p, 65, 60, stall="stall of the L0: x",
                                where="dom0's last word")
    return (status == 2 and why.startswith(
        "silent 60 s (the bound is 60 s) after line 2 'ok 3 - tlb: sync'")
        and why.endswith(": dom0's last word: stall of the L0: x"))


@case
def a_run_silent_from_the_start_says_so():
    status, why = bounds.silent(bounds.Progress(0), 60, 60)
    return status == 2 and why.startswith("silent 60 s from the start")


@case
def tests_that_finished_without_an_exit_say_what_finished():
    # The xl negative-control case: KTEST: END came, the exit did not.
    p = progress([(1, "KTEST: END 3 passed, 1 failed, 0 skipped")])
    fin = bounds.finished_tests((3, 1, 0), 1)
    status, why = bounds.silent(p, 200, 120, finished=fin)
    return (status == 2 and "shimk's tests had finished (KTEST: END 3 "
            "passed, 1 failed, 0 skipped; 'shimk: exit 1') but the exit "
            "did not arrive" in why and
            bounds.finished_tests(None, None) is None)


@case
def a_progressing_run_at_the_backstop_is_incomplete_not_a_crash():
    p = progress([(t, "TLBB cell %d" % t) for t in range(100, 181, 4)])
    status, why = bounds.at_backstop(p, 180, 180, 60)
    return (status == bounds.INCOMPLETE == 1 and why.startswith(
        "incomplete: still running at the backstop of 180 s (3 x "
        "--timeout 60 s): 16 lines in the last minute, last line "
        "'TLBB cell 180'"))


@case
def a_quiet_run_at_the_backstop_says_how_long_it_was_quiet():
    p = progress([(10, "x")])
    status, why = bounds.at_backstop(p, 100, 100, 40, where="L1's word")
    return (status == 1 and "no line in the last minute, the last 90 s "
            "ago: 'x'; L1's word" in why)


@case
def a_run_without_any_line_at_the_backstop_is_a_hang():
    status, why = bounds.at_backstop(bounds.Progress(0), 100, 100, 40)
    return status == 2 and "no console line at all" in why


@case
def a_run_program_may_be_silent_up_to_its_run_timeout():
    return (bounds.silence_for(60, "ktest=all") == 60 and
            bounds.silence_for(60, "run=hello") == 150 and
            bounds.silence_for(60, "run=hello run-timeout=10") == 60 and
            bounds.silence_for(90, "run=a run-timeout=300") == 330 and
            bounds.silence_for(60, "run=a run-timeout=x") == 150)


@case
def long_lines_are_cut_in_verdicts():
    q = bounds.quote("y" * 300)
    return len(q) == bounds.QUOTE_CHARS + 2 and q.endswith("...'")


@case
def the_backstop_is_a_multiple_of_the_timeout_and_lateness_a_note():
    return (bounds.backstop(60) == 180 and
            bounds.late_note(50, 60, 180) is None and
            bounds.late_note(75, 60, 180) == "the run took 75 s, past "
            "--timeout 60 s (the backstop is 180 s)")


# --- console.Run against a stand-in for QEMU ---

class FakeEnv(env_base.Env):
    """tcg's rules, a script for QEMU, and a record of the L0 dump."""

    def __init__(self, **kw):
        a = argparse.Namespace(append="", mem=None, timeout=None,
                               silence=None, gdb=False, host_cpus=None,
                               xen_append="", module=[], initrd=None)
        for k, v in kw.items():
            setattr(a, k, v)
        super().__init__(a)
        self.asked = 0

    def on_timeout(self, run):
        self.asked += 1
        return 0.5

    def diagnose(self, run):
        return "the L0 answered: guest stuck at X"


def boot(script, **kw):
    env = FakeEnv(**kw)
    run = console.Run(env, [sys.executable, "-c", script], None, None)
    run.stdout_ok = False       # shimk's lines would break the TAP
    try:
        rc, killed = run.run(env.timeout)
    finally:
        run.kill()
    return env, run, rc, killed


PRINT = "import sys, time\ndef p(s):\n    print(s); sys.stdout.flush()\n"


@case
def silence_stops_the_run_after_asking_the_l0():
    # The L0's answer (here 0.3 s after the bound) is not progress.
    env, run, rc, killed = boot(PRINT + "p('shimk: boot hv=tcg')\n"
                                "time.sleep(2.3); p('(XEN) dump')\n"
                                "time.sleep(30)\n", silence=2, timeout=20)
    status, why = console.judge(run, rc, killed)
    return (killed == "silent" and env.asked == 1 and status == 2 and
            why.startswith("silent 2 s (the bound is 2 s) after line 1 "
                           "'shimk: boot hv=tcg'") and
            why.endswith("the L0 answered: guest stuck at X") and
            run.ended - run.started < 8)


@case
def a_run_that_keeps_printing_reaches_the_backstop_as_incomplete():
    env, run, rc, killed = boot(PRINT + "for i in range(1000):\n"
                                "    p('line %d' % i); time.sleep(0.05)\n",
                                silence=1, timeout=0.5)
    status, why = console.judge(run, rc, killed)
    return (killed == "backstop" and env.asked == 0 and status == 1 and
            env.timeout == 1.5 and
            why.startswith("incomplete: still running at the backstop of "
                           "1.5 s (3 x --timeout 0.5 s): ") and
            "lines in the last minute, last line 'line " in why)


@case
def a_run_past_its_timeout_but_done_before_the_backstop_passes():
    env, run, rc, killed = boot(
        PRINT + "p('shimk: boot hv=tcg'); time.sleep(1.2)\n"
        "p('KTEST: END 1 passed, 0 failed, 0 skipped'); sys.exit(1)\n",
        silence=5, timeout=1)
    status, why = console.judge(run, rc, killed)
    late = bounds.late_note(run.ended - run.started, env.budget,
                            env.timeout)
    return (killed is None and (status, why) == (0, "passed") and
            late is not None and "past --timeout 1 s" in late)


@case
def finished_tests_whose_exit_never_comes_are_reported_as_such():
    env, run, rc, killed = boot(
        PRINT + "p('shimk: boot hv=tcg')\n"
        "p('KTEST: END 3 passed, 1 failed, 0 skipped')\n"
        "time.sleep(30)\n", silence=2, timeout=20)
    status, why = console.judge(run, rc, killed)
    return (status == 2 and "tests had finished (KTEST: END 3 passed, 1 "
            "failed, 0 skipped) but the exit did not arrive" in why)


@case
def an_l0s_live_copy_of_shimks_lines_tells_that_the_tests_finished():
    # xl: the domU's lines come whole only in dom0's report at the end;
    # Xen's live "(d1) " copy still says that the tests were over.
    from bootlib import env_xl
    env = env_xl.XlEnv(argparse.Namespace(
        append="", mem=None, timeout=None, silence=None, gdb=False,
        host_cpus=None, xen_append="", module=[], initrd=None, smp=2,
        peer=None))
    run = console.Run(env, [], None, None)
    run.stdout_ok = False
    run.progress = bounds.Progress(0)
    for line in ("(XEN) d1v0 unhandled", "(d1) KTEST: END 40 passed, 1 "
                 "failed, 0 skipped", "(d1) shimk: exit 1"):
        run.line(line)
    run.ended = time.monotonic() + 120
    status, why = env.judge(run, None, "silent")
    return (status == 2 and env.silence == 120 and
            why.startswith("silent 120 s (the bound is 120 s) after line 3 "
                           "'(d1) shimk: exit 1'") and
            "tests had finished (KTEST: END 40 passed, 1 failed, 0 "
            "skipped; 'shimk: exit 1') but the exit did not arrive" in why
            and "dom0 never started xl" in why)


@case
def xls_silence_bound_makes_room_for_dom0s_watch_of_the_peer():
    # A real xl-bench run: the peer's Linux booted quietly for 120 s, and
    # this side's 120 s bound fired before dom0's own (150 s) could.
    from bootlib import env_xl, peer
    env = env_xl.XlEnv(argparse.Namespace(
        append="bench=full", mem=None, timeout=None, silence=None,
        gdb=False, host_cpus=None, xen_append="", module=[], initrd=None,
        smp=2, peer="linux", peer_timeout=None, peer_append=""))
    run = console.Run(env, [], None, None)
    run.stdout_ok = False
    run.progress = bounds.Progress(0)
    before = env.silence
    run.line("(d1) shimk: exit 0")
    run.line("xl-run: peer create vcpus=2 memory=256 timeout=941s "
             "silent=150s, uptime 99.08s")
    return (before == 120 and env.silence >= peer.PEER_SILENT_S + 30 and
            env.stalled_name() == "the Linux peer")


@case
def xens_own_lines_stop_counting_once_shimk_has_spoken():
    from bootlib import env_xen
    env = env_xen.XenEnv(argparse.Namespace(
        append="", mem=None, timeout=None, silence=None, gdb=False,
        host_cpus=None, xen_append="", module=[], initrd=None, smp=2))
    run = console.Run(env, [], None, None)
    run.stdout_ok = False
    run.progress = bounds.Progress(0)
    run.line("(XEN) Xen version 4.17")
    before = run.progress.lines
    run.line("(d0) shimk: boot hv=xen")
    run.line("(XEN) d0v1 spurious warning")
    return (before == 1 and run.progress.lines == 2 and
            run.progress.last_text == "(d0) shimk: boot hv=xen" and
            env.silence == 90)


@case
def under_gdb_only_the_timeout_bounds_the_run():
    env = FakeEnv(gdb=True, timeout=7)
    default = FakeEnv(gdb=True)
    return (env.silence is None and env.timeout == 7 and
            default.timeout == env_base.GDB_TIMEOUT_S)


if __name__ == "__main__":
    sys.exit(pytap.main())
