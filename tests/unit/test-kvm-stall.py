#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# tools/bootlib/kvm_stall.py: a failed L2's evidence read into a verdict (TAP).

import os
import sys
import tempfile

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
sys.path.insert(0, HERE)
from bootlib import kvm_stall  # noqa: E402
from pytap import case  # noqa: E402
import pytap  # noqa: E402


def fixture(name):
    with open(os.path.join(HERE, "fixtures", name)) as f:
        return f.read().splitlines()


# Recorded from tools/kvm-l1-init's dump of a real L2 (QEMU 7.2 monitor
# over a pipe, readline's echo included): vCPU0 in shimk, vCPU1 still in
# SeaBIOS waiting for its INIT-SIPI.
DUMP = fixture("kvm-dump-boot.txt")
# A triple fault of a 4-vCPU L2 on a 2-vCPU L1 (kvm-nested), with KVM's
# trace of the shutdown exit: vCPU0 (re-initialised by KVM, so back at the
# reset vector) was delivering a page fault on an instruction fetch from
# shimk's serial driver, right after an OUT that KVM had emulated.
SHUTDOWN = fixture("kvm-dump-shutdown.txt")
# A detector run (kvm-nested, 2 vCPUs) stopped by a 10 s silence bound
# (tools/boot --silence 10) in the middle of a mode: five register
# samples, KVM's entries and exits traced over 8 s and summed in L1 (by
# awk from the raw trace then, with the exit reasons' names and each
# vCPU's time span; L1 now counts them with histogram triggers), the
# stopped state, the local APICs. Both vCPUs were busy in shimk's loops.
LOOP = fixture("kvm-dump-loop.txt")
# A real 60 s silence of kvm-nested-detector on a loaded host, right after
# KTEST: BEGIN (L1 counting KVM's entries and exits with histogram
# triggers: SVM exit codes): both vCPUs moving through the detector,
# about 800 exits a second. Not a livelock, so shimk's.
SILENT = fixture("kvm-dump-silent-detector.txt")
# ktest=selftest-tss-triple under kvm-nested (matrix row
# kvm-nested-selftest-tss-triple): CPU1's #DF IST pointer aimed at an
# unmapped page, then a stack overflow. KVM reset vCPU1 at the shutdown
# exit; the kprobe kept its state (TR base and all), without which the
# memory check could not have read CPU1's TSS.
TSS = fixture("kvm-dump-tss-triple.txt")
# shimk's code as its ELF placed it when the dumps were taken.
RANGES = [(0x100000, 0x10a000), (0xffffffff8010a000, 0xffffffff80128000)]
RIP0 = "RIP=ffffffff8010e18b RFL=00000046 [---Z-P-] CPL=0 II=0 A20=1 " \
       "SMM=0 HLT=0"
INTACT = kvm_stall.Memory("intact", "L0 fault, proven: shimk's state "
                          "intact (vCPU0-3: GDT, IDT, TSS, kernel root, "
                          "stacks)")
TRAMPLED = kvm_stall.Memory("trampled", "shimk fault: TSS on CPU1 "
                            "corrupted at +0x2c")
UNCHECKED = kvm_stall.Memory("unchecked", "no selfcheck_ref in the ELF")


def with_line(old, new, lines=None):
    lines = DUMP if lines is None else lines
    out = [new if l == old else l for l in lines]
    assert out != lines, old
    return out


def with_irr0(vectors, ppr="0x00"):
    out, cpu = [], None
    for l in DUMP:
        if l.startswith("dumping local APIC state for CPU"):
            cpu = l.split()[-1]
        if l.startswith("IRR") and cpu == "0":
            l = "IRR\t %s" % vectors
        if l.startswith("APR") and cpu == "0":
            l = l.replace("PPR 0x00", "PPR %s" % ppr)
        out.append(l)
    return out


