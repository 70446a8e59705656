# SPDX-License-Identifier: GPL-2.0-only
# Tell an L0 fault from a shimk fault, from a failed nested L2's evidence.
#
# Under the nested environments L1's /init (tools/kvm-l1-init) reports on
# an L2 that fell silent or triple-faulted: samples of every vCPU's
# registers from L2's QEMU monitor (`info registers -a`), KVM's own trace
# of its entries to and exits from each vCPU over a few seconds (summed in
# L1), `info lapic`, the rare events traced all along (KVM's shutdown
# exits, and the faulting vCPU's saved state from a kprobe, svm_probe.py),
# and L2's memory, which tools/boot checks with memcheck.py. Verdicts come
# from that evidence only:
#
# - A state that is not shimk's (a kernel RIP outside its image, such as
#   L1's own registers seen through a failed world switch of the outer
#   emulation) is the L0's, proven by the state itself.
# - An L0 livelock: a vCPU that KVM keeps entering without letting it
#   retire an instruction. Sampled registers alone cannot show that (a
#   sample can land on the same instruction of a loop every time), so
#   every condition below must hold for the vCPU:
#     1. at least MIN_SAMPLES samples, over a few seconds, all with the
#        same RIP, RFLAGS and general registers, and none halted;
#     2. KVM's trace of the same seconds has at least MIN_ENTRIES entries
#        to it, and every one of its entries and exits is at that RIP (an
#        instruction that retires moves the next entry past it: after an
#        intercepted instruction KVM enters at the next one; a loop that
#        exits is entered at several RIPs);
#     3. the instruction there is not a jump to itself (read from shimk's
#        ELF), the one loop whose every entry and exit is at one RIP.
#   A vCPU that keeps its RIP in the samples while KVM entered it
#   elsewhere is a loop of shimk's; one that moves is shimk's too, with
#   the RIPs seen. The livelock is retried (the runner's retry_reason),
#   unless the memory check finds shimk's own structures trampled.
# - A halted vCPU with interrupts on and a vector pending in its IRR above
#   its processor priority (Intel SDM vol. 3, 11.8.3.1): the L0 did not
#   deliver it.
# - A triple fault in shimk's own code is the L0's only when the memory
#   check proves shimk's state intact on every vCPU that had one ("L0
#   fault, proven"), shimk's when it finds a structure trampled ("shimk
#   fault"), and otherwise a plain failure that says what could not be
#   checked. Never "by elimination".
# Anything else is shimk's and fails.

import re
import struct
import subprocess

from bootlib import svm_probe

_CPU_RE = re.compile(r"^CPU#(\d+)")
# 64-bit code prints RIP/RFL, anything else EIP/EFL.
_RIP_RE = re.compile(r"[RE]IP=([0-9a-f]{8,16}) [RE]FL=([0-9a-f]{8}) .*"
                     r"CPL=(\d) .*HLT=(\d)")
# The general registers' lines, compared between samples.
_GPR_RE = re.compile(r"^(?:RAX|RSI|R8 |R12|EAX|ESI)=")
_CR_RE = re.compile(r"^CR0=([0-9a-f]{8}) CR2=[0-9a-f]+ CR3=([0-9a-f]{8,16})")
_APIC_RE = re.compile(r"^dumping local APIC state for CPU (\d+)")
_IRR_RE = re.compile(r"^IRR\s+(.*)$")
_PPR_RE = re.compile(r"\bPPR 0x([0-9a-f]+)")
# KVM's global counters: "kvm <first|last> <name> <value> <uptime>" from
# L1's watch, "kvm <1|2> <name> <value>" from older dumps.
_KVM_RE = re.compile(r"^kvm (\S+) (\S+) (\d+)(?: ([0-9.]+))?$")
_SAMPLE_RE = re.compile(r"^sample (\S+) uptime ([0-9.]+) (\S+)")
_TRACE_KEY_RE = re.compile(r"^trace (entry|exit) (\d+) (\d+) (0x[0-9a-f]+)"
                           r"(?: (\S+))?$")
