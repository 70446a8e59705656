# SPDX-License-Identifier: GPL-2.0-only
# tools/boot --peer linux: Debian's Linux measured beside shimk, same L0 boot.
#
# After shimk's guest is gone, the L0's Linux (xl's dom0, the nested L1)
# starts a second guest with the same vCPUs and L0: Debian's Linux 6.1
# with build/linux-peer/initramfs.cpio, whose /init is tlbpeer
# (peer/tlbpeer.c, docs/linux-peer.md). Its console comes back as
# "linux-peer| " lines, and the L0's Linux ends with a verdict on it
# ("xl-run: peer ..." or "kvm-run: peer ..."). This module holds what
# the environments share: the files, the command line, the reading of
# the peer's lines and its part of the verdict.

import fcntl
import hashlib
import os
import re
import sys
import time

from bootlib import common, tlbb
from bootlib.common import note

PEER_DIR = os.path.join(common.BUILD, "linux-peer")
PEER_INITRAMFS = os.path.join(PEER_DIR, "initramfs.cpio")
# Debian's 6.1 vmlinux spans 74 MiB once loaded (text to brk): shimk's
# 128 MiB default leaves Linux too little to run in, so the peer gets at
# least this much; memory size plays no part in what it measures.
PEER_MIN_MEM_MIB = 256
# The peer's share of the run's timeout (s) by its profile, added to
# shimk's. On the 2-core host, with other QEMUs running: a Linux boot and
# a quick tlbpeer took 15-40 s as xl's domU or as L2 (2 and 4 vCPUs), a
# full one at 2 vCPUs 100 s; the rest is room, not a budget to meet.
PEER_TIMEOUT_S = {"quick": 360, "full": 1200}
# A peer whose console has not grown for this long has stopped: Linux
# with "quiet" prints nothing while it boots, which took up to 40 s.
PEER_SILENT_S = 150
# The peer's lines on tools/boot's stdout: the prefix tlbbench-report
# reads them by.
SHOW_PREFIX = tlbb.PEER_PREFIX
# The peer's console, as the L0's Linux relays it.
LINE_PREFIX = "linux-peer| "
EXIT_RE = re.compile(r"^tlbpeer: exit (\d+)$")
PANIC_RE = re.compile(r"Kernel panic - not syncing")
PROFILE_RE = re.compile(r"(?:^|\s)bench=(quick|full)(?:\s|$)")
# Bumped when the layout of the cached archives below changes.
PIECE_VERSION = b"linux-peer pieces v1\n"


def require_initramfs():
    if not os.path.isfile(PEER_INITRAMFS):
        note("%s not found: run make linux-peer first"
             % os.path.relpath(PEER_INITRAMFS, common.ROOT))
        sys.exit(2)


def peer_mem(mem):
    return max(mem, PEER_MIN_MEM_MIB)


def profile(a):
    """tlbpeer's profile: --peer-append's peer=, else shimk's bench=."""
    for w in reversed(a.peer_append.split()):
        if w.startswith("peer="):
            return w[len("peer="):]
    m = PROFILE_RE.search(a.append)
    return m.group(1) if m else "quick"


def share(a):
    """The peer's share of the run's timeout, in seconds."""
    if a.peer_timeout:
        return int(a.peer_timeout)
    return PEER_TIMEOUT_S.get(profile(a), PEER_TIMEOUT_S["full"])


def cmdline(a, console):
    """The peer kernel's command line.

    quiet: the console is slow (nested) or relayed at the end (xl), and
    what matters is tlbpeer's; panic=1: a panicking peer reboots, which
    its L0 reports, instead of hanging until the run's timeout. The
    profile follows shimk's bench= unless --peer-append names one.
    """
    extra = a.peer_append.split()
    words = ["console=" + console, "quiet", "panic=1"]
    if not any(w.startswith("peer=") for w in extra):
        words.append("peer=" + profile(a))
    return " ".join(words + extra)


