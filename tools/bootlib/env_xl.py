# SPDX-License-Identifier: GPL-2.0-only
# tools/boot --env xl: shimk as an unprivileged PVH domU that xl starts.
#
# Xen with a Linux PV dom0 (tools/xl-dom0) whose /init (tools/xl-dom0-init)
# runs `xl create` and reports the domU's console and fate on the serial.

import gzip
import os
import re
import shutil
import sys
import time

from bootlib import (common, console, faultdump, linuxcheck, memcheck,
                     peer, xen_triple, xenver)
from bootlib.common import ELF, note
from bootlib.env_xen import (XEN_GUEST_RE, XEN_LINE_RE, XEN_PANIC_GRACE_S,
                             XEN_SCHED_ARGS, XenEnv, dom0_crashed)

# tools/xl-dom0's outputs, in the Xen version's dom0 folder
# (bootlib/xenver.py: build/xl/ for 4.17, build/xl/4.20/ for 4.20).
XL_KERNEL_NAME = "dom0-kernel"
XL_INITRAMFS_NAME = "initramfs.cpio.gz"
# The Linux peer's runner, sourced by dom0's init after shimk's domU.
XL_PEER_RUN = os.path.join(common.ROOT, "tools", "xl-peer-run")
XL_PEER_NAME = "linux-peer"
# dom0's own memory: enough for the toolstack and the initramfs, fixed so
# that --mem is the domU's alone.
XL_DOM0_MEM_MIB = 512
# QEMU's memory beyond dom0 and the domU: Xen, its heap, the modules.
XL_QEMU_EXTRA_MIB = 384
# Time from QEMU's start to dom0's init running xl create. About 8-10 s on
# an idle 2-core host; the rest is room for a loaded one.
XL_START_S = 150.0
# dom0 must stop the domU this long before the run's backstop, so that its
# verdict and the domU's console still reach us: Xen's boot before dom0's
# clock starts (3.5-5 s), xl dmesg and xl destroy (1-6 s), the console
# through the serial (1-13 s seen on a loaded host).
XL_END_MARGIN_S = 40
# Never less than this for the domU, whatever the timeout.
XL_MIN_END_S = 10
# A memory dump at a triple fault must be done this long after the domU's
# end (dom0's uptime), leaving the rest of XL_END_MARGIN_S for the report
# and for Xen's own boot before dom0's clock starts (15-25 s seen under
# load). A fault near the end may so go without its memory, said so; an
# early one (the usual) has time.
XL_DUMP_S = 5
# The scratch disk that carries the dump (tools/xl-dom0-init fault_dump):
# the domU's memory plus room for the dump's headers and page list.
XL_SCRATCH_EXTRA_MIB = 64
# Set to "always" to dump the domU's memory whatever its end (to record a
# dump of a sound run, e.g. for tests/unit/fixtures).
XL_DUMP_ENV = "SHIMK_XL_DUMP"
# Without -smap, Linux PV dom0 crashes at its first iretq under QEMU 7.2 TCG.
XL_CPU = "max,-smap"
XL_NAME = "shimk"
# dom0's kernel command line; no commas (QEMU's -initrd separator).
XL_DOM0_ARGS = "console=hvc0 earlyprintk=xen"
# dom0's report on hvc0 (Xen prints it unprefixed on the serial).
XL_DOMU_PREFIX = "shimk-domU| "
# xen-hvmctx's CPU records of a faulted domU (every vCPU's registers).
XL_HVMCTX_PREFIX = "xl-hvmctx| "
# The same of a faulted Linux peer (tools/xl-peer-run).
XL_PEER_HVMCTX_PREFIX = "xl-peer-hvmctx| "
XL_DUMP_OK_RE = re.compile(r"^dump memory ok (\d+) s, pages (\d+) holes "
                           r"(\d+)$")
XL_DUMP_HOLE_RE = re.compile(r"^dump hole (0x[0-9a-f]+|0)-(0x[0-9a-f]+|0)$")
XL_RUN_RE = re.compile(r"^xl-run: (.*)$")
XL_VERDICT_RE = re.compile(
    r"^(domain shut down, reason \S+|timeout after .*|error .*)$")
