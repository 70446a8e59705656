# SPDX-License-Identifier: GPL-2.0-only
# Tell an L0 fault from a shimk hang, from a silent L2's state dump.
#
# Under the nested environments L1's /init dumps L2 after a silence
# (tools/kvm-l1-init): QEMU's `info registers -a` and `info lapic` for each
# vCPU, then KVM's debugfs counters twice. Two L0 faults are known
# (shared/reference/kvm-nested.md): L2's saved state holding L1's own
# registers (the outer QEMU's emulation of the SVM world switch went
# wrong), and a halted vCPU that never gets the interrupt pending for it.
# Only those are worth a retry; anything else is shimk's and fails.

import re
import struct

_CPU_RE = re.compile(r"^CPU#(\d+)")
# 64-bit code prints RIP/RFL, anything else EIP/EFL.
_RIP_RE = re.compile(r"[RE]IP=([0-9a-f]{8,16}) [RE]FL=([0-9a-f]{8}) .*"
                     r"CPL=(\d) .*HLT=(\d)")
_CR_RE = re.compile(r"^CR0=([0-9a-f]{8}) CR2=[0-9a-f]+ CR3=([0-9a-f]{8,16})")
_APIC_RE = re.compile(r"^dumping local APIC state for CPU (\d+)")
_IRR_RE = re.compile(r"^IRR\s+(.*)$")
_KVM_RE = re.compile(r"^kvm (\d) (\S+) (\d+)$")
# KVM's trace of the shutdown exit (tracepoint kvm_exit): on SVM its
# intr_info is EXITINTINFO, the event being delivered when the triple
# fault came (APM vol. 2, 15.7.2).
_SHUTDOWN_RE = re.compile(r"kvm_exit: vcpu (\d+) reason shutdown rip "
                          r"0x([0-9a-f]+) .*intr_info 0x([0-9a-f]+) "
                          r"error_code 0x([0-9a-f]+)")
_ESC_RE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
RFLAGS_IF = 1 << 9
PF_VECTOR = 14
PF_FETCH = 1 << 4
EVENT_VALID = 1 << 31
EVENT_TYPE_EXCEPTION = 3
CR0_PG = 1 << 31
# The upper, kernel half of the canonical address space.
KERNEL_HALF = 0xffff800000000000


class Vcpu:
    def __init__(self, n):
        self.n = n
        self.rip = None
        self.rflags = 0
        self.cpl = None
        self.halted = False
        self.cr0 = None
        self.cr3 = None
        self.irr = []
        # (rip, intr_info, error_code) of KVM's shutdown exit, if traced.
        self.shutdown = None


def exec_ranges(elf_path):
    """Virtual ranges of the executable PT_LOAD segments of an ELF64."""
    with open(elf_path, "rb") as f:
        data = f.read()
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    out = []
    for i in range(phnum):
        p_type, p_flags, _, p_vaddr, _, _, p_memsz = struct.unpack_from(
            "<IIQQQQQ", data, phoff + i * phentsize)
        if p_type == 1 and p_flags & 1:
            out.append((p_vaddr, p_vaddr + p_memsz))
    return out


def parse(lines):
    """(vCPUs by number, {counter: (first, second)}) from the dump."""
    vcpus = {}
    cur = None
    apic = None
    counters = {}
    for line in lines:
        # The monitor echoes its input with a prompt and readline's
        # escapes.
        line = _ESC_RE.sub("", line).replace("(qemu) ", "").strip()
        m = _CPU_RE.match(line)
        if m:
            cur = vcpus.setdefault(int(m.group(1)), Vcpu(int(m.group(1))))
            continue
        m = _RIP_RE.search(line)
        if m and cur is not None:
            cur.rip = int(m.group(1), 16)
            cur.rflags = int(m.group(2), 16)
            cur.cpl = int(m.group(3))
            cur.halted = m.group(4) == "1"
            continue
        m = _CR_RE.match(line)
        if m and cur is not None and cur.cr3 is None:
            cur.cr0 = int(m.group(1), 16)
            cur.cr3 = int(m.group(2), 16)
        m = _APIC_RE.match(line)
        if m:
            apic = vcpus.setdefault(int(m.group(1)), Vcpu(int(m.group(1))))
            continue
        m = _IRR_RE.match(line)
        if m and apic is not None:
            apic.irr = [int(v) for v in re.findall(r"\b(\d+)\b",
                                                   m.group(1))]
            continue
        m = _SHUTDOWN_RE.search(line)
        if m:
            v = vcpus.setdefault(int(m.group(1)), Vcpu(int(m.group(1))))
            v.shutdown = tuple(int(x, 16) for x in m.groups()[1:])
            continue
        m = _KVM_RE.match(line)
        if m:
            counters.setdefault(m.group(2), [None, None])[
                int(m.group(1)) - 1] = int(m.group(3))
    return vcpus, counters


