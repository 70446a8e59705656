# SPDX-License-Identifier: GPL-2.0-only
# One QEMU process of tools/boot: its console, its deadlines, the verdict.
#
# The environment (bootlib/env_*.py) decides what a console line means and
# how the run is judged; this module owns the process and the clock: the
# silence bound and the backstop (bootlib/bounds.py), and the stage
# deadlines an environment asks for.

import os
import selectors
import shlex
import signal
import subprocess
import sys
import tempfile
import time

from bootlib import bounds, lost_expiry
from bootlib.common import (BENCH_FAIL_RE, EXIT_WAIT_S, KTEST_END_RE,
                            NOT_OK_RE, PANIC_GRACE_S, ROOT, RUN_FAIL_RE,
                            SHIMK_EXIT_RE, SHIMK_PANIC_RE, SUMMARY_RE)


class Run:
    """One QEMU process, its console, and what was seen on it."""

    def __init__(self, env, cmd, log, debugcon, proc_env=None):
        self.env = env
        self.cmd = cmd
        # QEMU's process environment (None: ours), e.g. QEMU_MODULE_DIR
        # for a QEMU of build/qemu/.
        self.proc_env = proc_env
        self.debugcon = debugcon
        self.log = log
        self.lines = 0
        # What shimk said.
        self.summary = False
        self.ktest_end = None
        self.not_ok = False
        self.other_failures = 0     # tlbbench's and run='s, not ktests
        self.lost = lost_expiry.Seen()
        self.shimk_panic = None
        self.shimk_exit = None
        self.stdout_ok = True
        # A silent run: the environment's diagnosis of who is stuck.
        self.stall = None
        # reason -> monotonic time at which the run is stopped for it.
        self.stops = {}
        self.stop_reason = None
        self.keys = []          # (when, bytes) still to send on the serial
        self.proc = None
        # When console lines came (set when QEMU starts), and when the
        # silence bound was reached: the L0's answer to the dump it is
        # then asked for is no progress.
        self.progress = None
        self.started = None
        self.ended = None
        self.silent_at = None
        self.stderr = tempfile.TemporaryFile()

    def logline(self, text):
        if self.log:
            self.log.write(text + "\n")
            self.log.flush()

    def show(self, text):
        if not self.stdout_ok:
            return
        try:
            sys.stdout.write(text + "\n")
            sys.stdout.flush()
        except BrokenPipeError:
            # The reader went away (e.g. piped into head); keep judging.
            self.stdout_ok = False

    def guest_line(self, text):
        """A line of shimk's own console, shown and remembered."""
        self.show(text)
        if SUMMARY_RE.match(text):
            self.summary = True
        m = KTEST_END_RE.match(text)
        if m:
            self.ktest_end = tuple(int(x) for x in m.groups())
        if NOT_OK_RE.match(text) or BENCH_FAIL_RE.match(text) or \
                RUN_FAIL_RE.match(text):
            self.not_ok = True
            if not NOT_OK_RE.match(text):
                self.other_failures += 1
        self.lost.line(text)
        if SHIMK_PANIC_RE.match(text) and self.shimk_panic is None:
            self.shimk_panic = text
            if self.env.panic_ends_run:
                self.stop_after(PANIC_GRACE_S, "panic-hang")
        m = SHIMK_EXIT_RE.match(text)
        if m:
            self.shimk_exit = int(m.group(1))

    def live_line(self, text):
        """A line of shimk's seen live through its L0 but shown only
        later (xl: Xen's copy of the domU's port 0xe9): only what it says
        about the run's end, for a verdict at a bound."""
        m = KTEST_END_RE.match(text)
        if m:
            self.ktest_end = tuple(int(x) for x in m.groups())
        m = SHIMK_EXIT_RE.match(text)
        if m:
            self.shimk_exit = int(m.group(1))

    def stop_after(self, seconds, reason):
        """Stop the run for reason in seconds, unless already due to."""
        if reason not in self.stops:
            self.stops[reason] = time.monotonic() + seconds

    def stop_now(self, reason):
        self.stop_reason = self.stop_reason or reason

    def send_key(self, key):
        try:
            self.proc.stdin.write(key)
            self.proc.stdin.flush()
            return True
        except (BrokenPipeError, OSError, AttributeError):
            return False

    def kill(self):
        if self.proc and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()

    def line(self, text):
        self.lines += 1
        self.logline(text)
        # Progress is any line the environment counts: the L0's own
        # (Xen's boot, L1's stages, a dom0's report) as much as shimk's.
        if self.silent_at is None and self.env.is_progress(text):
            self.progress.line(time.monotonic(), text)
        self.env.line(self, text)

    def silent(self, where=None):
        """(status, verdict) of a run stopped at its silence bound."""
        return bounds.silent(self.progress, self.silent_at or self.ended,
                             self.env.silence, self.stall, self.finished(),
                             where)

    def at_backstop(self, where=None):
        """(status, verdict) of a run stopped at its backstop."""
        return bounds.at_backstop(self.progress, self.ended,
                                  self.env.timeout, self.env.budget,
                                  self.finished(), where)

    def finished(self):
        """What shimk said it finished, or None."""
        return bounds.finished_tests(self.ktest_end, self.shimk_exit)

    def run(self, timeout):
        """Return (qemu returncode or None when killed, why it was killed).

        timeout: the backstop. Killed as "silent" when no console line
        came for the environment's silence bound (after it asked its L0
        for a dump), as "backstop" at the backstop.
        """
        # "### " marks the runner's own lines in the log; shimk's console
        # has lines starting "boot: " of its own.
        self.logline("### " + " ".join(shlex.quote(c) for c in self.cmd))
        # Own session, so that a kill reaches QEMU and anything it started.
        # The serial input is kept where the environment talks to its L0.
        self.proc = subprocess.Popen(self.cmd,
                                     stdin=subprocess.PIPE
                                     if self.env.serial_input
                                     else subprocess.DEVNULL,
                                     stdout=subprocess.PIPE,
                                     stderr=self.stderr, cwd=ROOT,
                                     env=self.proc_env,
                                     start_new_session=True)
        start = time.monotonic()
        self.started = start
        self.progress = bounds.Progress(start)
        deadline = start + timeout
        # When the dump the environment asked its L0 for is complete.
        asked = None
        buf = b""
        sel = selectors.DefaultSelector()
        sel.register(self.proc.stdout, selectors.EVENT_READ)
        fd = self.proc.stdout.fileno()
        try:
            while True:
                if self.stop_reason:
                    return None, self.stop_reason
                now = self.ended = time.monotonic()
                due = [r for r, t in self.stops.items() if now >= t]
                if due:
                    return None, min(due, key=self.stops.get)
                # Read each time: an environment may widen it as its
                # stages change (xl's Linux peer, after shimk).
                silence = self.env.silence
                quiet = (self.progress.last + silence
                         if silence and asked is None else None)
                if quiet and now >= quiet:
                    # The environment may ask its L0 for a state dump,
                    # which also shows whether the L0 still answers.
                    self.silent_at = now
                    asked = now + self.env.on_timeout(self)
                    continue
                if asked is not None and now >= asked:
                    self.stall = self.env.diagnose(self)
                    return None, "silent"
                if now >= deadline and asked is None:
                    return None, "backstop"
                stage, stage_why = self.env.stage_deadline(self, start)
                if stage and now >= stage:
                    # While QEMU still runs: the environment may ask it.
                    self.env.stage_missed(self, stage_why)
                    return None, stage_why
                if self.keys and now >= self.keys[0][0]:
                    self.send_key(self.keys.pop(0)[1])
                limit = min(d for d in [deadline, stage, quiet, asked,
                                        self.keys and self.keys[0][0]] +
                            list(self.stops.values()) if d)
                if not sel.select(max(0.0, limit - now)):
                    continue
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                buf += chunk
                *lines, buf = buf.split(b"\n")
                for raw in lines:
                    self.line(raw.decode("utf-8", "replace").rstrip("\r"))
            if buf:
                self.line(buf.decode("utf-8", "replace").rstrip("\r"))
            self.ended = time.monotonic()
            self.env.end_of_output(self)
            if self.stop_reason:
                return None, self.stop_reason
            try:
                return self.proc.wait(timeout=EXIT_WAIT_S), None
            except subprocess.TimeoutExpired:
                return None, "no-exit"
        finally:
            sel.close()
            self.kill()
            self.proc.stdout.close()
            if self.proc.stdin:
                self.proc.stdin.close()

    def qemu_stderr(self):
        self.stderr.seek(0)
        return self.stderr.read().decode("utf-8", "replace").rstrip()

    def finish_log(self):
        if not self.log:
            return
        if self.progress is not None:
            # For sizing the silence bounds (bootlib/bounds.py).
            gap, text, n = self.progress.longest
            self.log.write("### %d lines in %.1f s; longest silence %.1f s"
                           "%s\n" % (self.progress.lines,
                                      (self.ended or self.started) -
                                      self.started, gap,
                                      ", before line %d %s" % (
                                          n, bounds.quote(text))
                                      if text is not None else ""))
        err = self.qemu_stderr()
        if err:
            self.log.write("### QEMU stderr\n%s\n" % err)
        if self.debugcon and os.path.exists(self.debugcon):
            with open(self.debugcon, "rb") as f:
                text = f.read().decode("utf-8", "replace").replace("\r", "")
            self.log.write("### debugcon (port 0xe9)\n%s" % text)
            if text and not text.endswith("\n"):
                self.log.write("\n")
        self.log.flush()