XL_EXIT_RE = re.compile(r"^exit (\d+)$")
XL_REASON_CODE = {"poweroff": 0, "reboot": 1, "crash": 2}
# tools/boot --lifecycle: what dom0 does to the running domU, in order
# (tools/xl-dom0-init, lifecycle_poll), and its report of each:
# "lifecycle <step> rc <N> at <S> s: <xl's last line>".
LIFECYCLE_STEPS = ("shutdown", "reboot", "save-restore", "migrate",
                   "checkpoint")
XL_RESUMED_RE = re.compile(r"^lifecycle resumed after (\d+) s$")
# A checkpoint's end: shimk said its suspend was cancelled.
XL_WENT_ON_RE = re.compile(r"^lifecycle went on after (\d+) s$")
# The boot summary's start (docs/design.md#boot-summary), counted.
BOOT_SUMMARY_RE = re.compile(r"^(?:\(d\d+\) )?shimk: boot hv=")
XL_LIFECYCLE_RE = re.compile(r"^lifecycle (\S+) rc (\d+) at (\d+) s: ?(.*)$")
# A Linux dom0 that panics ends up as "Hardware Dom0 crashed" a few seconds
# later; dom0 powering off leaves Xen halted and QEMU running.
DOM0_FAIL_RE = re.compile(r"Kernel panic - not syncing|Hardware Dom0 halted")
# Under xl a crashing domU is no Xen failure: no domain_crash here.
XL_XEN_PANIC_RE = re.compile(
    r"Panic on CPU|Manual reset required|Domain 0 crashed|Dom0 crashed")


def xl_quote(text):
    """A double-quoted xl config string (libxlu takes C-like escapes)."""
    return '"%s"' % text.replace("\\", "\\\\").replace('"', '\\"')


def xl_config(a, mem, ramdisk=False):
    extra = (("ramdisk", '"/xl-run/initrd.cpio"'),) if ramdisk else ()
    # xl reboot must start the domain again; a triple fault (Xen's
    # reboot) then shows as a boot too many, which the run counts.
    restart = "reboot" in getattr(a, "lifecycle", ())
    return xl_domain(extra + (
        ("name", xl_quote(XL_NAME)),
        ("type", '"pvh"'),
        ("kernel", '"/xl-run/shimk.elf"'),
        ("memory", str(mem)),
        ("maxmem", str(mem)),
        ("vcpus", str(a.smp)),
        ("cmdline", xl_quote(a.append))), restart)


def xl_peer_config(a, mem):
    """The Linux peer: Debian's 6.1, the same vCPUs, as a PVH domU.

    Its kernel is dom0's own (the gzip'd ELF vmlinux of tools/xl-dom0,
    which libxl's PVH builder unpacks), its ramdisk tlbpeer's initramfs.
    RDTSCP is hidden from it: Xen traps the TSC of its HVM guests here,
    and QEMU 7.2's TCG reports a trapped RDTSCP as an RDTSC exit, which
    Xen 4.17 then fails to emulate ("SVM Insn len emulation failed"), so
    Linux's first rdtsc_ordered() faulted. Without it Linux reads the TSC
    with LFENCE; RDTSC, as tlbpeer and shimk do.
    """
    return xl_domain((
        ("name", xl_quote(XL_PEER_NAME)),
        ("type", '"pvh"'),
        ("cpuid", '"host,rdtscp=0"'),
        ("kernel", '"/xl-run/peer/kernel"'),
        ("ramdisk", '"/xl-run/peer/initramfs.cpio"'),
        ("memory", str(mem)),
        ("maxmem", str(mem)),
        ("vcpus", str(a.smp)),
        ("cmdline", xl_quote(peer.cmdline(a, "hvc0")))))


def xl_domain(keys, restart=False):
    return "".join("%s = %s\n" % kv for kv in keys + (
        # Preserve, so that xenconsoled drains the ring before dom0's
        # init destroys the domain; reboot restarts it only for
        # --lifecycle reboot.
        ("on_poweroff", '"preserve"'),
        ("on_reboot", '"restart"' if restart else '"preserve"'),
        ("on_crash", '"preserve"'),
    ))


