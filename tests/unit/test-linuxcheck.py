#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# tools/bootlib/linuxcheck.py: the Linux peer's memory at a triple fault
# read into whose fault it was (TAP).
#
# Each case builds a guest-physical image the way Linux 6.1 lays its
# entry structures out (cpu_entry_area's IDT, GDT, TSS and stacks, 4 KiB
# pages) and breaks one thing.

import os
import struct
import sys
import tempfile

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
sys.path.insert(0, HERE)
from bootlib import linuxcheck, memcheck, xen_triple  # noqa: E402
from pytap import case  # noqa: E402
import pytap  # noqa: E402

TEXT = (0xffffffff81000000, 0xffffffff828eacdc)
# The init segment of Debian's 6.1 (.init.text first), freed after boot.
INIT = (0xffffffff83079000, 0xffffffff84a00000)
IDT_VA = 0xfffffe0000000000
GDT_VA = 0xfffffe000003c000
TSS_VA = 0xfffffe0000003000
RSP0_TOP = 0xfffffe0000005000
IST1_TOP = 0xfffffe0000007000
STACK_VA = 0xffffc90000010000
MEM_PAGES = 64


class Guest:
    """A guest-physical image with 4-level page tables at CR3 0x1000."""

    def __init__(self):
        self.mem = bytearray(MEM_PAGES * memcheck.PAGE)
        self.next = 2
        self.pages = {}

    def alloc(self):
        pfn = self.next
        self.next += 1
        return pfn * memcheck.PAGE

    def map(self, va, writable=True):
        """A new page at va; returns its physical address."""
        table = 0x1000
        for shift in (39, 30, 21):
            off = table + ((va >> shift) & 511) * 8
            e, = struct.unpack_from("<Q", self.mem, off)
            if not e & memcheck.PTE_P:
                e = self.alloc() | memcheck.PTE_P | memcheck.PTE_W
                struct.pack_into("<Q", self.mem, off, e)
            table = e & memcheck.PTE_ADDR
        pa = self.alloc()
        flags = memcheck.PTE_P | (memcheck.PTE_W if writable else 0)
        struct.pack_into("<Q", self.mem, table + ((va >> 12) & 511) * 8,
                         pa | flags)
        self.pages[va] = pa
        return pa

    def write(self, va, data):
        pa = self.pages[va & ~0xfff] + (va & 0xfff)
        self.mem[pa:pa + len(data)] = data

    def unmap(self, va):
        table = 0x1000
        for shift in (39, 30, 21):
            e, = struct.unpack_from("<Q", self.mem,
                                    table + ((va >> shift) & 511) * 8)
            table = e & memcheck.PTE_ADDR
        struct.pack_into("<Q", self.mem, table + ((va >> 12) & 511) * 8, 0)


def gate(target, sel=0x10, ist=0, kind=0xe, present=True):
    attr = kind | (0x80 if present else 0)
    return struct.pack("<HHBBHII", target & 0xffff, sel, ist, attr,
                       (target >> 16) & 0xffff, target >> 32, 0)


def tss_desc(base, access=0x8b):
    lo = (0x67 | ((base & 0xffffff) << 16) | (access << 40) |
          (((base >> 24) & 0xff) << 56))
    return struct.pack("<QQ", lo, base >> 32)


