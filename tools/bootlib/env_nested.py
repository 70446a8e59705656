# SPDX-License-Identifier: GPL-2.0-only
# tools/boot --env kvm-nested and hyperv-nested: a real Linux KVM as L0.
#
# No machine here has a /dev/kvm a test can trust, but QEMU TCG -cpu max
# emulates SVM with nested paging: Debian's Linux 6.1 with kvm-amd runs in
# it as L1 (tools/kvm-l1), and its /init (tools/kvm-l1-init) runs Debian's
# QEMU -accel kvm with shimk as L2 (docs/kvm-nested.md). L1
# passes shimk's isa-debug-exit code on, so the outer QEMU's status is
# shimk's and the usual verdict rules apply, checked against L1's report.

import os
import re
import shutil
import socket
import time

from bootlib import bounds, common, console, kvm_stall, l1ver, peer
from bootlib.common import ELF, note, symbolizer
from bootlib.env_base import Env

# The Linux peer's runner, sourced by L1's init after shimk's L2.
L1_PEER_RUN = os.path.join(common.ROOT, "tools", "kvm-peer-run")
# L1's memory for the peer beyond its L2's: the peer's vmlinux (63 MiB)
# and initramfs in L1's rootfs, and the copy L2's QEMU reads.
L1_PEER_EXTRA_MIB = 160
# L1's kernel command line. quiet: the serial is slow under TCG and L2's
# lines share it; nokaslr: a dump's addresses are L1's or shimk's at a
# glance; mitigations=off: nothing to protect, and TCG pays for each.
L1_ARGS = "console=ttyS0 quiet nokaslr mitigations=off panic=0"
# L1's memory beyond L2's: the unpacked initramfs (53 MiB), QEMU, Linux.
L1_EXTRA_MIB = 512
L1_MIN_MIB = 768
# From the outer QEMU's start to L1's /init starting L2: 6-8 s on an idle
# 2-core host, 10-28 s loaded; kvm-amd loads in 1-5 s more.
L1_START_S = 120.0
# L1 must stop L2 this long before the run's backstop, so that its report
# still reaches us: L1's boot before its clock (1-3 s), one look at L2's
# registers (1-5 s), the serial.
L1_END_MARGIN_S = 30
L1_MIN_END_S = 20
# Silence from L2 after which L1 dumps its state and stops it (--silence).
L2_SILENT_S = 60
# L1 reports within this long of that. Silent past it, L1 itself has
# stopped, which shimk as L2 cannot cause.
L1_REPORT_S = 40
# Within L1's dump: the longest gap between its lines (a register sample
# is bounded at 20 s, summing the trace at 60 s), and after it says it is
# saving L2's memory (pmemsave bounded at 150 s, the sync at 120 s).
L1_DUMP_GAP_S = 75
L1_MEM_SAVE_S = 300
# L2's memory goes to the outer QEMU's scratch disk, a sparse file in the
# run's temporary folder, up to this size: -M pc keeps that much RAM at
# physical address 0 in one piece, and the save takes seconds per 128 MiB.
DUMP_MAX_MIB = 2048
MEM_SAVED_RE = re.compile(r"^memory saved: (\d+) bytes")
# Reading the outer QEMU's monitor (L1's vCPUs) after that.
L0_DUMP_S = 5.0
# L2's vCPU under hyperv-nested: KVM's Hyper-V enlightenments that the
# TLFS flush and IPI hypercalls need, and what those need in turn; and
# the frequency MSRs, the TSC rate as Hyper-V states it (time_init()).
HV_FLAGS = ("hv-relaxed,hv-vpindex,hv-runtime,hv-time,hv-synic,hv-stimer,"
            "hv-tlbflush,hv-ipi,hv-frequencies")

