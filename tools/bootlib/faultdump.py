# SPDX-License-Identifier: GPL-2.0-only
# QEMU paused at a triple fault, reset or silence, its memory read by memcheck.
#
# Where shimk's vCPUs are QEMU's own (tcg, kvm, grub), QEMU runs with
# `-action reboot=shutdown,shutdown=pause` (QEMU 6.0+, qemu-options.hx):
# a triple fault or a reset the guest asks for becomes a shutdown, and
# the shutdown pauses the VM instead of ending QEMU. A QMP socket
# (docs/interop/qmp-spec) reports it as the SHUTDOWN event; this module
# then takes every vCPU's registers (`info registers -a` through
# human-monitor-command) and the guest's memory (dump-guest-memory, an
# ELF core whose notes also hold each vCPU's KERNEL_GS base), hands them
# to memcheck, and quits QEMU. At a silence the runner asks for the same
# (collect()) before it kills QEMU.
#
# Which shutdown it was: the event's reason is "guest-reset" for a triple
# fault and for a reset the guest asked for alike (softmmu/runstate.c);
# QEMU's `-d cpu_reset` log says "Triple fault" for the first only
# (target/i386/tcg/excp_helper.c check_exception). Under KVM that log
# line does not exist: a reset there is named as such.

import json
import os
import shutil
import socket
import threading
import time

from bootlib import memcheck

# Bound on QEMU creating its QMP socket after it starts.
CONNECT_S = 30.0
# Bound on one QMP command; dump-guest-memory of a few hundred MiB takes
# about a second on an idle host.
COMMAND_S = 60.0
# Bound on the thread finishing once QEMU is gone or asked to collect.
FINISH_S = COMMAND_S * 2 + 10.0
# Keep dumps here (the environment variable's value) when set.
KEEP_ENV = "SHIMK_DUMP_DIR"
TRIPLE_FAULT = "triple fault"
PROVEN = "L0 fault, proven: "


def event_name(reason, reset_log, tcg=True):
    """What a SHUTDOWN event's reason (QAPI ShutdownCause) was, with the
    -d cpu_reset log's text to tell a triple fault from a reset (TCG
    only: under KVM the kernel reports both as KVM_EXIT_SHUTDOWN)."""
    if reason == "guest-reset":
        if "Triple fault" in (reset_log or ""):
            return TRIPLE_FAULT
        if tcg:
            return "reset requested by the guest"
        return "triple fault or reset requested by the guest"
    if reason == "guest-shutdown":
        return "power-off requested by the guest"
    if reason == "guest-panic":
        return "guest panic (pvpanic)"
    return "shutdown (%s)" % reason


def verdict_text(event, verdict):
    """(the run's verdict line, whether the L0 is proven at fault) for a
    dump taken at event. Intact state proves the L0 only for a triple
    fault: a reset or power-off the guest asked for, or a silence, is
    the guest's own doing whatever its memory shows."""
    if event == TRIPLE_FAULT or not verdict.l0_proven:
        return "%s: %s" % (event, verdict.text), verdict.l0_proven
    text = verdict.text
    if text.startswith(PROVEN):
        text = text[len(PROVEN):]
    return "%s; memory: %s" % (event, text), False


class QmpError(Exception):
    pass


