#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# tools/bootlib/faultdump.py: what paused QEMU, and the verdict said (TAP).

import os
import sys

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
sys.path.insert(0, HERE)
from bootlib import faultdump, memcheck  # noqa: E402
from pytap import case  # noqa: E402
import pytap  # noqa: E402

# What QEMU 7.2's -d cpu_reset log holds after a triple fault (its CPU
# reset dumps at start, then the line check_exception logs).
RESET_LOG = "CPU Reset (CPU 0)\nEAX=00000000 EBX=00000000\nTriple fault\n"
INTACT = memcheck.Verdict("L0 fault, proven: shimk's state intact (vCPU0-1: "
                          "GDT, IDT, TSS, kernel root, stacks)", True, [])
TSS = memcheck.Verdict("shimk fault: TSS on CPU1 corrupted at +0x2c (IST2 "
                       "0x0 at fault, 0xffffd00000017000 at boot; vCPU1)",
                       False, [])


@case
def a_triple_fault_is_named_from_the_reset_log():
    return (faultdump.event_name("guest-reset", RESET_LOG) == "triple fault"
            and faultdump.event_name("guest-reset", "CPU Reset (CPU 0)\n") ==
            "reset requested by the guest")


@case
def under_kvm_a_reset_without_the_log_line_is_ambiguous():
    return faultdump.event_name("guest-reset", "", tcg=False) == \
        "triple fault or reset requested by the guest"


@case
def a_power_off_is_named():
    return faultdump.event_name("guest-shutdown", "") == \
        "power-off requested by the guest"


@case
def intact_state_at_a_triple_fault_proves_the_l0():
    text, proven = faultdump.verdict_text("triple fault", INTACT)
    return proven and text == "triple fault: " + INTACT.text


@case
def intact_state_at_a_reset_proves_nothing():
    text, proven = faultdump.verdict_text("reset requested by the guest",
                                          INTACT)
    return not proven and text == (
        "reset requested by the guest; memory: shimk's state intact "
        "(vCPU0-1: GDT, IDT, TSS, kernel root, stacks)")


@case
def a_trampled_tss_is_shimks_whatever_the_event():
    text, proven = faultdump.verdict_text("triple fault", TSS)
    return not proven and text == "triple fault: " + TSS.text


@case
def a_silence_names_places_and_memory_never_the_l0():
    fd = faultdump.FaultDump("/nonexistent", "/nonexistent.elf")
    fd.event = "silence"
    fd.verdict = INTACT
    fd.regs_lines = [
        "CPU#0",
        "RIP=ffffffff80111e82 RFL=00000246 [---Z-P-] CPL=0 II=0 A20=1 "
        "SMM=0 HLT=0",
        "CR0=80010031 CR2=00000000 CR3=00000000001fb000 CR4=00000020",
        "CPU#1",
        "EIP=0000fff0 EFL=00000002 [-------] CPL=0 II=0 A20=1 SMM=0 HLT=1",
        "CR0=00000010 CR2=00000000 CR3=00000000 CR4=00000000"]
    text = fd.silence_text()
    event, rtext, proven = fd.result()
    return (text == "vCPU0 running at 0xffffffff80111e82; vCPU1 not "
            "started; memory: shimk's state intact (vCPU0-1: GDT, IDT, TSS, "
            "kernel root, stacks)" and not proven)


@case
def no_dump_is_said_and_not_proven():
    fd = faultdump.FaultDump("/nonexistent", "/nonexistent.elf")
    fd.event = "triple fault"
    fd.error = "QEMU closed its QMP socket"
    event, text, proven = fd.result()
    return not proven and text == ("triple fault (memory not checked: QEMU "
                                   "closed its QMP socket)")


@case
def no_pause_no_result():
    return faultdump.FaultDump("/x", "/y").result() is None


if __name__ == "__main__":
    sys.exit(pytap.main())