L2_PREFIX = "shimk-L2| "
DUMP_PREFIX = "kvm-dump| "
RUN_RE = re.compile(r"^kvm-run: (.*)$")
# tools/boot --lifecycle under kvm-nested: what L1 does to L2's QEMU
# (tools/kvm-l1-init, lifecycle_step), and its report of each step.
NESTED_LIFECYCLE_STEPS = ("save-restore", "migrate")
NESTED_LIFECYCLE_RE = re.compile(
    r"^lifecycle (\S+) rc (\d+) at (\d+) s: ?(.*)$")
# shimk's word of each CPU's resume (guest/resume.c: KVM's backend or the
# Hyper-V one), and of an area the L0 would not take again
# (guest/kvm/kvm.c).
RESUME_RE = re.compile(
    r"^(?:kvm|hyperv): resume: CPU(\d+): the L0 stopped this vCPU")
RESUME_DROP_RE = re.compile(
    r"^(?:kvm|hyperv): resume: CPU\d+: .* not registered again")
# The environments whose L1 can migrate and save L2 (tools/kvm-l1-init).
NESTED_LIFECYCLE_ENVS = ("kvm-nested", "hyperv-nested")


def lifecycle_trigger(append):
    """The L2 line at which L1 takes each step: the detector's start of
    a mode's clean runs when it runs (so the step falls among its checked
    flushes), otherwise the boot summary."""
    if "tlb-detector" in append:
        return "# power: "
    return "shimk: boot hv="


def nested_lifecycle_verdict(want, done, resumes, drops, cpus):
    """What --lifecycle asked that did not happen, or None.  done: L1's
    (step, rc, seconds, what) reports; resumes: the CPU numbers of
    shimk's resume lines, in order; drops: its lines of an area not
    registered again."""
    if not want:
        return None
    steps = [d[0] for d in done]
    if steps != list(want):
        return ("--lifecycle %s: L1 did %s" % (
            ",".join(want), ",".join(steps) or "none of it"))
    for step, rc, _, what in done:
        if rc:
            return "lifecycle: L1's %s failed (%s)" % (step, what or rc)
    # Every vCPU is told of every restart, and each says its resume.
    for cpu in range(cpus):
        n = resumes.count(cpu)
        if n != len(want):
            return ("lifecycle: shimk's CPU%d resumed %d times after %d "
                    "steps" % (cpu, n, len(want)))
    if drops:
        return "lifecycle: %s" % drops[0]
    return None
VERDICT_RE = re.compile(r"^(l2 exit (\d+)|l2 shutdown|silent .*|"
                        r"timeout after .*|error .*)$")
# Expected when L1 is overcommitted on purpose (--host-cpus < --smp).
QEMU_NOISE_RE = re.compile(r"exceeds the recommended cpus supported by KVM")
EXIT_RE = re.compile(r"^exit (\d+)$")
L1_PANIC_RE = re.compile(r"Kernel panic - not syncing")
# L1's kernel on one of its CPUs held in kernel mode (Linux's
# kernel/watchdog.c): in a QEMU task, KVM's run loop that did not return.
L1_LOCKUP_RE = re.compile(r"watchdog: BUG: soft lockup - CPU#(\d+) stuck for "
                          r"(\d+)s! \[([^\]:]+):(\d+)\]")