def synth(rips, trace, n_samples=5, regs=None, halted=False, window=5,
          lost=0):
    """A watch of vCPU0 as tools/kvm-l1-init reports it: n_samples
    samples at rips (one RIP, or one per sample), then KVM's trace.

    trace: ("entry"|"exit", count, rip[, reason]) tuples for vCPU0.
    """
    if isinstance(rips, int):
        rips = [rips] * n_samples
    out = ["kvm first exits 1000 10.00"]
    for i, rip in enumerate(rips, 1):
        out += ["sample %s uptime %.2f %s" % (
                    i if i < len(rips) else "final", 10 + i,
                    "running" if i < len(rips) else "stopped"),
                "CPU#0",
                "RAX=%016x RBX=0000000000000001 RCX=000000000000080b "
                "RDX=0000000000000000" % ((regs or [0] * len(rips))[i - 1]),
                "RSI=0000000000000000 RDI=000000000000000b "
                "RBP=ffffc0000002de60 RSP=ffffc0000002de18",
                "R8 =0000000000003eb0 R9 =0000000000000023 "
                "R10=0000000000000000 R11=0000000000000001",
                "R12=ffffffff8016cf00 R13=0000000000000000 "
                "R14=0000000000000000 R15=00000000000000fd",
                "RIP=%016x RFL=00000046 [---Z-P-] CPL=0 II=0 A20=1 SMM=0 "
                "HLT=%d" % (rip, halted),
                "CR0=80010031 CR2=0000000000000000 CR3=0000000000232000 "
                "CR4=00000020"]
        if i == len(rips) - 1:
            out.append("kvm last exits 13000 15.00")
            out.append("trace window %d lost %d" % (window, lost))
            for t in trace:
                out.append("trace %s %d 0 %#x%s" % (
                    t[0], t[1], t[2], " " + t[3] if len(t) > 3 else ""))
    return out


# The livelock seen in kvm-nested-detector (docs/kvm-nested.md#the-verdicts):
# one RIP for a minute, the rdtsc after the TSC-deadline WRMSR, with KVM
# entering the vCPU thousands of times a second.
STUCK = 0xffffffff801116e4
# Exit reasons as L1's histogram gives them: SVM exit codes (VINTR, INTR).
LIVELOCK_TRACE = [("entry", 11500, STUCK), ("exit", 11490, STUCK, "0x64"),
                  ("exit", 10, STUCK, "0x60")]


def code(data):
    return lambda va: data if va == STUCK else None


@case
def parses_both_vcpus_through_the_monitor_echo():
    v = kvm_stall.parse(DUMP).vcpus()
    return (v[0].rip == 0xffffffff8010e18b and v[0].cpl == 0 and
            not v[0].halted and v[1].rip == 0xfd09a and v[1].halted and
            v[0].cr3 == 0x102000 and v[1].cr0 == 0x11)


@case
def a_vcpu_in_the_firmware_is_not_started_not_a_fault():
    text, fault = kvm_stall.diagnose(DUMP, RANGES)
    return (not fault and text.startswith("shimk stuck") and
            "vCPU1 not started" in text)


@case
def an_l1_address_in_l2_state_is_the_l0():
    d = with_line(RIP0, RIP0.replace("ffffffff8010e18b", "ffffffff81a2c3d4"))
    text, fault = kvm_stall.diagnose(d, RANGES)
    return fault and text.startswith("L0 fault") and "vCPU0" in text


@case
def a_ring3_task_is_shimks():
    d = with_line(RIP0, RIP0.replace("ffffffff8010e18b", "0000000000400123")
                  .replace("CPL=0", "CPL=3"))
    text, fault = kvm_stall.diagnose(d, RANGES)
    return not fault and "in a task" in text


@case
def halted_with_if_and_a_pending_vector_is_the_l0():
    d = with_line(RIP0, RIP0.replace("RFL=00000046", "RFL=00000246")
                  .replace("HLT=0", "HLT=1"))
    text, fault = kvm_stall.diagnose(with_irr0("236"), RANGES)
    assert not fault
    d2 = []
    for a, b in zip(d, with_irr0("236(level) 253")):
        d2.append(b if b.startswith("IRR") else a)
    text, fault = kvm_stall.diagnose(d2, RANGES)
    return fault and "236,253" in text


@case
def a_pending_vector_at_or_below_the_processor_priority_is_shimks():
    # A vector in service (never EOI'd) holds lower classes back: shimk's
    # doing, not the L0's (SDM vol. 3, 11.8.3.1).
    d = with_line(RIP0, RIP0.replace("RFL=00000046", "RFL=00000246")
                  .replace("HLT=0", "HLT=1"))
    d2 = []
    for a, b in zip(d, with_irr0("236", ppr="0xf0")):
        d2.append(b if b.startswith(("IRR", "APR")) else a)
    text, fault = kvm_stall.diagnose(d2, RANGES)
    return not fault and "vCPU0 halted" in text


@case
def halted_with_nothing_pending_is_shimks():
    d = with_line(RIP0, RIP0.replace("RFL=00000046", "RFL=00000246")
                  .replace("HLT=0", "HLT=1"))
    text, fault = kvm_stall.diagnose(d, RANGES)
    return not fault and "vCPU0 halted" in text