class Qmp:
    """A QMP client: one command at a time, events kept."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.buf = b""
        self.events = []
        self.recv(COMMAND_S)             # the greeting
        self.command("qmp_capabilities")

    def close(self):
        self.sock.close()

    def recv(self, timeout):
        """One message, or None at the timeout; QmpError at EOF."""
        end = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = end - time.monotonic()
            if left <= 0:
                return None
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                return None
            except OSError as e:
                raise QmpError("QMP socket: %s" % e)
            if not chunk:
                raise QmpError("QEMU closed its QMP socket")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        try:
            return json.loads(line.decode("utf-8", "replace"))
        except ValueError:
            raise QmpError("QMP sent %r" % line[:80])

    def command(self, name, timeout=COMMAND_S, **args):
        msg = {"execute": name}
        if args:
            msg["arguments"] = args
        self.sock.sendall(json.dumps(msg).encode() + b"\n")
        end = time.monotonic() + timeout
        while True:
            reply = self.recv(max(0.0, end - time.monotonic()))
            if reply is None:
                raise QmpError("%s: no answer within %g s" % (name, timeout))
            if "event" in reply:
                self.events.append(reply)
                continue
            if "error" in reply:
                raise QmpError("%s: %s" % (name, reply["error"].get(
                    "desc", reply["error"])))
            return reply.get("return")


class FaultDump:
    """The QMP watch of one QEMU run."""

    def __init__(self, tmp, elf, tcg=True):
        self.tmp = tmp
        self.elf = elf
        self.tcg = tcg
        self.sock_path = os.path.join(tmp, "qmp.sock")
        self.reset_log = os.path.join(tmp, "qemu-reset.log")
        self.core = os.path.join(tmp, "memory.core")
        self.lock = threading.Lock()
        self.asked = threading.Event()
        self.done = threading.Event()
        self.stopped = threading.Event()
        self.thread = None
        # Results, read once done is set.
        self.event = None           # what paused QEMU, or "silence"
        self.regs_lines = []        # `info registers -a`
        self.verdict = None         # memcheck.Verdict
        self.error = None           # why no verdict
        self.seconds = None         # how long the dump took
        self.kept = None

    def qemu_args(self):
        return ["-action", "reboot=shutdown,shutdown=pause",
                "-monitor", "none",
                "-qmp", "unix:%s,server=on,wait=off" % self.sock_path,
                "-d", "cpu_reset", "-D", self.reset_log]

    def start(self):
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.thread.start()

    def collect(self, why, wait_s=FINISH_S):
        """From the runner at a silence: pause QEMU and dump it now.
        Returns once done (or after wait_s)."""
        with self.lock:
            if self.event is None:
                self.event = why
        self.asked.set()
        self.done.wait(wait_s)
        return self.done.is_set()

    def finish(self, wait_s=FINISH_S):
        """After QEMU is gone: wait for a dump under way to be done; with
        none (QEMU exited by itself, or never started) stop at once."""
        self.stopped.set()
        if self.thread and self.event is not None:
            self.thread.join(wait_s)

    def _connect(self):
        end = time.monotonic() + CONNECT_S
        while True:
            try:
                return Qmp(self.sock_path)
            except (OSError, QmpError) as e:
                if time.monotonic() >= end or self.stopped.is_set():
                    raise QmpError("no QMP socket within %g s: %s"
                                   % (CONNECT_S, e))
                time.sleep(0.1)

    def _watch(self):
        qmp = None
        try:
            qmp = self._connect()
            while not self.asked.is_set() and not self.stopped.is_set():
                msg = qmp.recv(0.2)
                if msg is None or msg.get("event") != "SHUTDOWN":
                    continue
                reason = msg.get("data", {}).get("reason", "?")
                with self.lock:
                    if self.event is None:
                        self.event = event_name(reason, self._reset_log(),
                                                self.tcg)
                try:
                    self._dump(qmp)
                finally:
                    # Verdict made or not, QEMU may go (exit status 0).
                    try:
                        qmp.command("quit", timeout=5.0)
                    except QmpError:
                        pass
                return
            if self.asked.is_set():
                qmp.command("stop")
                self._dump(qmp)
        except QmpError as e:
            # QEMU exits at shimk's isa-debug-exit: not a failure here.
            if self.event is not None and self.verdict is None:
                self.error = str(e)
        finally:
            if qmp:
                qmp.close()
            self.done.set()

    def _reset_log(self):
        try:
            with open(self.reset_log, errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def _dump(self, qmp):
        start = time.monotonic()
        text = qmp.command("human-monitor-command",
                           **{"command-line": "info registers -a"})
        self.regs_lines = (text or "").splitlines()
        qmp.command("dump-guest-memory", paging=False,
                    protocol="file:" + self.core)
        self.seconds = time.monotonic() - start
        regs = memcheck.parse_qemu_registers(self.regs_lines)
        try:
            with memcheck.open_dump(self.core) as mem:
                vcpus = memcheck.merge_vcpus(regs, mem.vcpus)
                self.verdict = memcheck.check(mem, vcpus, self.elf)
        except (OSError, memcheck.DumpError) as e:
            self.error = "the memory dump could not be read: %s" % e
        self._keep()

    def _keep(self):
        keep = os.environ.get(KEEP_ENV)
        if not keep:
            return
        os.makedirs(keep, exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        base = os.path.join(keep, "shimk-%s-%d" % (stamp, os.getpid()))
        shutil.copyfile(self.core, base + ".core")
        shutil.copyfile(self.elf, base + ".elf")
        with open(base + ".regs", "w") as f:
            f.write("\n".join(self.regs_lines) + "\n")
        self.kept = base

    def log(self, run):
        """Every vCPU's registers and memcheck's findings, into the
        run's log."""
        if self.event is None:
            return
        run.logline("### %s: QEMU paused; its vCPUs (info registers -a):"
                    % self.event)
        for line in self.regs_lines:
            run.logline(line)
        if self.verdict:
            run.logline("### memory (%s, %.1f s):" % (
                os.path.basename(self.core), self.seconds or 0))
            for f in self.verdict.findings:
                run.logline("###   " + f)
        if self.error:
            run.logline("### no memory verdict: %s" % self.error)
        if self.kept:
            run.logline("### dump kept: %s.{core,elf,regs}" % self.kept)

    def result(self):
        """(event, text, l0_proven): the run's verdict from the dump, or
        None when QEMU never paused."""
        if self.event is None:
            return None
        if self.verdict is None:
            return (self.event, "%s (memory not checked: %s)"
                    % (self.event, self.error or "no dump"), False)
        return (self.event,) + verdict_text(self.event, self.verdict)

    def silence_text(self):
        """Where the vCPUs were and what memory showed, for a silence:
        a hang stays the guest's whatever its memory shows."""
        places = self.places()
        if self.verdict is None:
            memory = "memory not checked: %s" % (self.error or "no dump")
        else:
            memory = self.verdict.text
            if memory.startswith(PROVEN):
                memory = memory[len(PROVEN):]
            memory = "memory: " + memory
        return "%s%s" % (places + "; " if places else "", memory)

    def places(self):
        """Where each vCPU was, from its registers: for a silence."""
        out = []
        regs = memcheck.parse_qemu_registers(self.regs_lines)
        image = None
        try:
            image = memcheck.Image(self.elf)
        except (OSError, memcheck.DumpError):
            pass
        for n in sorted(regs):
            v = regs[n]
            if v.cr0 is not None and not v.cr0 & memcheck.CR0_PG:
                out.append("vCPU%d not started" % n)
                continue
            sym = image.symbolize(v.rip) if (
                image and v.rip is not None and image.in_text(v.rip)) \
                else None
            out.append("vCPU%d %s at %#x%s" % (
                n, "halted" if v.halted else "running", v.rip or 0,
                " (%s)" % sym if sym else ""))
        return "; ".join(out)
