#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# bootlib/env_nested.py: L1's report on L2 read into the run's verdict (TAP).

import argparse
import os
import struct
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
sys.path.insert(0, HERE)
from bootlib import bounds, console, env_nested  # noqa: E402
from pytap import case  # noqa: E402
import pytap  # noqa: E402

STUCK = 0xffffffff801116e4


def fake_elf():
    """An ELF64 with one executable segment where shimk's text is: the
    verdicts here need no more of shimk's image, and the tests must run
    where the kernel was not built."""
    code = b"\x0f\x31" * 8            # rdtsc: not a jump to itself
    ehdr = struct.pack("<4sBBBBB7xHHIQQQIHHHHHH", b"\x7fELF", 2, 1, 1, 0, 0,
                       2, 62, 1, 0xffffffff80100000, 64, 0, 0, 64, 56, 1,
                       64, 0, 0)
    phdr = struct.pack("<IIQQQQQQ", 1, 5, 0x1000, 0xffffffff80100000,
                       0x100000, len(code), 0x100000, 0x1000)
    data = ehdr + phdr
    data += b"\0" * (0x1000 - len(data)) + code
    f = tempfile.NamedTemporaryFile(prefix="shimk-fake-", suffix=".elf",
                                    delete=False)
    f.write(data)
    f.close()
    return f.name


env_nested.ELF = fake_elf()


def env(**kw):
    a = argparse.Namespace(append="ktest=smp", mem=None, timeout=None,
                           silence=None, gdb=False, host_cpus=None,
                           xen_append="", module=[], initrd=None, smp=2,
                           cpu=None, peer=None)
    for k, v in kw.items():
        setattr(a, k, v)
    e = env_nested.KvmNestedEnv(a)
    r = console.Run(e, [], None, None)
    r.stdout_ok = False
    r.progress = bounds.Progress(time.monotonic())
    return e, r


def feed(r, lines):
    for line in lines:
        r.line(line)
    r.ended = time.monotonic()


def watch(rip=STUCK):
    """L1's report on a livelocked vCPU0 (tools/kvm-l1-init's lines)."""
    out = ["kvm-run: l2 state follows: silent 60 s"]
    for i in range(1, 6):
        out += ["kvm-dump| sample %s uptime %d.0 running" % (
                    i if i < 5 else "final", 70 + i),
                "kvm-dump| CPU#0",
                "kvm-dump| RAX=0000000000000001 RBX=0000000000000002 "
                "RCX=000000000000080b RDX=0000000000000000",
                "kvm-dump| RIP=%016x RFL=00000046 [---Z-P-] CPL=0 II=0 "
                "A20=1 SMM=0 HLT=0" % rip,
                "kvm-dump| CR0=80010031 CR2=0000000000000000 "
                "CR3=0000000000232000 CR4=00000020"]
        if i == 4:
            out += ["kvm-dump| trace entry 9000 0 %#x" % rip,
                    "kvm-dump| trace exit 9000 0 %#x 0x64" % rip,
                    "kvm-dump| trace window 4 lost 0"]
    return out


def ending(verdict):
    return ["kvm-run: %s" % verdict, "kvm-run: exit 127"]


@case
def l1s_end_before_the_backstop_with_l2_printing_is_incomplete():
    e, r = env()
    feed(r, ["kvm-run: l2 start: -smp 2 -m 128 -cpu host"] +
         ["shimk-L2| tlb-detect: %d of 5000 flushes checked" % i
          for i in range(5)] +
         ["kvm-run: l2 state follows: timeout after 690 s of uptime"] +
         ending("timeout after 690 s of uptime"))
    status, why = e.judge(r, 255, None)
    return (status == 1 and e.retry_reason is None and
            why.startswith("incomplete: still running at the backstop of "
                           "720 s (3 x --timeout 240 s): 5 lines in the "
                           "last minute, last line 'tlb-detect: 4 of 5000")
            and why.endswith("L1 stopped L2 at 690 s of its uptime"))


@case
def a_livelock_is_retried_and_the_unsaved_memory_said():
    e, r = env()
    feed(r, ["kvm-run: l2 start: x", "shimk-L2| KTEST: BEGIN v=1"] +
         watch() + ["kvm-run: memory not saved: no scratch disk "
                    "(/dev/vda)"] + ending("silent 60 s"))
    status, why = e.judge(r, 255, None)
    return (status == 2 and why.startswith(
        "L2 silent 60 s: L0 livelock: vCPU0 entered 9000 times in 4.0 s "
        "without retiring an instruction at 0xffffffff801116e4, exit "
        "reason vintr 9000") and
        "memory: L2's memory was not saved (no scratch disk (/dev/vda))"
        in why and e.retry_reason and
        e.retry_reason.startswith("L0 livelock"))