def judge_bound(run, killed, where=None):
    """(status, verdict) of a run stopped at a bound, or None.

    where: the environment's account of the stage it was in.
    """
    if killed == "silent":
        return run.silent(where)
    if killed == "backstop":
        return run.at_backstop(where)
    return None


def judge(run, rc, killed, timeout=None):
    """Map a run whose QEMU status is shimk's to (exit status, verdict).

    Used by every environment in which shimk's isa-debug-exit code reaches
    the runner as QEMU's status ((code << 1) | 1). That code is only
    believed together with the matching console line, because QEMU exits 1
    on its own start-up errors too.
    """
    bound = judge_bound(run, killed)
    if bound:
        return bound
    if killed == "panic-hang":
        return 2, "panic, and QEMU did not exit within %g s" % PANIC_GRACE_S
    if killed == "no-exit":
        return 2, "console closed but QEMU did not exit"
    if killed:
        return 2, killed
    if rc < 0:
        return 2, "QEMU killed by signal %d" % -rc
    if rc == 0:
        return 2, "QEMU exited 0: triple fault or reset"
    if rc == 1:
        if not run.summary and not run.lines and run.qemu_stderr():
            return 2, "QEMU exited 1 before any console output"
        if not run.summary:
            return 2, "exit code 0 without boot summary"
        if run.ktest_end and run.ktest_end[1] != 0:
            return 2, ("exit code 0 but KTEST: END reports %d failed"
                       % run.ktest_end[1])
        if run.shimk_panic:
            return 2, "exit code 0 after a PANIC line"
        return 0, "passed"
    if rc == 3:
        if (run.ktest_end and run.ktest_end[1] > 0) or run.not_ok:
            # Lost expiries the kernel proved the L0's: retried, as any
            # fault shown to be the L0's (bootlib/lost_expiry.py).
            proven = run.lost.verdict(run.ktest_end[1] if run.ktest_end
                                      else None, run.other_failures)
            if proven:
                run.env.retry_reason = proven
                return 2, proven
            return 1, "test failure"
        return 2, "exit code 1 (test failure) but no failure on the console"
    if rc == 5:
        if run.shimk_panic:
            return 2, "panic"
        return 2, "exit code 2 (panic) without a PANIC line"
    if rc == 77:
        return 77, "everything skipped"
    return 2, "QEMU exited %d" % rc