class KvmNestedEnv(Env):
    name = "kvm-nested"
    l0_in_qemu = True
    default_timeout = 240.0
    # L2's, which L1 watches (KVMRUN_SILENT); L1's own is bounded here
    # by stage_deadline().
    default_silence = float(L2_SILENT_S)
    default_cpu = "host"
    panic_ends_run = False
    debugcon = False
    gdb_ok = False
    peer_ok = True

    def __init__(self, args):
        super().__init__(args)
        # L1's Linux (tools/boot --l1-linux; bootlib/l1ver.py).
        self.l1 = l1ver.get(getattr(args, "l1_linux", None))
        # The Linux peer (--peer linux) runs after shimk's L2, in its own
        # share of the timeout, on top of shimk's.
        self.peer = peer.Peer(bool(args.peer), "L1")
        self.peer_share = 0
        if args.peer:
            self.peer_share = peer.share(args)
        self.peer_piece = None
        self.stage = None           # L1's last progress line
        self.l2_started = False
        self.verdict = None
        self.l2_rc = None
        self.exit_code = None
        self.dump = None
        # L1's sample of L2 a few seconds into a stalled shootdown:
        # shimk's warning line, then the kvm-dump lines (None: none).
        self.stall_warning = None
        self.stall = None
        self.stall_open = False
        self.stall_said = False     # the verdict carries it already
        self.l1_panic = None
        self.l1_errors = []
        self.retry_reason = None
        # The last line from L1's /init (its own words, L2's console, the
        # peer's, a dump): what shows that its watch still runs.
        self.last_line = None
        self.l1_lockup = None       # L1's first soft lockup report
        self.stuck_bound = None     # s of quiet that stage_deadline allowed
        self.monitor = None         # the outer QEMU's monitor socket
        self.l1_dump = []
        self.end = int(max(L1_MIN_END_S, self.timeout - L1_END_MARGIN_S))
        self.peer_end = self.end + self.peer_share
        self.timeout += self.peer_share
        # L1 bounds L2's silence; this side bounds L1's (stage_deadline).
        self.l2_silence = self.silence or L2_SILENT_S
        self.silence = None
        # shimk's own lines (the backstop reports on them, not on L1's).
        self.l2_progress = bounds.Progress(time.monotonic())
        self.state_at = None        # when L1 began its report on L2
        self.saving = False         # L1 is saving L2's memory
        self.mem_saved = None       # bytes of L2's memory on the disk
        self.mem_why = None         # why not
        self.scratch = None         # the scratch disk's file
        # --lifecycle: L1's report of each step (step, rc, s, what), and
        # shimk's resume lines (CPU numbers) and dropped areas.
        self.lifecycle_done = []
        self.lifecycle_resumes = []
        self.lifecycle_drops = []

    def warn_unused(self):
        if self.a.xen_append:
            note("--xen-append ignored outside the Xen environments")

    def prepare(self, tmp):
        self.warn_unused()
        if self.peer.wanted:
            peer.require_initramfs()
        common.run_builder("kvm-l1", "kvm-l1: ", "nested KVM L1", 1800,
                           ("--linux", self.l1.name))
        if self.peer.wanted:
            # L1's own kernel is the peer's: Debian's 6.1, an ELF that
            # QEMU boots through its PVH note (no emulated unpacking).
            self.peer_piece = peer.cached_archive(
                "l1-peer.cpio" if self.l1.name == l1ver.DEFAULT else
                "l1-peer-%s.cpio" % self.l1.name, [
                ("kvm-run/peer", 0o040755, None),
                ("kvm-run/peer/vmlinux", 0o100644, self.l1.kernel),
                ("kvm-run/peer/initramfs.cpio", 0o100644,
                 peer.PEER_INITRAMFS),
                ("kvm-run/peer/run", 0o100644, L1_PEER_RUN)])

    def l2_cpu(self):
        return self.a.cpu or self.default_cpu

    def qemu_memory(self):
        if self.peer.wanted:
            return max(L1_MIN_MIB, peer.peer_mem(self.mem) + L1_EXTRA_MIB +
                       L1_PEER_EXTRA_MIB)
        return max(L1_MIN_MIB, self.mem + L1_EXTRA_MIB)

    def qemu_cpus(self):
        # L1's vCPUs: fewer than shimk's overcommits them.
        return self.a.host_cpus or self.a.smp

    def outer_cpu(self):
        # L1's CPU; --cpu is L2's, which L1's own QEMU runs.
        return "max"

    def outer_accel(self):
        return os.environ.get("SHIMK_NESTED_ACCEL", "tcg")

    def machine_args(self):
        return ["-smp", str(self.qemu_cpus()), "-accel", self.outer_accel(),
                "-cpu", self.outer_cpu()]

    def initrd(self, tmp):
        with open(ELF, "rb") as f:
            elf = f.read()
        silent = min(self.l2_silence, max(10, self.end - 10))
        params = ("KVMRUN_SMP=%d\nKVMRUN_MEM=%d\nKVMRUN_CPU=%s\n"
                  "KVMRUN_END=%d\nKVMRUN_SILENT=%d\nKVMRUN_DUMP_MIB=%d\n"
                  % (self.a.smp, self.mem, self.l2_cpu(), self.end, silent,
                     self.dump_mib()))
        if getattr(self.a, "lifecycle", ()):
            params += ("KVMRUN_LIFECYCLE='%s'\nKVMRUN_LC_AFTER='%s'\n"
                       % (" ".join(self.a.lifecycle),
                          lifecycle_trigger(self.a.append)))
        files = [
            ("kvm-run", 0o040755, None),
            ("kvm-run/shimk.elf", 0o100644, elf),
            ("kvm-run/append", 0o100644, self.a.append.encode())]
        more = []
        if self.peer.wanted:
            # The peer's files are a cached archive after this one; its
            # command line and bounds are per run.
            params += ("KVMRUN_PEER_MEM=%d\nKVMRUN_PEER_END=%d\n"
                       "KVMRUN_PEER_SILENT=%d\n"
                       % (peer.peer_mem(self.mem), self.peer_end,
                          peer.PEER_SILENT_S))
            files.append(("kvm-run/peer-append", 0o100644,
                          peer.cmdline(self.a, "ttyS0").encode()))
            more.append(self.peer_piece)
        files.append(("kvm-run/params", 0o100644, params.encode()))
        if self.initrd_file:
            # L1's QEMU passes it to shimk with -initrd (tools/kvm-l1-init).
            with open(self.initrd_file, "rb") as f:
                files.append(("kvm-run/initrd", 0o100644, f.read()))
        run = common.newc(files)
        return common.initrd_with(self.l1.initramfs, run,
                                  os.path.join(tmp, "kvm-initrd.cpio"), more)

    def dump_mib(self):
        """MiB of L2's memory L1 saves at a fault (0: none)."""
        return self.mem if self.mem <= DUMP_MAX_MIB else 0

    def scratch_args(self, tmp):
        """The outer QEMU's scratch disk, L1's /dev/vda: a sparse file
        that L1 fills with L2's memory only when L2 fails."""
        if not self.dump_mib():
            return []
        self.scratch = os.path.join(tmp, "l2-memory.raw")
        with open(self.scratch, "wb") as f:
            f.truncate(self.dump_mib() << 20)
        # virtio-blk on the PCI bus (QEMU's docs/system/devices/
        # virtio-blk.rst); cache=unsafe: the file is thrown away with the
        # run, so no flush needs to reach the host's disk.
        return ["-drive", "file=%s,format=raw,if=none,id=l2mem,"
                "cache=unsafe" % self.scratch.replace(",", ",,"),
                "-device", "virtio-blk-pci,drive=l2mem"]

    def boot_args(self, tmp):
        if re.search(r"[\s'\"\\$`]", self.l2_cpu()):
            note("--cpu '%s': a blank or shell character cannot go into "
                 "L1's QEMU command" % self.l2_cpu())
            raise SystemExit(2)
        # The outer QEMU's monitor, for L1's state should L1 stop; a
        # second -monitor beside the runner's "-monitor none".
        self.monitor = os.path.join(tmp, "l0-monitor.sock")
        return ["-kernel", os.path.relpath(self.l1.kernel, common.ROOT),
                "-initrd", self.initrd(tmp),
                "-append", L1_ARGS,
                "-monitor", "unix:%s,server=on,wait=off" % self.monitor] + \
            self.scratch_args(tmp)

    def line(self, run, text):
        now = time.monotonic()
        m = L1_LOCKUP_RE.search(text)
        if m:
            # Not progress: L1's kernel saying that it is stuck (a report
            # every 28 s once kept a stopped L1 "alive" to the backstop).
            if self.l1_lockup is None:
                self.l1_lockup = (int(m.group(1)), m.group(3),
                                  int(m.group(2)))
            return
        if not (text.startswith(peer.LINE_PREFIX) or
                text.startswith(L2_PREFIX) or
                text.startswith(DUMP_PREFIX) or RUN_RE.match(text)):
            # L1's kernel: for the log, and not a sign of its /init.
            if L1_PANIC_RE.search(text) and self.l1_panic is None:
                self.l1_panic = text.strip()
                run.stop_after(2.0, "l1-panic")
            return
        self.last_line = now
        if text.startswith(peer.LINE_PREFIX):
            self.peer.console_line(run, text[len(peer.LINE_PREFIX):])
            return
        if text.startswith(L2_PREFIX):
            l2 = text[len(L2_PREFIX):]
            m = RESUME_RE.match(l2)
            if m:
                self.lifecycle_resumes.append(int(m.group(1)))
            elif RESUME_DROP_RE.match(l2):
                self.lifecycle_drops.append(l2.strip())
            self.l2_progress.line(self.last_line, text[len(L2_PREFIX):])
            run.guest_line(text[len(L2_PREFIX):])
            return
        if text.startswith(DUMP_PREFIX):
            if self.stall_open:
                self.stall.append(text[len(DUMP_PREFIX):])
            elif self.dump is not None:
                self.dump.append(text[len(DUMP_PREFIX):])
            return
        self.l1_line(RUN_RE.match(text).group(1))

    def l1_line(self, what):
        m = NESTED_LIFECYCLE_RE.match(what)
        if m:
            step, rc, at, last = m.groups()
            self.lifecycle_done.append((step, int(rc), int(at), last))
            note("lifecycle: L1's %s of L2's QEMU took %s s: rc %s%s"
                 % (step, at, rc, " (%s)" % last if last else ""))
            return
        if what.startswith("peer "):
            self.peer_line(what[len("peer "):])
            self.stage = what
            return
        m = VERDICT_RE.match(what)
        if m:
            self.verdict = what
            if m.group(2) is not None:
                self.l2_rc = int(m.group(2))
            return
        m = EXIT_RE.match(what)
        if m:
            self.exit_code = int(m.group(1))
            return
        if what.startswith("stall sample follows: "):
            self.stall_warning = what[len("stall sample follows: "):]
            self.stall = []
            self.stall_open = True
            return
        if what == "stall sample end":
            self.stall_open = False
            return
        if what.startswith("l2 state follows") or \
                what.startswith("no progress"):
            self.dump = []
            self.state_at = time.monotonic()
        elif what.startswith("saving memory"):
            self.saving = True
        elif what.startswith("memory saved: "):
            self.saving = False
            self.mem_saved = int(MEM_SAVED_RE.match(what).group(1))
        elif what.startswith("memory not saved: "):
            self.saving = False
            self.mem_why = what[len("memory not saved: "):]
        elif what.startswith("l2 start"):
            self.l2_started = True
        elif what.startswith("qemu stderr: ") or what.startswith("port "):
            if not QEMU_NOISE_RE.search(what):
                self.l1_errors.append(what)
        self.stage = what

    def peer_line(self, what):
        """L1's words on the peer (tools/kvm-peer-run)."""
        if what.startswith("start: "):
            self.peer.started = True
        elif what.startswith("qemu stderr: "):
            if not QEMU_NOISE_RE.search(what):
                self.l1_errors.append("peer " + what)
        elif re.match(r"^(exit \d+|silent .*|timeout after .*|error .*)$",
                      what):
            self.peer.verdict = what

    def peer_judge(self, status, why):
        return self.peer.judge(status, why)

    def stage_deadline(self, run, start):
        if not self.l2_started:
            return start + L1_START_S, "l1-start"
        if self.verdict is None and self.exit_code is None:
            if self.saving:
                return self.last_line + L1_MEM_SAVE_S, "l1-stuck"
            if self.dump is not None:
                return self.last_line + L1_DUMP_GAP_S, "l1-stuck"
            self.stuck_bound = self.l2_silence + L1_REPORT_S
            return self.last_line + self.stuck_bound, "l1-stuck"
        if self.peer.started and self.peer.verdict is None and \
                self.exit_code is None:
            # L1 watches the peer as it watches L2, with the peer's bound.
            self.stuck_bound = peer.PEER_SILENT_S + L1_REPORT_S
            return self.last_line + self.stuck_bound, "l1-stuck"
        return None, None

    def stage_missed(self, run, why):
        if why == "l1-stuck":
            self.l1_dump = self.dump_l1(run)

    def dump_l1(self, run):
        """L1's vCPUs from the outer QEMU's monitor, into the log."""
        lines = []
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.settimeout(L0_DUMP_S)
                s.connect(self.monitor)
                s.sendall(b"info registers -a\n")
                end = time.monotonic() + L0_DUMP_S
                data = b""
                while time.monotonic() < end:
                    try:
                        chunk = s.recv(65536)
                    except socket.timeout:
                        break
                    if not chunk:
                        break
                    data += chunk
                    if data.count(b"CPU#") >= self.qemu_cpus() and \
                            data.rstrip().endswith(b"(qemu)"):
                        break
        except OSError as e:
            run.logline("### L1 stopped; the outer QEMU's monitor: %s" % e)
            return []
        run.logline("### L1 stopped; its vCPUs (outer QEMU monitor):")
        for line in data.decode("utf-8", "replace").splitlines():
            run.logline(line.rstrip("\r"))
            lines.append(line.rstrip("\r"))
        return lines

    def where(self):
        if self.stage is None:
            return "L1's /init never ran"
        return "L1's last word: '%s'" % self.stage

    def diagnosis(self, run, what="shimk stuck"):
        text, l0_fault = kvm_stall.diagnose(
            self.dump or [], kvm_stall.exec_ranges(ELF), symbolizer(ELF),
            what, memory=self.memory(run), code_at=kvm_stall.code_reader(ELF),
            loop_at=kvm_stall.loop_reader(ELF))
        if l0_fault:
            self.retry_reason = text
        return text

    def l1_reset(self, run):
        """The outer QEMU ran L1 with -no-reboot and exited 0 while L1's
        init had said neither a verdict nor its exit code: L1 was reset
        (its own triple fault, or a reboot). L1's kernel is part of the
        L0 and no guest of its KVM can reset it (as with its panic), so
        this is the L0's fault whatever shimk did; what L1 had dumped of
        L2 by then is added, as evidence of where it went wrong."""
        text = ("L0 fault: L1 itself reset (the outer QEMU, which runs it "
                "with -no-reboot, exited 0 before L1's init gave a verdict "
                "or an exit code), %s" % self.where())
        if self.dump:
            text += "; L2 as L1 last dumped it: %s" % self.diagnosis(run)
        self.retry_reason = text
        return text

    def memory(self, run):
        """kvm_stall.Memory: memcheck's verdict on L2's saved memory."""
        if self.mem_saved is None:
            return kvm_stall.Memory("unchecked", "L2's memory was not saved"
                                    " (%s)" % (self.mem_why or
                                               "L1 did not say why"))
        run.logline("### L2's memory on the scratch disk: %s"
                    % self.scratch_summary())
        try:
            from bootlib import memcheck
        except ImportError as e:
            return kvm_stall.Memory("unchecked", "no memory reader "
                                    "(bootlib/memcheck.py): %s" % e)
        d = kvm_stall.parse(self.dump or [])
        final = d.final()
        self.keep(run, final)
        try:
            mem = memcheck.open_dump(self.scratch)
            vcpus = memcheck.parse_qemu_registers(final.lines if final
                                                  else [])
            # KVM reset a triple-faulting vCPU; the probe kept its state.
            for n, fields in d.probes.items():
                vcpus[n] = kvm_stall.probe_vcpu(memcheck.VcpuRegs, n, fields)
            verdict = memcheck.check(mem, vcpus, ELF, symbolizer(ELF))
        except Exception as e:  # noqa: BLE001 - any failure is unchecked
            run.logline("### memory check failed: %r" % e)
            return kvm_stall.Memory("unchecked", "the memory check failed: "
                                    "%s" % e)
        run.logline("### memory check of L2's %d bytes: %s"
                    % (self.mem_saved, verdict.text))
        for f in verdict.findings:
            run.logline("###   %s" % f)
        return kvm_stall.Memory.of_verdict(verdict)

    def keep(self, run, final):
        """With SHIMK_DUMP_DIR set (as bootlib/faultdump.py reads it),
        keep L2's memory, the ELF and the registers, for memcheck.py's
        command line."""
        keep = os.environ.get("SHIMK_DUMP_DIR")
        if not keep:
            return
        os.makedirs(keep, exist_ok=True)
        base = os.path.join(keep, "shimk-l2-%s-%d" % (
            time.strftime("%Y%m%d-%H%M%S"), os.getpid()))
        with open(self.scratch, "rb") as src, \
                open(base + ".raw", "wb") as dst:
            left = self.mem_saved
            while left > 0:
                chunk = src.read(min(left, 1 << 20))
                if not chunk:
                    break
                dst.write(chunk)
                left -= len(chunk)
        shutil.copyfile(ELF, base + ".elf")
        with open(base + ".regs", "w") as f:
            f.write("\n".join(final.lines if final else []) + "\n")
            # The triple-faulting vCPU's state, from the probe.
            f.write("\n".join(l for l in self.dump or []
                              if "l2_shutdown:" in l) + "\n")
        run.logline("### kept %s.raw, .elf and .regs" % base)

    def scratch_summary(self):
        """How much of the saved memory is not zero: an empty disk means
        that L1's save never reached it."""
        try:
            with open(self.scratch, "rb") as f:
                data = f.read(self.mem_saved)
        except OSError as e:
            return "unreadable: %s" % e
        zero = bytes(4096)
        pages = sum(1 for o in range(0, len(data), 4096)
                    if data[o:o + 4096] != zero)
        return "%d bytes, %d of %d pages not zero" % (
            len(data), pages, (len(data) + 4095) // 4096)

    def judge(self, run, rc, killed):
        if killed == "l1-panic":
            # L1's kernel is part of the L0: shimk, as L2, cannot write
            # its memory, and KVM must keep any guest from crashing it.
            # Its own panic line is the evidence.
            text = ("L0 fault: L1's kernel panicked (%s), %s"
                    % (self.l1_panic, self.where()))
            self.retry_reason = text
            return 2, text
        if killed == "l1-stuck":
            text, _ = kvm_stall.diagnose(
                self.l1_dump, [], None,
                l1_stuck=max(1, int(self.stuck_bound or 1)),
                l1_lockup=self.l1_lockup)
            self.retry_reason = text
            return 2, "%s; %s" % (text, self.where())
        if killed == "l1-start":
            # shimk never ran: whatever stopped L1 before it started L2
            # is the L0's, and L1's own lockup report says where.
            lockup = ""
            if self.l1_lockup:
                lockup = ("; L1's kernel reported its CPU%d stuck in kernel "
                          "mode for %d s in task %s"
                          % (self.l1_lockup[0], self.l1_lockup[2],
                             self.l1_lockup[1]))
            text = ("L0 fault: L2 not started within %g s, so shimk never "
                    "ran: %s%s" % (L1_START_S, self.where(), lockup))
            self.retry_reason = text
            return 2, text
        if killed == "backstop":
            return bounds.at_backstop(self.l2_progress, run.ended,
                                      self.timeout, self.budget,
                                      run.finished(), self.where())
        if killed:
            return console.judge(run, rc, killed, self.timeout)
        if rc < 0:
            return 2, "QEMU killed by signal %d" % -rc
        if self.verdict is None:
            if rc == 1 and not run.lines and run.qemu_stderr():
                return 2, "QEMU exited 1 before any console output"
            if rc == 0 and self.l2_started and self.exit_code is None:
                return 2, self.l1_reset(run)
            return 2, "QEMU exited %d without L1's verdict: %s" % (
                rc, self.where())
        # L1 leaves with L2's code, or 127 for anything else.
        want = 127
        if self.l2_rc is not None and self.l2_rc % 2:
            want = (self.l2_rc - 1) // 2
        if self.exit_code != want or rc != (want << 1) | 1:
            return 2, ("L1 said '%s' but the outer QEMU exited %d, not %d: "
                       "L1's exit through port 0xf4 failed"
                       % (self.verdict, rc, (want << 1) | 1))
        if self.verdict.startswith("error "):
            return 2, "L1: %s" % self.verdict[len("error "):]
        if self.verdict == "l2 shutdown":
            return 2, "L2 triple fault or reset: %s" % self.diagnosis(
                run, "shimk's state")
        if self.verdict.startswith("timeout"):
            # L1's end of the run, just before the backstop: L2 was
            # still running, and the backstop is no verdict on it.
            return bounds.at_backstop(
                self.l2_progress, self.state_at or run.ended, self.timeout,
                self.budget, run.finished(),
                "L1 stopped L2 at %d s of its uptime" % self.end)
        if self.l2_rc is None:
            why = "L2 %s: %s" % (self.verdict, self.diagnosis(run))
            if run.finished():
                why += "; shimk's tests had finished (%s) but its exit " \
                       "did not arrive" % run.finished()
            return 2, why
        rc, why = console.judge(run, self.l2_rc, None, self.timeout)
        if rc == 0:
            lifecycle = nested_lifecycle_verdict(
                getattr(self.a, "lifecycle", ()), self.lifecycle_done,
                self.lifecycle_resumes, self.lifecycle_drops, self.a.smp)
            if lifecycle:
                return 2, lifecycle
        if rc == 2 and self.stall is not None:
            fault = kvm_stall.stall_fault(
                self.stall_warning, self.stall, kvm_stall.exec_ranges(ELF),
                kvm_stall.code_reader(ELF), kvm_stall.loop_reader(ELF))
            self.stall_said = True
            if fault:
                # shimk's panic is the wait's verdict on a target that
                # its L0 never let answer: the L0's fault, shown.
                self.retry_reason = "%s (then shimk: %s)" % (fault, why)
                return 2, self.retry_reason
            why += "; while CPUs were silent to a flush, L1 saw: %s" % (
                self.stall_text())
        return rc, why

    def stall_text(self):
        return kvm_stall.stall_summary(self.stall_warning, self.stall,
                                       kvm_stall.exec_ranges(ELF),
                                       symbolizer(ELF),
                                       kvm_stall.code_reader(ELF),
                                       kvm_stall.loop_reader(ELF))

    def report(self, run, rc, killed):
        if self.stall is not None and not self.stall_said:
            note("while CPUs were silent to a flush, L1 saw: %s"
                 % self.stall_text())
        for err in self.l1_errors:
            note("L1: %s" % err)
        super().report(run, rc, killed)


class HypervNestedEnv(KvmNestedEnv):
    """The same L0 with KVM's Hyper-V enlightenments for L2."""

    name = "hyperv-nested"

    def l2_cpu(self):
        return self.a.cpu or "host," + ",".join((HV_FLAGS,) +
                                                self.l1.hv_extra)
