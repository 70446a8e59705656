# SPDX-License-Identifier: GPL-2.0-only
# The environment interface of tools/boot, and the plain QEMU ones (tcg, kvm).
#
# An environment says how QEMU is started, what a console line means, how
# a silent run is diagnosed, and how the run is judged. Adding one is a new
# class in a module of its own, listed in bootlib/envs.py.

import os
import re
import socket
import sys

from bootlib import console
from bootlib.common import ELF_REL, kvm_usable, newc, note

# tools/boot --gdb: how long QEMU waits for GDB when no --timeout is given.
GDB_TIMEOUT_S = 3600.0
# The names run= accepts (kernel/run-list.c).
RUN_NAME_RE = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9._-]{0,30}$")


class Env:
    """QEMU with shimk as its kernel: TCG by default."""

    name = "tcg"
    default_mem = 128
    default_timeout = 60.0
    default_cpu = "max"
    accel = "tcg"
    # Whether the serial input stays open (an L0 reading debug keys).
    serial_input = False
    # Whether a shimk PANIC line ends the run after PANIC_GRACE_S.
    panic_ends_run = True
    # Whether shimk's port 0xe9 output is kept for the log.
    debugcon = True
    # Whether QEMU's CPUs are an L0's own (Xen's, or L1 KVM's), so that
    # --host-cpus sets how many CPUs shimk's vCPUs share.
    l0_in_qemu = False
    # Whether --gdb can stop shimk itself: not where an L0 runs in QEMU.
    gdb_ok = True
    # Whether --peer linux can run here (a Linux L0 to start it).
    peer_ok = False

    def __init__(self, args):
        self.a = args
        self.mem = args.mem if args.mem is not None else self.default_mem
        self.timeout = (args.timeout if args.timeout is not None
                        else self.default_timeout)
        if args.gdb and args.timeout is None:
            self.timeout = GDB_TIMEOUT_S
        # The initrd of this run (make_initrd), or None.
        self.initrd_file = None
        self.add_host_cpus()

    def add_host_cpus(self):
        """tlbbench's start line states the L0's CPU count: tell shimk.

        A guest cannot learn it, and the overcommit ratio is what an L0
        flush's worth depends on (docs/tlbbench.md, host-cpus=).
        """
        words = self.a.append.split()
        if (not self.l0_in_qemu or
                not any(w.startswith("bench=") for w in words) or
                any(w.startswith("host-cpus=") for w in words)):
            return
        self.a.append = ("%s host-cpus=%d" % (self.a.append,
                                              self.qemu_cpus())).strip()

    # --- before QEMU ---
    def check(self):
        """None when the environment can run here, else (status, why)."""
        return None

    def warn_unused(self):
        if self.a.xen_append:
            note("--xen-append ignored outside the Xen environments")
        if self.a.host_cpus is not None:
            note("--host-cpus ignored under %s (QEMU's vCPUs are shimk's)"
                 % self.name)

    def prepare(self, tmp):
        """Fetch or build what the run needs; may sys.exit(77 or 2)."""
        self.warn_unused()

    def make_initrd(self, tmp):
        """--module's files as a newc archive (or --initrd's file)."""
        if self.a.initrd:
            self.initrd_file = os.path.abspath(self.a.initrd)
            return
        if not self.a.module:
            return
        entries = []
        for f in self.a.module:
            name = os.path.basename(f)
            if not RUN_NAME_RE.match(name):
                note("--module %s: run= cannot name '%s' (letters, digits, "
                     "'.', '_' and '-', at most 31)" % (f, name))
            with open(f, "rb") as fh:
                entries.append((name, 0o100755, fh.read()))
        self.initrd_file = os.path.join(tmp, "initrd.cpio")
        with open(self.initrd_file, "wb") as fh:
            fh.write(newc(entries))

    def gdb_args(self):
        """QEMU halted before its first instruction, GDB's stub on a free
        local port; prints how to attach."""
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        where = "127.0.0.1:%d" % port
        note("gdb: QEMU starts halted, its GDB stub on %s (the run ends "
             "after %g s; --timeout to change)" % (where, self.timeout))
        note("gdb: attach with symbols from another terminal:")
        note("    gdb -q -x tools/gdb/shimk.py -ex 'target remote %s' "
             "build/shimk.elf" % where)
        if self.accel == "kvm":
            note("gdb: under KVM use hbreak, not break, before paging is "
                 "on: QEMU writes a software breakpoint into guest memory")
        return ["-S", "-gdb", "tcp:%s" % where]

    def qemu_memory(self):
        return self.mem

    def qemu_cpus(self):
        return self.a.smp

    def outer_cpu(self):
        """The outer QEMU's -cpu model (whose x2APIC the L0 sees)."""
        return self.a.cpu or self.default_cpu

    def outer_accel(self):
        return self.accel

    def machine_args(self):
        accel = self.accel
        if accel == "tcg" and os.environ.get("SHIMK_TCG_THREAD"):
            accel += ",thread=" + os.environ["SHIMK_TCG_THREAD"]
        return ["-smp", str(self.qemu_cpus()), "-accel", accel,
                "-cpu", self.a.cpu or self.default_cpu]

    def boot_args(self, tmp):
        args = ["-kernel", ELF_REL, "-append", self.a.append]
        if self.initrd_file:
            # QEMU's PVH loader hands it over as start info module 0.
            args += ["-initrd", self.initrd_file]
        return args

    # --- while QEMU runs ---
    def line(self, run, text):
        """One console line: by default all of it is shimk's."""
        run.guest_line(text)

    def stage_deadline(self, run, start):
        """(deadline, why) of a stage still to come, or (None, None)."""
        return None, None

    def stage_missed(self, run, why):
        """A stage's deadline passed; QEMU is stopped right after."""

    def on_timeout(self, run):
        """At the timeout: ask the L0 for its state; s to wait for it."""
        return 0.0

    def diagnose(self, run):
        """After the timeout: who is stuck, or None."""
        return None

    def end_of_output(self, run):
        """QEMU closed its output (lines split by an L0 are completed)."""

    # --- after QEMU ---
    def judge(self, run, rc, killed):
        return console.judge(run, rc, killed, self.timeout)

    def peer_judge(self, status, why):
        """The run's verdict with the Linux peer's folded in."""
        return status, why

    def report(self, run, rc, killed):
        """Notes on stderr after the verdict was made."""
        if killed == "timeout":
            note("timeout after %g s" % self.timeout)


class KvmEnv(Env):
    """QEMU on the host's own /dev/kvm."""

    name = "kvm"
    default_cpu = "host"
    accel = "kvm"

    def check(self):
        ok, why = kvm_usable()
        return None if ok else (77, why)


def require_elf(elf):
    if not os.path.isfile(elf):
        note("build/shimk.elf not found: run make first")
        sys.exit(2)