@case
def saved_memory_goes_to_the_memory_check():
    e, r = env()
    with tempfile.TemporaryDirectory() as tmp:
        e.scratch_args(tmp)
        with open(e.scratch, "r+b") as f:
            f.write(b"\x5a" * 8192)
        feed(r, ["kvm-run: l2 start: x"] + watch() +
             ["kvm-run: saving memory: 134217728 bytes",
              "kvm-run: memory saved: 134217728 bytes from 0 on the "
              "scratch disk in 2 s"] + ending("silent 60 s"))
        log = []
        r.logline = log.append
        status, why = e.judge(r, 255, None)
    return (status == 2 and e.saving is False and
            e.mem_saved == 134217728 and
            any("2 of 32768 pages not zero" in l for l in log) and
            any(l.startswith("### memory check") for l in log) and
            "; memory: " in why)


@case
def tests_that_finished_before_the_silence_say_so():
    e, r = env()
    feed(r, ["kvm-run: l2 start: x",
             "shimk-L2| KTEST: END 12 passed, 0 failed, 0 skipped"] +
         watch(0xffffffff80110ff8)[:1] + ending("silent 60 s"))
    status, why = e.judge(r, 255, None)
    return (status == 2 and why.endswith(
        "shimk's tests had finished (KTEST: END 12 passed, 0 failed, 0 "
        "skipped) but its exit did not arrive"))


@case
def l1_reset_mid_dump_is_the_l0s_with_l2s_state():
    # From a real kvm-nested run at 4 vCPUs on 2 (QEMU 7.2): L2 vCPU0
    # held L1's own state, shimk's CPU1 waited for it, L1 began its
    # dump, and then the outer QEMU (-no-reboot) exited 0: L1 reset.
    e, r = env()
    out = ["kvm-run: l2 start: x",
           "kvm-run: l2 state follows: silent 60 s"]
    for i in (1, "final"):
        out += ["kvm-dump| sample %s uptime 173.5 running" % i,
                "kvm-dump| CPU#0",
                "kvm-dump| RAX=000000002ef81000 RBX=0000002d8a7876f0 "
                "RCX=000000000000080b RDX=0000000000000000",
                "kvm-dump| RIP=ffffffffc035120c RFL=00010246 [---Z-P-] "
                "CPL=0 II=0 A20=1 SMM=0 HLT=0",
                "kvm-dump| CR0=80050033 CR2=ffffffffc035120c "
                "CR3=000000002ef3c000 CR4=00000020",
                "kvm-dump| CPU#1",
                "kvm-dump| RIP=%016x RFL=00000282 [--S----] CPL=0 II=0 "
                "A20=1 SMM=0 HLT=0" % STUCK,
                "kvm-dump| CR0=80010031 CR2=0000000000000000 "
                "CR3=0000000000234000 CR4=00000020"]
    feed(r, out)
    status, why = e.judge(r, 0, None)
    return (status == 2 and
            why.startswith("L0 fault: L1 itself reset (the outer QEMU") and
            "vCPU0 holds a state that is not shimk's (RIP 0xffffffffc035120c"
            in why and e.retry_reason == why)


@case
def qemu_exit_0_before_l2_started_is_no_l1_reset():
    # Nothing shows L1 ran L2: the plain "without a verdict" stays.
    e, r = env()
    feed(r, ["kvm-run: l1 init start, uptime 4.9 3.0"])
    status, why = e.judge(r, 0, None)
    return (status == 2 and why.startswith("QEMU exited 0 without L1's "
                                           "verdict") and
            not getattr(e, "retry_reason", None))


@case
def l1_is_allowed_longer_while_it_saves_memory():
    e, r = env()
    feed(r, ["kvm-run: l2 start: x"])
    quiet = e.stage_deadline(r, 0)[0] - e.last_line
    feed(r, ["kvm-run: l2 state follows: silent 60 s"])
    dumping = e.stage_deadline(r, 0)[0] - e.last_line
    feed(r, ["kvm-run: saving memory: 134217728 bytes"])
    saving = e.stage_deadline(r, 0)[0] - e.last_line
    # Deadlines are monotonic-clock floats: compare within a microsecond.
    return (abs(quiet - (60 + env_nested.L1_REPORT_S)) < 1e-6 and
            abs(dumping - env_nested.L1_DUMP_GAP_S) < 1e-6 and
            abs(saving - env_nested.L1_MEM_SAVE_S) < 1e-6)