@case
def no_dump_says_so():
    text, fault = kvm_stall.diagnose([], RANGES)
    return not fault and "no state dump" in text


@case
def symbols_name_the_place():
    text, _ = kvm_stall.diagnose(DUMP, RANGES,
                                 lambda rip: "serial_init+0xb")
    return "(serial_init+0xb)" in text


@case
def a_fetch_fault_in_shimks_text_needs_memory_to_be_the_l0():
    # Once retried as the L0's without proof; now the memory decides.
    sym = lambda rip: "com1_write+0x5d"  # noqa: E731
    text, fault = kvm_stall.diagnose(SHUTDOWN, RANGES, sym)
    proven, l0 = kvm_stall.diagnose(SHUTDOWN, RANGES, sym, memory=INTACT)
    shimk, l0b = kvm_stall.diagnose(SHUTDOWN, RANGES, sym, memory=TRAMPLED)
    return (not fault and "not attributed" in text and
            "memory was not checked" in text and
            "0xffffffff8010e11d (com1_write+0x5d)" in text and
            "fetching its own code" in text and
            l0 and proven.startswith("L0 fault, proven: L2 vCPU0") and
            "shimk's state intact" in proven and
            not l0b and shimk.startswith("shimk fault: TSS on CPU1"))


@case
def a_triple_fault_in_shimks_text_is_never_blamed_by_elimination():
    # Seen: vector 0xfb (an IPI) being delivered at flush_area_mask's
    # wait loop. Without a memory verdict it is a plain failure that says
    # what could not be checked.
    d = [l.replace("intr_info 0x80000b0e error_code 0x00000010",
                   "intr_info 0x800000fb error_code 0x00000000")
         for l in SHUTDOWN]
    outs = [kvm_stall.diagnose(d, RANGES, what="shimk's state", memory=m)
            for m in (None, UNCHECKED, INTACT, TRAMPLED)]
    return (not any("elimination" in t for t, _ in outs) and
            [f for _, f in outs] == [False, False, True, False] and
            "0x800000fb" in outs[0][0] and
            "no selfcheck_ref in the ELF" in outs[1][0])


@case
def a_fetch_fault_outside_shimk_at_a_shutdown_is_shimks():
    d = [l.replace("rip 0xffffffff8010e11d", "rip 0x0000000000001000")
         for l in SHUTDOWN]
    text, fault = kvm_stall.diagnose(d, RANGES, memory=INTACT)
    return not fault and "triple-faulted at 0x1000" in text


@case
def a_ring3_triple_fault_with_shimks_state_intact_is_the_l0():
    # Seen in a fresh root (kvm-nested-overcommit): a task's code fetch
    # faulted and delivering that #PF from ring 3 shut the vCPU down.
    probe = ("CPU 1/KVM-311 [001] d..1. 93.5: l2_shutdown: "
             "(shutdown_interception+0x4/0x80 [kvm_amd]) vcpu=0 "
             "rip=0x400d84 rsp=0x7f0000003fc8 cs=0x2b cpl=3 "
             "cr3=0x2dc000 gs_base=0x0")
    d = [l.replace("rip 0xffffffff8010e11d", "rip 0x0000000000400d84")
         .replace("error_code 0x00000010", "error_code 0x00000014")
         for l in SHUTDOWN] + ["trace: " + probe]
    outs = [kvm_stall.diagnose(d, RANGES, memory=m)
            for m in (None, UNCHECKED, INTACT, TRAMPLED)]
    # Without the probe's CS, ring 3 is not shown: shimk's.
    bare = [l.replace("rip 0xffffffff8010e11d", "rip 0x0000000000400d84")
            for l in SHUTDOWN]
    text, fault = kvm_stall.diagnose(bare, RANGES, memory=INTACT)
    return ([f for _, f in outs] == [False, False, True, False] and
            outs[2][0].startswith("L0 fault, proven: L2 vCPU0 "
                                  "triple-faulted in ring 3 at 0x400d84")
            and "error code 0x14" in outs[2][0] and
            "shimk's state intact" in outs[2][0] and
            "CS 0x2b" in outs[2][0] and
            outs[3][0].startswith("shimk fault: TSS on CPU1") and
            not fault and "re-initialised" in text)


@case
def a_shutdown_at_an_l1_module_address_is_the_l0():
    # Seen in a fresh-root run: the shutdown exit's RIP in L1's modules.
    d = [l.replace("rip 0xffffffff8010e11d", "rip 0xffffffffc033313c")
         for l in SHUTDOWN]
    text, fault = kvm_stall.diagnose(d, RANGES)
    return fault and "outside shimk's image" in text


