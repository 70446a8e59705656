#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# tools/bootlib/l0rates.py: boots per row and QEMU, retries never hidden (TAP).

import os
import sys

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
sys.path.insert(0, HERE)
from bootlib import l0rates  # noqa: E402
from pytap import case  # noqa: E402
import pytap  # noqa: E402

Q72 = "qemu: 7.2.22 /usr/bin/qemu-system-x86_64 (system, the default for " \
    "kvm-nested)"
Q10 = "qemu: 10.0.2 build/qemu/bookworm-backports/root/usr/bin/" \
    "qemu-system-x86_64 (backports; kvm-nested's default is system)"
# tools/boot's stderr ("boot: " removed) for a silent L2 under 7.2 (a
# livelock or only slow: one sample cannot tell), in the wording of
# tools/bootlib/env_nested.py and kvm_stall.py.
SILENT = ("env=kvm-nested rc=2 (L2 silent 60 s: shimk stuck: vCPU0 "
            "running at 0xffffffff80112345 (apic_timer_program+0x34); "
            "vCPU1 halted at 0xffffffff80101234 (safe_halt_hlt+0x1); KVM "
            "exits +2312 in 1 s)")
TRIPLE = ("L0 fault: L2 vCPU1 triple-faulted at 0xffffffffc0a01234, a "
          "kernel address outside shimk's image")


def boot(status, lines, qemu="system", n=1, why=""):
    return l0rates.Boot("kvm-nested-detector", qemu, n, status, lines, why)


@case
def plain_pass():
    b = boot("PASS", [Q72, "env=kvm-nested rc=0 (passed)"])
    return (b.outcome() == "passed" and b.version == "7.2.22" and
            b.retries == [] and b.livelocks() == 0)


@case
def pass_after_a_retry_keeps_the_reason():
    b = boot("PASS", [Q10, "env=kvm-nested rc=2 (L2 triple fault or reset: "
                      + TRIPLE + ") [qemu 10.0.2 (backports)]",
                      "retry: the first run's L0 was at fault (" + TRIPLE +
                      "); booting once more",
                      "env=kvm-nested rc=0 (passed) [qemu 10.0.2 "
                      "(backports), not kvm-nested's default]"],
             qemu="backports")
    return (b.outcome() == "passed after 1 retry" and
            b.retries == [TRIPLE] and len(b.attempts) == 2 and
            b.version == "10.0.2" and b.livelocks() == 0)


@case
def two_retries_are_plural():
    r = "retry: the last run's L0 was at fault (x); booting once more"
    b = boot("PASS", [r, r, "env=xl rc=0 (passed)"])
    return b.outcome() == "passed after 2 retries" and b.retries == ["x", "x"]


LIVELOCK = ("env=kvm-nested rc=2 (L0 livelock: L2 vCPU0 at "
            "0xffffffff80112345 (apic_timer_program+0x34) for 60 s while "
            "KVM entered it 140000 times)")


@case
def livelock_only_where_a_verdict_says_so():
    return (l0rates.livelock(LIVELOCK) and
            not l0rates.livelock(SILENT) and
            l0rates.silent_running(SILENT) and
            not l0rates.silent_running(LIVELOCK) and
            not l0rates.silent_running("L2 silent 60 s: shimk stuck: "
                                       "vCPU0 halted at 0x1") and
            not l0rates.livelock(TRIPLE) and
            not l0rates.silent_running(TRIPLE))


@case
def failed_silent_counts_apart_from_livelocks():
    b = boot("FAIL", [Q72, SILENT], why="expected pass, tools/boot said: "
             + SILENT)
    c = boot("FAIL", [Q72, LIVELOCK], why="x")
    return (b.outcome() == "failed" and b.livelocks() == 0 and
            b.count(l0rates.silent_running) == 1 and c.livelocks() == 1)


@case
def retried_livelock_counts_once_for_its_attempt():
    b = boot("PASS", [LIVELOCK, "retry: the first run's L0 was at fault "
                      "(L0 livelock: vCPU0); booting once more",
                      "env=kvm-nested rc=0 (passed)"])
    return b.livelocks() == 1 and b.outcome() == "passed after 1 retry"


@case
def table_counts_each_row_and_qemu_and_lists_the_rest():
    boots = [
        boot("PASS", [Q72, "env=kvm-nested rc=0 (passed)"], n=1),
        boot("FAIL", [Q72, SILENT], n=2,
             why="expected pass, tools/boot said: " + SILENT),
        boot("PASS", [Q10, "env=kvm-nested rc=2 (x)", "retry: the first "
                      "run's L0 was at fault (" + TRIPLE + "); booting once "
                      "more", "env=kvm-nested rc=0 (passed)"],
             qemu="backports", n=1),
        boot("SKIP", [], qemu="backports", n=2, why="no QEMU 10 here"),
    ]
    t = l0rates.table(boots)
    head = t[0].split()
    sysrow = t[1].split()
    bprow = t[2].split()
    return (head[:3] == ["row", "qemu", "boots"] and
            sysrow == ["kvm-nested-detector", "system", "7.2.22", "2", "1",
                       "0", "1", "0", "0", "0", "1"] and
            bprow == ["kvm-nested-detector", "backports", "10.0.2", "2",
                      "0", "1", "0", "1", "1", "0", "0"] and
            any("run 2: failed: expected pass" in l and "+2312" in l
                for l in t) and
            any(l.strip() == "retried: " + TRIPLE for l in t) and
            any("run 1: passed after 1 retry" in l for l in t) and
            any("run 2: skipped: no QEMU 10 here" in l for l in t) and
            not any("run 1: passed" in l and "[system" in l for l in t))


@case
def passed_boot_failed_by_the_row_shows_both():
    b = boot("FAIL", ["env=tcg rc=0 (passed) [qemu 10.0.2 (backports), not "
                      "tcg's default]"],
             why="boot summary says x2apic=1, expected x2apic=0")
    t = l0rates.table([b])
    return (t[-2].endswith("failed: boot summary says x2apic=1, expected "
                           "x2apic=0") and
            t[-1].strip().startswith("tools/boot: env=tcg rc=0 (passed)"))


@case
def record_is_plain_data():
    b = boot("PASS", [Q10, "env=kvm-nested rc=0 (passed)"], qemu="backports")
    r = b.record()
    return (r["outcome"] == "passed" and r["version"] == "10.0.2" and
            r["retries"] == [] and r["run"] == 1)


@case
def a_record_reads_back_into_the_same_boot():
    b = boot("PASS", [Q10, "env=kvm-nested rc=2 (x)", "retry: the first "
                      "run's L0 was at fault (" + TRIPLE + "); booting once "
                      "more", SILENT, "retry: the last run's L0 was at "
                      "fault (y); booting once more",
                      "env=kvm-nested rc=0 (passed)"], qemu="backports")
    c = l0rates.from_record(b.record())
    return (c.record() == b.record() and
            l0rates.table([c]) == l0rates.table([b]))


if __name__ == "__main__":
    sys.exit(pytap.main())
