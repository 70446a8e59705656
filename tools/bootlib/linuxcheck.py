# SPDX-License-Identifier: GPL-2.0-only
# The Linux peer's memory at a triple fault: could a #DF have been delivered?
#
# A CPU shuts down ("triple fault") only when delivering a double fault
# itself faults (SDM Vol. 3A, 6.15, interrupt 8: "if another exception
# occurs while attempting to call the double-fault handler, the
# processor enters shutdown mode"). Delivering #DF in 64-bit mode reads
# IDT entry 8 (a 16-byte gate, SDM 6.14.1), the GDT descriptor of the
# gate's selector, and, with the gate's IST field set, the TSS's IST
# pointer (SDM 7.7), then pushes five words on that stack (SDM 6.14.2
# and 6.14.5). So when, in the memory Xen froze at the fault, every one
# of those is present, valid and reachable through the vCPU's own page
# tables, the guest's state allowed the delivery, and the shutdown is
# the L0's: its emulation of the delivery (here Xen on QEMU TCG's SVM,
# docs/fault-attribution.md) failed. shimk's own check
# (bootlib/memcheck.py) compares with boot copies; Linux keeps none, so
# this one checks structure: every present IDT gate a 64-bit interrupt
# or trap gate through Linux's kernel code selector to Linux's code, the
# code and data descriptors Linux loads (arch/x86/include/asm/segment.h:
# __KERNEL_CS 0x10, __KERNEL_DS 0x18, the TSS at GDT entry 8), and the
# TSS's RSP0 and in-use IST stacks mapped and writable.
#
# Verdicts: "L0 fault, proven: Linux's state intact (...)" when every
# vCPU with paging on passes; "Linux fault: ..." when one structure is
# wrong; not proven when anything could not be read.

import gzip
import struct

from bootlib import memcheck

# arch/x86/include/asm/segment.h (64-bit).
KERNEL_CS = 0x10
KERNEL_DS = 0x18
# Vectors whose delivery a kernel needs: #DF (the one a triple fault
# failed to deliver), #GP and #PF (the usual first faults).
NEEDED_VECTORS = (8, 13, 14)
GATE_INTR = 0xe
GATE_TRAP = 0xf
CR0_PG = 1 << 31
EFER_NXE = 1 << 11
# struct x86_hw_tss (arch/x86/include/asm/processor.h, SDM Vol. 3A,
# figure 7-11): sp0 at 4, ist[0..6] at 36.
TSS_RSP0 = 4
TSS_IST = 36
TSS_READ = 104
# #VC (SEV-ES): its IST stacks are the cpu_entry_area's optional ones,
# mapped only in an SEV-ES guest (arch/x86/include/asm/cpu_entry_area.h,
# ESTACKS_MEMBERS; arch/x86/mm/cpu_entry_area.c), so elsewhere its gate
# names an IST slot whose stack is absent by design.
OPTIONAL_IST_VECTORS = (29,)
PF_X = 1


def kernel_code(path):
    """(start, end) of every executable PT_LOAD of Linux's ELF vmlinux,
    gzip'd (build/xl/dom0-kernel) or not, in file order: .text's first,
    then the init segment (.init.text, freed once Linux has booted)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    if data[:4] != b"\x7fELF" or data[4] != 2:
        raise ValueError("%s is not an ELF64 image" % path)
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    code = []
    for i in range(phnum):
        p_type, p_flags, _, vaddr, _, _, memsz, _ = struct.unpack_from(
            "<IIQQQQQQ", data, phoff + i * phentsize)
        if p_type == 1 and p_flags & PF_X:
            code.append((vaddr, vaddr + memsz))
    if not code:
        raise ValueError("%s has no executable segment" % path)
    return code


def kernel_text(path):
    """(start, end) of Linux's .text segment."""
    return kernel_code(path)[0]


class _Bad(Exception):
    """Linux's state is wrong."""


class _Unknown(Exception):
    """A check could not be made."""


