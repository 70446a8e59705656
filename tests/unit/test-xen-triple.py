#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# tools/bootlib/xen_triple.py: Xen's dump of a triple fault read into a
# verdict (TAP).

import os
import sys

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
sys.path.insert(0, HERE)
from bootlib import memcheck, xen_triple  # noqa: E402
from pytap import case  # noqa: E402
import pytap  # noqa: E402


def fixture(name):
    with open(os.path.join(HERE, "fixtures", name)) as f:
        return f.read().splitlines()


# Recorded from Xen 4.17 in QEMU TCG, tlbbench's full profile as an xl
# domU: one dump holding Xen's own state, one in shimk's flush wait loop.
L1_STATE = fixture("xen-triple-l1-state.txt")
SHIMK_TEXT = fixture("xen-triple-shimk-text.txt")
class Image:
    """memcheck.Image's part that xen_triple uses, for the build that
    ran: its text and image bounds and a symbolizer."""

    def in_text(self, va):
        return 0xffffffff80100000 <= va < 0xffffffff80140000

    def in_image(self, va):
        return 0xffffffff80100000 <= va < 0xffffffff80200000

    def symbolize(self, va):
        return "flush_area_mask+0x1f2" if va == 0xffffffff80111fa2 else None


IMAGE = Image()
INTACT = memcheck.Verdict("L0 fault, proven: shimk's state intact (vCPU0-1: "
                          "GDT, IDT, TSS, kernel root, stacks)", True, [])
TSS = memcheck.Verdict("shimk fault: TSS on CPU1 corrupted at +0x2c (IST2 "
                       "0x0 at fault, 0xffffd00000017000 at boot; vCPU1)",
                       False, [])


@case
def parses_the_dump():
    tf = xen_triple.parse(SHIMK_TEXT)
    return (tf.domid, tf.vcpu, tf.cs, tf.rip, tf.rflags, tf.cr3, tf.rsp,
            tf.cr0, tf.gs_base) == (1, 0, 8, 0xffffffff80111fa2, 0x246,
                                    0x1fa000, 0xffffffff80143b80,
                                    0x80010031, 0xffffffff8015eaa0)


@case
def no_triple_fault_is_none():
    return xen_triple.parse(["(XEN) d1v0 something else"]) is None


@case
def every_vcpus_dump_is_read():
    lines = SHIMK_TEXT + ["(XEN) d1v1 Triple fault - invoking HVM shutdown "
                          "action 1"] + [l.replace("d1v0", "d1v1").replace(
                              "80111fa2", "80111fb0") for l in SHIMK_TEXT[1:]]
    tfs = xen_triple.parse_all(lines)
    return ([(t.vcpu, t.rip) for t in tfs] ==
            [(0, 0xffffffff80111fa2), (1, 0xffffffff80111fb0)])


@case
def xens_own_state_is_the_l0s():
    text, l0 = xen_triple.classify(xen_triple.parse_all(L1_STATE), IMAGE)
    return (l0 and text.startswith("L0 fault, proven: d1v0") and
            "e008:" in text and "Xen's own" in text)


@case
def shimk_text_on_its_gs_without_memory_is_not_proven():
    text, l0 = xen_triple.classify(xen_triple.parse_all(SHIMK_TEXT), IMAGE,
                                   None, "shimk is Xen's dom0 here")
    return (not l0 and "by elimination" not in text and
            "flush_area_mask+0x1f2" in text and "interrupts on" in text and
            text.endswith("not proven the L0's (shimk is Xen's dom0 here)"))


@case
def shimk_text_with_intact_memory_is_the_l0s():
    text, l0 = xen_triple.classify(xen_triple.parse_all(SHIMK_TEXT), IMAGE,
                                   INTACT)
    return l0 and text.startswith("d1v0 triple-faulted at 0008:") and \
        text.endswith(": " + INTACT.text)


@case
def shimk_text_with_a_trampled_tss_is_shimks():
    text, l0 = xen_triple.classify(xen_triple.parse_all(SHIMK_TEXT), IMAGE,
                                   TSS)
    return not l0 and text.endswith(": " + TSS.text)


@case
def a_dump_of_xens_state_wins_over_memory():
    lines = SHIMK_TEXT + [l.replace("d1v0", "d1v1") for l in L1_STATE]
    text, l0 = xen_triple.classify(xen_triple.parse_all(lines), IMAGE, TSS)
    return l0 and text.startswith("L0 fault, proven: d1v1")


@case
def a_user_address_is_not_proven():
    lines = [l.replace("[<ffffffff80111fa2>]", "[<0000000000401000>]")
             for l in SHIMK_TEXT]
    text, l0 = xen_triple.classify(xen_triple.parse_all(lines), IMAGE)
    return not l0 and text.startswith("d1v0 triple-faulted at 0008:0x401000")


@case
def a_kernel_address_outside_the_image_is_the_l0s():
    lines = [l.replace("[<ffffffff80111fa2>]", "[<ffffffffc0001000>]")
             for l in SHIMK_TEXT]
    text, l0 = xen_triple.classify(xen_triple.parse_all(lines), IMAGE)
    return l0 and "outside shimk's image" in text


@case
def a_peer_triple_fault_in_its_own_state_is_not_proven():
    lines = [l.replace("d1v0", "d2v1") for l in SHIMK_TEXT]
    text, l0 = xen_triple.classify_peer(xen_triple.parse_all(lines))
    return (not l0 and text.startswith("Linux's d2v1 triple-faulted at") and
            "not proven the L0's" in text and "elimination" not in text)


@case
def a_peer_in_xens_own_state_is_the_l0s():
    lines = [l.replace("d1v0", "d2v0") for l in L1_STATE]
    text, l0 = xen_triple.classify_peer(xen_triple.parse_all(lines))
    return (l0 and text.startswith("L0 fault, proven: Linux's d2v0") and
            "Xen's own" in text and "e008:" in text)


if __name__ == "__main__":
    sys.exit(pytap.main())