@case
def l1s_soft_lockup_reports_are_not_progress_but_evidence():
    # From a real hyperv-nested run (QEMU 7.2): shimk's exit 0, then only
    # L1's watchdog, every 28 s, to the 900 s backstop.
    e, r = env()
    feed(r, ["kvm-run: l2 start: x",
             "shimk-L2| KTEST: END 4 passed, 0 failed, 0 skipped",
             "shimk-L2| shimk: exit 0"])
    first = e.stage_deadline(r, 0)
    feed(r, ["[   56.613570] watchdog: BUG: soft lockup - CPU#0 stuck for "
             "26s! [qemu-system-x86:120]",
             "[   84.614460] watchdog: BUG: soft lockup - CPU#0 stuck for "
             "52s! [qemu-system-x86:120]"])
    later = e.stage_deadline(r, 0)
    status, why = e.judge(r, None, "l1-stuck")
    return (first == later and first[1] == "l1-stuck" and status == 2 and
            why.startswith("L0 fault: L1 itself stopped: its watch of L2, "
                           "which reports within 100 s of silence, said "
                           "nothing; L1's kernel reported its CPU0 stuck "
                           "in kernel mode for 26 s in task "
                           "qemu-system-x86") and
            e.retry_reason and e.retry_reason.startswith("L0 fault"))


@case
def l1s_panic_is_the_l0s_and_retried():
    # A fresh-root make check's kvm-nested-smp2: L1 panicked in L2's QEMU
    # thread while shimk's timer suite ran.
    e, r = env()
    r.stop_after = lambda s, why: None
    feed(r, ["kvm-run: l2 start: x",
             "shimk-L2| ok 36 - selfcheck: an-rsp0-off-every-kernel-stack-"
             "is-named",
             "[   72.157899] Kernel panic - not syncing: corrupted stack end "
             "detected inside scheduler"])
    status, why = e.judge(r, None, "l1-panic")
    return (status == 2 and why.startswith(
        "L0 fault: L1's kernel panicked ([   72.157899] Kernel panic - not "
        "syncing: corrupted stack end detected inside scheduler)") and
        e.retry_reason == why)


@case
def l1_stuck_before_l2_started_is_the_l0s_and_retried():
    # From a nested detector loop: L1's init locked up after loading KVM.
    e, r = env()
    feed(r, ["kvm-run: kvm loaded (kvm_amd nested=1), uptime 6.22 4.38",
             "[   52.581319] watchdog: BUG: soft lockup - CPU#0 stuck for "
             "44s! [init:1]"])
    status, why = e.judge(r, None, "l1-start")
    return (status == 2 and why == (
        "L0 fault: L2 not started within 120 s, so shimk never ran: L1's "
        "last word: 'kvm loaded (kvm_amd nested=1), uptime 6.22 4.38'; "
        "L1's kernel reported its CPU0 stuck in kernel mode for 44 s in "
        "task init") and e.retry_reason == why)


@case
def l1s_kernel_lines_do_not_keep_its_watch_alive():
    e, r = env()
    feed(r, ["kvm-run: l2 start: x"])
    before = e.stage_deadline(r, 0)
    feed(r, ["[  300.1] rcu: INFO: rcu_sched self-detected stall on CPU"])
    return e.stage_deadline(r, 0) == before


@case
def the_peer_is_watched_with_its_own_bound():
    e, r = env(peer="linux", peer_timeout=360, peer_append="")
    feed(r, ["kvm-run: l2 start: x"] + ["kvm-run: l2 exit 1"] +
         ["kvm-run: peer start: -smp 2 -m 256 -cpu host"])
    deadline, why = e.stage_deadline(r, 0)
    quiet = deadline - e.last_line
    feed(r, ["kvm-run: peer exit 0"])
    return (why == "l1-stuck" and
            abs(quiet - (env_nested.peer.PEER_SILENT_S +
                         env_nested.L1_REPORT_S)) < 1e-6 and
            e.stage_deadline(r, 0) == (None, None))


@case
def the_scratch_disk_is_l2s_size_and_only_below_the_bound():
    e, r = env(mem=256)
    big, _ = env(mem=4096)
    with tempfile.TemporaryDirectory() as tmp:
        args = e.scratch_args(tmp)
        size = os.path.getsize(e.scratch)
        none = big.scratch_args(tmp)
    return (size == 256 << 20 and "virtio-blk-pci,drive=l2mem" in args and
            none == [] and big.dump_mib() == 0 and e.silence is None and
            e.l2_silence == 60)


if __name__ == "__main__":
    try:
        sys.exit(pytap.main())
    finally:
        os.unlink(env_nested.ELF)
