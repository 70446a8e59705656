# SPDX-License-Identifier: GPL-2.0-only
# Read Xen's dump of a guest vCPU that triple-faulted into who is at fault.
#
# On a triple fault Xen 4.17 prints "dNvM Triple fault - invoking HVM
# shutdown action N" and the vCPU's saved state (xen/arch/x86/hvm/hvm.c:
# hvm_triple_fault, vcpu_show_execution_state). Here Xen itself runs in
# QEMU TCG, on QEMU 7.2's emulation of AMD SVM, the same outer emulation
# whose world switch fails under nested KVM (docs/kvm-nested.md). Two
# signatures are the L0's: a saved state that is Xen's own (its code
# selector 0xe008 or an address outside shimk's image: the world switch
# saved the host's registers as the guest's), and, by elimination and
# said so, a triple fault in shimk's own kernel text with its kernel GS
# base in place (the descriptor tables and IST stacks are fixed at boot,
# a root is never freed while a CPU holds it, and an entry on the user's
# GS base takes the paranoid path: arch/x86/entry.S). Anything else is
# shimk's.

import re

_HEAD_RE = re.compile(r"d(\d+)v(\d+) Triple fault")
_RIP_RE = re.compile(r"^RIP:\s+([0-9a-f]{4}):\[<([0-9a-f]{16})>\]")
_RFLAGS_RE = re.compile(r"^RFLAGS: ([0-9a-f]{16})")
_CR3_RE = re.compile(r"cr3: ([0-9a-f]{16})")
_GSB_RE = re.compile(r"gsb: ([0-9a-f]{16})\s+gss: ([0-9a-f]{16})")
_PREFIX_RE = re.compile(r"^\(XEN\) ")
RFLAGS_IF = 1 << 9
SHIMK_CS = 0x0008
# Xen's own ring-0 code selector (xen/arch/x86/include/asm/desc.h).
XEN_CS = 0xe008
# Kernel addresses have bit 63 set; shimk's GS base is its per-CPU area.
KERNEL_HALF = 0xffff800000000000
# Lines of the dump after its head that we read (xen prints about 14).
DUMP_LINES = 16


class TripleFault:
    def __init__(self, domid, vcpu):
        self.domid = domid
        self.vcpu = vcpu
        self.cs = None
        self.rip = None
        self.rflags = None
        self.cr3 = None
        self.gs_base = None
        self.gs_shadow = None


def parse(lines):
    """The first triple fault's dump in Xen's console lines, or None."""
    tf = None
    seen = 0
    for raw in lines:
        line = _PREFIX_RE.sub("", raw).strip()
        if tf is None:
            m = _HEAD_RE.search(line)
            if m:
                tf = TripleFault(int(m.group(1)), int(m.group(2)))
            continue
        seen += 1
        if seen > DUMP_LINES:
            break
        m = _RIP_RE.match(line)
        if m:
            tf.cs, tf.rip = int(m.group(1), 16), int(m.group(2), 16)
        m = _RFLAGS_RE.match(line)
        if m:
            tf.rflags = int(m.group(1), 16)
        m = _CR3_RE.search(line)
        if m:
            tf.cr3 = int(m.group(1), 16)
        m = _GSB_RE.search(line)
        if m:
            tf.gs_base, tf.gs_shadow = (int(m.group(1), 16),
                                        int(m.group(2), 16))
    return tf


def classify(tf, ranges, symbolize=None):
    """(verdict text, True when the L0 is at fault) for a parsed dump."""
    where = "d%dv%d" % (tf.domid, tf.vcpu)
    if tf.rip is None:
        return ("%s triple-faulted (Xen's dump of its state was not read)"
                % where), False
    in_text = any(lo <= tf.rip < hi for lo, hi in ranges)
    sym = ""
    if in_text and symbolize:
        s = symbolize(tf.rip)
        sym = " (%s)" % s if s else ""
    irqs = ""
    if tf.rflags is not None:
        irqs = ", interrupts %s" % ("on" if tf.rflags & RFLAGS_IF else "off")
    if tf.cs != SHIMK_CS or (tf.rip >= KERNEL_HALF and not in_text):
        return ("L0 fault: %s triple-faulted with a saved state that is not "
                "shimk's (CS:RIP %04x:%016x, CR3 %#x): the outer "
                "emulation's world switch saved the L0's own registers as "
                "the guest's" % (where, tf.cs, tf.rip, tf.cr3 or 0)), True
    if in_text and tf.gs_base is not None and tf.gs_base >= KERNEL_HALF:
        return ("L0 fault (by elimination): %s triple-faulted in shimk's "
                "kernel code at %#x%s%s, on its own GS base and CR3 %#x; "
                "its descriptor tables and stacks are fixed at boot "
                "(docs/tlbbench.md#the-xl-triple-fault)"
                % (where, tf.rip, sym, irqs, tf.cr3 or 0)), True
    gs = ""
    if tf.gs_base is not None:
        gs = ", GS base %#x (shadow %#x)" % (tf.gs_base, tf.gs_shadow)
    return ("%s triple-faulted at %04x:%#x%s%s%s, CR3 %#x"
            % (where, tf.cs, tf.rip, sym, irqs, gs, tf.cr3 or 0)), False


def classify_peer(tf):
    """The verdict on a triple fault of the Linux peer's domain: the L0's,
    by elimination (Debian's Linux 6.1 does not triple-fault on a sound
    L0, and this L0 was seen to deliver one interrupt twice)."""
    where = "d%dv%d" % (tf.domid, tf.vcpu)
    if tf.rip is None:
        return ("L0 fault (by elimination): Linux's %s triple-faulted "
                "(Xen's dump of its state was not read)" % where)
    if tf.cs == XEN_CS:
        return ("L0 fault: Linux's %s triple-faulted with a saved state "
                "that is Xen's own (CS:RIP %04x:%016x, CR3 %#x)"
                % (where, tf.cs, tf.rip, tf.cr3 or 0))
    return ("L0 fault (by elimination): Linux's %s triple-faulted at "
            "%04x:%#x, CR3 %#x, under the same L0 as shimk "
            "(docs/tlbbench.md#the-xl-triple-fault)"
            % (where, tf.cs or 0, tf.rip, tf.cr3 or 0))
