#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# Dumps for tools/bootlib/memcheck.py's tests: synthetic ones and trimmed real.
#
# Model builds a small guest from scratch: a shimk-like ELF (symbols, the
# selfcheck_layout words), page tables, per-CPU tables and stacks, the
# boot copies (selfcheck_ref, include/shimk/selfcheck.h) and the vCPUs'
# registers; tests trample one structure and write the memory in each
# format memcheck reads (raw, QEMU's ELF core, Xen's dump-core).
#
# `trim` cuts a real dump down to the pages memcheck reads, in the same
# format (a raw one zero but for those pages), plus the ELF's symbols and
# segments without their bytes, so that a recorded case fits in the tree:
#   tests/unit/memcheck_fixture.py trim DUMP ELF REGS OUT [VCPUS]
# writes OUT.core (or OUT.raw), OUT.elf and OUT.regs (REGS copied: QEMU's
# `info registers -a` or xen-hvmctx output); VCPUS: the domain's count,
# those without registers being down (xl).

import os
import shutil
import struct
import sys

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
from bootlib import memcheck  # noqa: E402
from bootlib.memcheck import PAGE, VcpuRegs  # noqa: E402

KVB = memcheck.KERNEL_VIRT_BASE
P, W, PS, NX = 1, 2, 1 << 7, 1 << 63
STACKS_BASE = 0xffffd00000000000
GDT_ENTRIES = 8
TSS_BYTES = 104
NR_CPUS = 4
XC_CORE_MAGIC_HVM = 0xF00FEBEE


# --- ELF writing -------------------------------------------------------------

def write_elf(path, e_type, phdrs=(), sections=()):
    """A little-endian x86-64 ELF64.

    phdrs: (p_type, p_flags, vaddr, paddr, data, memsz)
    sections: (name, sh_type, data, link, info, entsize, align); a null
    section and .shstrtab are added.
    """
    names = b"\0.shstrtab\0"
    sec = [("", 0, b"", 0, 0, 0, 0)] + list(sections)
    name_off = []
    for s in sec[1:]:
        name_off.append(len(names))
        names += s[0].encode() + b"\0"
    sec.append((".shstrtab", 3, names, 0, 0, 0, 1))
    name_off = [0] + name_off + [1]
    out = bytearray(64 + 56 * len(phdrs))
    poffs = []
    for ph in phdrs:
        if ph[4]:
            out += b"\0" * (-len(out) % PAGE)
        poffs.append(len(out))
        out += ph[4]
    soffs = []
    for s in sec:
        out += b"\0" * (-len(out) % max(1, s[6]))
        soffs.append(len(out))
        out += s[2]
    out += b"\0" * (-len(out) % 8)
    shoff = len(out)
    for i, s in enumerate(sec):
        out += struct.pack("<IIQQQQIIQQ", name_off[i], s[1], 0, 0,
                           soffs[i] if s[2] else 0, len(s[2]), s[3], s[4],
                           s[6], s[5])
    struct.pack_into("<4sBBBB8xHHIQQQIHHHHHH", out, 0, b"\x7fELF", 2, 1, 1,
                     0, e_type, 62, 1, 0, 64 if phdrs else 0, shoff, 0, 64,
                     56, len(phdrs), 64, len(sec), len(sec) - 1)
    for i, (typ, flags, vaddr, paddr, data, memsz) in enumerate(phdrs):
        struct.pack_into("<IIQQQQQQ", out, 64 + 56 * i, typ, flags,
                         poffs[i] if data else 0, vaddr, paddr, len(data),
                         memsz, PAGE)
    with open(path, "wb") as f:
        f.write(out)


def note(name, typ, desc):
    n = name.encode() + b"\0"
    return (struct.pack("<III", len(n), len(desc), typ) + n +
            b"\0" * (-len(n) % 4) + desc + b"\0" * (-len(desc) % 4))