_TRACE_OTHER_RE = re.compile(r"^trace (entry|exit) (\d+) other (\d+) (\d+)$")
_TRACE_SPAN_RE = re.compile(r"^trace span (\d+) ([0-9.]+) ([0-9.]+)$")
_TRACE_WINDOW_RE = re.compile(r"^trace window (\d+) lost (\d+)$")
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
# The livelock rule's thresholds (see the top of this file). L1's timer
# alone (HZ 250) enters a vCPU that runs a loop hundreds of times in the
# few seconds traced, at RIPs spread over the loop; the livelocks seen
# enter it about 2,200-2,400 times a second.
MIN_SAMPLES = 3
MIN_ENTRIES = 100
# How many RIPs a loop's account names.
LOOP_RIPS = 4
# SVM exit codes (AMD APM vol. 2, appendix C, table C-1) by the names
# KVM's kvm_exit tracepoint gives them (SVM_EXIT_REASONS in Linux's
# arch/x86/include/uapi/asm/svm.h); L1's histogram has the numbers.
SVM_EXIT_NAMES = {
    0x60: "interrupt", 0x61: "nmi", 0x62: "smi", 0x63: "init",
    0x64: "vintr", 0x65: "cr0_sel_write", 0x6e: "rdtsc", 0x6f: "rdpmc",
    0x70: "pushf", 0x71: "popf", 0x72: "cpuid", 0x73: "rsm", 0x74: "iret",
    0x75: "swint", 0x76: "invd", 0x77: "pause", 0x78: "hlt",
    0x79: "invlpg", 0x7a: "invlpga", 0x7b: "io", 0x7c: "msr",
    0x7d: "task_switch", 0x7e: "ferr_freeze", 0x7f: "shutdown",
    0x80: "vmrun", 0x81: "hypercall", 0x82: "vmload", 0x83: "vmsave",
    0x84: "stgi", 0x85: "clgi", 0x86: "skinit", 0x87: "rdtscp",
    0x88: "icebp", 0x89: "wbinvd", 0x8a: "monitor", 0x8b: "mwait",
    0x8c: "mwait_cond", 0x8d: "xsetbv", 0x8e: "rdpru",
    0x8f: "efer_write_trap", 0x400: "npf",
}


def exit_name(code):
    """KVM's name of an SVM exit code."""
    if code in SVM_EXIT_NAMES:
        return SVM_EXIT_NAMES[code]
    if code < 0x10:
        return "read_cr%d" % code
    if code < 0x20:
        return "write_cr%d" % (code - 0x10)
    if code < 0x30:
        return "read_dr%d" % (code - 0x20)
    if code < 0x40:
        return "write_dr%d" % (code - 0x30)
    if code < 0x60:
        return "exception %d" % (code - 0x40)
    return "exit %#x" % code


class Vcpu:
    def __init__(self, n):
        self.n = n
        self.rip = None
        self.rflags = 0
        self.cpl = None
        self.halted = False
        self.cr0 = None
        self.cr3 = None
        self.gprs = []
        self.irr = []
        self.ppr = 0
        # (rip, intr_info, error_code) of KVM's shutdown exit, if traced.
        self.shutdown = None
        # The state the shutdown probe read from the VMCB, if any.
        self.probe = None

    def state(self):
        """What must not change across samples for a livelock."""
        return (self.rip, self.rflags, tuple(self.gprs))


class Sample:
    def __init__(self, tag, uptime=None, state=None):
        self.tag = tag
        self.uptime = uptime
        self.state = state          # "running" or "stopped"
        self.vcpus = {}
        self.lines = []


class VcpuTrace:
    """KVM's entries and exits of one vCPU over L1's trace window."""

    def __init__(self):
        self.entries = {}           # rip -> count
        self.exits = {}             # (rip, reason) -> count
        self.other_entries = 0      # entries at RIPs L1 did not list
        self.other_exits = 0
        self.span = None            # (first, last) timestamp, s

    def nr_entries(self):
        return sum(self.entries.values()) + self.other_entries

    def seconds(self):
        return self.span[1] - self.span[0] if self.span else 0.0

    def reasons(self):
        out = {}
        for (_, reason), n in self.exits.items():
            out[reason] = out.get(reason, 0) + n
        return sorted(out.items(), key=lambda kv: -kv[1])


class Dump:
    def __init__(self):
        self.samples = []
        self.apic = {}              # vCPU -> Vcpu (IRR, PPR)
        self.counters = {}          # name -> {tag: (value, uptime)}
        self.trace = {}             # vCPU -> VcpuTrace
        self.traced = None          # window in s; None: no trace
        self.lost = 0
        self.shutdowns = {}         # vCPU -> (rip, intr_info, error_code)
        self.probes = {}            # vCPU -> {field: value}

    def final(self):
        """The last sample (the full one, after L2 stopped), or None."""
        return self.samples[-1] if self.samples else None

    def vcpus(self):
        """Every vCPU's latest state, with its APIC and shutdown facts."""
        out = {}
        for s in self.samples:
            for n, v in s.vcpus.items():
                out[n] = v
        for n, a in self.apic.items():
            v = out.setdefault(n, Vcpu(n))
            v.irr, v.ppr = a.irr, a.ppr
        for n, sd in self.shutdowns.items():
            out.setdefault(n, Vcpu(n)).shutdown = sd
        for n, p in self.probes.items():
            out.setdefault(n, Vcpu(n)).probe = p
        return out


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


