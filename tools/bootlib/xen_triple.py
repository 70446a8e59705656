# SPDX-License-Identifier: GPL-2.0-only
# Read Xen's dumps of guest vCPUs that triple-faulted into who is at fault.
#
# On a triple fault Xen 4.17 prints "dNvM Triple fault - invoking HVM
# shutdown action N" and that vCPU's saved state (xen/arch/x86/hvm/hvm.c:
# hvm_triple_fault, vcpu_show_execution_state), then shuts the domain down
# with HVM_PARAM_TRIPLE_FAULT_REASON, SHUTDOWN_reboot unless a toolstack
# changed it. Here Xen itself runs in QEMU TCG, on QEMU 7.2's emulation of
# AMD SVM, whose world switch is known to fail
# (docs/fault-attribution.md#the-outer-qemus-svm-emulation). Every dump is
# recorded, not only the first: two vCPUs can fault before Xen pauses
# the domain.
#
# The L0 is proven at fault only by evidence:
#   - a saved state that is not shimk's at all (Xen's code selector
#     0xe008, a selector shimk never loads, or a kernel RIP outside its
#     image): the world switch saved the host's registers as the guest's;
#   - memory read at the fault showing shimk's state intact on every vCPU
#     (memcheck.py), where a dom0 could read the domain's memory (xl).
# A triple fault in shimk's own text on its own GS base is otherwise
# just that, and not retried: a CPU whose GDT, TSS or stack another CPU
# trampled dies the same way (docs/memory-at-fault.md#the-rule).

import re

from bootlib import memcheck

_HEAD_RE = re.compile(r"d(\d+)v(\d+) Triple fault")
_RIP_RE = re.compile(r"^RIP:\s+([0-9a-f]{4}):\[<([0-9a-f]{16})>\]")
_RFLAGS_RE = re.compile(r"^RFLAGS: ([0-9a-f]{16})")
_REG_RE = re.compile(r"\b(rsp|cr[0234]): ([0-9a-f]{16})")
_GSB_RE = re.compile(r"gsb: ([0-9a-f]{16})\s+gss: ([0-9a-f]{16})")
_PREFIX_RE = re.compile(r"^\(XEN\) ")
RFLAGS_IF = 1 << 9
# Xen's own ring-0 code selector (xen/arch/x86/include/asm/desc.h).
XEN_CS = memcheck.XEN_CS
# Lines of a dump after its head that we read (Xen prints about 14).
DUMP_LINES = 16
# Xen's lines kept from the first triple fault on: room for one dump per
# vCPU of the largest run (8), interleaved with other output.
KEEP_LINES = 400


class TripleFault:
    def __init__(self, domid, vcpu):
        self.domid = domid
        self.vcpu = vcpu
        self.cs = None
        self.rip = None
        self.rsp = None
        self.rflags = None
        self.cr0 = None
        self.cr2 = None
        self.cr3 = None
        self.cr4 = None
        self.gs_base = None
        self.gs_shadow = None

    @property
    def where(self):
        return "d%dv%d" % (self.domid, self.vcpu)

    def regs(self):
        """As memcheck's VcpuRegs (no descriptor tables: Xen does not
        print them)."""
        return memcheck.VcpuRegs(
            self.vcpu, rip=self.rip, rsp=self.rsp, cs=self.cs,
            rflags=self.rflags, cr0=self.cr0, cr2=self.cr2, cr3=self.cr3,
            cr4=self.cr4, gs_base=self.gs_base,
            kernel_gs_base=self.gs_shadow)