@case
def the_shutdown_probe_gives_the_faulting_vcpus_state():
    probe = ("CPU 0/KVM-311 [001] d..1. 93.5: l2_shutdown: "
             "(shutdown_interception+0x4/0x80 [kvm_amd]) vcpu=0 "
             "rip=0xffffffff8010e11d rsp=0xffffc0000002de18 cs=0x8 cpl=0 "
             "cr3=0x232000 gs_base=0xffffc00000016000")
    d = SHUTDOWN + ["trace: " + probe]
    v = kvm_stall.parse(d).vcpus()[0]
    text, fault = kvm_stall.diagnose(d, RANGES, memory=INTACT)

    class Regs:
        FIELDS = ("rip", "rsp", "idt_base", "halted")

        def __init__(self, n):
            self.n = n

    r = kvm_stall.probe_vcpu(Regs, 0, v.probe)
    return (v.probe["cr3"] == 0x232000 and fault and
            "CR3 0x232000" in text and "GS base 0xffffc00000016000" in text
            and r.n == 0 and r.rsp == 0xffffc0000002de18 and
            r.idt_base is None and r.halted is False and
            not hasattr(r, "cpl"))


@case
def a_recorded_triple_fault_keeps_the_faulting_vcpus_state():
    d = kvm_stall.parse(TSS)
    v = d.vcpus()[1]
    trampled = kvm_stall.Memory("trampled", "shimk fault: TSS on CPU1 "
                                "corrupted at +0x2c (IST2 0xffffd07ffffff000 "
                                "at fault, 0xffffd00000028000 at boot; vCPU1)")
    # That build's text ran further than the older dumps'.
    ranges = [(0xffffffff80100000, 0xffffffff80140000)]
    text, fault = kvm_stall.diagnose(TSS, ranges, lambda rip: "deep+0xd",
                                     memory=trampled)
    return (v.cr0 == 0x10 and v.probe["tr_sel"] == 0x30 and
            v.probe["rip"] == v.shutdown[0] == 0xffffffff8012984d and
            v.probe["cr2"] == 0xffffd07fffffeff8 and
            d.vcpus()[0].cr0 & kvm_stall.CR0_PG and not fault and
            text.startswith("shimk fault: TSS on CPU1 corrupted at +0x2c") and
            "at L2 vCPU1 triple-faulted at 0xffffffff8012984d (deep+0xd)"
            in text and "error code 0x2" in text)


@case
def l1_silent_after_l2_is_the_l0_with_its_vcpus():
    # The outer QEMU's dump of L1 has the same format as L1's of L2.
    text, fault = kvm_stall.diagnose(DUMP, RANGES, l1_stuck=90)
    return (fault and text.startswith("L0 fault: L1 itself stopped") and
            "90 s" in text and "vCPU0 running at 0xffffffff8010e18b" in text)


@case
def l1_silent_without_a_dump_is_still_the_l0():
    text, fault = kvm_stall.diagnose([], RANGES, l1_stuck=90)
    return fault and "no dump from the outer QEMU" in text


@case
def shutdown_wording_is_kept():
    text, _ = kvm_stall.diagnose(DUMP, RANGES, what="shimk's state")
    return text.startswith("shimk's state: ")


@case
def a_recorded_busy_l2_is_shimks_with_the_rips_seen():
    d = kvm_stall.parse(LOOP)
    m = kvm_stall.vcpu_motion(d, RANGES)
    text, fault = kvm_stall.diagnose(LOOP, RANGES, memory=INTACT)
    return (len(d.samples) == 6 and d.traced == 5 and
            d.trace[0].nr_entries() > 1000 and
            m[0][0] == "loop" and m[1][0] == "loop" and not fault and
            text.startswith("shimk stuck: vCPU0 running, RIP moving") and
            "KVM exits +10866" in text and
            "memory: shimk's state intact (vCPU0-3" in text)


@case
def a_recorded_silent_detector_moving_on_both_vcpus_is_shimks():
    d = kvm_stall.parse(SILENT)
    t = d.trace[0]
    text, fault = kvm_stall.diagnose(SILENT, RANGES, memory=UNCHECKED)
    return (d.traced == 11 and t.exits[(0xffffffff801116e2, "msr")] == 2102
            and t.entries[0xffffffff801116e4] == 2188 and not fault and
            text.startswith("shimk stuck: vCPU0 running, RIP moving") and
            "vCPU1 running, RIP moving" in text and
            "KVM exits +8474 in 10.7 s" in text)


