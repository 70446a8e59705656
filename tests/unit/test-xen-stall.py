#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# tools/bootlib/xen_stall.py: Xen's 'q' dump read into who is stuck (TAP).

import os
import sys

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
sys.path.insert(0, HERE)
from bootlib import xen_stall  # noqa: E402
from pytap import case  # noqa: E402
import pytap  # noqa: E402

# Recorded from Xen 4.17 during a real stall (d0v0 stranded by credit2).
with open(os.path.join(HERE, "fixtures", "xen-q-stall.txt")) as f:
    STALL = f.read().splitlines()


def with_vcpu0(has, flags):
    out = []
    for line in STALL:
        if "VCPU0: CPU3" in line:
            line = line.replace("[has=F]", "[has=%s]" % has)
        out.append(line)
    i = out.index("    pause_count=0 pause_flags=0")
    out[i] = "    pause_count=0 pause_flags=%x" % flags
    return out


def domu(lines, domid):
    return [l.replace("domain 0", "domain %d" % domid) for l in lines]



@case
def parses_every_vcpu_state():
    v = xen_stall.parse_vcpus(STALL)[0]
    return [x.state() for x in v] == ["runnable", "blocked", "blocked",
                                      "down"]


@case
def runnable_not_running_is_the_l0():
    d = xen_stall.diagnose(STALL, 0)
    return d.startswith("stall of the L0") and "d0v0 runnable" in d


@case
def a_running_vcpu_is_shimk():
    d = xen_stall.diagnose(with_vcpu0("T", 0), 0)
    return d.startswith("shimk still running") and "d0v0 running" in d


@case
def all_halted_is_shimk_waiting():
    d = xen_stall.diagnose(with_vcpu0("F", 1), 0)
    return d.startswith("stall of shimk: every vCPU halted")


@case
def no_dump_is_said():
    return xen_stall.diagnose([], 0).startswith("no answer")


@case
def xl_picks_the_newest_domu():
    lines = STALL + domu(with_vcpu0("T", 0), 3)
    d = xen_stall.diagnose(lines, None)
    return "d3v0 running" in d


@case
def xl_without_a_domu_says_so():
    return "no domU exists yet" in xen_stall.diagnose(STALL, None)


@case
def the_newest_domu_is_named_as_who_runs_there():
    # xl with the Linux peer: once dom0 created it, the newest domU is the
    # peer, and a silence then is not shimk's.
    lines = STALL + domu(with_vcpu0("T", 0), 2)
    d = xen_stall.diagnose(lines, None, "the Linux peer")
    return d.startswith("the Linux peer still running while silent on d2v0")



if __name__ == "__main__":
    sys.exit(pytap.main())
