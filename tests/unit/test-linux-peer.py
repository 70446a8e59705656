#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# tools/bootlib/peer.py and the archives of tools/boot --peer linux (TAP).

import os
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
sys.path.insert(0, HERE)
from bootlib import common, peer  # noqa: E402
from pytap import case  # noqa: E402
import pytap  # noqa: E402


class FakeRun:
    def __init__(self):
        self.shown = []

    def show(self, text):
        self.shown.append(text)


def args(append="", peer_append="", peer_timeout=None):
    return types.SimpleNamespace(append=append, peer_append=peer_append,
                                 peer_timeout=peer_timeout)


def fed(lines, verdict="domain shut down, reason poweroff", where="dom0"):
    p = peer.Peer(True, where)
    run = FakeRun()
    p.started = True
    for line in lines:
        p.console_line(run, line)
    p.verdict = verdict
    return p, run


GOOD = ["tlbpeer: init: profile quick, bound 900 s",
        "TLBB v=1 os=linux hv=xen cpus=2 tsc_khz=1 kind=start profile=quick",
        "TLBB-SUM v=1 os=linux hv=xen cpus=2 stale=0",
        "tlbpeer: exit 0"]


def newc_entries(data):
    """(name, mode, rdevmajor, rdevminor) of each newc header."""
    out, off = [], 0
    while True:
        hdr = data[off:off + 110]
        assert hdr[:6] == b"070701"
        f = [int(hdr[6 + 8 * i:14 + 8 * i], 16) for i in range(13)]
        namesize, filesize = f[11], f[6]
        name = data[off + 110:off + 110 + namesize - 1].decode()
        if name == "TRAILER!!!":
            return out
        out.append((name, f[1], f[9], f[10]))
        off += 110 + namesize
        off += -off % 4
        off += filesize
        off += -off % 4


@case
def console_is_a_char_device_entry():
    arc = common.newc([("dev", 0o040755, None),
                       ("dev/console", 0o020600, None, (5, 1)),
                       ("init", 0o100755, b"\x7fELF")])
    ents = newc_entries(arc)
    return (ents[1] == ("dev/console", 0o020600, 5, 1) and
            ents[2][0] == "init" and ents[2][2:] == (0, 0))


@case
def later_archives_start_aligned():
    with tempfile.TemporaryDirectory() as d:
        base = os.path.join(d, "base")
        more = os.path.join(d, "more")
        with open(base, "wb") as f:
            f.write(b"abcde")
        with open(more, "wb") as f:
            f.write(b"XYZ")
        out = common.initrd_with(base, b"123", os.path.join(d, "out"),
                                 [more])
        with open(out, "rb") as f:
            data = f.read()
    return data == b"abcde\0\0\0" + b"123\0" + b"XYZ"


@case
def profile_follows_shimk_bench():
    return (peer.cmdline(args("bench=full ktest=x"), "hvc0") ==
            "console=hvc0 quiet panic=1 peer=full" and
            peer.cmdline(args("ktest=all"), "ttyS0").endswith("peer=quick"))


@case
def peer_append_wins():
    line = peer.cmdline(args("bench=full", "peer=quick mitigations=off"),
                        "ttyS0")
    return line.split()[-2:] == ["peer=quick", "mitigations=off"] and \
        "peer=full" not in line


@case
def share_follows_profile():
    return (peer.share(args("bench=quick")) == peer.PEER_TIMEOUT_S["quick"]
            and peer.share(args("", "peer=full")) ==
            peer.PEER_TIMEOUT_S["full"] and
            peer.share(args("bench=full", "", 99)) == 99)


@case
def peer_lines_are_shown_with_linux_prefix():
    p, run = fed(GOOD)
    return (run.shown[0] == "linux| tlbpeer: init: profile quick, bound "
            "900 s" and p.exit == 0 and p.sum and
            p.judge(0, "passed") == (0, "passed; linux peer passed"))


@case
def nested_exit_0_is_a_clean_end():
    p, _ = fed(GOOD, "exit 0", "L1")
    return p.judge(0, "passed")[0] == 0


@case
def stale_peer_is_a_test_failure():
    p, _ = fed(GOOD[:2] + [
        "TLBB-SUM v=1 os=linux hv=xen cpus=2 stale=3",
        "tlbpeer: 3 stale reads in 1 cells: these figures are invalid",
        "tlbpeer: exit 1"])
    status, why = p.judge(0, "passed")
    return status == 1 and "these figures are invalid" in why


@case
def worse_verdict_wins():
    bad, _ = fed(GOOD[:2] + ["tlbpeer: error: remap: madvise: x",
                             "tlbpeer: exit 2"])
    good, _ = fed(GOOD)
    return (bad.judge(0, "passed")[0] == 2 and
            bad.judge(1, "test failure")[0] == 2 and
            good.judge(1, "test failure") ==
            (1, "test failure; linux peer passed"))


@case
def shimk_crash_keeps_its_verdict():
    p = peer.Peer(True, "dom0")
    return p.judge(2, "panic") == (2, "panic")


@case
def peer_that_never_came_is_infrastructure():
    p = peer.Peer(True, "L1")
    status, why = p.judge(0, "passed")
    return status == 2 and "never started" in why


@case
def silent_or_unfinished_peer_is_infrastructure():
    silent, _ = fed(GOOD[:2], "silent 150 s")
    cut, _ = fed(GOOD[:2], "domain shut down, reason poweroff")
    panicked, _ = fed(GOOD[:2] + [
        "[    9.1] Kernel panic - not syncing: Attempted to kill init!"],
        "domain shut down, reason reboot")
    return (silent.judge(0, "passed") == (2, "linux peer: silent 150 s")
            and cut.judge(0, "passed")[0] == 2 and
            "no 'tlbpeer: exit' line" in cut.judge(0, "passed")[1] and
            "Kernel panic" in panicked.judge(0, "passed")[1])


@case
def no_peer_asked_no_change():
    p = peer.Peer(False, "dom0")
    return p.judge(0, "passed") == (0, "passed")


sys.exit(pytap.main())
