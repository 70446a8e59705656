# SPDX-License-Identifier: GPL-2.0-only
# The environment interface of tools/boot, and the plain QEMU ones (tcg, kvm).
#
# An environment says how QEMU is started, what a console line means, how
# a silent run is diagnosed, and how the run is judged. Adding one is a new
# class in a module of its own, listed in bootlib/envs.py.

import os
import sys

from bootlib import console
from bootlib.common import ELF_REL, kvm_usable, note


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

    def __init__(self, args):
        self.a = args
        self.mem = args.mem if args.mem is not None else self.default_mem
        self.timeout = (args.timeout if args.timeout is not None
                        else self.default_timeout)

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

    def qemu_memory(self):
        return self.mem

    def qemu_cpus(self):
        return self.a.smp

    def machine_args(self):
        return ["-smp", str(self.qemu_cpus()), "-accel", self.accel,
                "-cpu", self.a.cpu or self.default_cpu]

    def boot_args(self, tmp):
        return ["-kernel", ELF_REL, "-append", self.a.append]

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