@case
def one_rip_entered_and_left_only_there_is_a_livelock():
    d = synth(STUCK, LIVELOCK_TRACE)
    text, fault = kvm_stall.diagnose(
        d, RANGES, lambda rip: "apic_timer_program+0x34",
        code_at=code(b"\x0f\x31\x48\xc1"))          # rdtsc
    return (fault and text.startswith(
        "L0 livelock: vCPU0 entered 11500 times in 5.0 s without retiring "
        "an instruction at 0xffffffff801116e4 (apic_timer_program+0x34), "
        "exit reason vintr 11490, interrupt 10") and
        "all 5 register samples" in text)


@case
def a_livelock_with_shimks_state_trampled_is_shimks():
    text, fault = kvm_stall.diagnose(synth(STUCK, LIVELOCK_TRACE), RANGES,
                                     memory=TRAMPLED)
    return (not fault and text.startswith("shimk fault: TSS") and
            "L0 livelock" in text)


@case
def a_livelock_needs_every_entry_at_that_rip():
    # Samples can all land on one instruction of a loop; KVM's entries
    # at other RIPs show the loop.
    trace = LIVELOCK_TRACE + [("entry", 40, STUCK + 6)]
    text, fault = kvm_stall.diagnose(synth(STUCK, trace), RANGES)
    return not fault and "a loop" in text and "0xffffffff801116ea" in text


@case
def an_instruction_that_retires_moves_the_entry_past_it():
    # Exits at the WRMSR, entries at the next instruction: it retired
    # every time (the recorded loop has exactly this at +0x32/+0x34).
    trace = [("entry", 5000, STUCK), ("exit", 5000, STUCK - 2, "0x7c")]
    text, fault = kvm_stall.diagnose(synth(STUCK, trace), RANGES)
    return not fault and "a loop" in text


@case
def a_livelock_needs_enough_entries():
    trace = [("entry", 40, STUCK), ("exit", 40, STUCK, "0x60")]
    text, fault = kvm_stall.diagnose(synth(STUCK, trace), RANGES)
    return not fault and "too few to call a livelock" in text


@case
def a_jump_to_itself_is_a_loop_not_a_livelock():
    ok = True
    for insn in (b"\xeb\xfe", b"\xe9\xfb\xff\xff\xff", b"\x75\xfe",
                 b"\x0f\x85\xfa\xff\xff\xff"):
        text, fault = kvm_stall.diagnose(synth(STUCK, LIVELOCK_TRACE),
                                         RANGES, code_at=code(insn))
        ok = ok and not fault and "jump to itself" in text
    return ok and not kvm_stall.jumps_to_itself(b"\xeb\xfc")


@case
def a_livelock_needs_unchanged_registers():
    # A string instruction keeps its RIP while RCX and RDI move.
    text, fault = kvm_stall.diagnose(
        synth(STUCK, LIVELOCK_TRACE, regs=[1, 2, 3, 4, 5]), RANGES)
    return not fault and "RIP moving" in text


@case
def a_livelock_needs_samples_and_a_trace():
    few, f1 = kvm_stall.diagnose(synth([STUCK] * 2, LIVELOCK_TRACE), RANGES)
    d = [l for l in synth(STUCK, LIVELOCK_TRACE)
         if not l.startswith("trace")]
    none, f2 = kvm_stall.diagnose(d, RANGES)
    return (not f1 and "2 samples" in few and not f2 and
            "no trace of KVM's entries" in none)


@case
def a_vcpu_kvm_never_entered_is_not_a_livelock():
    d = [l for l in synth(STUCK, LIVELOCK_TRACE)
         if not l.startswith("trace entry") and
         not l.startswith("trace exit")]
    text, fault = kvm_stall.diagnose(d, RANGES)
    return not fault and "KVM did not enter it" in text


@case
def a_halted_vcpu_is_never_a_livelock():
    text, fault = kvm_stall.diagnose(synth(STUCK, LIVELOCK_TRACE,
                                           halted=True), RANGES)
    return not fault and "vCPU0 halted" in text


