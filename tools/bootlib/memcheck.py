# SPDX-License-Identifier: GPL-2.0-only
# Guest memory at a fault read into a verdict: shimk's state intact or not.
#
# A CPU that triple-faults in shimk's own text with a sane register file is
# either the L0's victim or a victim of another CPU that trampled its GDT,
# TSS, stacks or root (docs/memory-at-fault.md#the-rule).
# Only memory tells them apart. The kernel records boot copies of what a
# CPU needs to take an interrupt (selfcheck_ref, include/shimk/selfcheck.h);
# this module reads them from a dump of guest-physical memory and compares,
# for every vCPU whose registers the dump's source gave, what the CPU would
# use at its next delivery with what shimk set up:
#
#   - the copies' own sums (a trampled copy proves nothing either way);
#   - GS base (or KERNEL_GS base, before SWAPGS) is one CPU's cpu_info,
#     whose first word points at itself;
#   - GDTR, IDTR and TR equal the copies, and so do the bytes there, read
#     through the vCPU's own CR3 as the CPU reads them; TSS.RSP0 lies in a
#     stack of shimk's;
#   - the PML4 at CR3 holds kernel_root's entries 256-511;
#   - RIP, RSP and the stacks an interrupt switches to (RSP0, IST1-3) are
#     mapped (RSP-8 and the stack tops writable), RIP executable and, in
#     kernel mode, in shimk's text.
#
# Every check passed on every vCPU that had state: the L0 is proven at
# fault, for a CPU cannot fail to deliver through intact tables and mapped
# stacks (SDM Vol. 3A, 6.14 "Exception and Interrupt Handling in 64-bit
# Mode"; 8.7 "Task Management in 64-bit Mode"). A structure that differs:
# shimk's fault, named by the bytes. Anything that could not be read: not
# proven, and never retried.
#
# Dump formats (open_dump detects them):
#   raw        QEMU `pmemsave 0 <size> <file>`: file offset == physical.
#   ELF core   QEMU `dump-guest-memory` (docs/interop/qemu-qmp-ref,
#              "dump-guest-memory"): PT_LOAD segments at p_paddr, and per
#              vCPU an NT_PRSTATUS note and a "QEMU" note (QEMUCPUState,
#              target/i386/arch_dump.c) with GDTR, IDTR, TR and the CRs.
#   Xen core   `xl dump-core` (xen docs/misc/dump-core-format.txt,
#              tools/libs/guest/xg_core.c): ELF sections, no program
#              headers; .xen_pages holds the pages whose frame numbers
#              .xen_pfn lists (HVM and PVH guests: auto-translated), and
#              .xen_prstatus a vcpu_guest_context_t per vCPU
#              (xen/include/public/arch-x86/xen.h).
#
# Pure Python 3 (Debian's python3 alone), so that tools/boot and the unit
# tests run anywhere. Run it on a kept dump:
#   python3 tools/bootlib/memcheck.py DUMP build/shimk.elf [REGS]
# where REGS is QEMU's `info registers -a` or `xen-hvmctx` output.

import os
import re
import struct
import sys

PAGE = 4096
# Image virtual addresses are physical + this (linker.ld, arch/x86/mm/mm.c
# map_image_part).
KERNEL_VIRT_BASE = 0xffffffff80000000
KERNEL_HALF = 0xffff800000000000

# include/shimk/selfcheck.h
SELFCHECK_MAGIC = 0x4645524b4d494853
SELFCHECK_VERSION = 1
SCL_MAGIC, SCL_VERSION, SCL_REF_SIZE, SCL_CPU_OFFSET, SCL_CPU_SIZE, \
    SCL_NR_CPUS, SCL_GDT_ENTRIES, SCL_TSS_BYTES, SCL_NR = range(9)
TSS_RSP0_OFF = 4
TSS_RSP0_LEN = 8
STACK_NAMES = ("kernel stack", "NMI stack (IST1)", "#DF stack (IST2)",
               "#MC stack (IST3)")
NR_STACKS = 4
# include/asm/desc.h
GDT_KERNEL_CS = 0x08
GDT_USER_CS = 0x28
GDT_TSS = 0x30
NR_VECTORS = 256
# Xen's own ring-0 code selector (xen/arch/x86/include/asm/desc.h).
XEN_CS = 0xe008

# FNV-1a, 64-bit (selfcheck_sum() in the kernel, over 64-bit words).
FNV_OFFSET = 0xcbf29ce484222325
FNV_PRIME = 0x100000001b3
MASK64 = (1 << 64) - 1

# Control registers and paging (SDM Vol. 3A, 2.5 and 4.5).
CR0_PG = 1 << 31
CR4_PCIDE = 1 << 17
CR4_LA57 = 1 << 12
EFER_NXE = 1 << 11
PTE_P = 1 << 0
PTE_W = 1 << 1
PTE_A = 1 << 5
PTE_PS = 1 << 7
PTE_NX = 1 << 63
PTE_ADDR = 0x000ffffffffff000
# The CPU sets these in tables it uses; a copy taken earlier may lack them
# (SDM Vol. 3A, 3.4.5.1 "accessed" in code and data descriptors, 8.2.2
# "busy" in a TSS descriptor, 4.8 "accessed" in paging-structure entries).
DESC_ACCESSED = 1 << 40
DESC_TSS_BUSY = 1 << 41
DESC_S = 1 << 44

ELF_MAGIC = b"\x7fELF"
PT_LOAD = 1
PT_NOTE = 4
SHT_SYMTAB = 2
NT_PRSTATUS = 1
# xen/include/public/elfnote.h, XC_CORE_MAGIC* of xg_core.h.
XEN_ELFNOTE_DUMPCORE_HEADER = 0x2000001
XC_CORE_INVALID_PFN = MASK64


class MemError(Exception):
    """The dump has no such page."""


class DumpError(Exception):
    """The file is not a dump this module can read."""


class VcpuRegs:
    """One vCPU's state; None where the source did not give it."""

    FIELDS = ("rip", "rsp", "cs", "rflags", "cr0", "cr2", "cr3", "cr4",
              "efer", "gdt_base", "gdt_limit", "idt_base", "idt_limit",
              "tr_sel", "tr_base", "gs_base", "kernel_gs_base", "halted")

    def __init__(self, n, **kw):
        self.n = n
        for f in self.FIELDS:
            setattr(self, f, kw.pop(f, None))
        if kw:
            raise TypeError("unknown fields %s" % ", ".join(kw))

    def merge(self, other):
        """Fill this one's gaps from other (the same vCPU, another
        source)."""
        for f in self.FIELDS:
            if getattr(self, f) is None:
                setattr(self, f, getattr(other, f))
        return self

    def __repr__(self):
        return "VcpuRegs(%d, %s)" % (self.n, ", ".join(
            "%s=%#x" % (f, getattr(self, f)) for f in self.FIELDS
            if isinstance(getattr(self, f), int) and
            not isinstance(getattr(self, f), bool)))


