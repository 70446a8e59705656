#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# tools/bootlib/xen_triple.py: Xen's dump of a triple fault read into a
# verdict (TAP).

import os
import sys

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
sys.path.insert(0, HERE)
from bootlib import xen_triple  # noqa: E402
from pytap import case  # noqa: E402
import pytap  # noqa: E402


def fixture(name):
    with open(os.path.join(HERE, "fixtures", name)) as f:
        return f.read().splitlines()


# Recorded from Xen 4.17 in QEMU TCG, tlbbench's full profile as an xl
# domU: one dump holding Xen's own state, one in shimk's flush wait loop.
L1_STATE = fixture("xen-triple-l1-state.txt")
SHIMK_TEXT = fixture("xen-triple-shimk-text.txt")
# shimk's text as that build laid it out, and a symbolizer for it.
TEXT = [(0xffffffff80100000, 0xffffffff80140000)]


def sym(rip):
    return "flush_area_mask+0x1f2" if rip == 0xffffffff80111fa2 else None


@case
def parses_the_dump():
    tf = xen_triple.parse(SHIMK_TEXT)
    return (tf.domid, tf.vcpu, tf.cs, tf.rip, tf.rflags, tf.cr3,
            tf.gs_base) == (1, 0, 8, 0xffffffff80111fa2, 0x246, 0x1fa000,
                            0xffffffff8015eaa0)


@case
def no_triple_fault_is_none():
    return xen_triple.parse(["(XEN) d1v0 something else"]) is None


@case
def xens_own_state_is_the_l0s():
    text, l0 = xen_triple.classify(xen_triple.parse(L1_STATE), TEXT, sym)
    return l0 and text.startswith("L0 fault: d1v0") and "e008:" in text


@case
def shimk_text_on_its_gs_is_the_l0s_by_elimination():
    text, l0 = xen_triple.classify(xen_triple.parse(SHIMK_TEXT), TEXT, sym)
    return (l0 and "by elimination" in text and
            "flush_area_mask+0x1f2" in text and "interrupts on" in text)


@case
def shimk_text_on_the_users_gs_is_shimks():
    lines = [l.replace("gsb: ffffffff8015eaa0   gss: 0000000000000000",
                       "gsb: 0000000000000000   gss: ffffffff8015eaa0")
             for l in SHIMK_TEXT]
    text, l0 = xen_triple.classify(xen_triple.parse(lines), TEXT, sym)
    return not l0 and "GS base 0" in text


@case
def a_user_address_is_shimks():
    lines = [l.replace("0008:[<ffffffff80111fa2>]", "0008:[<0000000000401000>]")
             for l in SHIMK_TEXT]
    text, l0 = xen_triple.classify(xen_triple.parse(lines), TEXT, sym)
    return not l0 and text.startswith("d1v0 triple-faulted at 0008:0x401000")


@case
def a_peer_triple_fault_is_the_l0s_by_elimination():
    lines = [l.replace("d1v0", "d2v1") for l in SHIMK_TEXT]
    text = xen_triple.classify_peer(xen_triple.parse(lines))
    return text.startswith("L0 fault (by elimination): Linux's d2v1")


@case
def a_peer_in_xens_own_state_is_the_l0s():
    lines = [l.replace("d1v0", "d2v0") for l in L1_STATE]
    text = xen_triple.classify_peer(xen_triple.parse(lines))
    return (text.startswith("L0 fault: Linux's d2v0") and
            "Xen's own" in text and "e008:" in text)


if __name__ == "__main__":
    sys.exit(pytap.main())