def code_reader(elf_path):
    """va -> up to 16 bytes of the ELF's loaded image there, or None."""
    with open(elf_path, "rb") as f:
        data = f.read()
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    segs = []
    for i in range(phnum):
        p_type, _, p_offset, p_vaddr, _, p_filesz, _ = struct.unpack_from(
            "<IIQQQQQ", data, phoff + i * phentsize)
        if p_type == 1:
            segs.append((p_vaddr, p_offset, p_filesz))

    def read(va):
        for vaddr, off, size in segs:
            if vaddr <= va < vaddr + size:
                n = min(16, vaddr + size - va)
                return data[off + va - vaddr:off + va - vaddr + n]
        return None
    return read


def jumps_to_itself(code):
    """Whether the instruction at the start of code is a branch to its own
    address: a jmp, jcc, loop or jrcxz whose displacement is minus its own
    length (Intel SDM vol. 2, JMP, Jcc, LOOP/LOOPcc, JrCXZ)."""
    if not code:
        return False
    op = code[0]
    if (op in (0xeb, 0xe0, 0xe1, 0xe2, 0xe3) or 0x70 <= op <= 0x7f) and \
            len(code) >= 2:
        return code[1] == 0xfe
    if op == 0xe9 and len(code) >= 5:
        return struct.unpack_from("<i", code, 1)[0] == -5
    if op == 0x0f and len(code) >= 6 and 0x80 <= code[1] <= 0x8f:
        return struct.unpack_from("<i", code, 2)[0] == -6
    return False


