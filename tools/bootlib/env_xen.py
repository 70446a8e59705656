# SPDX-License-Identifier: GPL-2.0-only
# tools/boot --env xen and grub-xen: shimk as Xen's PVH dom0.
#
# Xen comes from Debian's package (tools/fetch-xen) and runs in QEMU TCG
# -cpu max: Debian's Xen has no shadow paging, so it needs HAP. shimk's
# console reaches the serial as Xen's "(d0) " lines.

import os
import re
import subprocess
import sys
import time

from bootlib import console, memcheck, xen_stall, xen_triple, xenver
from bootlib.common import ELF, ELF_REL, ROOT, note
from bootlib.env_base import Env
from bootlib.env_grub import iso_for

# Xen's dom0 needs its own memory plus room for Xen and its heap.
XEN_OVERHEAD_MIB = 512
# Time to collect the lines that follow a Xen panic header (the reason).
XEN_PANIC_GRACE_S = 1.0
# Guest console lines as Xen prints them, with an optional timestamp when
# Xen runs with console_timestamps.
XEN_GUEST_RE = re.compile(r"^(?:\[[^\]]*\] )?\(d\d+(?:v\d+)?\) ?(.*)$")
XEN_LINE_RE = re.compile(r"^\(XEN\) ")
# A PVH dom0 crash ends in a reboot only after 5 s and a panic under
# 'noreboot' never ends; both are caught here instead.
XEN_PANIC_RE = re.compile(
    r"Panic on CPU|Manual reset required|Domain 0 crashed|Dom0 crashed|"
    r"domain_crash")
# DOMAIN_PBUF_SIZE - 1 in Xen 4.17 (xen/include/xen/sched.h).
XEN_PBUF_CHARS = 199
# Why Xen rebooted, when dom0 made it (QEMU then exits 0).
XEN_SHUTDOWN_RE = re.compile(r"Triple fault|Dom0 shutdown")

# What the verdict on a triple fault of shimk as dom0 cannot have: no
# other domain exists to read its memory, and Xen reboots at once, for a
# triple fault is the domain's SHUTDOWN_reboot (HVM_PARAM_TRIPLE_FAULT_
# REASON's default, xen/arch/x86/hvm/hvm.c), which hwdom_shutdown()
# (xen/common/shutdown.c) turns into machine_restart(0) whatever
# 'noreboot' says, and which dom0 cannot change (hvm_allow_set_param
# refuses the parameter to the domain itself). So Xen's console dump of
# the faulting vCPU is all there is.
NO_DOM0_MEMORY = ("shimk is Xen's dom0 here: no domain can read its memory, "
                  "and Xen reboots at once")

# Xen 4.17's credit2 can leave a vCPU unscheduled for good after Xen
# unpauses it from an INIT or STARTUP IPI it sent (docs/smp.md, "AP
# start-up under Xen"): about 3 % of 4-vCPU boots with INIT-SIPI
# stalled so here.
# With no migration resistance the idle pCPU that credit2 tickles takes
# the vCPU. Later options win, so --xen-append can restore the default
# (sched_credit2_migrate_resist=500).
XEN_SCHED_ARGS = "sched_credit2_migrate_resist=0"


def xen_cmdline(mem, smp, extra):
    args = ("console=com1 loglvl=all guest_loglvl=all dom0=pvh "
            "dom0-iommu=none dom0_mem=%dM,max:%dM dom0_max_vcpus=%d %s"
            % (mem, mem, smp, XEN_SCHED_ARGS))
    if extra.strip():
        args += " " + extra.strip()
    return args