def qemu_note(v):
    """QEMUCPUState of target/i386/arch_dump.c, version 1 with KERNEL_GS
    base (440 bytes)."""
    def seg(sel=0, limit=0, base=0):
        return struct.pack("<IIIIQ", sel or 0, limit or 0, 0, 0, base or 0)
    regs = [0] * 18
    regs[6] = v.rsp or 0
    regs[16] = v.rip or 0
    regs[17] = v.rflags or 0
    desc = struct.pack("<II18Q", 1, 440, *regs)
    desc += seg(v.cs) + seg() * 3 + seg(0, 0, v.gs_base) + seg() * 2
    desc += seg(v.tr_sel, 0x67, v.tr_base)
    desc += seg(0, v.gdt_limit, v.gdt_base) + seg(0, v.idt_limit,
                                                  v.idt_base)
    desc += struct.pack("<5QQ", v.cr0 or 0, 0, v.cr2 or 0, v.cr3 or 0,
                        v.cr4 or 0, v.kernel_gs_base or 0)
    return note("QEMU", 0, desc)


def write_qemu_core(path, pages, vcpus):
    """pages: pfn -> 4096 bytes; one PT_LOAD per run of frames, as QEMU
    writes one per RAM block."""
    notes = b""
    for n in sorted(vcpus):
        # NT_PRSTATUS first, as QEMU does; memcheck reads the QEMU ones.
        notes += note("CORE", 1, b"\0" * 336)
    for n in sorted(vcpus):
        notes += qemu_note(vcpus[n])
    phdrs = [(memcheck.PT_NOTE, 0, 0, 0, notes, len(notes))]
    run = []
    for pfn in sorted(pages) + [None]:
        if run and (pfn is None or pfn != run[-1] + 1):
            data = b"".join(pages[p] for p in run)
            phdrs.append((memcheck.PT_LOAD, 0, run[0] * PAGE,
                          run[0] * PAGE, data, len(data)))
            run = []
        if pfn is not None:
            run.append(pfn)
    write_elf(path, 4, phdrs)


def xen_context(v):
    """vcpu_guest_context_t (x86_64) as Xen fills it for an HVM vCPU."""
    c = bytearray(memcheck._VGC_SIZE)
    r = memcheck._VGC_REGS
    struct.pack_into("<Q", c, r + 128, v.rip or 0)
    struct.pack_into("<H", c, r + 136, v.cs or 0)
    struct.pack_into("<QQ", c, r + 144, v.rflags or 0, v.rsp or 0)
    struct.pack_into("<5Q", c, memcheck._VGC_CTRLREG, v.cr0 or 0, 0,
                     v.cr2 or 0, v.cr3 or 0, v.cr4 or 0)
    gs, kgs = v.gs_base or 0, v.kernel_gs_base or 0
    if (v.cs or 0) & 3:
        gs, kgs = kgs, gs
    struct.pack_into("<QQ", c, memcheck._VGC_GS_KERNEL, gs, kgs)
    return bytes(c)


def write_xen_core(path, pages, vcpus):
    """xl dump-core's layout for an HVM/PVH guest (xg_core.c)."""
    pfns = sorted(pages)
    nr = len(pfns)
    notes = (note("Xen", 0x2000000, b"") +
             note("Xen", 0x2000001, struct.pack(
                 "<4Q", XC_CORE_MAGIC_HVM, len(vcpus), nr + 1, PAGE)) +
             note("Xen", 0x2000003, struct.pack("<Q", 1)))
    ctx = b"".join(xen_context(vcpus[n]) for n in sorted(vcpus))
    # One zero page at the end with an invalid pfn, as a dump-core whose
    # domain had fewer pages than it counted pads them.
    data = b"".join(pages[p] for p in pfns) + b"\0" * PAGE
    pfn_table = struct.pack("<%dQ" % (nr + 1), *(pfns + [(1 << 64) - 1]))
    write_elf(path, 4, (), [
        (".note.Xen", 7, notes, 0, 0, 0, 4),
        (".xen_prstatus", 1, ctx, 0, 0, 0, 8),
        (".xen_pages", 1, data, 0, 0, PAGE, PAGE),
        (".xen_pfn", 1, pfn_table, 0, 0, 8, 8)])


def write_raw(path, pages):
    with open(path, "wb") as f:
        top = max(pages) + 1
        f.truncate(top * PAGE)
        for pfn, data in pages.items():
            f.seek(pfn * PAGE)
            f.write(data)


def symtab(symbols):
    """.symtab and .strtab data: symbols (name, value, size, is_func)."""
    strtab = b"\0"
    tab = b"\0" * 24
    for name, value, size, func in symbols:
        tab += struct.pack("<IBBHQQ", len(strtab), 0x10 | (2 if func else 1),
                           0, 1, value, size)
        strtab += name.encode() + b"\0"
    return tab, strtab


