# SPDX-License-Identifier: GPL-2.0-only
# Ask a silent Xen for its state (debug keys) and say who is stuck.
#
# Used by tools/boot when a run under Xen reaches its silence bound: rather
# than a bare "silent", the verdict names the L0 or shimk, and an answer at
# all shows that Xen itself is alive. Xen reads its debug
# keys from the serial console once input is switched to it (three CTRL-A,
# xen/drivers/char/console.c); 'q' dumps every domain's vCPUs
# (xen/common/keyhandler.c: dump_domains), 'r' the scheduler's run queues.

import re

# Switch the serial input to Xen, then the keys, one at a time: Xen 4.17
# runs a key's handler from a tasklet that holds one pending key, so a key
# sent before the last one's dump began replaces it.
KEYS = (b"\x01\x01\x01q", b"r")
KEY_GAP_S = 2.0
# Time for Xen (under TCG) to print the dumps, from the first key.
DUMP_WAIT_S = 5.0

_DOMAIN_RE = re.compile(r"VCPU information and callbacks for domain (\d+):")
_VCPU_RE = re.compile(r"^\s*VCPU(\d+): CPU(\d+) \[has=([TF])\]")
_PAUSE_RE = re.compile(r"^\s*pause_count=(\d+) pause_flags=([0-9a-fA-F]+)")
# Xen's pause_flags bits (xen/include/xen/sched.h).
_VPF_BLOCKED = 1 << 0
_VPF_DOWN = 1 << 1


class VcpuState:
    def __init__(self, vcpu, pcpu, running):
        self.vcpu = vcpu
        self.pcpu = pcpu
        self.running = running
        self.pause_count = None
        self.pause_flags = None

    def state(self):
        if self.running:
            return "running"
        if self.pause_flags is None:
            return "unknown"
        if self.pause_flags & _VPF_DOWN:
            return "down"
        if self.pause_flags & _VPF_BLOCKED:
            return "blocked"
        if self.pause_count or self.pause_flags:
            return "paused"
        return "runnable"


def parse_vcpus(lines):
    """{domid: [VcpuState]} from Xen's 'q' dump ("(XEN) " already gone)."""
    doms = {}
    dom = None
    last = None
    for text in lines:
        m = _DOMAIN_RE.search(text)
        if m:
            dom = int(m.group(1))
            doms[dom] = []
            last = None
            continue
        if dom is None:
            continue
        m = _VCPU_RE.match(text)
        if m:
            last = VcpuState(int(m.group(1)), int(m.group(2)),
                             m.group(3) == "T")
            doms[dom].append(last)
            continue
        m = _PAUSE_RE.match(text)
        if m and last is not None and last.pause_flags is None:
            last.pause_count = int(m.group(1))
            last.pause_flags = int(m.group(2), 16)
    return doms


def diagnose(lines, domid, name="shimk"):
    """One sentence: whether the L0 or the guest (domain domid) is stuck.

    domid None: the guest's domain is the newest domU, if any exists.
    name: who that guest is ("shimk", or xl's Linux peer after it).
    """
    doms = parse_vcpus(lines)
    if domid is None:
        domus = [d for d in doms if d]
        if not domus:
            return ("Xen answered its debug keys, but no domU exists yet"
                    if doms else "no answer to Xen's debug keys (Xen "
                    "itself may be stuck)")
        domid = max(domus)
    if domid not in doms or not doms[domid]:
        return ("no answer to Xen's debug keys for d%d (Xen itself may be "
                "stuck)" % domid)
    vcpus = doms[domid]
    states = ", ".join("d%dv%d %s" % (domid, v.vcpu, v.state())
                       for v in vcpus)
    runnable = [v for v in vcpus if v.state() == "runnable"]
    running = [v for v in vcpus if v.state() == "running"]
    if runnable and not running:
        return ("stall of the L0: Xen leaves %s runnable but runs none of "
                "them (%s)" % (", ".join("d%dv%d" % (domid, v.vcpu)
                                         for v in runnable), states))
    if running:
        return ("%s still running while silent on %s: it spins, "
                "waits without a bound, or is only slow; not a stall of "
                "the L0 (%s)"
                % (name, ", ".join("d%dv%d" % (domid, v.vcpu)
                                   for v in running), states))
    if all(v.state() in ("blocked", "down") for v in vcpus):
        return ("stall of %s: every vCPU halted or down, waiting for "
                "an interrupt that nothing arms (%s)" % (name, states))
    return "stuck, cause unclear (%s)" % states