def diagnose(lines, ranges, symbolize=None, what="shimk stuck",
             l1_stuck=0):
    """(text, l0_fault) for a silent or shut down L2.

    ranges: shimk's code, as exec_ranges() of its ELF gives them.
    l1_stuck: L1 said nothing for this many seconds after L2 fell silent;
    lines are then the outer QEMU's dump of L1's vCPUs.
    """
    vcpus, counters = parse(lines)
    if l1_stuck:
        # shimk, as L2, cannot stop L1's own /init from running.
        places = ["vCPU%d %s at %#x" % (v.n, "halted" if v.halted
                                        else "running", v.rip)
                  for v in sorted(vcpus.values(), key=lambda v: v.n)
                  if v.rip is not None]
        return ("L0 fault: L1 itself stopped: its watch of L2, which "
                "reports within %d s of silence, said nothing (L1's "
                "vCPUs: %s)" % (l1_stuck, "; ".join(places) or
                                "no dump from the outer QEMU")), True
    if not vcpus:
        return "L2 silent; no state dump came (L1 itself stuck?)", False

    def ours(v):
        # Without paging, a vCPU shimk has not started yet (still in the
        # firmware's wait for INIT-SIPI); at CPL 3 one of its tasks.
        if v.cr0 is None or not v.cr0 & CR0_PG or v.cpl == 3:
            return True
        return any(lo <= v.rip < hi for lo, hi in ranges)

    def where(v):
        sym = symbolize(v.rip) if symbolize and v.cpl == 0 else None
        if v.cr0 is not None and not v.cr0 & CR0_PG:
            return "vCPU%d not started (firmware, %s)" % (
                v.n, "halted" if v.halted else "running")
        return "vCPU%d %s at %#x%s%s" % (
            v.n, "halted" if v.halted else "running", v.rip,
            " (%s)" % sym if sym else "",
            " in a task" if v.cpl == 3 else "")

    known = [v for v in sorted(vcpus.values(), key=lambda v: v.n)
             if v.rip is not None]
    exits = counters.get("exits")
    rate = ""
    # 0 throughout where the kernel's global sums are not kept.
    if exits and None not in exits and exits[1]:
        rate = "; KVM exits +%d in 1 s" % (exits[1] - exits[0])
    for v in sorted(vcpus.values(), key=lambda v: v.n):
        if not v.shutdown:
            continue
        rip, info, ec = v.shutdown
        in_text = any(lo <= rip < hi for lo, hi in ranges)
        sym = " (%s)" % symbolize(rip) if symbolize and in_text else ""
        if rip >= KERNEL_HALF and not in_text:
            # shimk runs kernel code only from its own image: a kernel
            # address outside it is L1's, seen through a failed world
            # switch (L1's modules live at 0xffffffffc0000000).
            return ("L0 fault: L2 vCPU%d triple-faulted at %#x, a kernel "
                    "address outside shimk's image (L1's own, e.g. a "
                    "module): the outer emulation's world switch failed "
                    "(event being delivered %#x, error code %#x)%s"
                    % (v.n, rip, info, ec, rate)), True
        if (info & EVENT_VALID and (info >> 8) & 7 == EVENT_TYPE_EXCEPTION
                and info & 0xff == PF_VECTOR and ec & PF_FETCH and in_text):
            # shimk's text is mapped in every address space it builds: a
            # fetch from it cannot fault unless the world switch or the
            # nested paging under L2 went wrong.
            return ("L0 fault: L2 vCPU%d triple-faulted delivering a page "
                    "fault on fetching %#x%s, shimk's own text, which every "
                    "shimk address space maps (error code %#x): the outer "
                    "emulation's world switch or nested paging failed%s"
                    % (v.n, rip, sym, ec, rate)), True
        if in_text:
            # By elimination, and said so: a triple fault needs the IDT,
            # GDT, TSS or a stack to be unusable, and shimk sets those up
            # once at boot and never frees a root a CPU still holds
            # (aspace_put checks); the same code never triple-faults
            # under TCG or Xen (docs/kvm-nested.md).
            return ("L0 fault (by elimination): L2 vCPU%d triple-faulted "
                    "in shimk's kernel code at %#x%s (event being "
                    "delivered %#x, error code %#x), whose descriptor "
                    "tables and stacks are fixed at boot%s"
                    % (v.n, rip, sym, info, ec, rate)), True
        return ("%s: vCPU%d triple-faulted at %#x%s (event being delivered "
                "%#x, error code %#x; KVM re-initialised the vCPU)"
                % (what, v.n, rip, sym, info, ec)), False
    for v in known:
        if not ours(v):
            return ("L0 fault: L2 vCPU%d holds a state that is not shimk's "
                    "(RIP %#x CPL %d CR3 %#x): the world switch of the "
                    "outer emulation failed%s"
                    % (v.n, v.rip, v.cpl, v.cr3 or 0, rate)), True
    for v in known:
        pending = [x for x in v.irr if x >= 32]
        if v.halted and v.rflags & RFLAGS_IF and pending:
            return ("L0 fault: L2 vCPU%d halted with IF set and vector%s "
                    "%s pending in its IRR: the L0 did not deliver it%s"
                    % (v.n, "s" if len(pending) > 1 else "",
                       ",".join(str(x) for x in pending), rate)), True
    return ("%s: %s%s" % (what, "; ".join(where(v) for v in known),
                          rate)), False