def write_hvmctx(path, vcpus):
    """What xen-hvmctx prints for these vCPUs (tools/misc/xen-hvmctx.c),
    the lines memcheck reads."""
    lines = ["HVM save record for domain 1", "Entry 0: type 1 instance 0, "
             "length 24", "     Header: magic 0x54381286, version 1"]
    for i, n in enumerate(sorted(vcpus)):
        v = vcpus[n]
        lines += [
            "Entry %d: type 2 instance %d, length 1024" % (i + 1, n),
            "    CPU:    rax 0x0000000000000000     rbx 0x0000000000000000",
            "            rdi 0x0000000000000000     rsp 0x%016x" % v.rsp,
            "            rip 0x%016x  rflags 0x%016x" % (v.rip, v.rflags),
            "            cr0 0x%016x     cr2 0x%016x" % (v.cr0, v.cr2 or 0),
            "            cr3 0x%016x     cr4 0x%016x" % (v.cr3, v.cr4),
            "             cs %#6.4x (%#18.8x + %#10.8x / %#7.4x)"
            % (v.cs, 0, 0xffffffff, 0xa09b),
            "             gs %#6.4x (%#18.8x + %#10.8x / %#7.4x)"
            % (0, v.gs_base, 0xffffffff, 0x93),
            "             tr %#6.4x (%#18.8x + %#10.4x / %#7.4x)"
            % (v.tr_sel, v.tr_base, 0x67, 0x8b),
            "           idtr        (%#18.8x + %#10.4x)"
            % (v.idt_base, v.idt_limit),
            "           gdtr        (%#18.8x + %#10.4x)"
            % (v.gdt_base, v.gdt_limit),
            "      shadow gs %#18.16x   efer %#18.8x"
            % (v.kernel_gs_base or 0, v.efer or 0)]
    lines.append("Entry %d: type 0 instance 0, length 0" % (len(vcpus) + 1))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


# --- the synthetic guest -----------------------------------------------------