def parse_all(lines):
    """Every triple fault's dump in Xen's console lines, in order."""
    out = []
    tf = None
    seen = 0
    for raw in lines:
        line = _PREFIX_RE.sub("", raw).strip()
        m = _HEAD_RE.search(line)
        if m:
            tf = TripleFault(int(m.group(1)), int(m.group(2)))
            out.append(tf)
            seen = 0
            continue
        if tf is None:
            continue
        seen += 1
        if seen > DUMP_LINES:
            tf = None
            continue
        m = _RIP_RE.match(line)
        if m:
            tf.cs, tf.rip = int(m.group(1), 16), int(m.group(2), 16)
        m = _RFLAGS_RE.match(line)
        if m:
            tf.rflags = int(m.group(1), 16)
        for m in _REG_RE.finditer(line):
            setattr(tf, m.group(1), int(m.group(2), 16))
        m = _GSB_RE.search(line)
        if m:
            tf.gs_base, tf.gs_shadow = (int(m.group(1), 16),
                                        int(m.group(2), 16))
    return out


def parse(lines):
    """The first triple fault's dump in Xen's console lines, or None."""
    tfs = parse_all(lines)
    return tfs[0] if tfs else None


def describe(tf, image=None):
    """One dump in words."""
    if tf.rip is None:
        return "%s triple-faulted (Xen's dump of its state was not read)" \
            % tf.where
    sym = ""
    if image is not None and image.in_text(tf.rip):
        s = image.symbolize(tf.rip)
        sym = " (%s)" % s if s else ""
    irqs = ""
    if tf.rflags is not None:
        irqs = ", interrupts %s" % ("on" if tf.rflags & RFLAGS_IF else "off")
    gs = ""
    if tf.gs_base is not None:
        gs = ", GS base %#x (shadow %#x)" % (tf.gs_base, tf.gs_shadow)
    return "%s triple-faulted at %04x:%#x%s%s%s, CR3 %#x" % (
        tf.where, tf.cs, tf.rip, sym, irqs, gs, tf.cr3 or 0)


def not_shimks(tf, image):
    """Why tf's saved state cannot be shimk's, or None."""
    if tf.rip is None:
        return None
    return memcheck._not_shimks(tf.regs(), image)


def classify(tfs, image, memory=None, no_memory=None):
    """(verdict text, True when the L0 is proven at fault) for the dumps
    of shimk's domain.

    image: memcheck.Image of shimk's ELF. memory: memcheck's Verdict on
    the domain's memory at the fault, or None; no_memory then says why
    there is none.
    """
    for tf in tfs:
        why = not_shimks(tf, image)
        if why:
            return ("L0 fault, proven: %s triple-faulted with a saved state "
                    "that is not shimk's (%s; CS:RIP %04x:%016x, CR3 %#x): "
                    "the outer emulation's world switch saved the L0's own "
                    "registers as the guest's"
                    % (tf.where, why, tf.cs, tf.rip, tf.cr3 or 0)), True
    seen = "; ".join(describe(tf, image) for tf in tfs)
    if memory is not None:
        return "%s: %s" % (seen, memory.text), memory.l0_proven
    return ("%s: not proven the L0's (%s)"
            % (seen, no_memory or "shimk's memory was not read")), False


def classify_peer(tfs, memory=None, no_memory=None):
    """(text, l0 proven) for the Linux peer's domain: the L0's when a
    saved state is Xen's own, or when memory (linuxcheck's Verdict on
    the peer's memory at the fault) shows Linux's state intact; anything
    else stays a failure. no_memory: why there is no memory verdict."""
    for tf in tfs:
        if tf.cs == XEN_CS:
            return ("L0 fault, proven: Linux's %s triple-faulted with a "
                    "saved state that is Xen's own (CS:RIP %04x:%016x, "
                    "CR3 %#x)" % (tf.where, tf.cs, tf.rip, tf.cr3 or 0)), \
                True
    seen = "; ".join("Linux's " + describe(tf) for tf in tfs)
    seen = seen or "Linux triple-faulted"
    if memory is not None:
        return "%s: %s" % (seen, memory.text), memory.l0_proven
    return ("%s: not proven the L0's (%s)"
            % (seen, no_memory or "Linux's memory was not read")), False
