# SPDX-License-Identifier: GPL-2.0-only
# The environment interface of tools/boot, and the plain QEMU ones (tcg, kvm).
#
# An environment says how QEMU is started, what a console line means, how
# a silent run is diagnosed, and how the run is judged. Adding one is a new
# class in a module of its own, listed in bootlib/envs.py.

import os
import re
import socket

from bootlib import bounds, console, faultdump
from bootlib.common import ELF, ELF_REL, kvm_usable, newc, note

# tools/boot --gdb: how long QEMU waits for GDB when no --timeout is given.
GDB_TIMEOUT_S = 3600.0
# The names run= accepts (kernel/task/run-list.c).
RUN_NAME_RE = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9._-]{0,30}$")


class Env:
    """QEMU with shimk as its kernel: TCG by default."""

    name = "tcg"
    default_mem = 128
    # The time a run is expected to take (--timeout): the backstop is a
    # multiple of it (bootlib/bounds.py).
    default_timeout = 60.0
    # The longest the console may stay silent before the run counts as
    # hung (--silence): above shimk's longest quiet stretch here.
    default_silence = 60.0
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
        # budget: what --timeout says; timeout: the backstop, which bounds
        # the QEMU process (and an L0's own end of the run, where it has
        # one).
        self.budget = (args.timeout if args.timeout is not None
                       else self.default_timeout)
        self.timeout = bounds.backstop(self.budget)
        self.silence = (args.silence if args.silence is not None else
                        bounds.silence_for(self.default_silence,
                                           args.append))
        if args.gdb:
            # Stopped in GDB, shimk is silent for as long as its user
            # wants: only the timeout bounds the run.
            if args.timeout is None:
                self.budget = GDB_TIMEOUT_S
            self.timeout = self.budget
            self.silence = None
        # The initrd of this run (make_initrd), or None.
        self.initrd_file = None
        # QEMU's pause at a triple fault, reset or silence (reset_args).
        self.fault = None
        self.retry_reason = None
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

    def reset_args(self, tmp):
        """What QEMU does when the guest resets, and its monitors.

        Where shimk's vCPUs are QEMU's own, QEMU pauses instead of
        exiting, so that memory can be read at the fault
        (bootlib/faultdump.py). Where QEMU runs an L0 (Xen, L1 Linux), a
        reset is the L0's and QEMU just exits (-no-reboot), as before.
        """
        if self.l0_in_qemu:
            return ["-no-reboot", "-monitor", "none"]
        self.fault = faultdump.FaultDump(tmp, ELF, self.accel == "tcg")
        self.fault.start()
        return self.fault.qemu_args()

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
    def is_progress(self, text):
        """Whether a console line counts against the silence bound."""
        return True

    def line(self, run, text):
        """One console line: by default all of it is shimk's."""
        run.guest_line(text)

    def stage_deadline(self, run, start):
        """(deadline, why) of a stage still to come, or (None, None)."""
        return None, None

    def stage_missed(self, run, why):
        """A stage's deadline passed; QEMU is stopped right after."""

    def on_timeout(self, run):
        """At the silence bound: ask the L0 for its state (which shows
        whether it still answers); s to wait for it.

        Here QEMU is paused and dumped at once (bounded by faultdump's
        command bounds), so no further wait."""
        if self.fault:
            run.logline("### silent: pausing QEMU for its vCPUs' "
                        "registers and memory")
            self.fault.collect("silence")
        return 0.0

    def diagnose(self, run):
        """After the silence bound: who is stuck, or None."""
        if not self.fault or self.fault.event != "silence":
            return None
        return self.fault.silence_text()

    def end_of_output(self, run):
        """QEMU closed its output (lines split by an L0 are completed)."""

    # --- after QEMU ---
    def judge(self, run, rc, killed):
        status, why = console.judge(run, rc, killed, self.timeout)
        if not self.fault:
            return status, why
        self.fault.finish()
        self.fault.log(run)
        result = self.fault.result()
        # QEMU exits 0 after the runner's "quit" once the dump is read;
        # a kill (timeout, panic) keeps its own verdict.
        if result and result[0] != "silence" and not killed and rc == 0:
            _, text, proven = result
            if proven:
                self.retry_reason = text
            return 2, text
        return status, why

    def peer_judge(self, status, why):
        """The run's verdict with the Linux peer's folded in."""
        return status, why

    def report(self, run, rc, killed):
        """Notes on stderr after the verdict was made."""


class KvmEnv(Env):
    """QEMU on the host's own /dev/kvm."""

    name = "kvm"
    default_cpu = "host"
    accel = "kvm"

    def check(self):
        ok, why = kvm_usable()
        return None if ok else (77, why)