class Model:
    """A shimk-like guest with nr CPUs, all checks passing."""

    TEXT = (0xffffffff8010a000, 0xffffffff80134000)
    LAYOUT_VA = 0xffffffff80134000
    IDT_VA = 0xffffffff80149000
    CPU0_INFO = 0xffffffff80148000
    REF_VA = 0xffffffff80150000
    KERNEL_ROOT = 0x400000
    FUNCS = [("trap_stubs", 0xffffffff8010d840, 0x1000),
             ("flush_area_mask", 0xffffffff80111db0, 0x300),
             ("do_trap", 0xffffffff80112000, 0x200),
             ("syscall_entry", 0xffffffff80113000, 0x80)]
    # arch/x86/syscall.S's label: the first instruction on the kernel
    # stack (swapgs, two moves before it).
    SYSCALL_ON_KSTACK = 0xffffffff80113015

    def __init__(self, nr=2):
        self.pages = {}
        self.next_frame = 0x410
        self.nr = nr
        self.layout = [memcheck.SELFCHECK_MAGIC, 1, 0, 0, 0, NR_CPUS,
                       GDT_ENTRIES, TSS_BYTES]
        cpu_words = 5 + GDT_ENTRIES + 1 + TSS_BYTES // 8 + 8
        ref_words = 8 + 256 + 512
        self.cpu_size = (cpu_words + 1) * 8
        self.cpu_offset = (ref_words + 1) * 8
        self.layout[2] = self.cpu_offset + NR_CPUS * self.cpu_size
        self.layout[3] = self.cpu_offset
        self.layout[4] = self.cpu_size
        self.build()

    # memory
    def frame(self):
        pa = self.next_frame * PAGE
        self.next_frame += 1
        return pa

    def pw(self, pa, data):
        while data:
            page = self.pages.setdefault(pa // PAGE, bytearray(PAGE))
            off = pa % PAGE
            take = min(len(data), PAGE - off)
            page[off:off + take] = data[:take]
            data = data[take:]
            pa += take

    def pr(self, pa, n):
        out = b""
        while n:
            page = self.pages.get(pa // PAGE, bytes(PAGE))
            off = pa % PAGE
            take = min(n, PAGE - off)
            out += bytes(page[off:off + take])
            pa += take
            n -= take
        return out

    def w64(self, pa, v):
        self.pw(pa, struct.pack("<Q", v))

    def r64(self, pa):
        return struct.unpack("<Q", self.pr(pa, 8))[0]

    def table(self, parent, index, flags=P | W):
        e = self.r64(parent + index * 8)
        if e & P:
            return e & memcheck.PTE_ADDR
        t = self.frame()
        self.pw(t, bytes(PAGE))
        self.w64(parent + index * 8, t | flags)
        return t

    def map(self, root, va, pa, size=PAGE, flags=P | W):
        """Map [va, va+size) at pa with 4 KiB pages (1 GiB for the
        direct map, 2 MiB for the image, as order allows)."""
        end = va + size
        while va < end:
            l3 = self.table(root, (va >> 39) & 511)
            if size >= 1 << 30 and va % (1 << 30) == 0:
                self.w64(l3 + ((va >> 30) & 511) * 8, pa | flags | PS)
                va, pa = va + (1 << 30), pa + (1 << 30)
                continue
            l2 = self.table(l3, (va >> 30) & 511)
            if end - va >= 1 << 21 and va % (1 << 21) == 0:
                self.w64(l2 + ((va >> 21) & 511) * 8, pa | flags | PS)
                va, pa = va + (1 << 21), pa + (1 << 21)
                continue
            l1 = self.table(l2, (va >> 21) & 511)
            self.w64(l1 + ((va >> 12) & 511) * 8, pa | flags)
            va, pa = va + PAGE, pa + PAGE

    def va_pa(self, va):
        walker = memcheck.Walker(self, self.KERNEL_ROOT, True)
        return walker.walk(va)[0]

    def vw64(self, va, v):
        self.w64(self.va_pa(va), v)

    def vr64(self, va):
        return self.r64(self.va_pa(va))

    # PhysMem's interface, so that memcheck.Walker can run on the model.
    def u64(self, pa):
        if pa // PAGE not in self.pages:
            raise memcheck.MemError("no page at %#x" % pa)
        return self.r64(pa)

    def read(self, pa, n):
        return self.pr(pa, n)

    def build(self):
        root = self.KERNEL_ROOT
        self.pw(root, bytes(PAGE))
        # Image: physical 0 + KERNEL_VIRT_BASE, 2 MiB pages; direct map:
        # a 1 GiB page; every kernel slot gets its L3 (mm_init).
        self.map(root, KVB, 0, 4 << 20, P | W)
        self.map(root, 0xffff800000000000, 0, 1 << 30, P | W | NX)
        for slot in (384, 448):
            self.table(root, slot)
        self.stack_next = STACKS_BASE + PAGE
        self.cpus = []
        idt = []
        for v in range(256):
            target = self.FUNCS[0][1] + 16 * v
            ist = {2: 1, 8: 2, 18: 3}.get(v, 0)
            lo = ((target & 0xffff) | (0x08 << 16) | (ist << 32) |
                  (0x8e << 40) | (((target >> 16) & 0xffff) << 48))
            idt += [lo, target >> 32]
        self.idt = idt
        self.pw(self.va_pa(self.IDT_VA), struct.pack("<512Q", *idt))
        for c in range(self.nr):
            self.cpus.append(self.add_cpu(c))
        # A task's root: its own user half, the kernel half copied.
        self.task_root = self.frame()
        self.pw(self.task_root, bytes(PAGE))
        for i in range(256, 512):
            self.w64(self.task_root + i * 8, self.r64(root + i * 8))
        self.map(self.task_root, 0x400000, self.frame(), PAGE, P | W | 4)
        self.write_ref()
        self.regs = {c: self.kernel_regs(c) for c in range(self.nr)}

    def stack(self, pages):
        """A guarded stack in the stack area: [lo, hi)."""
        self.stack_next += PAGE         # the guard page, never mapped
        lo = self.stack_next
        for i in range(pages):
            self.map(self.KERNEL_ROOT, lo + i * PAGE, self.frame())
        self.stack_next += pages * PAGE
        return lo, self.stack_next

    def add_cpu(self, c):
        if c == 0:
            info = self.CPU0_INFO
        else:
            info = self.stack_next + PAGE
            self.stack_next = info
            self.map(self.KERNEL_ROOT, info, self.frame())
            self.stack_next += PAGE
        stacks = [self.stack(4), self.stack(2), self.stack(2),
                  self.stack(2)]
        gdt_va = info + 80
        tss_va = info + 144
        gdt = [0, 0x00af9b000000ffff, 0x00cf93000000ffff,
               0x00cffb000000ffff, 0x00cff3000000ffff, 0x00affb000000ffff]
        lo = (0x67 | ((tss_va & 0xffffff) << 16) | (0x89 << 40) |
              (((tss_va >> 24) & 0xff) << 56))
        gdt += [lo, tss_va >> 32]
        tss = bytearray(TSS_BYTES)
        struct.pack_into("<Q", tss, 4, stacks[0][1])
        for k in range(3):
            struct.pack_into("<Q", tss, 36 + 8 * k, stacks[k + 1][1])
        struct.pack_into("<H", tss, 102, TSS_BYTES)
        self.vw64(info, info)
        # The CPU marks its TSS descriptor busy on LTR.
        live = list(gdt)
        live[6] |= memcheck.DESC_TSS_BUSY
        for i, d in enumerate(live):
            self.vw64(gdt_va + 8 * i, d)
        for i in range(0, TSS_BYTES, 8):
            self.vw64(tss_va + i, struct.unpack_from("<Q", tss, i)[0])
        return {"info": info, "gdt_va": gdt_va, "tss_va": tss_va,
                "gdt": gdt, "tss": list(struct.unpack("<13Q", tss)),
                "stacks": stacks, "apic": c}

    def write_ref(self):
        half = [self.r64(self.KERNEL_ROOT + i * 8) for i in range(256, 512)]
        words = [memcheck.SELFCHECK_MAGIC, 1, NR_CPUS, self.IDT_VA,
                 0xfff, self.KERNEL_ROOT, STACKS_BASE,
                 STACKS_BASE + (512 << 30)] + half + self.idt
        words.append(memcheck.selfcheck_sum(words))
        for c in range(NR_CPUS):
            if c >= self.nr:
                words += [0] * (self.cpu_size // 8)
                continue
            cpu = self.cpus[c]
            cw = [1, cpu["info"], cpu["apic"], cpu["gdt_va"],
                  GDT_ENTRIES * 8 - 1] + cpu["gdt"] + [cpu["tss_va"]] + \
                cpu["tss"] + [x for s in cpu["stacks"] for x in s]
            cw.append(memcheck.selfcheck_sum(cw))
            words += cw
        self.pw(self.REF_VA - KVB, struct.pack("<%dQ" % len(words), *words))

    def kernel_regs(self, c):
        cpu = self.cpus[c]
        return VcpuRegs(
            c, rip=self.FUNCS[1][1] + 0x1f2, rsp=cpu["stacks"][0][1] - 0x80,
            cs=0x08, rflags=0x246, cr0=0x80010031, cr2=0,
            cr3=self.KERNEL_ROOT, cr4=0x20, efer=0xd01,
            gdt_base=cpu["gdt_va"], gdt_limit=GDT_ENTRIES * 8 - 1,
            idt_base=self.IDT_VA, idt_limit=0xfff, tr_sel=0x30,
            tr_base=cpu["tss_va"], gs_base=cpu["info"], kernel_gs_base=0,
            halted=False)

    def user_mode(self, c):
        """vCPU c in a task: its root, ring 3, GS swapped."""
        v = self.regs[c]
        v.cs, v.rip, v.rsp, v.cr3 = 0x2b, 0x400100, 0x400f00, self.task_root
        v.gs_base, v.kernel_gs_base = 0, self.cpus[c]["info"]

    def paging_off(self, c):
        """vCPU c as the firmware left it: never started."""
        self.regs[c] = VcpuRegs(c, rip=0xfff0, rsp=0, cs=0xf000, rflags=2,
                                cr0=0x10, cr2=0, cr3=0, cr4=0, efer=0,
                                gdt_base=0, gdt_limit=0xffff, idt_base=0,
                                idt_limit=0xffff, tr_sel=0, tr_base=0,
                                gs_base=0, kernel_gs_base=0, halted=True)

    # the ELF
    def write_elf(self, path):
        syms = [("selfcheck_ref", self.REF_VA, self.layout[2], False),
                ("selfcheck_layout", self.LAYOUT_VA, 64, False)]
        syms += [(n, a, s, True) for n, a, s in self.FUNCS]
        syms.append(("syscall_entry_on_kstack", self.SYSCALL_ON_KSTACK, 0,
                     False))
        tab, strs = symtab(syms)
        layout = struct.pack("<8Q", *self.layout)
        write_elf(path, 2, [
            (1, 7, 0x100000, 0x100000, b"", 0x9000),
            (1, 5, self.TEXT[0], self.TEXT[0] - KVB, b"",
             self.TEXT[1] - self.TEXT[0]),
            (1, 4, self.LAYOUT_VA, self.LAYOUT_VA - KVB, layout, 0xd000),
            (1, 6, 0xffffffff80141000, 0x141000, b"", 0x40000)],
            [(".symtab", 2, tab, 2, 1, 24, 8), (".strtab", 3, strs, 0, 0, 0,
                                                1)])

    def write(self, kind, path):
        pages = {k: bytes(v) for k, v in self.pages.items()}
        if kind == "raw":
            write_raw(path, pages)
        elif kind == "qemu-elf":
            write_qemu_core(path, pages, self.regs)
        elif kind == "xen-core":
            write_xen_core(path, pages, self.regs)
        else:
            raise ValueError(kind)


# --- trimming real dumps -----------------------------------------------------

class Recorder:
    """A PhysMem that remembers every page read through it."""

    def __init__(self, mem):
        self.mem = mem
        self.kind = mem.kind
        self.vcpus = mem.vcpus
        self.seen = {}

    def page(self, pfn):
        data = self.mem.page(pfn)
        self.seen[pfn] = data
        return data

    read = memcheck.PhysMem.read
    u64 = memcheck.PhysMem.u64


def trim_elf(src, dst):
    """src's segments without their bytes, but for selfcheck_layout's,
    and its symbol table."""
    image = memcheck.Image(src)
    phdrs = [(1, fl, v, v - KVB if v >= KVB else v, b"", m)
             for v, m, _, _, fl in image.segs]
    va, _ = image.symbols["selfcheck_layout"]
    raw = image.file_bytes(va, memcheck.SCL_NR * 8)
    phdrs.append((1, 4, va, va - KVB, raw, len(raw)))
    data = image.data
    e_shoff, = struct.unpack_from("<Q", data, 40)
    e_shentsize, e_shnum = struct.unpack_from("<HH", data, 58)
    sections = []
    for i in range(e_shnum):
        _, typ, _, _, off, size, link, _, _, entsize = struct.unpack_from(
            "<IIQQQQIIQQ", data, e_shoff + i * e_shentsize)
        if typ != memcheck.SHT_SYMTAB:
            continue
        _, _, _, _, soff, ssize, _, _, _, _ = struct.unpack_from(
            "<IIQQQQIIQQ", data, e_shoff + link * e_shentsize)
        sections = [(".symtab", 2, data[off:off + size], 2, 1, entsize, 8),
                    (".strtab", 3, data[soff:soff + ssize], 0, 0, 0, 1)]
    write_elf(dst, 2, phdrs, sections)


def trim(dump, elf, regs_path, out, down=0):
    """down: vCPUs 0..down-1 without registers are down (xl: Xen saves
    no record for them)."""
    with open(regs_path, errors="replace") as f:
        lines = f.read().splitlines()
    with memcheck.open_dump(dump) as mem:
        vcpus = memcheck.parse_xen_hvmctx(lines) or \
            memcheck.parse_qemu_registers(lines)
        vcpus = memcheck.merge_vcpus(vcpus, mem.vcpus)
        for n in range(down):
            if n not in vcpus:
                vcpus[n] = VcpuRegs(n, cr0=0)
        rec = Recorder(mem)
        verdict = memcheck.check(rec, vcpus, elf)
        if mem.kind == "xen-core":
            write_xen_core(out + ".core", rec.seen, mem.vcpus or vcpus)
        elif mem.kind == "raw":
            write_raw(out + ".raw", rec.seen)
        else:
            write_qemu_core(out + ".core", rec.seen, mem.vcpus or vcpus)
    trim_elf(elf, out + ".elf")
    shutil.copyfile(regs_path, out + ".regs")
    print("%s: %d pages; %s" % (out, len(rec.seen), verdict.text))


if __name__ == "__main__":
    if len(sys.argv) not in (6, 7) or sys.argv[1] != "trim":
        sys.stderr.write("usage: memcheck_fixture.py trim DUMP ELF REGS "
                         "OUT [VCPUS]\n")
        sys.exit(2)
    trim(*sys.argv[2:6], down=int(sys.argv[6]) if len(sys.argv) > 6 else 0)