def linux(nr=2, gates=None, cs_desc=0x00af9b000000ffff, ist1=True,
          tss_base=None):
    """Linux's entry state on nr vCPUs (shared IDT, GDT and TSS: enough
    here), and their registers."""
    g = Guest()
    g.map(IDT_VA, writable=False)
    idt = bytearray()
    for vec in range(256):
        idt += gate(TEXT[0] + 0xc00000 + vec * 16, ist=1 if vec == 8 else 0)
    for vec, raw in (gates or {}).items():
        idt[vec * 16:vec * 16 + 16] = raw
    g.write(IDT_VA, bytes(idt))
    g.map(GDT_VA, writable=False)
    gdt = struct.pack("<QQQQ", 0, 0x00cf9b000000ffff, cs_desc,
                      0x00cf93000000ffff) + bytes(32)
    gdt += tss_desc(TSS_VA if tss_base is None else tss_base) + bytes(48)
    g.write(GDT_VA, gdt)
    g.map(TSS_VA)
    tss = bytearray(0x68)
    struct.pack_into("<Q", tss, linuxcheck.TSS_RSP0, RSP0_TOP)
    struct.pack_into("<Q", tss, linuxcheck.TSS_IST, IST1_TOP)
    g.write(TSS_VA, bytes(tss))
    g.map(RSP0_TOP - 0x1000)
    if ist1:
        g.map(IST1_TOP - 0x1000)
    g.map(STACK_VA)
    vcpus = {}
    for n in range(nr):
        vcpus[n] = memcheck.VcpuRegs(
            n, cr0=0x80050033, cr3=0x1000, efer=0xd01, cs=0x10,
            rip=0xffffffff81a38a43, rsp=STACK_VA + 0xf00,
            idt_base=IDT_VA, idt_limit=0xfff, gdt_base=GDT_VA,
            gdt_limit=0x7f, tr_sel=0x40, tr_base=TSS_VA)
    return g, vcpus


def verdict(g, vcpus, holes=(), code=None):
    with tempfile.NamedTemporaryFile() as f:
        f.write(g.mem)
        f.flush()
        with memcheck.RawMem(f.name, len(g.mem), holes) as mem:
            return linuxcheck.check(mem, vcpus, TEXT, code)


@case
def intact_state_is_the_l0s():
    v = verdict(*linux())
    return (v.l0_proven and v.text.startswith(
        "L0 fault, proven: Linux's state intact (vCPU0-1: IDT, GDT, TSS")
        and "#DF could have been delivered" in v.text)


@case
def an_unmapped_df_stack_is_linuxs():
    v = verdict(*linux(ist1=False))
    return (not v.l0_proven and v.text.startswith("Linux fault: IST1 ") and
            "vectors 8" in v.text and "not mapped" in v.text)


@case
def a_missing_df_gate_is_linuxs():
    v = verdict(*linux(gates={8: gate(TEXT[0], present=False)}))
    return not v.l0_proven and "IDT vector 8 not present" in v.text


@case
def a_gate_outside_linuxs_text_is_linuxs():
    v = verdict(*linux(gates={14: gate(0xffffffffa0001000)}))
    return (not v.l0_proven and "IDT vector 14 points at 0xffffffffa0001000"
            in v.text)


@case
def an_unset_vector_left_at_its_early_handler_is_linuxs_own():
    # Seen in a real dump (Debian 6.1 under xl): #VE's gate still points
    # at early_idt_handler_array[20] in the freed .init.text.
    early = gate(INIT[0] + 20 * 9)
    ok = verdict(*linux(gates={20: early}), code=[TEXT, INIT])
    # Without the init segment known, the same gate is outside the code.
    bad = verdict(*linux(gates={20: early}))
    return (ok.l0_proven and not bad.l0_proven and
            "IDT vector 20 points at 0xffffffff830790b4" in bad.text)


@case
def a_needed_vector_into_init_text_is_linuxs():
    v = verdict(*linux(gates={8: gate(INIT[0] + 8 * 9, ist=1)}),
                code=[TEXT, INIT])
    return (not v.l0_proven and
            "IDT vector 8 points at 0xffffffff83079048, outside Linux's "
            "text" in v.text)


@case
def vcs_absent_ist_stack_is_by_design():
    # #VC (29) names IST5, whose stack Linux maps only in an SEV-ES guest;
    # the same absent stack behind #NMI's gate is a fault.
    vc = verdict(*linux(gates={29: gate(TEXT[0] + 0x200, ist=5)}))
    nmi = verdict(*linux(gates={2: gate(TEXT[0] + 0x200, ist=5)}))
    return (vc.l0_proven and not nmi.l0_proven and
            "IST5 0x0 (vectors 2)" in nmi.text)