_INSN_RE = re.compile(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$")
# Control transfers (AT&T mnemonics as objdump prints them).
_BRANCH_RE = re.compile(r"^(?:j[a-z]+|loop[a-z]*|call[a-z]*|ret[a-z]*|"
                        r"iret[a-z]*|sysret[a-z]*|hlt|int[0-9a-z]*|ud2|"
                        r"syscall|sysenter|vm[a-z]+)$")
_TARGET_RE = re.compile(r"^([0-9a-f]+)\b")
# How far back a loop's head may lie from the RIP seen, and how much
# straight-line code a block may hold, in bytes.
LOOP_SPAN = 64


def loop_reader(elf_path, objdump="objdump"):
    """rip -> whether rip lies in a loop that is one straight-line block.

    Such a loop (cpu_relax() in a for (;;), or a poll "1: pause; cmp;
    je 1b") ends in a branch back to its head, with no other branch in
    it. QEMU's TCG, which runs L2's code under the emulated SVM here,
    takes interrupts only between its translated blocks, so every KVM
    exit and entry of such a loop can fall at one RIP, as in an L0
    livelock, although the loop retires instructions: it is shimk's.
    Decoded with binutils' objdump from shimk's ELF; False where it
    cannot tell.
    """
    cache = {}

    def decode(start, end):
        try:
            out = subprocess.run(
                [objdump, "-d", "--no-show-raw-insn",
                 "--start-address=%#x" % start, "--stop-address=%#x" % end,
                 elf_path], capture_output=True, text=True, timeout=30,
                check=False).stdout
        except (OSError, subprocess.SubprocessError):
            return []
        insns = []
        for line in out.splitlines():
            m = _INSN_RE.match(line)
            if m and not m.group(2).endswith(">:"):
                insns.append((int(m.group(1), 16), m.group(2),
                              m.group(3)))
        return insns

    def straight(insns, start, rip):
        """The instructions from start decode onto rip with no branch
        before it."""
        for addr, mnem, _ in insns:
            if addr == rip:
                return True
            if addr > rip or _BRANCH_RE.match(mnem):
                return False
        return False

    def loop_at(rip):
        if rip in cache:
            return cache[rip]
        cache[rip] = False
        insns = decode(rip, rip + LOOP_SPAN)
        for addr, mnem, ops in insns:
            if not _BRANCH_RE.match(mnem):
                continue
            m = _TARGET_RE.match(ops)
            if not m or not mnem.startswith(("j", "loop")):
                break
            head = int(m.group(1), 16)
            if head == rip or (rip - LOOP_SPAN <= head < rip and
                               straight(decode(head, rip + 1), head, rip)):
                cache[rip] = True
            break
        return cache[rip]
    return loop_at


def parse(lines):
    """A Dump from L1's report (the lines after "kvm-dump| ")."""
    d = Dump()
    cur = None
    sample = None
    apic = None
    for line in lines:
        # The monitor echoes its input with a prompt and readline's
        # escapes.
        line = _ESC_RE.sub("", line).replace("(qemu) ", "").strip()
        m = _SAMPLE_RE.match(line)
        if m:
            sample = Sample(m.group(1), float(m.group(2)), m.group(3))
            d.samples.append(sample)
            cur = None
            continue
        m = _CPU_RE.match(line)
        if m:
            if sample is None:
                # A dump without sample marks: one sample.
                sample = Sample("final")
                d.samples.append(sample)
            n = int(m.group(1))
            cur = sample.vcpus.setdefault(n, Vcpu(n))
            sample.lines.append(line)
            continue
        if sample is not None and cur is not None:
            sample.lines.append(line)
        m = _RIP_RE.search(line)
        if m and cur is not None:
            cur.rip = int(m.group(1), 16)
            cur.rflags = int(m.group(2), 16)
            cur.cpl = int(m.group(3))
            cur.halted = m.group(4) == "1"
            continue
        if _GPR_RE.match(line) and cur is not None:
            cur.gprs.append(line)
            continue
        m = _CR_RE.match(line)
        if m and cur is not None and cur.cr3 is None:
            cur.cr0 = int(m.group(1), 16)
            cur.cr3 = int(m.group(2), 16)
            continue
        m = _APIC_RE.match(line)
        if m:
            n = int(m.group(1))
            apic = d.apic.setdefault(n, Vcpu(n))
            cur = None
            continue
        m = _IRR_RE.match(line)
        if m and apic is not None:
            apic.irr = [int(v) for v in re.findall(r"\b(\d+)\b",
                                                   m.group(1))]
            continue
        m = _PPR_RE.search(line)
        if m and apic is not None:
            apic.ppr = int(m.group(1), 16)
            continue
        if parse_trace(d, line):
            continue
        m = _SHUTDOWN_RE.search(line)
        if m:
            d.shutdowns[int(m.group(1))] = tuple(
                int(x, 16) for x in m.groups()[1:])
            continue
        p = svm_probe.parse(line)
        if p is not None:
            d.probes[p["vcpu"]] = p
            continue
        m = _KVM_RE.match(line)
        if m:
            up = float(m.group(4)) if m.group(4) else None
            d.counters.setdefault(m.group(2), {})[m.group(1)] = (
                int(m.group(3)), up)
    return d


def parse_trace(d, line):
    """L1's sums of KVM's entry and exit trace; True for such a line."""
    m = _TRACE_KEY_RE.match(line)
    if m:
        t = d.trace.setdefault(int(m.group(3)), VcpuTrace())
        rip = int(m.group(4), 16)
        if m.group(1) == "entry":
            t.entries[rip] = t.entries.get(rip, 0) + int(m.group(2))
        else:
            reason = m.group(5) or "?"
            if re.match(r"^0x[0-9a-f]+$", reason):
                reason = exit_name(int(reason, 16))
            key = (rip, reason)
            t.exits[key] = t.exits.get(key, 0) + int(m.group(2))
        return True
    m = _TRACE_OTHER_RE.match(line)
    if m:
        t = d.trace.setdefault(int(m.group(2)), VcpuTrace())
        if m.group(1) == "entry":
            t.other_entries += int(m.group(4))
        else:
            t.other_exits += int(m.group(4))
        return True
    m = _TRACE_SPAN_RE.match(line)
    if m:
        t = d.trace.setdefault(int(m.group(1)), VcpuTrace())
        t.span = (float(m.group(2)), float(m.group(3)))
        return True
    m = _TRACE_WINDOW_RE.match(line)
    if m:
        d.traced = int(m.group(1))
        d.lost = int(m.group(2))
        return True
    return False


class Memory:
    """What the memory check (memcheck.check) said about shimk's state.

    state: "intact" (l0_proven), "trampled" (a shimk fault found) or
    "unchecked" (no dump, or not everything could be checked); text: one
    line saying which.
    """

    def __init__(self, state, text):
        self.state = state
        self.text = text

    def finding(self):
        """The text without memcheck's own attribution, for a verdict
        that makes its own."""
        for head in ("L0 fault, proven: ",):
            if self.text.startswith(head):
                return self.text[len(head):]
        return self.text

    @classmethod
    def of_verdict(cls, verdict):
        if verdict.l0_proven:
            return cls("intact", verdict.text)
        if verdict.text.startswith("shimk fault"):
            return cls("trampled", verdict.text)
        return cls("unchecked", verdict.text)


def probe_vcpu(cls, n, fields):
    """A memcheck.VcpuRegs (cls) of vCPU n from the shutdown probe's
    fields, which carry the same names (svm_probe.FIELDS)."""
    regs = cls(n)
    for name, _, _ in svm_probe.FIELDS:
        if name in getattr(cls, "FIELDS", (name,)):
            setattr(regs, name, fields.get(name))
    # A shutdown is no halt: the vCPU was delivering an event.
    regs.halted = False
    return regs


def _hex_rip(rip, symbolize, ranges):
    in_text = any(lo <= rip < hi for lo, hi in ranges)
    sym = symbolize(rip) if symbolize and in_text else None
    return "%#x%s" % (rip, " (%s)" % sym if sym else "")


def vcpu_motion(d, ranges, symbolize=None, code_at=None, loop_at=None):
    """{vCPU: (kind, text)} from the samples and the trace.

    kind: "livelock", "loop" (shimk's, the RIPs seen), "halted",
    "firmware", "still" (one RIP, but no trace to tell), "unseen" (too
    few samples) or "not-entered".
    """
    out = {}
    ns = sorted({n for s in d.samples for n in s.vcpus})
    ups = [s.uptime for s in d.samples if s.uptime is not None]
    over = " over %.1f s" % (max(ups) - min(ups)) if len(ups) > 1 else ""
    for n in ns:
        seq = [s.vcpus[n] for s in d.samples
               if n in s.vcpus and s.vcpus[n].rip is not None]
        if not seq:
            continue
        last = seq[-1]
        if last.cr0 is not None and not last.cr0 & CR0_PG:
            out[n] = ("firmware", "vCPU%d not started (firmware, %s)" % (
                n, "halted" if last.halted else "running"))
            continue
        if last.halted:
            out[n] = ("halted", "vCPU%d halted at %s" % (
                n, _hex_rip(last.rip, symbolize, ranges)))
            continue
        rips = []
        for v in seq:
            if v.rip not in rips:
                rips.append(v.rip)
        t = d.trace.get(n)
        if t is not None:
            for rip, _ in sorted(t.entries.items(), key=lambda kv: -kv[1]):
                if rip not in rips:
                    rips.append(rip)
        where = ", ".join(_hex_rip(r, symbolize, ranges)
                          for r in rips[:LOOP_RIPS])
        if len(rips) > LOOP_RIPS:
            where += " and %d more" % (len(rips) - LOOP_RIPS)
        same = (len(seq) >= MIN_SAMPLES and
                all(v.state() == seq[0].state() for v in seq) and
                not any(v.halted for v in seq))
        task = " in a task" if last.cpl == 3 else ""
        if len(seq) < MIN_SAMPLES:
            out[n] = ("unseen", "vCPU%d running at %s%s (%d sample%s)" % (
                n, where, task, len(seq), "" if len(seq) == 1 else "s"))
            continue
        if not same:
            out[n] = ("loop", "vCPU%d running%s, RIP moving (%s)" % (
                n, task, where))
            continue
        rip = seq[0].rip
        here = _hex_rip(rip, symbolize, ranges)
        if d.traced is None:
            out[n] = ("still", "vCPU%d at %s in all %d samples%s, but no "
                      "trace of KVM's entries to tell a livelock from a "
                      "loop" % (n, here, len(seq), over))
            continue
        if t is None or not t.nr_entries():
            out[n] = ("not-entered", "vCPU%d at %s in all %d samples%s, "
                      "and KVM did not enter it in the %d s traced"
                      % (n, here, len(seq), over, d.traced))
            continue
        only_here = (set(t.entries) == {rip} and not t.other_entries and
                     all(r == rip for r, _ in t.exits) and
                     not t.other_exits)
        if not only_here:
            out[n] = ("loop", "vCPU%d at %s in all %d samples%s, but KVM "
                      "entered it at %s: a loop" % (
                          n, here, len(seq), over, where))
            continue
        if t.nr_entries() < MIN_ENTRIES:
            out[n] = ("still", "vCPU%d at %s in all %d samples%s, entered "
                      "only %d times in %d s: too few to call a livelock"
                      % (n, here, len(seq), over, t.nr_entries(),
                         d.traced))
            continue
        code = code_at(rip) if code_at else None
        if jumps_to_itself(code):
            out[n] = ("loop", "vCPU%d spinning on a jump to itself at %s"
                      % (n, here))
            continue
        if loop_at and loop_at(rip):
            out[n] = ("loop", "vCPU%d running in a one-block loop at %s "
                      "(KVM entered it %d times there: TCG takes "
                      "interrupts between blocks)"
                      % (n, here, t.nr_entries()))
            continue
        reasons = ", ".join("%s %d" % kv for kv in t.reasons()[:3])
        secs = t.seconds() or d.traced
        out[n] = ("livelock", "L0 livelock: vCPU%d entered %d times in "
                  "%.1f s without retiring an instruction at %s, exit "
                  "reason %s (every KVM entry and exit at that RIP, and "
                  "all %d register samples%s the same%s)"
                  % (n, t.nr_entries(), secs, here, reasons or "unknown",
                     len(seq), over,
                     "; %d trace events lost" % d.lost if d.lost else ""))
    return out


_SILENT_CPUS_RE = re.compile(r"TLB flush: CPUs (\S+) silent for")


def cpu_list(text):
    """shimk's CPU list ("0,2-3") as a sorted list of numbers."""
    out = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        if not lo.isdigit() or (hi and not hi.isdigit()):
            return []
        out += range(int(lo), int(hi or lo) + 1)
    return sorted(set(out))


def stall_summary(warning, lines, ranges, symbolize=None, code_at=None,
                  loop_at=None):
    """What L1 saw of a shootdown's silent targets while L2 still ran.

    warning: shimk's "TLB flush: CPUs N silent for ..." line; lines: the
    stall sample (kvm-dump lines of L1's watch, L2 not stopped). shimk's
    CPU n is vCPU n here (QEMU's MADT lists the vCPUs in order, and
    shimk numbers them as it finds them). For each silent target: how
    often KVM entered it in the traced seconds, where its samples were,
    and whether its interrupts were on: a vCPU KVM did not enter is one
    its L0 held off; one that ran with interrupts off is deaf in shimk.
    """
    m = _SILENT_CPUS_RE.search(warning)
    targets = cpu_list(m.group(1)) if m else []
    d = parse(lines)
    motion = vcpu_motion(d, ranges, symbolize, code_at, loop_at)
    vcpus = d.vcpus()
    out = []
    for n in targets:
        v = vcpus.get(n)
        if v is None or v.rip is None:
            out.append("vCPU%d: no sample" % n)
            continue
        t = d.trace.get(n)
        if d.traced is None:
            entered = "no trace of KVM's entries"
        else:
            entered = "KVM entered it %d times in %d s" % (
                t.nr_entries() if t else 0, d.traced)
        text = motion.get(n, (None, "vCPU%d at %s" % (
            n, _hex_rip(v.rip, symbolize, ranges))))[1]
        out.append("%s; %s; interrupts %s in its last sample" % (
            text, entered, "on" if v.rflags & RFLAGS_IF else "off"))
    if not targets:
        return "no silent CPU named in '%s'" % warning.strip()
    return "; ".join(out)


def _rate(d):
    """"; KVM exits +N in S s" from the global counters, or ""."""
    exits = d.counters.get("exits", {})
    for a, b in (("first", "last"), ("1", "2")):
        if a in exits and b in exits and exits[b][0]:
            (v0, t0), (v1, t1) = exits[a], exits[b]
            secs = (t1 - t0) if t0 is not None and t1 is not None else 1
            return "; KVM exits +%d in %.1f s" % (v1 - v0, secs)
    return ""


def _memory_note(memory):
    if memory is None:
        return ""
    return "; memory: %s" % memory.finding()


def _ours(v, ranges):
    """Could this vCPU state be shimk's? Without paging, a vCPU shimk has
    not started yet (still in the firmware's wait for INIT-SIPI); at CPL
    3 one of its tasks; else its RIP must be in shimk's code."""
    if v.cr0 is None or not v.cr0 & CR0_PG or v.cpl == 3:
        return True
    return any(lo <= v.rip < hi for lo, hi in ranges)


def stall_fault(warning, lines, ranges, code_at=None, loop_at=None):
    """The L0 fault the stall sample proves, as text, or None.

    A silent flush target whose every sample holds a state that is not
    shimk's (L1's own registers seen through a failed world switch of
    the outer emulation), or that KVM keeps entering without letting it
    retire an instruction (vcpu_motion's livelock), is one the L0 kept
    from answering: the shootdown's panic that follows is its doing.
    """
    m = _SILENT_CPUS_RE.search(warning)
    targets = cpu_list(m.group(1)) if m else []
    d = parse(lines)
    motion = vcpu_motion(d, ranges, None, code_at, loop_at)
    for n in targets:
        seq = [s.vcpus[n] for s in d.samples
               if n in s.vcpus and s.vcpus[n].rip is not None]
        t = d.trace.get(n)
        entries = t.nr_entries() if t else 0
        if seq and not any(_ours(v, ranges) for v in seq):
            v = seq[-1]
            return ("L0 fault: L2 vCPU%d, silent to a shootdown, held a "
                    "state that is not shimk's in all %d samples (RIP %#x "
                    "CPL %d CR3 %#x) while KVM entered it %d times: the "
                    "world switch of the outer emulation failed"
                    % (n, len(seq), v.rip, v.cpl, v.cr3 or 0, entries))
        if motion.get(n, ("",))[0] == "livelock":
            return "%s, a target silent to a shootdown" % motion[n][1]
    return None


def diagnose(lines, ranges, symbolize=None, what="shimk stuck",
             l1_stuck=0, memory=None, code_at=None, l1_lockup=None,
             loop_at=None):
    """(text, l0_fault) for a silent or shut down L2.

    ranges: shimk's code, as exec_ranges() of its ELF gives them.
    memory: a Memory from the check of L2's saved memory, or None.
    code_at: va -> bytes of shimk's code (code_reader()).
    l1_stuck: L1 said nothing for this many seconds after L2 fell silent;
    lines are then the outer QEMU's dump of L1's vCPUs.
    l1_lockup: (cpu, task, seconds) of L1's first soft lockup report.
    """
    d = parse(lines)
    vcpus = d.vcpus()
    if l1_stuck:
        # shimk, as L2, cannot stop L1's own /init from running.
        places = ["vCPU%d %s at %#x" % (v.n, "halted" if v.halted
                                        else "running", v.rip)
                  for v in sorted(vcpus.values(), key=lambda v: v.n)
                  if v.rip is not None]
        lockup = ""
        if l1_lockup:
            # A guest cannot hold its host's CPU in kernel mode: KVM
            # leaves the guest at every exit and reschedules there.
            lockup = ("; L1's kernel reported its CPU%d stuck in kernel "
                      "mode for %d s in task %s (KVM's run loop not "
                      "returning)" % (l1_lockup[0], l1_lockup[2],
                                      l1_lockup[1]))
        return ("L0 fault: L1 itself stopped: its watch of L2, which "
                "reports within %d s of silence, said nothing%s (L1's "
                "vCPUs: %s)" % (l1_stuck, lockup, "; ".join(places) or
                                "no dump from the outer QEMU")), True
    if not vcpus:
        return ("L2 silent; no state dump came (L1 itself stuck?)%s"
                % _memory_note(memory)), False
    rate = _rate(d)
    shut = sorted((v for v in vcpus.values() if v.shutdown or v.probe),
                  key=lambda v: v.n)
    if shut:
        return _shutdown(d, shut[0], ranges, symbolize, what, memory, rate)

    known = [v for v in sorted(vcpus.values(), key=lambda v: v.n)
             if v.rip is not None]
    for v in known:
        if not _ours(v, ranges):
            return ("L0 fault: L2 vCPU%d holds a state that is not shimk's "
                    "(RIP %#x CPL %d CR3 %#x): the world switch of the "
                    "outer emulation failed%s"
                    % (v.n, v.rip, v.cpl, v.cr3 or 0, rate)), True
    motion = vcpu_motion(d, ranges, symbolize, code_at, loop_at)
    locked = [text for kind, text in motion.values() if kind == "livelock"]
    if locked:
        others = "; ".join(t for k, t in motion.values() if k != "livelock")
        text = "%s%s%s" % ("; ".join(locked),
                           "; others: %s" % others if others else "", rate)
        if memory is not None and memory.state == "trampled":
            # The L0 may well have livelocked, but shimk's own state is
            # broken: that is shimk's to answer for first.
            return ("%s (and %s)" % (memory.text, text)), False
        return text + _memory_note(memory), True
    for v in known:
        pending = [x for x in v.irr
                   if x >= 32 and (x >> 4) > (v.ppr >> 4)]
        if v.halted and v.rflags & RFLAGS_IF and pending:
            return ("L0 fault: L2 vCPU%d halted with IF set and vector%s "
                    "%s pending in its IRR above its processor priority "
                    "%#x: the L0 did not deliver it%s%s"
                    % (v.n, "s" if len(pending) > 1 else "",
                       ",".join(str(x) for x in pending), v.ppr, rate,
                       _memory_note(memory))), True
    places = [motion[v.n][1] if v.n in motion else
              "vCPU%d %s at %s" % (v.n, "halted" if v.halted else "running",
                                   _hex_rip(v.rip, symbolize, ranges))
              for v in known]
    if memory is not None and memory.state == "trampled":
        return ("%s (%s: %s%s)" % (memory.text, what, "; ".join(places),
                                   rate)), False
    return ("%s: %s%s%s" % (what, "; ".join(places), rate,
                            _memory_note(memory))), False


def _shutdown(d, v, ranges, symbolize, what, memory, rate):
    """The verdict on a triple fault of vCPU v (KVM's shutdown exit)."""
    if v.shutdown:
        rip, info, ec = v.shutdown
    else:
        rip, info, ec = v.probe["rip"], None, None
    in_text = any(lo <= rip < hi for lo, hi in ranges)
    sym = " (%s)" % symbolize(rip) if symbolize and in_text else ""
    event = ("event being delivered %#x, error code %#x" % (info, ec)
             if info is not None else "no trace of the exit's event")
    state = ""
    if v.probe:
        p = v.probe
        state = "; its saved state CS %#x CR3 %#x RSP %#x GS base %#x" % (
            p.get("cs", 0), p.get("cr3", 0), p.get("rsp", 0),
            p.get("gs_base", 0))
    if rip >= KERNEL_HALF and not in_text:
        # shimk runs kernel code only from its own image: a kernel
        # address outside it is L1's, seen through a failed world
        # switch (L1's modules live at 0xffffffffc0000000).
        return ("L0 fault: L2 vCPU%d triple-faulted at %#x, a kernel "
                "address outside shimk's image (L1's own, e.g. a "
                "module): the outer emulation's world switch failed "
                "(%s)%s%s" % (v.n, rip, event, state, rate)), True
    fetch = (info is not None and info & EVENT_VALID and
             (info >> 8) & 7 == EVENT_TYPE_EXCEPTION and
             info & 0xff == PF_VECTOR and ec & PF_FETCH)
    place = ("L2 vCPU%d triple-faulted %s%#x%s (%s)%s"
             % (v.n, "delivering a page fault on fetching its own code at "
                if fetch and in_text else "at ", rip, sym, event, state))
    ring3 = bool(v.probe) and rip < KERNEL_HALF and (
        v.probe.get("cs", 0) & 3 == 3 or v.probe.get("cpl") == 3)
    if not in_text and ring3 and memory is not None and \
            memory.state in ("intact", "trampled"):
        place = ("L2 vCPU%d triple-faulted in ring 3 at %#x (%s)%s"
                 % (v.n, rip, event, state))
        if memory.state == "trampled":
            return ("%s; at %s%s" % (memory.text, place, rate)), False
        # Whatever the task's own mapping, delivering its fault needs
        # only the IDT, GDT, TSS, the stack at RSP0 (then the #DF's IST
        # stack) and the kernel half of its root (SDM Vol. 3A, 6.12.1 and
        # 6.14), all fixed or this CPU's own, and the memory check read
        # every one of them intact through this vCPU's saved CR3.
        return ("L0 fault, proven: %s: a delivery that needs only shimk's "
                "tables and stacks failed, and %s%s"
                % (place, memory.finding(), rate)), True
    if not in_text:
        return ("%s: %s; KVM re-initialised the vCPU%s%s"
                % (what, place, rate, _memory_note(memory))), False
    if memory is None:
        return ("%s; not attributed: L2's memory was not checked%s"
                % (place, rate)), False
    if memory.state == "intact":
        return ("L0 fault, proven: %s; %s%s"
                % (place, memory.finding(), rate)), True
    if memory.state == "trampled":
        return ("%s; at %s%s" % (memory.text, place, rate)), False
    return ("%s; not attributed: %s%s" % (place, memory.text, rate)), False