def _gate(raw):
    """(target, selector, ist, type, dpl, present) of a 64-bit gate."""
    lo, sel, ist, attr, mid, hi = struct.unpack_from("<HHBBHI", raw)
    return ((hi << 32) | (mid << 16) | lo, sel, ist & 7, attr & 0xf,
            (attr >> 5) & 3, bool(attr & 0x80))


def _desc(raw):
    """(access byte, flags nibble, base) of a GDT descriptor."""
    word, = struct.unpack_from("<Q", raw)
    access = (word >> 40) & 0xff
    flags = (word >> 52) & 0xf
    base = ((word >> 16) & 0xffffff) | (((word >> 56) & 0xff) << 24)
    return access, flags, base


class _Vcpu:
    def __init__(self, mem, v, text, code):
        self.v = v
        self.text = text
        self.code = code
        self.w = memcheck.Walker(mem, v.cr3, bool((v.efer or 0) & EFER_NXE))

    @staticmethod
    def _fail(what, e):
        # A page the dump lacks (a hole, or past its end) is not known to
        # be wrong: that check could not be made.
        if "outside the dump" in str(e):
            return _Unknown("%s: %s" % (what, e))
        return _Bad("%s: %s" % (what, e))

    def read(self, va, n, what):
        try:
            return self.w.read(va, n)
        except memcheck._Bad as e:
            raise self._fail(what, e)

    def writable(self, va, what):
        try:
            _, w, _ = self.w.walk(va)
        except memcheck._Bad as e:
            raise self._fail(what, e)
        if not w:
            raise _Bad("%s: %#x is mapped read-only" % (what, va))

    def idt(self):
        v = self.v
        if v.idt_base is None or v.idt_limit is None:
            raise _Unknown("vCPU%d: no IDTR in the registers" % v.n)
        n = min((v.idt_limit + 1) // 16, 256)
        if n <= max(NEEDED_VECTORS):
            raise _Bad("IDT limit %#x leaves out vector %d"
                       % (v.idt_limit, max(NEEDED_VECTORS)))
        raw = self.read(v.idt_base, n * 16, "IDT at %#x" % v.idt_base)
        gates = {}
        for vec in range(n):
            target, sel, ist, kind, _, present = _gate(raw[vec * 16:])
            if not present:
                if vec in NEEDED_VECTORS:
                    raise _Bad("IDT vector %d not present" % vec)
                continue
            if kind not in (GATE_INTR, GATE_TRAP) or sel != KERNEL_CS:
                raise _Bad("IDT vector %d: type %#x selector %#x (not an "
                           "interrupt or trap gate through %#x)"
                           % (vec, kind, sel, KERNEL_CS))
            if vec in NEEDED_VECTORS:
                if not self.text[0] <= target < self.text[1]:
                    raise _Bad("IDT vector %d points at %#x, outside "
                               "Linux's text" % (vec, target))
            elif not any(a <= target < b for a, b in self.code):
                raise _Bad("IDT vector %d points at %#x, outside Linux's "
                           "code" % (vec, target))
            gates[vec] = ist
        return gates

    def gdt(self):
        v = self.v
        if v.gdt_base is None or v.gdt_limit is None:
            raise _Unknown("vCPU%d: no GDTR in the registers" % v.n)
        tr = v.tr_sel if v.tr_sel else 0x40
        if v.gdt_limit < tr + 15:
            raise _Bad("GDT limit %#x leaves out the TSS at %#x"
                       % (v.gdt_limit, tr))
        raw = self.read(v.gdt_base, v.gdt_limit + 1,
                        "GDT at %#x" % v.gdt_base)
        access, flags, _ = _desc(raw[KERNEL_CS:])
        # Present, DPL 0, code, and L (64-bit) set: SDM Vol. 3A, 3.4.5.
        if access & 0xf8 != 0x98 or not flags & 0x2:
            raise _Bad("GDT kernel code descriptor %#x: access %#x flags "
                       "%#x" % (KERNEL_CS, access, flags))
        access, _, _ = _desc(raw[KERNEL_DS:])
        if access & 0xfa != 0x92:
            raise _Bad("GDT kernel data descriptor %#x: access %#x"
                       % (KERNEL_DS, access))
        access, _, base = _desc(raw[tr:])
        base |= struct.unpack_from("<I", raw, tr + 8)[0] << 32
        if access & 0x9d != 0x89:
            raise _Bad("GDT TSS descriptor %#x: access %#x (not a present "
                       "64-bit TSS)" % (tr, access))
        if v.tr_base is not None and v.tr_base != base:
            raise _Bad("GDT TSS descriptor %#x has base %#x, TR %#x"
                       % (tr, base, v.tr_base))
        return base

    def tss(self, base, gates):
        raw = self.read(base, TSS_READ, "TSS at %#x" % base)
        rsp0, = struct.unpack_from("<Q", raw, TSS_RSP0)
        self.writable(rsp0 - 8, "TSS RSP0 %#x" % rsp0)
        for ist in sorted(set(i for vec, i in gates.items()
                              if i and vec not in OPTIONAL_IST_VECTORS)):
            top, = struct.unpack_from("<Q", raw, TSS_IST + (ist - 1) * 8)
            vecs = ",".join(str(vec) for vec, i in sorted(gates.items())
                            if i == ist)
            self.writable(top - 8, "IST%d %#x (vectors %s)"
                          % (ist, top, vecs))

    def check(self):
        v = self.v
        gates = self.idt()
        self.tss(self.gdt(), gates)
        if v.rsp is not None and v.cs == KERNEL_CS:
            self.writable(v.rsp - 8 if v.rsp % memcheck.PAGE == 0
                          else v.rsp, "the stack at RSP %#x" % v.rsp)


def _span(ns):
    ns = sorted(ns)
    if len(ns) > 1 and ns == list(range(ns[0], ns[-1] + 1)):
        return "vCPU%d-%d" % (ns[0], ns[-1])
    return ", ".join("vCPU%d" % n for n in ns)


def check(mem, vcpus, text, code=None):
    """memcheck.Verdict on Linux's state in mem (a memcheck.PhysMem) for
    vcpus (number -> memcheck.VcpuRegs), text (start, end) of Linux's
    .text and code its executable segments (kernel_code(); text alone
    when None).

    The vectors a #DF needs must lead into .text. Any other present gate
    may lead into the init segment too: Linux points all 32 exception
    vectors at early_idt_handler_array (.init.text) before it sets the
    real handlers (arch/x86/kernel/idt.c, idt_setup_early_handler), and
    one it never sets keeps that gate after the init text is freed
    (vector 20, #VE, without CONFIG_INTEL_TDX_GUEST: seen in Debian's
    6.1 under xl). Such a vector is one this CPU does not raise."""
    code = code or [text]
    findings = []
    intact = []
    for n in sorted(vcpus):
        v = vcpus[n]
        if v.cr0 is not None and not v.cr0 & CR0_PG:
            # Xen saves no record for a vCPU never brought up
            # (env_xl.xl_vcpus gives it paging off).
            findings.append("vCPU%d: paging off, not checked" % n)
            continue
        if v.cr0 is None or v.cr3 is None:
            return memcheck.Verdict(
                "not proven the L0's (vCPU%d: no CR0 or CR3 in the "
                "registers)" % n, False, findings)
        try:
            _Vcpu(mem, v, text, code).check()
        except _Bad as e:
            findings.append("vCPU%d: %s" % (n, e))
            return memcheck.Verdict("Linux fault: %s on vCPU%d" % (e, n),
                                    False, findings)
        except (_Unknown, memcheck.MemError) as e:
            findings.append("vCPU%d: %s" % (n, e))
            return memcheck.Verdict("not proven the L0's (%s)" % e, False,
                                    findings)
        findings.append("vCPU%d: IDT, GDT, TSS, RSP0 and IST stacks, "
                        "stack: intact" % n)
        intact.append(n)
    if not intact:
        return memcheck.Verdict("not proven the L0's (no vCPU had paging "
                                "on)", False, findings)
    return memcheck.Verdict(
        "L0 fault, proven: Linux's state intact (%s: IDT, GDT, TSS, IST "
        "stacks, stack): a #DF could have been delivered" % _span(intact),
        True, findings)