def fake_objdump(listing):
    """An objdump that prints listing (its own address lines only, from
    --start-address on), for loop_reader."""
    d = tempfile.mkdtemp()
    path = os.path.join(d, "objdump")
    with open(path, "w") as f:
        f.write("#!/usr/bin/env python3\n"
                "import sys\n"
                "start = int([a for a in sys.argv if a.startswith("
                "'--start-address=')][0].split('=')[1], 16)\n"
                "for line in %r.splitlines():\n"
                "    a = line.split(':')[0].strip()\n"
                "    if int(a, 16) >= start:\n"
                "        print(line)\n" % listing)
    os.chmod(path, 0o755)
    return path


SPIN = ("ffffffff801116e0:\tpause\n"
        "ffffffff801116e2:\tjmp    ffffffff801116e0 <spin+0x10>\n")
POLL = ("ffffffff801116e4:\tpause\n"
        "ffffffff801116e6:\tcmpb   $0x0,0x10(%rip)\n"
        "ffffffff801116ed:\tje     ffffffff801116e4 <poll+0x4>\n")
CALLS = ("ffffffff801116d0:\tcall   ffffffff80100000 <f>\n"
         "ffffffff801116e2:\tjmp    ffffffff801116d0 <g>\n")


@case
def a_one_block_loop_is_shimks_not_a_livelock():
    # TCG takes interrupts between its blocks: a "pause; jmp back" loop
    # is entered and left at one RIP, like a livelock, yet it runs.
    spin = kvm_stall.loop_reader("elf", fake_objdump(SPIN))
    poll = kvm_stall.loop_reader("elf", fake_objdump(POLL))
    calls = kvm_stall.loop_reader("elf", fake_objdump(CALLS))
    trace = [("entry", 11500, 0xffffffff801116e2),
             ("exit", 11500, 0xffffffff801116e2, "0x60")]
    text, fault = kvm_stall.diagnose(synth(0xffffffff801116e2, trace),
                                     RANGES, loop_at=spin)
    return (not fault and "one-block loop" in text and
            spin(0xffffffff801116e2) and poll(0xffffffff801116e4) and
            # A branch out of the block before rip: not one block.
            not calls(0xffffffff801116e2) and
            # The livelock of the rdtsc stays one: no loop there.
            not kvm_stall.loop_reader("elf", fake_objdump(
                "ffffffff801116e4:\trdtsc\n"
                "ffffffff801116e6:\tshl    $0x20,%rdx\n"
                "ffffffff801116ea:\tret\n"))(STUCK))


@case
def a_stall_sample_names_each_silent_target():
    lines = [l.replace("CPU#0", "CPU#1") for l in
             synth(0xffffffff801116e2, [])]
    lines = [l for l in lines if not l.startswith("trace ")]
    lines += ["trace window 5 lost 0",
              "trace entry 900 1 0xffffffff801116e2",
              "trace exit 900 1 0xffffffff801116e2 0x60"]
    spin = kvm_stall.loop_reader("elf", fake_objdump(SPIN))
    text = kvm_stall.stall_summary(
        "shimk: warning: TLB flush: CPUs 1 silent for 5000 ms; sending",
        lines, RANGES, loop_at=spin)
    none = kvm_stall.stall_summary("TLB flush: CPUs 2 silent for 5000 ms",
                                   lines, RANGES)
    return ("vCPU1 running in a one-block loop" in text and
            "KVM entered it 900 times in 5 s" in text and
            "interrupts off in its last sample" in text and
            none == "vCPU2: no sample" and
            kvm_stall.cpu_list("0,2-3") == [0, 2, 3] and
            kvm_stall.cpu_list("x") == [])



@case
def a_silent_target_in_l1s_state_is_the_l0s_fault():
    # Seen in a fresh root's kvm-nested-detector: the silent vCPU0 at
    # L1's kvm_amd address after VMRUN, 58,175 entries with NPF exits.
    l1 = 0xffffffffc035113c
    lines = [l for l in synth(l1, [("entry", 58175, l1),
                                   ("exit", 58175, l1, "0x400")])]
    warn = "TLB flush: CPUs 0 silent for 5000 ms; sending the IPI again"
    fault = kvm_stall.stall_fault(warn, lines, RANGES)
    mine = kvm_stall.stall_fault(warn, synth(STUCK, []), RANGES)
    other = kvm_stall.stall_fault(warn.replace("CPUs 0", "CPUs 1"), lines,
                                  RANGES)
    return (fault is not None and fault.startswith(
        "L0 fault: L2 vCPU0, silent to a shootdown, held a state that is "
        "not shimk's in all 5 samples (RIP 0xffffffffc035113c") and
        "entered it 58175 times" in fault and mine is None and
        other is None)


if __name__ == "__main__":
    sys.exit(pytap.main())