def merge_vcpus(primary, secondary):
    """primary's vCPUs, their gaps filled from secondary's."""
    out = dict(primary)
    for n, regs in secondary.items():
        if n in out:
            out[n].merge(regs)
        else:
            out[n] = regs
    return out


# --- dumps -------------------------------------------------------------------

class PhysMem:
    """Guest-physical memory of one dump."""

    kind = "none"

    def __init__(self, path):
        self.path = path
        self.f = open(path, "rb")
        # Registers the dump itself carries (QEMU notes, Xen's contexts).
        self.vcpus = {}

    def close(self):
        self.f.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _file(self, off, n):
        self.f.seek(off)
        data = self.f.read(n)
        if len(data) != n:
            raise MemError("%s ends before offset %#x" % (self.path, off + n))
        return data

    def page(self, pfn):
        """The 4 KiB page at frame pfn, or MemError."""
        raise NotImplementedError

    def read(self, pa, n):
        """n bytes at physical address pa; MemError where a page is
        missing."""
        out = bytearray()
        while n > 0:
            off = pa % PAGE
            take = min(n, PAGE - off)
            out += self.page(pa // PAGE)[off:off + take]
            pa += take
            n -= take
        return bytes(out)

    def u64(self, pa):
        return struct.unpack("<Q", self.read(pa, 8))[0]


class RawMem(PhysMem):
    """QEMU pmemsave, or xl-memdump (tools/xl-memdump.c): the file is
    memory from physical 0. size: where the memory ends, if the file
    (a disk) goes on; holes: (first, last) frame ranges not copied."""

    kind = "raw"

    def __init__(self, path, size=None, holes=()):
        super().__init__(path)
        self.size = os.fstat(self.f.fileno()).st_size
        if size is not None:
            self.size = min(self.size, size)
        self.holes = list(holes)

    def page(self, pfn):
        if (pfn + 1) * PAGE > self.size:
            raise MemError("no page at %#x: the raw dump holds %#x bytes"
                           % (pfn * PAGE, self.size))
        for first, last in self.holes:
            if first <= pfn <= last:
                raise MemError("no page at %#x: a hole of the dump"
                               % (pfn * PAGE))
        return self._file(pfn * PAGE, PAGE)


class ElfCoreMem(PhysMem):
    """QEMU dump-guest-memory: PT_LOAD segments at their p_paddr."""

    kind = "qemu-elf"

    def __init__(self, path, hdr):
        super().__init__(path)
        self.segs = []
        notes = []
        for p_type, p_offset, p_paddr, p_filesz in _phdrs(self.f, hdr):
            if p_type == PT_LOAD and p_filesz:
                self.segs.append((p_paddr, p_paddr + p_filesz, p_offset))
            elif p_type == PT_NOTE:
                notes.append((p_offset, p_filesz))
        self.segs.sort()
        for off, size in notes:
            self.vcpus = merge_vcpus(self.vcpus,
                                     _qemu_notes(self._file(off, size)))

    def page(self, pfn):
        pa = pfn * PAGE
        for lo, hi, off in self.segs:
            if lo <= pa and pa + PAGE <= hi:
                return self._file(off + pa - lo, PAGE)
        # A page split over two segments, or part of one (QEMU's blocks
        # are page aligned; hand-made dumps may not be).
        out = bytearray()
        for i in range(PAGE):
            a = pa + i
            for lo, hi, off in self.segs:
                if lo <= a < hi:
                    take = min(hi, pa + PAGE) - a
                    out += self._file(off + a - lo, take)
                    break
            else:
                if len(out) > i:
                    continue
                raise MemError("no PT_LOAD segment holds %#x" % a)
            if len(out) == PAGE:
                break
        return bytes(out[:PAGE])


class XenCoreMem(PhysMem):
    """xl dump-core of an HVM or PVH guest: .xen_pages by .xen_pfn."""

    kind = "xen-core"

    def __init__(self, path, hdr):
        super().__init__(path)
        secs = _sections(self.f, hdr)
        if ".xen_pfn" not in secs:
            if ".xen_p2m" in secs:
                raise DumpError("%s: a PV guest's dump (.xen_p2m): only "
                                "HVM and PVH guests' are read" % path)
            raise DumpError("%s: Xen dump-core without .xen_pfn" % path)
        for name in (".xen_pages", ".note.Xen", ".xen_prstatus"):
            if name not in secs:
                raise DumpError("%s: Xen dump-core without %s" % (path, name))
        nr_vcpus, nr_pages, page_size = _xen_header(
            self._file(*secs[".note.Xen"]))
        if page_size != PAGE:
            raise DumpError("%s: page size %d" % (path, page_size))
        self.pages_off = secs[".xen_pages"][0]
        pfn_off, pfn_size = secs[".xen_pfn"]
        n = min(nr_pages, pfn_size // 8)
        pfns = struct.unpack("<%dQ" % n, self._file(pfn_off, n * 8))
        self.index = {pfn: i for i, pfn in enumerate(pfns)
                      if pfn != XC_CORE_INVALID_PFN}
        off, size = secs[".xen_prstatus"]
        if nr_vcpus:
            self.vcpus = _xen_contexts(self._file(off, size), nr_vcpus)

    def page(self, pfn):
        i = self.index.get(pfn)
        if i is None:
            raise MemError("the Xen dump has no page at %#x" % (pfn * PAGE))
        return self._file(self.pages_off + i * PAGE, PAGE)


def open_dump(path):
    """A PhysMem for path: raw, QEMU's ELF core or Xen's dump-core."""
    with open(path, "rb") as f:
        hdr = f.read(64)
    if hdr[:4] != ELF_MAGIC:
        return RawMem(path)
    if len(hdr) < 64 or hdr[4] != 2 or hdr[5] != 1:
        raise DumpError("%s: an ELF, but not a little-endian ELF64" % path)
    e_type, = struct.unpack_from("<H", hdr, 16)
    if e_type != 4:
        raise DumpError("%s: an ELF of type %d, not a core (4)"
                        % (path, e_type))
    e_phnum, = struct.unpack_from("<H", hdr, 56)
    e_shnum, = struct.unpack_from("<H", hdr, 60)
    # QEMU writes program headers; Xen's dump-core only sections.
    if e_phnum:
        return ElfCoreMem(path, hdr)
    if e_shnum:
        return XenCoreMem(path, hdr)
    raise DumpError("%s: an ELF core with neither program headers nor "
                    "sections" % path)


def _phdrs(f, hdr):
    e_phoff, = struct.unpack_from("<Q", hdr, 32)
    e_phentsize, e_phnum = struct.unpack_from("<HH", hdr, 54)
    if e_phnum == 0xffff:
        # PN_XNUM: the real count is section 0's sh_info (ELF gABI).
        e_shoff, = struct.unpack_from("<Q", hdr, 40)
        f.seek(e_shoff + 44)
        e_phnum, = struct.unpack("<I", f.read(4))
    f.seek(e_phoff)
    table = f.read(e_phentsize * e_phnum)
    for i in range(e_phnum):
        p_type, _, p_offset, _, p_paddr, p_filesz = struct.unpack_from(
            "<IIQQQQ", table, i * e_phentsize)
        yield p_type, p_offset, p_paddr, p_filesz


def _sections(f, hdr):
    """name -> (offset, size) of an ELF64's sections."""
    e_shoff, = struct.unpack_from("<Q", hdr, 40)
    e_shentsize, e_shnum, e_shstrndx = struct.unpack_from("<HHH", hdr, 58)
    f.seek(e_shoff)
    table = f.read(e_shentsize * e_shnum)
    if len(table) != e_shentsize * e_shnum:
        raise DumpError("section headers cut short")
    shdrs = []
    for i in range(e_shnum):
        name, typ, _, _, off, size, link = struct.unpack_from(
            "<IIQQQQI", table, i * e_shentsize)
        shdrs.append((name, typ, off, size, link))
    _, _, str_off, str_size, _ = shdrs[e_shstrndx]
    f.seek(str_off)
    strtab = f.read(str_size)
    out = {}
    for name, typ, off, size, link in shdrs:
        end = strtab.find(b"\0", name)
        out[strtab[name:end].decode("ascii", "replace")] = (off, size)
    return out


def _notes(data):
    """(name, type, desc) of each ELF note in data."""
    off = 0
    while off + 12 <= len(data):
        namesz, descsz, typ = struct.unpack_from("<III", data, off)
        off += 12
        name = data[off:off + namesz].rstrip(b"\0").decode("ascii",
                                                            "replace")
        off += (namesz + 3) & ~3
        desc = data[off:off + descsz]
        off += (descsz + 3) & ~3
        yield name, typ, desc


# QEMUCPUState (target/i386/arch_dump.c): version, size, 18 registers,
# ten QEMUCPUSegments (selector, limit, flags, pad, base) for CS, DS, ES,
# FS, GS, SS, LDT, TR, GDT, IDT, then CR0-CR4 and, from version 1 on a
# 64-bit target, KERNEL_GS base.
_QSEG = 24
_QREGS = 8
_QSEGS = _QREGS + 18 * 8
_QSEG_INDEX = {"cs": 0, "gs": 4, "tr": 7, "gdt": 8, "idt": 9}
_QCR = _QSEGS + 10 * _QSEG
_QKGS = _QCR + 5 * 8


def _qemu_notes(data):
    """VcpuRegs from QEMU's notes, numbered in the order written (QEMU
    writes one per vCPU, in CPU index order: dump/dump.c)."""
    out = {}
    for name, typ, desc in _notes(data):
        if name != "QEMU" or len(desc) < _QKGS:
            continue

        def seg(which):
            sel, limit, _, _, base = struct.unpack_from(
                "<IIIIQ", desc, _QSEGS + _QSEG_INDEX[which] * _QSEG)
            return sel, limit, base

        n = len(out)
        rsp, = struct.unpack_from("<Q", desc, _QREGS + 6 * 8)
        rip, rflags = struct.unpack_from("<QQ", desc, _QREGS + 16 * 8)
        cr = struct.unpack_from("<5Q", desc, _QCR)
        cs_sel, _, _ = seg("cs")
        _, _, gs_base = seg("gs")
        tr_sel, _, tr_base = seg("tr")
        _, gdt_limit, gdt_base = seg("gdt")
        _, idt_limit, idt_base = seg("idt")
        kgs = None
        if len(desc) >= _QKGS + 8:
            kgs, = struct.unpack_from("<Q", desc, _QKGS)
        out[n] = VcpuRegs(n, rip=rip, rsp=rsp, cs=cs_sel, rflags=rflags,
                          cr0=cr[0], cr2=cr[2], cr3=cr[3], cr4=cr[4],
                          gdt_base=gdt_base, gdt_limit=gdt_limit,
                          idt_base=idt_base, idt_limit=idt_limit,
                          tr_sel=tr_sel, tr_base=tr_base, gs_base=gs_base,
                          kernel_gs_base=kgs)
    return out


def _xen_header(data):
    """(nr_vcpus, nr_pages, page_size) from .note.Xen's header note
    (struct xen_dumpcore_elfnote_header_desc, xg_core.h)."""
    for name, typ, desc in _notes(data):
        if name == "Xen" and typ == XEN_ELFNOTE_DUMPCORE_HEADER:
            _, nr_vcpus, nr_pages, page_size = struct.unpack_from(
                "<4Q", desc)
            return nr_vcpus, nr_pages, page_size
    raise DumpError("Xen dump-core without its header note")


# vcpu_guest_context_t, x86_64 (xen/include/public/arch-x86/xen.h and
# xen-x86_64.h): user_regs at 520, rip at +128, cs at +136, rsp at +152;
# ctrlreg[8] at 4984; fs_base, gs_base_kernel, gs_base_user from 5144.
_VGC_REGS = 520
_VGC_CTRLREG = 4984
_VGC_GS_KERNEL = 5152
_VGC_SIZE = 5168


def _xen_contexts(data, nr_vcpus):
    """VcpuRegs from .xen_prstatus. For an HVM vCPU Xen fills the PV
    fields from its state (arch_get_info_guest, xen/arch/x86/domctl.c):
    gs_base_kernel is the GS base in ring 0 and the shadow one in ring 3.
    No GDTR, IDTR or TR: xen-hvmctx gives those."""
    out = {}
    size = len(data) // nr_vcpus
    if size < _VGC_SIZE:
        return out
    for n in range(nr_vcpus):
        base = n * size
        rip, = struct.unpack_from("<Q", data, base + _VGC_REGS + 128)
        cs, = struct.unpack_from("<H", data, base + _VGC_REGS + 136)
        rflags, rsp = struct.unpack_from("<QQ", data, base + _VGC_REGS + 144)
        cr = struct.unpack_from("<5Q", data, base + _VGC_CTRLREG)
        gs_k, gs_u = struct.unpack_from("<QQ", data, base + _VGC_GS_KERNEL)
        if cs & 3 == 0:
            gs, kgs = gs_k, gs_u
        else:
            gs, kgs = gs_u, gs_k
        out[n] = VcpuRegs(n, rip=rip, rsp=rsp, cs=cs, rflags=rflags,
                          cr0=cr[0], cr2=cr[2], cr3=cr[3], cr4=cr[4],
                          gs_base=gs, kernel_gs_base=kgs)
    return out


# --- register dumps ----------------------------------------------------------

_ESC_RE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_Q_CPU_RE = re.compile(r"^CPU#(\d+)")
_Q_GPR_RE = re.compile(r"\bR(IP|SP)=([0-9a-f]{16})")
_Q_RFL_RE = re.compile(r"\bRFL=([0-9a-f]+)\b.*\bHLT=(\d)")
_Q_EIP_RE = re.compile(r"\bE(IP|SP)=([0-9a-f]{8})\b")
_Q_EFL_RE = re.compile(r"\bEFL=([0-9a-f]+)\b.*\bHLT=(\d)")
_Q_SEG_RE = re.compile(r"^(CS|GS|TR) ?=([0-9a-f]{4}) ([0-9a-f]{8,16}) "
                       r"([0-9a-f]{8})")
_Q_DT_RE = re.compile(r"^(GDT|IDT)=\s+([0-9a-f]{8,16}) ([0-9a-f]{8})")
_Q_CR_RE = re.compile(r"\b(CR[0234]|EFER)=([0-9a-f]+)")


def parse_qemu_registers(lines):
    """vCPU number -> VcpuRegs from QEMU's monitor `info registers -a`
    (target/i386/cpu-dump.c): no KERNEL_GS base there, which the ELF
    core's notes give."""
    out = {}
    cur = None
    for raw in lines:
        line = _ESC_RE.sub("", raw).replace("(qemu) ", "").strip()
        m = _Q_CPU_RE.match(line)
        if m:
            n = int(m.group(1))
            cur = out.setdefault(n, VcpuRegs(n))
            continue
        if cur is None:
            continue
        for m in _Q_GPR_RE.finditer(line):
            setattr(cur, "r" + m.group(1).lower(), int(m.group(2), 16))
        # Outside long mode QEMU prints EIP and ESP.
        for m in _Q_EIP_RE.finditer(line):
            f = {"IP": "rip", "SP": "rsp"}[m.group(1)]
            if getattr(cur, f) is None:
                setattr(cur, f, int(m.group(2), 16))
        m = _Q_RFL_RE.search(line) or _Q_EFL_RE.search(line)
        if m:
            cur.rflags = int(m.group(1), 16)
            cur.halted = m.group(2) == "1"
        m = _Q_SEG_RE.match(line)
        if m:
            sel, base = int(m.group(2), 16), int(m.group(3), 16)
            if m.group(1) == "CS":
                cur.cs = sel
            elif m.group(1) == "GS":
                cur.gs_base = base
            else:
                cur.tr_sel, cur.tr_base = sel, base
        m = _Q_DT_RE.match(line)
        if m:
            which = m.group(1).lower()
            setattr(cur, which + "_base", int(m.group(2), 16))
            setattr(cur, which + "_limit", int(m.group(3), 16))
        for m in _Q_CR_RE.finditer(line):
            setattr(cur, m.group(1).lower(), int(m.group(2), 16))
    return out


_X_ENTRY_RE = re.compile(r"^Entry \d+: type (\d+) instance (\d+)")
# HVM_SAVE_CODE(CPU) (xen/include/public/arch-x86/hvm/save.h).
HVM_SAVE_CODE_CPU = 2
_X_PAIR_RE = re.compile(r"\b(rip|rsp|rflags|cr0|cr2|cr3|cr4) "
                        r"(?:0x)?([0-9a-f]+)\b")
# "%#6.4x (%#18.8x + %#10.8x / %#7.4x)": C's '#' gives no 0x for a 0.
_X_SEG_RE = re.compile(r"^(cs|gs|tr)\s+(?:0x)?([0-9a-f]+) \(\s*(?:0x)?"
                       r"([0-9a-f]+) \+\s*(?:0x)?([0-9a-f]+)")
_X_DT_RE = re.compile(r"^(idtr|gdtr)\s+\(\s*(?:0x)?([0-9a-f]+) \+\s*"
                      r"(?:0x)?([0-9a-f]+)\)")
_X_MSR_RE = re.compile(r"\b(shadow gs|efer)\s+(?:0x)?([0-9a-f]+)\b")


def parse_xen_hvmctx(lines):
    """vCPU number -> VcpuRegs from `xen-hvmctx <domid>`
    (tools/misc/xen-hvmctx.c): its CPU records, one per vCPU."""
    out = {}
    cur = None
    for raw in lines:
        line = raw.strip()
        m = _X_ENTRY_RE.match(line)
        if m:
            cur = None
            if int(m.group(1)) == HVM_SAVE_CODE_CPU:
                n = int(m.group(2))
                cur = out.setdefault(n, VcpuRegs(n))
            continue
        if cur is None:
            continue
        if line.startswith("CPU:"):
            line = line[4:].strip()
        for m in _X_PAIR_RE.finditer(line):
            setattr(cur, m.group(1), int(m.group(2), 16))
        m = _X_SEG_RE.match(line)
        if m:
            sel, base = int(m.group(2), 16), int(m.group(3), 16)
            if m.group(1) == "cs":
                cur.cs = sel
            elif m.group(1) == "gs":
                cur.gs_base = base
            else:
                cur.tr_sel, cur.tr_base = sel, base
        m = _X_DT_RE.match(line)
        if m:
            which = m.group(1)[:3]
            setattr(cur, which + "_base", int(m.group(2), 16))
            setattr(cur, which + "_limit", int(m.group(3), 16))
        for m in _X_MSR_RE.finditer(line):
            if m.group(1) == "efer":
                cur.efer = int(m.group(2), 16)
            else:
                cur.kernel_gs_base = int(m.group(2), 16)
    return out


# --- shimk's ELF -------------------------------------------------------------

class Image:
    """What the check needs from shimk's ELF: symbols, segments, and the
    bytes of the ones it reads (selfcheck_layout)."""

    def __init__(self, path):
        with open(path, "rb") as f:
            data = f.read()
        if data[:4] != ELF_MAGIC or data[4] != 2:
            raise DumpError("%s: not an ELF64" % path)
        self.path = path
        self.data = data
        e_phoff, e_shoff = struct.unpack_from("<QQ", data, 32)
        e_phentsize, e_phnum, e_shentsize, e_shnum = struct.unpack_from(
            "<HHHH", data, 54)
        # (vaddr, memsz, offset, filesz, flags)
        self.segs = []
        for i in range(e_phnum):
            p_type, p_flags, p_offset, p_vaddr, _, p_filesz, p_memsz = \
                struct.unpack_from("<IIQQQQQ", data, e_phoff + i * e_phentsize)
            if p_type == PT_LOAD:
                self.segs.append((p_vaddr, p_memsz, p_offset, p_filesz,
                                  p_flags))
        self.symbols = {}
        self.funcs = []
        for i in range(e_shnum):
            _, typ, _, _, off, size, link, _, _, entsize = \
                struct.unpack_from("<IIQQQQIIQQ", data, e_shoff +
                                   i * e_shentsize)
            if typ != SHT_SYMTAB or not entsize:
                continue
            _, _, _, _, str_off, _, _, _, _, _ = struct.unpack_from(
                "<IIQQQQIIQQ", data, e_shoff + link * e_shentsize)
            for j in range(size // entsize):
                name, info, _, shndx, value, sym_size = struct.unpack_from(
                    "<IBBHQQ", data, off + j * entsize)
                if not name or not shndx:
                    continue
                end = data.index(b"\0", str_off + name)
                sname = data[str_off + name:end].decode("ascii", "replace")
                self.symbols[sname] = (value, sym_size)
                if info & 0xf == 2:     # STT_FUNC
                    self.funcs.append((value, sname))
        self.funcs.sort()
        # Kernel-mode code: executable segments in the kernel's half (the
        # boot segment runs before paging only).
        self.text = [(v, v + m) for v, m, _, _, fl in self.segs
                     if fl & 1 and v >= KERNEL_HALF]

    def in_text(self, va):
        return any(lo <= va < hi for lo, hi in self.text)

    def in_image(self, va):
        return any(v <= va < v + m for v, m, _, _, _ in self.segs)

    def file_bytes(self, va, n):
        """Bytes at va as the file holds them, or None (bss, or not
        there)."""
        for v, _, off, filesz, _ in self.segs:
            if v <= va and va + n <= v + filesz:
                return self.data[off + va - v:off + va - v + n]
        return None

    def symbolize(self, va):
        best = None
        for addr, name in self.funcs:
            if addr > va:
                break
            best = (addr, name)
        return "%s+%#x" % (best[1], va - best[0]) if best else None


def selfcheck_sum(words):
    h = FNV_OFFSET
    for w in words:
        h = ((h ^ w) * FNV_PRIME) & MASK64
    return h


# --- the check ---------------------------------------------------------------

class Verdict:
    def __init__(self, text, l0_proven, findings):
        self.text = text
        self.l0_proven = l0_proven
        self.findings = findings

    def __repr__(self):
        return "Verdict(%r, %r)" % (self.text, self.l0_proven)


class _Bad(Exception):
    """A check failed: shimk's state is not what it set up."""


class _Unknown(Exception):
    """A check could not be made."""


class Layout:
    """Offsets in selfcheck_ref from selfcheck_layout (the build's own
    sizes), checked against the header this reader was written for."""

    def __init__(self, words):
        if words[SCL_MAGIC] != SELFCHECK_MAGIC:
            raise _Unknown("selfcheck_layout has magic %#x, not %#x"
                           % (words[SCL_MAGIC], SELFCHECK_MAGIC))
        if words[SCL_VERSION] != SELFCHECK_VERSION:
            raise _Unknown("selfcheck_ref version %d; this reader knows "
                           "version %d" % (words[SCL_VERSION],
                                           SELFCHECK_VERSION))
        self.ref_size = words[SCL_REF_SIZE]
        self.cpu_offset = words[SCL_CPU_OFFSET]
        self.cpu_size = words[SCL_CPU_SIZE]
        self.nr_cpus = words[SCL_NR_CPUS]
        self.gdt_entries = words[SCL_GDT_ENTRIES]
        self.tss_bytes = words[SCL_TSS_BYTES]
        # struct selfcheck_ref: 8 words, root_half[256], idt[512], sum.
        self.ref_words = 8 + 256 + NR_VECTORS * 2
        # struct selfcheck_cpu: 5 words, gdt[], tss_base, tss[],
        # stacks[4][2], sum.
        self.cpu_words = (5 + self.gdt_entries + 1 + self.tss_bytes // 8 +
                          NR_STACKS * 2)
        want_cpu = (self.cpu_words + 1) * 8
        want_off = (self.ref_words + 1) * 8
        if (self.cpu_size != want_cpu or self.cpu_offset != want_off or
                self.ref_size != want_off + self.nr_cpus * want_cpu or
                self.tss_bytes % 8):
            raise _Unknown("selfcheck layout sizes (ref %d, cpu[] at %d, "
                           "cpu %d) are not the header's (%d, %d, %d)"
                           % (self.ref_size, self.cpu_offset, self.cpu_size,
                              want_off + self.nr_cpus * want_cpu, want_off,
                              want_cpu))


class Ref:
    """selfcheck_ref, as the dump holds it."""

    def __init__(self, words, layout):
        self.words = words
        self.magic, self.version, self.nr_cpus, self.idt_base, \
            self.idt_limit, self.kernel_root, lo, hi = words[:8]
        self.stack_area = (lo, hi)
        self.root_half = words[8:264]
        self.idt = words[264:264 + NR_VECTORS * 2]
        self.sum = words[layout.ref_words]
        self.sum_ok = selfcheck_sum(words[:layout.ref_words]) == self.sum


class CpuRef:
    def __init__(self, index, words, layout):
        g = layout.gdt_entries
        t = layout.tss_bytes // 8
        self.index = index
        self.valid, self.cpu_info, self.apic_id, self.gdt_base, \
            self.gdt_limit = words[:5]
        self.gdt = words[5:5 + g]
        self.tss_base = words[5 + g]
        self.tss = words[6 + g:6 + g + t]
        s = 6 + g + t
        self.stacks = [(words[s + 2 * i], words[s + 2 * i + 1])
                       for i in range(NR_STACKS)]
        self.sum = words[layout.cpu_words]
        self.sum_ok = selfcheck_sum(words[:layout.cpu_words]) == self.sum


def _words(data):
    return list(struct.unpack("<%dQ" % (len(data) // 8), data))


class Walker:
    """4-level walks at a CR3 (SDM Vol. 3A, 4.5), 2 MiB and 1 GiB pages
    included."""

    def __init__(self, mem, cr3, nx_on):
        self.mem = mem
        self.root = cr3 & PTE_ADDR
        self.nx_on = nx_on

    def walk(self, va):
        """(pa, writable, executable) or raise _Bad with the level."""
        if not (va < 0x0000800000000000 or va >= KERNEL_HALF):
            raise _Bad("%#x is not canonical" % va)
        table = self.root
        w = x = True
        for level, shift in (("PML4", 39), ("PDPT", 30), ("PD", 21),
                             ("PT", 12)):
            index = (va >> shift) & 511
            try:
                e = self.mem.u64(table + index * 8)
            except MemError:
                raise _Bad("%#x: its %s at %#x lies outside the dump"
                           % (va, level, table))
            if not e & PTE_P:
                raise _Bad("%#x not mapped (%s entry %d at %#x is %#x)"
                           % (va, level, index, table, e))
            w = w and bool(e & PTE_W)
            x = x and not (self.nx_on and e & PTE_NX)
            if shift in (30, 21) and e & PTE_PS:
                mask = (1 << shift) - 1
                return (e & PTE_ADDR & ~mask) | (va & mask), w, x
            table = e & PTE_ADDR
        return table | (va & 0xfff), w, x

    def read(self, va, n):
        out = bytearray()
        while n > 0:
            take = min(n, PAGE - va % PAGE)
            pa, _, _ = self.walk(va)
            try:
                out += self.mem.read(pa, take)
            except MemError:
                raise _Bad("%#x maps %#x, outside the dump" % (va, pa))
            va += take
            n -= take
        return bytes(out)


def _tss_field(off):
    """struct tss64's field at byte off (include/asm/desc.h)."""
    if 4 <= off < 28:
        return "RSP%d" % ((off - 4) // 8)
    if 36 <= off < 92:
        return "IST%d" % ((off - 36) // 8 + 1)
    if off >= 102:
        return "I/O map base"
    return "reserved"


def _first_diff(live, boot, skip=None):
    for i, (a, b) in enumerate(zip(live, boot)):
        if a != b and not (skip and skip[0] <= i < skip[1]):
            return i
    return -1


def _pack(words):
    return struct.pack("<%dQ" % len(words), *words)


def _gdt_mask(words):
    """The GDT with the bits the CPU sets itself cleared."""
    out = []
    for i, d in enumerate(words):
        if d & DESC_S:
            d &= ~DESC_ACCESSED
        elif i * 8 == GDT_TSS:
            d &= ~DESC_TSS_BUSY
        out.append(d)
    return out


def _ranges(vcpus):
    """"0-3" or "0,2-3" for vCPU numbers."""
    out = []
    for n in sorted(vcpus):
        if out and out[-1][1] == n - 1:
            out[-1][1] = n
        else:
            out.append([n, n])
    return ",".join("%d" % a if a == b else "%d-%d" % (a, b)
                    for a, b in out)


class _Checker:
    def __init__(self, mem, image, ref, cpus, symbolize):
        self.mem = mem
        self.image = image
        self.ref = ref
        self.cpus = cpus
        self.sym = symbolize or image.symbolize

    def where(self, va):
        s = self.sym(va) if self.image.in_text(va) else None
        return "%#x (%s)" % (va, s) if s else "%#x" % va

    def stack_of(self, cpu, va):
        """The name of the stack of cpu's that holds va, or None."""
        for i, (lo, hi) in enumerate(cpu.stacks):
            if lo < va <= hi:
                return STACK_NAMES[i]
        lo, hi = self.ref.stack_area
        if lo < va <= hi:
            return "guarded stack area"
        return None

    def no_cpu(self, v, name, gs, walker):
        """v's GS bases are no recorded CPU's: a CPU still starting (not
        proven either way), or a trampled GS base (shimk's)."""
        if not any(gs):
            raise _Unknown("%s: no GS base yet (a CPU still starting, "
                           "before its boot copies)" % name)
        for g in gs:
            try:
                self_ptr = struct.unpack("<Q", walker.read(g, 8))[0]
            except _Bad:
                continue
            if self_ptr == g:
                raise _Unknown("%s: its cpu_info %#x has no boot copy yet "
                               "(a CPU still starting)" % (name, g))
        raise _Bad("%s: GS base %s is no CPU's cpu_info (boot copies: %s)"
                   % (name, " / ".join("%#x" % g for g in gs) or "unknown",
                      ", ".join("CPU%d %#x" % (c.index, c.cpu_info)
                                for c in self.cpus) or "none"))

    def syscall_window(self, rip):
        """The SYSCALL entry (syscall_entry, syscall32_entry) whose
        instructions before the kernel stack holds rip, or None."""
        for entry in ("syscall_entry", "syscall32_entry"):
            start = self.image.symbols.get(entry)
            end = self.image.symbols.get(entry + "_on_kstack")
            if start and end and start[0] <= rip < end[0]:
                return entry
        return None

    def vcpu(self, v):
        """The findings for one vCPU, or raise _Bad/_Unknown."""
        name = "vCPU%d" % v.n
        ok = []
        need = ("rip", "rsp", "cs", "cr3", "gdt_base", "gdt_limit",
                "idt_base", "idt_limit", "tr_base")
        missing = [f for f in need if getattr(v, f) is None]
        if missing:
            raise _Unknown("%s: the dump's registers lack %s"
                           % (name, ", ".join(missing)))
        if v.cr4 is not None and v.cr4 & CR4_LA57:
            raise _Unknown("%s: 5-level paging on (CR4.LA57): shimk never "
                           "sets it" % name)
        kernel = v.cs & 3 == 0
        # Which CPU of shimk's this is: the one whose cpu_info its GS
        # base is (KERNEL_GS base in ring 3 or before SWAPGS).
        gs = [g for g in (v.gs_base, v.kernel_gs_base) if g is not None]
        cpu = None
        for g in gs:
            cpu = next((c for c in self.cpus if c.cpu_info == g), None)
            if cpu:
                break
        how = ""
        if cpu is None and v.kernel_gs_base is None:
            # QEMU's `info registers` (the nested L1's dump) has no
            # KERNEL_GS base, so a vCPU in a task, or in an entry
            # before SWAPGS, shows only the user's GS base. Its GDTR
            # and TR are still its own CPU's: both must name one CPU.
            cpu = next((c for c in self.cpus if c.gdt_base == v.gdt_base
                        and c.tss_base == v.tr_base), None)
            how = ", known by its GDT and TSS" if cpu else ""
        walker = Walker(self.mem, v.cr3, v.efer is None or
                        bool(v.efer & EFER_NXE))
        if cpu is None:
            self.no_cpu(v, name, gs, walker)
        cname = "CPU%d" % cpu.index

        def walk(va, what):
            try:
                return walker.walk(va)
            except _Bad as e:
                raise _Bad("%s: %s: %s" % (name, what, e))

        def read(va, n, what):
            try:
                return walker.read(va, n)
            except _Bad as e:
                raise _Bad("%s: %s: %s" % (name, what, e))
        try:
            half = _words(self.mem.read((v.cr3 & PTE_ADDR) + 256 * 8,
                                        256 * 8))
        except MemError as e:
            raise _Bad("%s: CR3 %#x lies outside the dump (%s)"
                       % (name, v.cr3, e))
        for i, (live, boot) in enumerate(zip(half, self.ref.root_half)):
            if live & ~PTE_A != boot & ~PTE_A:
                raise _Bad("%s: the root at CR3 %#x has a wrong kernel "
                           "half: PML4 entry %d is %#x, kernel_root's %#x"
                           % (name, v.cr3, 256 + i, live, boot))
        ok.append("kernel root")
        self_ptr = struct.unpack("<Q", read(cpu.cpu_info, 8, "cpu_info"))[0]
        if self_ptr != cpu.cpu_info:
            raise _Bad("%s: %s's cpu_info at %#x points at %#x, not at "
                       "itself" % (name, cname, cpu.cpu_info, self_ptr))
        # GDT: the register, then the bytes through this CR3.
        if (v.gdt_base, v.gdt_limit) != (cpu.gdt_base, cpu.gdt_limit):
            raise _Bad("%s: GDTR %#x/%#x, %s's GDT is %#x/%#x"
                       % (name, v.gdt_base, v.gdt_limit, cname,
                          cpu.gdt_base, cpu.gdt_limit))
        live = _words(read(cpu.gdt_base, len(cpu.gdt) * 8, "GDT"))
        d = _first_diff(_gdt_mask(live), _gdt_mask(cpu.gdt))
        if d >= 0:
            raise _Bad("GDT on %s corrupted at +%#x (entry %d: %#x at "
                       "fault, %#x at boot; %s)" % (cname, d * 8, d,
                                                    live[d], cpu.gdt[d],
                                                    name))
        ok.append("GDT")
        # IDT, shared by every CPU.
        if (v.idt_base, v.idt_limit) != (self.ref.idt_base,
                                         self.ref.idt_limit):
            raise _Bad("%s: IDTR %#x/%#x, shimk's IDT is %#x/%#x"
                       % (name, v.idt_base, v.idt_limit, self.ref.idt_base,
                          self.ref.idt_limit))
        live = _words(read(self.ref.idt_base, len(self.ref.idt) * 8, "IDT"))
        d = _first_diff(live, self.ref.idt)
        if d >= 0:
            raise _Bad("IDT corrupted at +%#x (vector %d: %#x at fault, "
                       "%#x at boot; seen from %s)"
                       % (d * 8, d // 2, live[d], self.ref.idt[d], name))
        ok.append("IDT")
        # TSS: TR, then the bytes; RSP0 follows the thread.
        if v.tr_base != cpu.tss_base or (v.tr_sel is not None and
                                         v.tr_sel != GDT_TSS):
            raise _Bad("%s: TR %s base %#x, %s's TSS is %#x"
                       % (name, "%#x" % v.tr_sel if v.tr_sel is not None
                          else "?", v.tr_base, cname, cpu.tss_base))
        live_b = read(cpu.tss_base, len(cpu.tss) * 8, "TSS")
        boot_b = _pack(cpu.tss)
        d = _first_diff(live_b, boot_b, (TSS_RSP0_OFF,
                                         TSS_RSP0_OFF + TSS_RSP0_LEN))
        if d >= 0:
            # Name the 8-byte field (the TSS's are at 4 + 8k) that holds
            # the first byte that differs.
            f = _tss_field(d)
            at = 4 + (d - 4) // 8 * 8 if 4 <= d < 100 else d
            lv = int.from_bytes(live_b[at:at + 8], "little")
            bv = int.from_bytes(boot_b[at:at + 8], "little")
            raise _Bad("TSS on %s corrupted at +%#x (%s %#x at fault, %#x "
                       "at boot; %s)" % (cname, at, f, lv, bv, name))
        ok.append("TSS")
        rsp0 = int.from_bytes(live_b[TSS_RSP0_OFF:TSS_RSP0_OFF + 8],
                              "little")
        if self.stack_of(cpu, rsp0) is None:
            raise _Bad("TSS on %s: RSP0 %#x is in none of shimk's stacks "
                       "(%s)" % (cname, rsp0, name))
        # The stacks an interrupt switches to, and the one in use.
        tops = [("RSP0", rsp0)]
        for k in range(1, 4):
            off = 36 + 8 * (k - 1)
            tops.append(("IST%d" % k, int.from_bytes(
                live_b[off:off + 8], "little")))
        for what, top in tops:
            _, w, _ = walk(top - 8, "%s stack" % what)
            if not w:
                raise _Bad("%s: %s stack top %#x is read-only"
                           % (name, what, top))
        entry = self.syscall_window(v.rip) if kernel else None
        if entry:
            # SYSCALL leaves RSP the user's; arch/x86/syscall.S loads
            # the kernel stack at <entry>_on_kstack.
            ok.append("stacks (the user's RSP in %s before its stack "
                      "switch)" % entry)
        elif kernel:
            # A user stack is the task's: delivery switches to RSP0.
            _, w, _ = walk(v.rsp - 8, "the stack in use (RSP %#x)"
                           % v.rsp)
            if not w:
                raise _Bad("%s: RSP %#x is read-only" % (name, v.rsp))
            if self.stack_of(cpu, v.rsp) is None:
                raise _Bad("%s: RSP %#x is in none of shimk's stacks"
                           % (name, v.rsp))
        if not entry:
            ok.append("stacks")
        # The code.
        _, _, x = walk(v.rip, "RIP")
        if not x:
            raise _Bad("%s: RIP %s is not executable" % (name,
                                                         self.where(v.rip)))
        if kernel and not self.image.in_text(v.rip):
            raise _Bad("%s: RIP %#x in kernel mode is outside shimk's text"
                       % (name, v.rip))
        return "%s (%s%s, %s at %s): %s intact" % (
            name, cname, how, "kernel" if kernel else "user",
            self.where(v.rip), ", ".join(ok))


def _not_shimks(v, image):
    """Why v's saved state cannot be shimk's own, or None."""
    if v.cs is None or v.rip is None:
        return None
    if v.cs == XEN_CS:
        return "code selector %#x is Xen's own" % v.cs
    if v.cs not in (GDT_KERNEL_CS, GDT_USER_CS | 3, 0x18 | 3):
        return "code selector %#x is none of shimk's" % v.cs
    if v.cs == GDT_KERNEL_CS and v.rip >= KERNEL_HALF and \
            not image.in_image(v.rip):
        return "kernel RIP %#x lies outside shimk's image" % v.rip
    return None


def check(mem, vcpus, elf_path, symbolize=None):
    """The verdict on shimk's state in mem for every vCPU in vcpus."""
    findings = []

    def unknown(why):
        findings.append("not proven: " + why)
        return Verdict("not proven: " + why, False, findings)

    try:
        image = Image(elf_path)
    except (OSError, DumpError) as e:
        return unknown("cannot read %s: %s" % (elf_path, e))
    if "selfcheck_ref" not in image.symbols:
        return unknown("%s has no selfcheck_ref (a kernel without boot "
                       "copies)" % elf_path)
    sym = symbolize or image.symbolize
    # A saved state that is not shimk's at all (the L0's own registers
    # saved as the guest's) proves the L0 without memory.
    for n in sorted(vcpus):
        if vcpus[n].cr0 is not None and not vcpus[n].cr0 & CR0_PG:
            continue
        why = _not_shimks(vcpus[n], image)
        if why:
            v = vcpus[n]
            text = ("L0 fault, proven: vCPU%d's saved state is not "
                    "shimk's (%s; CS:RIP %04x:%016x, CR3 %#x)"
                    % (n, why, v.cs, v.rip, v.cr3 or 0))
            findings.append(text)
            return Verdict(text, True, findings)
    va, _ = image.symbols["selfcheck_ref"]
    pa = va - KERNEL_VIRT_BASE
    try:
        lva, _ = image.symbols.get("selfcheck_layout", (None, 0))
        if lva is None:
            raise _Unknown("%s has no selfcheck_layout" % elf_path)
        raw = image.file_bytes(lva, SCL_NR * 8)
        if raw is None:
            raw = mem.read(lva - KERNEL_VIRT_BASE, SCL_NR * 8)
        layout = Layout(_words(raw))
        ref_raw = mem.read(pa, layout.ref_size)
    except _Unknown as e:
        return unknown(str(e))
    except MemError as e:
        return unknown("shimk's boot copies are not in the dump (%s)" % e)
    words = _words(ref_raw)
    if words[0] != SELFCHECK_MAGIC:
        return unknown("selfcheck_ref at %#x holds %#x, not its magic: "
                       "the dump is not of this build, or the copies were "
                       "never recorded" % (pa, words[0]))
    ref = Ref(words[:layout.ref_words + 1], layout)
    if ref.version != SELFCHECK_VERSION:
        return unknown("selfcheck_ref version %d" % ref.version)
    if not ref.sum_ok:
        text = ("shimk fault: its boot copies (selfcheck_ref) are "
                "trampled: their sum does not match")
        findings.append(text)
        return Verdict(text, False, findings)
    findings.append("boot copies at %#x: sum intact, kernel_root %#x, "
                    "stack area %#x-%#x" % (pa, ref.kernel_root,
                                            ref.stack_area[0],
                                            ref.stack_area[1]))
    cpus = []
    for i in range(layout.nr_cpus):
        off = (layout.cpu_offset // 8) + i * (layout.cpu_size // 8)
        c = CpuRef(i, words[off:off + layout.cpu_size // 8], layout)
        if c.valid != 1:
            continue
        if not c.sum_ok:
            text = ("shimk fault: the boot copy of CPU%d "
                    "(selfcheck_ref.cpu[%d]) is trampled: its sum does not "
                    "match" % (i, i))
            findings.append(text)
            return Verdict(text, False, findings)
        cpus.append(c)
    # kernel_root itself against its copy.
    try:
        half = _words(mem.read(ref.kernel_root + 256 * 8, 256 * 8))
    except MemError as e:
        return unknown("kernel_root %#x is not in the dump (%s)"
                       % (ref.kernel_root, e))
    d = _first_diff([x & ~PTE_A for x in half],
                    [x & ~PTE_A for x in ref.root_half])
    if d >= 0:
        text = ("shimk fault: kernel_root %#x corrupted: PML4 entry %d is "
                "%#x, %#x at boot" % (ref.kernel_root, 256 + d, half[d],
                                      ref.root_half[d]))
        findings.append(text)
        return Verdict(text, False, findings)
    checked = []
    skipped = []
    bad = []
    unknowns = []
    checker = _Checker(mem, image, ref, cpus, sym)
    for n in sorted(vcpus):
        v = vcpus[n]
        if v.cr0 is not None and not v.cr0 & CR0_PG:
            skipped.append(n)
            findings.append("vCPU%d: paging off (never started): skipped"
                            % n)
            continue
        try:
            findings.append(checker.vcpu(v))
            checked.append(n)
        except _Bad as e:
            bad.append(str(e))
            findings.append("shimk fault: %s" % e)
        except _Unknown as e:
            unknowns.append(str(e))
            findings.append("not proven: %s" % e)
    if bad:
        more = len(bad) - 1
        text = "shimk fault: %s%s" % (bad[0], "; and %d more" % more
                                      if more else "")
        return Verdict(text, False, findings)
    if unknowns:
        return Verdict("not proven: %s" % unknowns[0], False, findings)
    if not checked:
        return Verdict("not proven: no vCPU had state to check%s"
                       % (" (vCPU%s paging off)" % _ranges(skipped)
                          if skipped else ""), False, findings)
    text = ("L0 fault, proven: shimk's state intact (vCPU%s: GDT, IDT, "
            "TSS, kernel root, stacks%s)"
            % (_ranges(checked), "; vCPU%s paging off" % _ranges(skipped)
               if skipped else ""))
    return Verdict(text, True, findings)


def main(argv):
    if len(argv) not in (3, 4):
        sys.stderr.write("usage: memcheck.py DUMP ELF [REGISTERS]\n"
                         "  REGISTERS: QEMU's `info registers -a` or "
                         "xen-hvmctx output\n")
        return 2
    with open_dump(argv[1]) as mem:
        vcpus = {}
        if len(argv) == 4:
            with open(argv[3], errors="replace") as f:
                lines = f.read().splitlines()
            vcpus = parse_xen_hvmctx(lines) or parse_qemu_registers(lines)
        vcpus = merge_vcpus(vcpus, mem.vcpus)
        print("dump: %s (%s), %d vCPU(s) with registers"
              % (argv[1], mem.kind, len(vcpus)))
        v = check(mem, vcpus, argv[2])
    for f in v.findings:
        print("  " + f)
    print(v.text)
    return 0 if v.l0_proven else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