def cached_archive(name, members):
    """build/linux-peer/NAME: a newc archive of members, made once.

    members: (archive path, mode, host file or None for a directory).
    Rebuilt whenever a member's bytes change: NAME.stamp holds the hash
    of them all, written after the archive, so that an interrupted build
    is never taken. Parallel matrix rows take a lock; one builds.
    """
    out = os.path.join(PEER_DIR, name)
    stamp = out + ".stamp"
    h = hashlib.sha256(PIECE_VERSION)
    for arc, mode, path in members:
        h.update(("%s %o\n" % (arc, mode)).encode())
        if path:
            with open(path, "rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    h.update(chunk)
    key = h.hexdigest()

    def uptodate():
        try:
            with open(stamp) as f:
                return f.read().strip() == key and os.path.isfile(out)
        except OSError:
            return False

    if uptodate():
        return out
    os.makedirs(PEER_DIR, exist_ok=True)
    with open(os.path.join(PEER_DIR, ".lock"), "w") as lock:
        end = time.monotonic() + 600
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > end:
                    note("timed out waiting for another run building %s"
                         % os.path.relpath(out, common.ROOT))
                    sys.exit(2)
                time.sleep(0.5)
        if uptodate():
            return out
        entries = []
        for arc, mode, path in members:
            data = None
            if path:
                with open(path, "rb") as f:
                    data = f.read()
            entries.append((arc, mode, data))
        if os.path.exists(stamp):
            os.unlink(stamp)
        with open(out + ".tmp", "wb") as f:
            f.write(common.newc(entries))
        os.replace(out + ".tmp", out)
        with open(stamp, "w") as f:
            f.write(key + "\n")
    return out


class Peer:
    """What the peer's lines said, and its part of the run's verdict."""

    def __init__(self, wanted, where):
        self.wanted = wanted
        self.where = where          # "dom0" or "L1": who reports on it
        self.started = False
        self.lines = 0
        self.exit = None
        self.sum = False
        self.panic = None
        self.verdict = None         # the L0 Linux's word on how it ended
        self.skipped = None
        self.fail_lines = []

    def console_line(self, run, text):
        """One line of the peer's console: shown with "linux| "."""
        self.lines += 1
        run.show(SHOW_PREFIX + text)
        m = EXIT_RE.match(text)
        if m:
            self.exit = int(m.group(1))
        elif tlbb.PEER_SUM_RE.match(text):
            self.sum = True
        elif PANIC_RE.search(text) and self.panic is None:
            self.panic = text.strip()
        elif text.startswith("tlbpeer: ") and (
                "error" in text or "invalid" in text or
                "incomplete" in text or "did no work" in text):
            self.fail_lines.append(text)

    def outcome(self):
        """(status, why) of the peer alone."""
        if self.skipped is not None:
            return 2, "linux peer not run: %s" % self.skipped
        if self.verdict is None:
            if not self.started:
                return 2, "linux peer never started (%s said nothing of " \
                          "it)" % self.where
            return 2, "linux peer: no verdict from %s" % self.where
        if self.panic:
            return 2, "linux peer: %s" % self.panic
        if not self.verdict_ok():
            return 2, "linux peer: %s" % self.verdict
        if self.exit is None:
            return 2, ("linux peer: %s, but its console has no 'tlbpeer: "
                       "exit' line (%d lines)" % (self.verdict, self.lines))
        if self.exit == 1:
            why = self.fail_lines[-1] if self.fail_lines else "exit 1"
            return 1, "linux peer: test failure (%s)" % why
        if self.exit != 0:
            why = self.fail_lines[0] if self.fail_lines else ""
            return 2, "linux peer: tlbpeer could not run (exit %d%s)" % (
                self.exit, ": " + why if why else "")
        if not self.sum:
            return 2, "linux peer: exit 0 without its TLBB-SUM line"
        return 0, "linux peer passed"

    def verdict_ok(self):
        return self.verdict in ("domain shut down, reason poweroff",
                                "exit 0")

    def judge(self, status, why):
        """The worse of shimk's verdict and the peer's."""
        if not self.wanted or status not in (0, 1):
            return status, why
        pstatus, pwhy = self.outcome()
        if pstatus > status:
            return pstatus, "%s; %s" % (pwhy, why) if status else pwhy
        return status, "%s; %s" % (why, pwhy)