def xl_vcpus(hvmctx, nr):
    """memcheck's vCPUs from dom0's xen-hvmctx lines, for a domU of nr.

    Xen saves no record for a vCPU that is down (hvm_save_cpu_ctxt,
    xen/arch/x86/hvm/hvm.c): one shimk never started. It is given paging
    off, which memcheck skips and says so.
    """
    vcpus = memcheck.parse_xen_hvmctx(hvmctx)
    for n in range(nr):
        if n not in vcpus:
            vcpus[n] = memcheck.VcpuRegs(n, cr0=0)
    return vcpus


# dom0's report after it stopped a silent peer: the kill, the console's
# drain (bounded by tools/xl-peer-run) and its verdict line.
XL_PEER_REPORT_S = 60
# The peer's memory dump at a triple fault (tools/xl-peer-run peer_dump):
# 256 MiB, at 7-11 s per 128 MiB under TCG (tools/xl-memdump.c), with
# room for a loaded host.
XL_PEER_DUMP_S = 60


class XlEnv(XenEnv):
    name = "xl"
    default_mem = 128
    # shimk's longest quiet stretch here, or dom0's after the domU is gone
    # (console drain, xl dmesg and xl destroy: up to 53 s by their bounds
    # in tools/xl-dom0-init), whichever is longer, with room to spare.
    default_silence = 120.0
    default_cpu = XL_CPU
    panic_re = XL_XEN_PANIC_RE
    # The domU is long gone when its PANIC line shows: dom0 bounds its run
    # and reports.
    panic_ends_run = False

    peer_ok = True

    def __init__(self, args):
        super().__init__(args)
        # dom0's kernel (also the Linux peer's), of the Xen version's suite.
        self.dom0_kernel = os.path.join(self.xen.dom0_dir, XL_KERNEL_NAME)
        # The Linux peer (--peer linux) runs after shimk's domU, in its
        # own share of the timeout, on top of shimk's.
        self.peer = peer.Peer(bool(args.peer), "dom0")
        self.peer_share = 0
        if args.peer:
            self.peer_share = peer.share(args)
        self.peer_piece = None
        # dom0's stages (see tools/xl-dom0-init) and its report.
        self.xl_init = False
        self.xl_create_at = None
        self.xl_console = None
        self.xl_verdict = None
        self.xl_exit = None
        self.xl_errors = []
        self.dom0_fail = None
        # A triple fault's evidence: shimk's domid, every vCPU's
        # registers, the memory on the scratch disk and memcheck's word.
        self.domid = None
        self.hvmctx = []
        self.scratch = None
        self.memory = None
        self.dump_error = None
        self.dump_holes = []
        # --lifecycle: dom0's report of each step, (step, rc, seconds).
        self.lifecycle_done = []
        self.lifecycle_resumed = []  # s from each save to shimk's resume
        self.lifecycle_went_on = []  # s from each checkpoint to its cancel
        # shimk's boot summaries on the domU's console: one per boot.
        self.boots = 0
        # dom0's uptime by which the domU must be gone, then the peer.
        self.end = int(max(XL_MIN_END_S, self.timeout - XL_END_MARGIN_S))
        self.peer_end = self.end + self.peer_share
        self.timeout += self.peer_share
        # The Linux peer's registers, memory and memory verdict at a
        # triple fault (linuxcheck.py).
        self.peer_hvmctx = []
        self.peer_holes = []
        self.peer_memory = None
        self.peer_dump_error = None
        if self.peer.wanted:
            self.timeout += XL_PEER_DUMP_S

    def prepare(self, tmp):
        if any(c in self.a.append for c in "\n\r\0"):
            note("--append: a line break or NUL cannot go into xl's "
                 "cmdline=")
            sys.exit(2)
        if self.peer.wanted:
            peer.require_initramfs()
        super().prepare(tmp)
        common.run_builder("xl-dom0", "xl-dom0: ", "xl dom0", 1800,
                           ("--xen", self.xen.name))
        if self.peer.wanted:
            # The peer's kernel is dom0's: one archive per Xen version.
            name = ("xl-peer.cpio" if self.xen.name == xenver.DEFAULT else
                    "xl-peer-%s.cpio" % self.xen.name)
            self.peer_piece = peer.cached_archive(name, [
                ("xl-run/peer", 0o040755, None),
                ("xl-run/peer/kernel", 0o100644, self.dom0_kernel),
                ("xl-run/peer/initramfs.cpio", 0o100644,
                 peer.PEER_INITRAMFS),
                ("xl-run/peer/run", 0o100644, XL_PEER_RUN)])

    def xen_args(self):
        """Xen's command line: a PV dom0 of fixed size."""
        # One vCPU for dom0: each of its vCPUs is another QEMU thread that
        # slows the domU down under TCG (smp 4: 53 s instead of 13 s).
        args = ("console=com1 loglvl=all guest_loglvl=all "
                "dom0_mem=%dM,max:%dM dom0_max_vcpus=1 %s"
                % (XL_DOM0_MEM_MIB, XL_DOM0_MEM_MIB, XEN_SCHED_ARGS))
        if self.a.xen_append.strip():
            args += " " + self.a.xen_append.strip()
        return args

    def qemu_memory(self):
        # The peer comes after shimk's domU is gone, in the same room.
        domu = peer.peer_mem(self.mem) if self.peer.wanted else self.mem
        if "migrate" in getattr(self.a, "lifecycle", ()):
            # The receiving domain is built while the sender still runs.
            domu += self.mem
        return XL_DOM0_MEM_MIB + domu + XL_QEMU_EXTRA_MIB

    def qemu_cpus(self):
        # One CPU for dom0 beside the domU's vCPUs.
        return self.a.host_cpus or max(2, self.a.smp + 1)

    def initrd(self, tmp):
        """dom0's initramfs for this run: build/xl's, plus shimk and its
        config."""
        with open(ELF, "rb") as f:
            elf = f.read()
        params = "XLRUN_END=%d\nDUMP_END=%d\n" % (self.end,
                                                  self.end + XL_DUMP_S)
        if os.environ.get(XL_DUMP_ENV) == "always":
            params += "XLRUN_DUMP=always\n"
        if getattr(self.a, "lifecycle", ()):
            params += "XLRUN_LIFECYCLE='%s'\n" % " ".join(self.a.lifecycle)
        files = [
            ("xl-run", 0o040755, None),
            ("xl-run/shimk.elf", 0o100644, elf),
            ("xl-run/shimk.cfg", 0o100644,
             xl_config(self.a, self.mem, bool(self.initrd_file)).encode())]
        more = []
        if self.peer.wanted:
            # The peer's files are a cached archive after this one; its
            # config and bounds are per run.
            params += "PEER_END=%d\nPEER_SILENT=%d\nPEER_DUMP_END=%d\n" % (
                self.peer_end, peer.PEER_SILENT_S,
                self.peer_end + XL_PEER_DUMP_S)
            files.append(("xl-run/peer.cfg", 0o100644, xl_peer_config(
                self.a, peer.peer_mem(self.mem)).encode()))
            more.append(self.peer_piece)
        files.append(("xl-run/params", 0o100644, params.encode()))
        if self.initrd_file:
            # The domU's initrd: xl's ramdisk=, a PVH start info module.
            with open(self.initrd_file, "rb") as f:
                files.append(("xl-run/initrd.cpio", 0o100644, f.read()))
        run = common.newc(files)
        return common.initrd_with(os.path.join(self.xen.dom0_dir,
                                               XL_INITRAMFS_NAME),
                                  gzip.compress(run, compresslevel=1),
                                  os.path.join(tmp, "xl-initrd.cpio.gz"),
                                  more)

    def boot_args(self, tmp):
        initrd = self.initrd(tmp)
        if re.search(r"[\s,]", initrd):
            note("temporary directory %s has a blank or comma, which "
                 "QEMU's -initrd cannot take" % tmp)
            sys.exit(2)
        # A sparse file: only what dom0 writes takes room. virtio-blk, the
        # one disk QEMU gives the machine, is dom0's /dev/vda.
        self.scratch = os.path.join(tmp, "xl-scratch.img")
        with open(self.scratch, "wb") as f:
            mem = self.mem
            if self.peer.wanted:
                mem = max(mem, peer.peer_mem(self.mem))
            f.truncate((mem + XL_SCRATCH_EXTRA_MIB) << 20)
        # dom0 is PV (no dom0=pvh). QEMU splits -initrd at single commas:
        # the module arguments have none.
        return ["-kernel", self.xen_rel, "-append", self.xargs,
                "-initrd", "%s %s,%s" % (os.path.relpath(self.dom0_kernel,
                                                         common.ROOT),
                                         XL_DOM0_ARGS,
                                         initrd),
                "-drive", "file=%s,format=raw,if=virtio,cache=unsafe"
                % self.scratch]

    def line(self, run, text):
        """Only dom0's report of the domU's console is shown."""
        if text.startswith(peer.LINE_PREFIX):
            self.peer.console_line(run, text[len(peer.LINE_PREFIX):])
            return
        if text.startswith(XL_HVMCTX_PREFIX):
            self.hvmctx.append(text[len(XL_HVMCTX_PREFIX):])
            return
        if text.startswith(XL_PEER_HVMCTX_PREFIX):
            self.peer_hvmctx.append(text[len(XL_PEER_HVMCTX_PREFIX):])
            return
        if text.startswith(XL_DOMU_PREFIX):
            text = text[len(XL_DOMU_PREFIX):]
            if BOOT_SUMMARY_RE.search(text):
                self.boots += 1
            if self.xl_console == "xl-dmesg":
                # Xen's copy of port 0xe9: "(dN) " lines, long ones split.
                m = XEN_GUEST_RE.match(text)
                if m:
                    self.split_guest_line(run, m.group(1))
                return
            run.guest_line(text)
            return
        m = XL_RUN_RE.match(text)
        if m:
            self.xl_run_line(run, m.group(1))
            return
        if XEN_LINE_RE.match(text):
            self.xen_line(run, text[6:])
        elif XEN_GUEST_RE.match(text):
            # Xen's live copy of the domU's port 0xe9: shown from dom0's
            # report later, but what it says about the end counts now
            # (tests done, exit missing, at the silence bound).
            self.guest_seen = True
            run.live_line(XEN_GUEST_RE.match(text).group(1))
        elif DOM0_FAIL_RE.search(text) and self.dom0_fail is None:
            self.dom0_fail = text.strip()
            # Collect the reason that follows, then stop.
            run.stop_after(XEN_PANIC_GRACE_S, "dom0-fail")
        # Anything else (dom0's kernel, xl's messages) is for the log
        # only.

    def xl_run_line(self, run, what):
        if what.startswith("peer "):
            self.peer_line(run, what[len("peer "):])
            return
        if what.startswith("dom0 init start"):
            self.xl_init = True
        elif what.startswith("domid "):
            self.domid = int(what.split()[1])
        elif XL_DUMP_HOLE_RE.match(what):
            m = XL_DUMP_HOLE_RE.match(what)
            self.dump_holes.append((int(m.group(1), 16),
                                    int(m.group(2), 16)))
        elif XL_DUMP_OK_RE.match(what):
            self.read_dump(run, *(int(x) for x in
                                  XL_DUMP_OK_RE.match(what).groups()))
        elif XL_RESUMED_RE.match(what):
            self.lifecycle_resumed.append(int(XL_RESUMED_RE.match(
                what).group(1)))
            note("lifecycle: shimk resumed %s s after the save began"
                 % self.lifecycle_resumed[-1])
        elif XL_WENT_ON_RE.match(what):
            self.lifecycle_went_on.append(int(XL_WENT_ON_RE.match(
                what).group(1)))
            note("lifecycle: shimk went on in the same domain %s s after "
                 "the checkpoint began" % self.lifecycle_went_on[-1])
        elif XL_LIFECYCLE_RE.match(what):
            step, rc, at, last = XL_LIFECYCLE_RE.match(what).groups()
            self.lifecycle_done.append((step, int(rc), int(at)))
            note("lifecycle: xl %s at %s s of the domU's run: rc %s%s"
                 % (step, at, rc, " (%s)" % last if last else ""))
        elif what.startswith("dump error "):
            self.dump_error = "dom0's dump failed: %s" % what[len(
                "dump error "):]
        elif what.startswith("create ") and self.xl_create_at is None:
            self.xl_create_at = time.monotonic()
        elif what.startswith("console "):
            self.xl_console = what[len("console "):].strip()
            self.end_of_output(run)
        elif XL_VERDICT_RE.match(what):
            self.end_of_output(run)
            self.xl_verdict = what
        elif XL_EXIT_RE.match(what):
            self.xl_exit = int(XL_EXIT_RE.match(what).group(1))
        if what.startswith("xl destroy") or what.startswith("port 0xf4"):
            self.xl_errors.append(what)

    def read_dump(self, run, seconds, pages, holes):
        """dom0 wrote the domain's memory onto the scratch disk: read it
        now, while the run's temporary directory is there."""
        vcpus = xl_vcpus(self.hvmctx, self.a.smp)
        listed = sum(b - a + 1 for a, b in self.dump_holes)
        if listed != holes:
            # dom0 lists at most 64 ranges: a frame not known to be a hole
            # must not be read as zeros.
            self.dump_error = ("dom0 listed %d of the dump's %d missing "
                               "frames" % (listed, holes))
            run.logline("### no memory verdict: %s" % self.dump_error)
            return
        try:
            with memcheck.RawMem(self.scratch, pages * memcheck.PAGE,
                                 self.dump_holes) as mem:
                self.memory = memcheck.check(mem, vcpus, ELF)
        except OSError as e:
            self.dump_error = "the memory dump could not be read: %s" % e
            run.logline("### no memory verdict: %s" % self.dump_error)
            return
        run.logline("### memory (xl-memdump of d%s: %d pages, %d missing, "
                    "%d s in dom0):" % (self.domid, pages, holes, seconds))
        for f in self.memory.findings:
            run.logline("###   " + f)
        self.keep_dump(run, pages)

    def keep_dump(self, run, pages, who="shimk", elf=ELF, regs=None):
        """With SHIMK_DUMP_DIR set, the dump, the ELF and the registers
        there (bootlib/faultdump.py keeps tcg's the same way)."""
        keep = os.environ.get(faultdump.KEEP_ENV)
        if not keep:
            return
        os.makedirs(keep, exist_ok=True)
        base = os.path.join(keep, "%s-xl-%s-%d" % (
            who, time.strftime("%Y%m%d-%H%M%S"), os.getpid()))
        ext = ".raw"
        with open(self.scratch, "rb") as src, open(base + ext, "wb") as dst:
            left = pages * memcheck.PAGE
            while left > 0:
                chunk = src.read(min(left, 1 << 20))
                if not chunk:
                    break
                dst.write(chunk)
                left -= len(chunk)
        shutil.copyfile(elf, base + ".elf")
        with open(base + ".regs", "w") as f:
            f.write("\n".join(self.hvmctx if regs is None else regs) + "\n")
        run.logline("### dump kept: %s%s, .elf, .regs" % (base, ext))

    def shimk_domid(self):
        """shimk's domain: as dom0 said, else the first domU that
        triple-faulted (the peer, if any, comes after it)."""
        if self.domid is not None:
            return self.domid
        ids = [tf.domid for tf in xen_triple.parse_all(
            self.triple_lines or []) if tf.domid]
        return min(ids) if ids else None

    def no_memory(self):
        """Why no memory verdict, for a triple fault."""
        return self.dump_error or "dom0 did not dump the domain's memory"

    def stalled_name(self):
        # The newest domU: the peer once dom0 has created it.
        return "the Linux peer" if self.peer.started else "shimk"

    def peer_line(self, run, what):
        """dom0's words on the peer (tools/xl-peer-run)."""
        m = XL_DUMP_HOLE_RE.match(what)
        if m:
            self.peer_holes.append((int(m.group(1), 16),
                                    int(m.group(2), 16)))
        elif XL_DUMP_OK_RE.match(what):
            self.read_peer_dump(run, *(int(x) for x in
                                       XL_DUMP_OK_RE.match(what).groups()))
        elif what.startswith("dump error "):
            self.peer_dump_error = "dom0's dump failed: %s" % what[len(
                "dump error "):]
        elif what.startswith("create "):
            self.peer.started = True
            # dom0 stops a peer silent for PEER_SILENT_S and reports: its
            # verdict must come before this side's silence bound does.
            if self.silence:
                self.silence = max(self.silence, peer.PEER_SILENT_S +
                                   XL_PEER_REPORT_S)
        elif what.startswith("skipped: "):
            self.peer.skipped = what[len("skipped: "):]
        elif re.match(r"^(domain shut down, reason \S+|timeout after .*|"
                      r"silent .*|error .*)$", what):
            self.peer.verdict = what
        elif what.startswith("xl destroy"):
            self.xl_errors.append("peer " + what)

    def read_peer_dump(self, run, seconds, pages, holes):
        """The peer's memory on the scratch disk into linuxcheck's
        verdict."""
        listed = sum(b - a + 1 for a, b in self.peer_holes)
        if listed != holes:
            self.peer_dump_error = ("dom0 listed %d of the dump's %d "
                                    "missing frames" % (listed, holes))
            run.logline("### no memory verdict on the peer: %s"
                        % self.peer_dump_error)
            return
        vcpus = xl_vcpus(self.peer_hvmctx, self.a.smp)
        try:
            code = linuxcheck.kernel_code(self.dom0_kernel)
            with memcheck.RawMem(self.scratch, pages * memcheck.PAGE,
                                 self.peer_holes) as mem:
                self.peer_memory = linuxcheck.check(mem, vcpus, code[0],
                                                    code)
        except (OSError, ValueError) as e:
            self.peer_dump_error = "the peer's dump could not be read: %s" % e
            run.logline("### no memory verdict on the peer: %s"
                        % self.peer_dump_error)
            return
        run.logline("### the peer's memory (xl-memdump: %d pages, %d "
                    "missing, %d s in dom0):" % (pages, holes, seconds))
        for f in self.peer_memory.findings:
            run.logline("###   " + f)
        run.logline("### the peer's memory: " + self.peer_memory.text)
        self.keep_dump(run, pages, "linux", self.dom0_kernel,
                       self.peer_hvmctx)

    def peer_judge(self, status, why):
        pstatus, pwhy = self.peer.judge(status, why)
        # Xen's HVM shutdown action for a triple fault is a reboot; the
        # peer's dumps are those of any domain but shimk's.
        if status == 0 and pstatus == 2 and \
                self.peer.verdict == "domain shut down, reason reboot":
            tfs = [tf for tf in xen_triple.parse_all(self.triple_lines or [])
                   if tf.domid not in (0, self.domid)]
            if tfs:
                text, l0 = xen_triple.classify_peer(
                    tfs, self.peer_memory, self.peer_dump_error or
                    "dom0 did not dump the peer's memory")
                if l0:
                    self.retry_reason = text
                pwhy = "linux peer: %s" % text
        return pstatus, pwhy

    def stage_deadline(self, run, start):
        """dom0's start; later stages are bounded by dom0 itself (XLRUN_END)
        and by the run's timeout."""
        if self.xl_create_at is not None:
            return None, None
        return start + XL_START_S, "xl-start"

    def stalled_domain(self):
        return None

    def where(self):
        if self.xl_create_at is None:
            if self.xl_init:
                return "dom0 never started xl (its /init ran, but did " \
                       "not get to xl create)"
            return "dom0 never started xl (its /init never ran)"
        if self.xl_verdict is None:
            return "xl create started, no verdict from dom0"
        return "after dom0's verdict '%s'" % self.xl_verdict

    def judge(self, run, rc, killed):
        """dom0's verdict line, then shimk's own lines."""
        if killed == "xen-panic":
            return 2, ("dom0 crashed" if dom0_crashed(self.xen_panic)
                       else "Xen panic")
        if killed == "dom0-fail":
            return 2, "dom0 failure: %s" % self.dom0_fail
        if killed == "xl-start":
            return 2, "%s: no xl create within %g s" % (self.where(),
                                                       XL_START_S)
        bound = console.judge_bound(run, killed, self.where())
        if bound:
            return bound
        if killed == "no-exit":
            return 2, "console closed but QEMU did not exit"
        if killed:
            return 2, killed
        if rc < 0:
            return 2, "QEMU killed by signal %d" % -rc
        if self.xl_verdict is None:
            if rc == 1 and not run.lines and run.qemu_stderr():
                return 2, "QEMU exited 1 before any console output"
            why = "QEMU exited %d: %s" % (rc, self.where())
            if self.xen_shutdown:
                why += " (Xen: %s)" % self.xen_shutdown
            return 2, why
        verdict = self.xl_verdict
        if verdict.startswith("error "):
            return 2, verdict[len("error "):]
        if verdict.startswith("timeout"):
            # dom0's end of the run, just before the backstop: the domU
            # was still running, and the backstop is no verdict on it.
            return run.at_backstop("dom0 destroyed the domU: %s" % verdict)
        reason = verdict.split()[-1]
        # dom0 leaves through isa-debug-exit with its code: anything else
        # (0 after its sysrq fallback, 1 from a QEMU error) means it did
        # not.
        want = XL_REASON_CODE.get(reason, 3)
        if self.xl_exit != want or rc != (want << 1) | 1:
            return 2, ("domain %s but QEMU exited %d, not %d: dom0's exit "
                       "through port 0xf4 failed"
                       % (reason, rc, (want << 1) | 1))
        hint = ""
        if run.shimk_exit is None:
            hint = " (no 'shimk: exit' line: a kernel without the domU " \
                   "exit protocol?)"
        lifecycle = self.lifecycle_verdict(reason)
        if lifecycle:
            return 2, lifecycle
        if reason == "poweroff":
            if run.shimk_panic:
                return 2, "domain powered off after a PANIC line"
            if not run.summary:
                return 2, "domain powered off without the boot summary"
            if run.shimk_exit == 1:
                # Only a stop asked from outside powers off with 1: the
                # test it cut short has no verdict (kernel/main.c).
                return 1, ("domain powered off but shimk said exit 1: a "
                           "stop cut its tests short")
            if run.shimk_exit not in (None, 0, 38):
                return 2, ("domain powered off but shimk said exit %d"
                           % run.shimk_exit)
            if run.ktest_end:
                passed, failed, skipped = run.ktest_end
                if failed:
                    return 2, ("domain powered off but KTEST: END reports "
                               "%d failed" % failed)
                if passed == 0 and skipped > 0:
                    return 77, "everything skipped"
            return 0, "passed"
        if reason == "reboot":
            if (run.ktest_end and run.ktest_end[1] > 0) or run.not_ok:
                return 1, "test failure"
            # Xen's HVM shutdown action for a triple fault is a reboot.
            triple = self.triple_fault(self.shimk_domid(), self.memory,
                                       self.no_memory())
            if triple:
                return 2, triple
            return 2, ("domain rebooted (shimk's test-failure exit) but no "
                       "failure on the console%s" % hint)
        if reason == "crash":
            if run.shimk_panic:
                return 2, "panic"
            return 2, "domain crashed without a PANIC line%s" % hint
        return 2, "domain shut down, reason %s" % reason

    def lifecycle_verdict(self, reason):
        """What --lifecycle asked that did not happen, or None."""
        want = list(getattr(self.a, "lifecycle", ()))
        done = [s for s, _, _ in self.lifecycle_done]
        if not want:
            return None
        if done != want:
            return ("--lifecycle %s: dom0 did %s" % (
                ",".join(want), ",".join(done) or "none of it"))
        for step, rc, _ in self.lifecycle_done:
            if rc:
                return "lifecycle: xl %s failed (rc %d)" % (step, rc)
        if reason == "crash":
            # shimk's panic: the verdict below names it.
            return None
        if reason != "poweroff":
            return ("lifecycle: the domain ended with reason %s, not "
                    "poweroff" % reason)
        saves = want.count("save-restore") + want.count("migrate")
        if len(self.lifecycle_resumed) != saves:
            return ("lifecycle: shimk resumed %d times after %d saves"
                    % (len(self.lifecycle_resumed), saves))
        # A checkpoint's domain goes on: its suspend must read as
        # cancelled, never as a new domain.
        checkpoints = want.count("checkpoint")
        if len(self.lifecycle_went_on) != checkpoints:
            return ("lifecycle: shimk said its suspend was cancelled %d "
                    "times after %d checkpoints"
                    % (len(self.lifecycle_went_on), checkpoints))
        boots = 1 + want.count("reboot")
        if self.boots != boots:
            return ("lifecycle: %d boots of shimk on the domain's console, "
                    "not %d" % (self.boots, boots))
        return None

    def panic_note(self):
        text = super().panic_note()
        if dom0_crashed(self.xen_panic):
            text = "dom0 crashed" + text[len("Xen panic"):]
        return text

    def report(self, run, rc, killed):
        for err in self.xl_errors:
            note("dom0: %s" % err)
        super().report(run, rc, killed)
