#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# tools/bootlib/kvm_stall.py: a silent L2's dump read into who is stuck (TAP).

import os
import sys

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
sys.path.insert(0, HERE)
from bootlib import kvm_stall  # noqa: E402
from pytap import case  # noqa: E402
import pytap  # noqa: E402

# Recorded from tools/kvm-l1-init's dump of a real L2 (QEMU 7.2 monitor
# over a pipe, readline's echo included): vCPU0 in shimk, vCPU1 still in
# SeaBIOS waiting for its INIT-SIPI.
with open(os.path.join(HERE, "fixtures", "kvm-dump-boot.txt")) as f:
    DUMP = f.read().splitlines()
# A triple fault of a 4-vCPU L2 on a 2-vCPU L1 (kvm-nested), with KVM's
# trace of the shutdown exit: vCPU0 (re-initialised by KVM, so back at the
# reset vector) was delivering a page fault on an instruction fetch from
# shimk's serial driver, right after an OUT that KVM had emulated.
with open(os.path.join(HERE, "fixtures", "kvm-dump-shutdown.txt")) as f:
    SHUTDOWN = f.read().splitlines()
# shimk's code as its ELF placed it when the dump was taken.
RANGES = [(0x100000, 0x10a000), (0xffffffff8010a000, 0xffffffff80128000)]
RIP0 = "RIP=ffffffff8010e18b RFL=00000046 [---Z-P-] CPL=0 II=0 A20=1 " \
       "SMM=0 HLT=0"


def with_line(old, new):
    out = [new if l == old else l for l in DUMP]
    assert out != DUMP, old
    return out


def with_irr0(vectors):
    out, cpu = [], None
    for l in DUMP:
        if l.startswith("dumping local APIC state for CPU"):
            cpu = l.split()[-1]
        if l.startswith("IRR") and cpu == "0":
            l = "IRR\t %s" % vectors
        out.append(l)
    return out



@case
def parses_both_vcpus_through_the_monitor_echo():
    v, _ = kvm_stall.parse(DUMP)
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
def a_fetch_fault_in_shimks_text_at_a_shutdown_is_the_l0():
    text, fault = kvm_stall.diagnose(SHUTDOWN, RANGES,
                                     lambda rip: "com1_write+0x5d")
    return (fault and "vCPU0 triple-faulted" in text and
            "0xffffffff8010e11d (com1_write+0x5d)" in text)


@case
def any_other_triple_fault_in_shimks_text_is_the_l0_by_elimination():
    # Seen: vector 0xfb (an IPI) being delivered at flush_area_mask's
    # wait loop; a data fault (error code 2) reads the same way.
    d = [l.replace("intr_info 0x80000b0e error_code 0x00000010",
                   "intr_info 0x800000fb error_code 0x00000000")
         for l in SHUTDOWN]
    text, fault = kvm_stall.diagnose(d, RANGES, what="shimk's state")
    d2 = [l.replace("error_code 0x00000010", "error_code 0x00000002")
          for l in SHUTDOWN]
    text2, fault2 = kvm_stall.diagnose(d2, RANGES, what="shimk's state")
    return (fault and "by elimination" in text and "0x800000fb" in text
            and fault2 and "error code 0x2" in text2)


@case
def a_fetch_fault_outside_shimk_at_a_shutdown_is_shimks():
    d = [l.replace("rip 0xffffffff8010e11d", "rip 0x0000000000001000")
         for l in SHUTDOWN]
    text, fault = kvm_stall.diagnose(d, RANGES)
    return not fault and "triple-faulted at 0x1000" in text


@case
def a_shutdown_at_an_l1_module_address_is_the_l0():
    # Seen in a fresh-root run: the shutdown exit's RIP in L1's modules.
    d = [l.replace("rip 0xffffffff8010e11d", "rip 0xffffffffc033313c")
         for l in SHUTDOWN]
    text, fault = kvm_stall.diagnose(d, RANGES)
    return fault and "outside shimk's image" in text


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



if __name__ == "__main__":
    sys.exit(pytap.main())