@case
def a_gate_through_a_user_selector_is_linuxs():
    v = verdict(*linux(gates={3: gate(TEXT[0] + 0x100, sel=0x33)}))
    return not v.l0_proven and "IDT vector 3: type 0xe selector 0x33" in v.text


@case
def a_broken_code_descriptor_is_linuxs():
    v = verdict(*linux(cs_desc=0x00cf93000000ffff))
    return not v.l0_proven and "GDT kernel code descriptor 0x10" in v.text


@case
def a_tss_descriptor_not_matching_tr_is_linuxs():
    v = verdict(*linux(tss_base=TSS_VA + 0x1000))
    return not v.l0_proven and "GDT TSS descriptor 0x40 has base" in v.text


@case
def an_unmapped_kernel_stack_is_linuxs():
    g, vcpus = linux()
    g.unmap(STACK_VA)
    v = verdict(g, vcpus)
    return not v.l0_proven and "the stack at RSP" in v.text


@case
def a_page_the_dump_lacks_proves_nothing():
    g, vcpus = linux()
    tss_pfn = g.pages[TSS_VA] // memcheck.PAGE
    v = verdict(g, vcpus, holes=[(tss_pfn, tss_pfn)])
    return (not v.l0_proven and v.text.startswith("not proven the L0's") and
            "TSS at" in v.text)


@case
def a_vcpu_never_started_is_skipped():
    g, vcpus = linux()
    vcpus[1] = memcheck.VcpuRegs(1, cr0=0)
    v = verdict(g, vcpus)
    return (v.l0_proven and "(vCPU0: " in v.text and
            "vCPU1: paging off, not checked" in v.findings)


@case
def no_registers_prove_nothing():
    g, vcpus = linux()
    vcpus[0].cr3 = None
    v = verdict(g, vcpus)
    return not v.l0_proven and "no CR0 or CR3" in v.text


@case
def the_peer_verdict_carries_the_memorys():
    tf = xen_triple.TripleFault(2, 0)
    tf.cs, tf.rip, tf.rflags, tf.cr3 = 0x10, 0xffffffff81a38a43, 0x2, 0x6554000
    v = verdict(*linux())
    text, l0 = xen_triple.classify_peer([tf], v)
    bad = verdict(*linux(ist1=False))
    text2, l02 = xen_triple.classify_peer([tf], bad)
    text3, l03 = xen_triple.classify_peer([tf], None, "no dump: a reason")
    return (l0 and text.startswith("Linux's d2v0 triple-faulted at") and
            "L0 fault, proven: Linux's state intact" in text and
            not l02 and "Linux fault: IST1" in text2 and
            not l03 and text3.endswith("not proven the L0's (no dump: a "
                                       "reason)"))


@case
def the_text_comes_from_the_executable_segment():
    # An ELF64 header and two program headers: data, then code.
    ph = struct.pack("<IIQQQQQQ", 1, 6, 0, 0xffffffff82a00000, 0, 0,
                     0x1000, 0)
    ph += struct.pack("<IIQQQQQQ", 1, 5, 0, TEXT[0], 0, 0,
                      TEXT[1] - TEXT[0], 0)
    hdr = bytearray(64)
    hdr[:5] = b"\x7fELF\x02"
    struct.pack_into("<Q", hdr, 0x20, 64)
    struct.pack_into("<HH", hdr, 0x36, 56, 2)
    with tempfile.NamedTemporaryFile() as f:
        f.write(bytes(hdr) + ph)
        f.flush()
        return (linuxcheck.kernel_text(f.name) == TEXT and
                linuxcheck.kernel_code(f.name) == [TEXT])


if __name__ == "__main__":
    sys.exit(pytap.main())