def fetch_xen(version):
    """Make sure the Xen binary of version (bootlib/xenver.py) exists;
    exit 77 with the reason if not."""
    r = subprocess.run([os.path.join(ROOT, "tools", "fetch-xen"),
                        version.name],
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=1200)
    text = r.stdout.decode("utf-8", "replace")
    if r.returncode != 0 or not os.path.isfile(version.binary):
        lines = text.splitlines()
        for line in lines[-10:]:
            note(line)
        why = [l[len("fetch-xen: "):] for l in lines
               if l.startswith("fetch-xen: ")]
        note("Xen not available: %s" % (
            why[-1] if why else "tools/fetch-xen exited %d" % r.returncode))
        sys.exit(77)
    for line in text.splitlines():
        note(line)


def dom0_crashed(panic_lines):
    """Whether the "Xen panic" is Xen reporting its dom0's crash."""
    return bool(panic_lines) and bool(
        re.search(r"Dom(ain )?0 crashed", panic_lines[0]))


class XenEnv(Env):
    """Xen with shimk as its PVH dom0, booted by QEMU -kernel."""

    l0_in_qemu = True
    name = "xen"
    default_mem = 256
    default_timeout = 180.0
    # shimk's longest quiet stretch as Xen's dom0, with room to spare.
    default_silence = 90.0
    serial_input = True
    debugcon = False
    gdb_ok = False
    panic_re = XEN_PANIC_RE

    def __init__(self, args):
        super().__init__(args)
        self.pending = ""
        self.xen_panic = []
        self.xen_shutdown = None
        # Xen's lines from a guest's triple fault on (xen_triple.py).
        self.triple_lines = None
        self.retry_reason = None
        # Xen's answer to its debug keys, once asked.
        self.dump_lines = None
        # shimk's first line came: Xen's own no longer count as progress.
        self.guest_seen = False
        # Which Xen (tools/boot --xen), and its binary as QEMU's -kernel.
        self.xen = xenver.get(getattr(args, "xen", None))
        self.xen_rel = os.path.relpath(self.xen.binary, ROOT)

    def warn_unused(self):
        pass

    def prepare(self, tmp):
        fetch_xen(self.xen)
        self.xargs = self.xen_args()

    def xen_args(self):
        return xen_cmdline(self.mem, self.a.smp, self.a.xen_append)

    def qemu_memory(self):
        return self.mem + XEN_OVERHEAD_MIB

    def qemu_cpus(self):
        # Xen's physical CPUs: fewer than dom0's vCPUs overcommits them.
        return self.a.host_cpus or self.a.smp

    def boot_args(self, tmp):
        # QEMU splits -initrd at single commas.
        mod = (ELF_REL + " " + self.a.append).strip().replace(",", ",,")
        if self.initrd_file:
            # Xen hands dom0 the module after its kernel as the initrd,
            # in the PVH start info's module list.
            mod += "," + self.initrd_file.replace(",", ",,")
        return ["-kernel", self.xen_rel, "-append", self.xargs,
                "-initrd", mod]

    def xen_line(self, run, body):
        """A "(XEN) " line, prefix removed: watch for panics and reboots."""
        if self.dump_lines is not None:
            self.dump_lines.append(body)
        if XEN_SHUTDOWN_RE.search(body) and not self.xen_shutdown:
            self.xen_shutdown = body.strip()
        # Every vCPU's dump, not only the first (xen_triple.py).
        if self.triple_lines is not None:
            if len(self.triple_lines) < xen_triple.KEEP_LINES:
                self.triple_lines.append(body)
        elif "Triple fault" in body:
            self.triple_lines = [body]
        if self.xen_panic:
            self.xen_panic.append(body)
            if len(self.xen_panic) > 1 and body.startswith("****"):
                run.stop_now("xen-panic")
        elif self.panic_re.search(body):
            self.xen_panic.append(body)
            run.stop_after(XEN_PANIC_GRACE_S, "xen-panic")

    def split_guest_line(self, run, body):
        """One "(dN) " chunk: Xen splits long guest lines."""
        part = self.pending + body
        # Xen flushes a guest's port 0xe9 buffer when it holds
        # XEN_PBUF_CHARS characters, splitting longer lines. A full chunk
        # always continues on the next (d0) line: a line of exactly that
        # length is followed by an empty one.
        if len(body) == XEN_PBUF_CHARS:
            self.pending = part
            return
        self.pending = ""
        run.guest_line(part)

    def is_progress(self, text):
        """Xen's own lines are progress while Xen boots; once shimk has
        spoken, a Xen that keeps printing about a silent guest does not
        keep the run alive past the silence bound."""
        if XEN_LINE_RE.match(text):
            return not self.guest_seen
        return True

    def line(self, run, text):
        m = XEN_GUEST_RE.match(text)
        if m:
            self.guest_seen = True
            self.split_guest_line(run, m.group(1))
        elif XEN_LINE_RE.match(text):
            self.xen_line(run, text[6:])
        elif text.strip():
            # Neither Xen nor a (dN) line: dom0's direct console_io writes
            # arrive this way, so show them rather than hide them.
            run.guest_line(text)

    def end_of_output(self, run):
        if self.pending:
            run.guest_line(self.pending)
            self.pending = ""

    def on_timeout(self, run):
        """Send Xen's debug keys; returns how long to collect the dump."""
        self.dump_lines = []
        run.logline("### timeout: asking Xen for its state (debug keys "
                    "'q' and 'r')")
        if not run.send_key(xen_stall.KEYS[0]):
            return 0.0
        now = time.monotonic()
        run.keys = [(now + xen_stall.KEY_GAP_S * i, k)
                    for i, k in enumerate(xen_stall.KEYS[1:], 1)]
        return xen_stall.DUMP_WAIT_S

    def stalled_domain(self):
        """shimk's domain: dom0 here, the newest domU (None) under xl."""
        return 0

    def stalled_name(self):
        """Who runs in stalled_domain()."""
        return "shimk"

    def diagnose(self, run):
        if self.dump_lines is None:
            return None
        return xen_stall.diagnose(self.dump_lines, self.stalled_domain(),
                                  self.stalled_name())

    def judge(self, run, rc, killed):
        if killed == "xen-panic":
            return 2, "Xen panic"
        status, why = console.judge(run, rc, killed, self.timeout)
        if rc == 0 and not killed and self.xen_shutdown:
            triple = self.triple_fault()
            why += " (Xen: %s)" % (triple or self.xen_shutdown)
        return status, why

    def panic_note(self):
        lines = [l.strip() for l in self.xen_panic
                 if l.strip() and not l.startswith("****")]
        return "Xen panic: %s" % " / ".join(lines[:3])

    def report(self, run, rc, killed):
        if killed == "xen-panic":
            note(self.panic_note())
        else:
            super().report(run, rc, killed)

    def triple_fault(self, domid=None, memory=None, no_memory=None):
        """Xen's dumps of a guest triple fault read into a verdict (and a
        retry when they prove the L0 at fault), or None without one.

        domid: the domain whose dumps count (None: all). memory:
        memcheck's Verdict on its memory, or None and no_memory why not.
        """
        tfs = [tf for tf in xen_triple.parse_all(self.triple_lines or [])
               if domid is None or tf.domid == domid]
        if not tfs:
            return None
        try:
            image = memcheck.Image(ELF)
        except (OSError, memcheck.DumpError) as e:
            return "%s (and %s could not be read: %s)" % (
                "; ".join(xen_triple.describe(tf) for tf in tfs), ELF, e)
        text, l0 = xen_triple.classify(tfs, image, memory,
                                       no_memory or NO_DOM0_MEMORY)
        if l0:
            self.retry_reason = text
        return text


class GrubXenEnv(XenEnv):
    """GRUB2 -> Xen -> shimk, from an ISO image."""

    name = "grub-xen"

    def boot_args(self, tmp):
        return ["-cdrom", iso_for("grub-xen", self.a.append, self.xargs,
                                  self.initrd_file, self.xen.binary)]
