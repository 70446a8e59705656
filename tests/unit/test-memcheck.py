#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# tools/bootlib/memcheck.py: dumps of each kind read into verdicts (TAP).

import gzip
import os
import shutil
import struct
import sys
import tempfile

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
sys.path.insert(0, HERE)
from bootlib import env_xl, memcheck  # noqa: E402
from memcheck_fixture import Model, write_hvmctx  # noqa: E402
from pytap import case  # noqa: E402
import pytap  # noqa: E402

TMP = tempfile.mkdtemp(prefix="test-memcheck.")
KINDS = ("raw", "qemu-elf", "xen-core")


def fixture(name):
    return os.path.join(HERE, "fixtures", name)


def run(model, kind, regs=None):
    """memcheck's verdict on model written as kind, with the registers
    the way that environment gets them."""
    elf = os.path.join(TMP, "shimk.elf")
    dump = os.path.join(TMP, "dump." + kind)
    model.write_elf(elf)
    model.write(kind, dump)
    with memcheck.open_dump(dump) as mem:
        if mem.kind != kind:
            raise AssertionError("%s read as %s" % (kind, mem.kind))
        if regs is None:
            if kind == "xen-core":
                # xl: xen-hvmctx's output, then the dump's own contexts.
                path = os.path.join(TMP, "hvmctx.txt")
                write_hvmctx(path, model.regs)
                with open(path) as f:
                    regs = memcheck.parse_xen_hvmctx(f.read().splitlines())
            elif kind == "qemu-elf":
                regs = {}
            else:
                regs = model.regs
        vcpus = memcheck.merge_vcpus(regs, mem.vcpus)
        return memcheck.check(mem, vcpus, elf)


def each_kind(mutate, want):
    """mutate(model) applied in each format; want(verdict) for all."""
    for kind in KINDS:
        m = Model()
        mutate(m)
        v = run(m, kind)
        if not want(v):
            print("# %s: %s" % (kind, v.text))
            for f in v.findings:
                print("#   %s" % f)
            return False
    return True


@case
def intact_state_proves_the_l0():
    return each_kind(lambda m: None, lambda v: v.l0_proven and v.text ==
                     "L0 fault, proven: shimk's state intact (vCPU0-1: GDT, "
                     "IDT, TSS, kernel root, stacks)")


@case
def the_tss_busy_bit_and_accessed_bits_are_the_cpus():
    def mutate(m):
        pml4 = m.KERNEL_ROOT + 511 * 8
        m.w64(pml4, m.r64(pml4) | memcheck.PTE_A)
    return each_kind(mutate, lambda v: v.l0_proven)


@case
def a_trampled_tss_names_shimk_the_field_and_the_values():
    def mutate(m):
        m.vw64(m.cpus[1]["tss_va"] + 0x2c, 0)
    want = ("shimk fault: TSS on CPU1 corrupted at +0x2c (IST2 0x0 at "
            "fault, %#x at boot; vCPU1)")
    m = Model()
    return each_kind(mutate, lambda v: not v.l0_proven and v.text ==
                     want % m.cpus[1]["stacks"][2][1])


@case
def a_trampled_gdt_names_shimk():
    def mutate(m):
        m.vw64(m.cpus[1]["gdt_va"] + 8, 0xdeadbeef)
    return each_kind(mutate, lambda v: not v.l0_proven and v.text.startswith(
        "shimk fault: GDT on CPU1 corrupted at +0x8 (entry 1: 0xdeadbeef at "
        "fault, 0xaf9b000000ffff at boot"))


@case
def a_root_with_a_wrong_kernel_half_names_shimk():
    def mutate(m):
        m.regs[1].cr3 = m.task_root
        m.w64(m.task_root + 416 * 8, 0)
    return each_kind(mutate, lambda v: not v.l0_proven and
                     "wrong kernel half: PML4 entry 416 is 0x0" in v.text)


@case
def a_vcpu_with_paging_off_is_skipped_and_said_so():
    def mutate(m):
        m.paging_off(1)
    return each_kind(mutate, lambda v: v.l0_proven and v.text.endswith(
        "(vCPU0: GDT, IDT, TSS, kernel root, stacks; vCPU1 paging off)")
        and "vCPU1: paging off (never started): skipped" in v.findings)


@case
def no_vcpu_with_paging_proves_nothing():
    def mutate(m):
        m.paging_off(0)
        m.paging_off(1)
    return each_kind(mutate, lambda v: not v.l0_proven and
                     v.text.startswith("not proven: no vCPU had state"))


@case
def a_vcpu_in_a_task_is_checked_on_its_kernel_gs_base():
    return each_kind(lambda m: m.user_mode(1), lambda v: v.l0_proven and
                     any(f.startswith("vCPU1 (CPU1, user at 0x400100)")
                         for f in v.findings))


@case
def a_task_in_a_dump_without_kernel_gs_base_is_known_by_gdt_and_tss():
    """QEMU's `info registers` (the nested L1's dump of L2) has no
    KERNEL_GS base: a vCPU in a task shows GS base 0 and nothing else.
    Seen in kvm-nested-overcommit, where it read "no GS base yet"."""
    m = Model()
    m.user_mode(1)
    m.regs[1].kernel_gs_base = None
    v = run(m, "raw")
    if not (v.l0_proven and any(
            f.startswith("vCPU1 (CPU1, known by its GDT and TSS, user at")
            for f in v.findings)):
        print("# %s: %s" % (v.text, v.findings))
        return False
    # A GDTR that is no CPU's still proves nothing either way.
    m = Model()
    m.user_mode(1)
    m.regs[1].kernel_gs_base = None
    m.regs[1].gdt_base += 0x1000
    v = run(m, "raw")
    if v.l0_proven or "vCPU1: no GS base yet" not in v.text:
        print("# %s" % v.text)
        return False
    return True


@case
def a_vcpu_stopped_in_the_syscall_entry_runs_on_the_users_rsp():
    """Seen in kvm-nested-overcommit (ci, 2026-12-06): L1 stopped L2's
    vCPU3 at syscall_entry's SWAPGS, ring 0 on the task's RSP; memcheck
    called that shimk's fault. Past the stack switch the same RSP is."""
    def at(rip):
        def mutate(m):
            m.user_mode(1)
            v = m.regs[1]
            v.cs, v.rip = 0x08, rip
        return mutate
    start = Model.FUNCS[3][1]
    return (each_kind(at(start), lambda v: v.l0_proven and any(
                "the user's RSP in syscall_entry before its stack switch"
                in f for f in v.findings)) and
            each_kind(at(Model.SYSCALL_ON_KSTACK), lambda v: not v.l0_proven
                      and "RSP 0x400f00" in v.text))


@case
def a_gs_base_that_is_no_cpus_names_shimk():
    def mutate(m):
        m.regs[0].gs_base = 0xffffc00000001000
        m.regs[0].kernel_gs_base = 0
    return each_kind(mutate, lambda v: not v.l0_proven and
                     "GS base 0xffffc00000001000 / 0x0 is no CPU's" in v.text)


@case
def a_cpu_still_starting_is_not_proven():
    def no_gs(m):
        m.regs[1].gs_base = m.regs[1].kernel_gs_base = 0

    def unrecorded(m):
        # CPU1 loaded its GS base, but its boot copy is not written yet.
        off = m.REF_VA - memcheck.KERNEL_VIRT_BASE + m.cpu_offset + \
            m.cpu_size
        m.w64(off, 0)
    return (each_kind(no_gs, lambda v: not v.l0_proven and
                      "vCPU1: no GS base yet" in v.text) and
            each_kind(unrecorded, lambda v: not v.l0_proven and
                      "has no boot copy yet" in v.text))


@case
def a_stack_overflow_into_its_guard_page_names_shimk():
    def mutate(m):
        m.regs[1].rsp = m.cpus[1]["stacks"][0][0]
    return each_kind(mutate, lambda v: not v.l0_proven and v.text.startswith(
        "shimk fault: vCPU1: the stack in use (RSP %#x): %#x not mapped"
        % (Model().cpus[1]["stacks"][0][0], Model().cpus[1]["stacks"][0][0]
           - 8)))


def unmap(m, va):
    """Clear the 4 KiB entry that maps va in the kernel root."""
    e = m.KERNEL_ROOT + (va >> 39 & 511) * 8
    for shift in (30, 21, 12):
        e = (m.r64(e) & memcheck.PTE_ADDR) + (va >> shift & 511) * 8
    m.w64(e, 0)


@case
def an_unmapped_ist_stack_names_shimk():
    def mutate(m):
        unmap(m, m.cpus[0]["stacks"][2][1] - 8)
    return each_kind(mutate, lambda v: not v.l0_proven and v.text.startswith(
        "shimk fault: vCPU0: IST2 stack: "))


@case
def a_trampled_idt_names_shimk():
    def mutate(m):
        m.vw64(m.IDT_VA + 8 * 16, 0)
    return each_kind(mutate, lambda v: not v.l0_proven and v.text.startswith(
        "shimk fault: IDT corrupted at +0x80 (vector 8: 0x0 at fault"))


@case
def a_trampled_boot_copy_proves_nothing_for_the_l0():
    def mutate(m):
        m.w64(m.REF_VA - memcheck.KERNEL_VIRT_BASE + 8 * 20, 1)
    return each_kind(mutate, lambda v: not v.l0_proven and
                     "boot copies (selfcheck_ref) are trampled" in v.text)


@case
def xens_own_state_is_the_l0s_without_memory():
    def mutate(m):
        m.regs[1].cs = 0xe008
        m.regs[1].rip = 0xffff82d0402044a5
    return each_kind(mutate, lambda v: v.l0_proven and v.text.startswith(
        "L0 fault, proven: vCPU1's saved state is not shimk's (code "
        "selector 0xe008 is Xen's own"))


@case
def a_kernel_without_boot_copies_is_not_proven():
    m = Model()
    m.write_elf(os.path.join(TMP, "x.elf"))
    elf = os.path.join(TMP, "shimk.elf")
    m.write("raw", os.path.join(TMP, "d"))
    with open(os.path.join(TMP, "x.elf"), "rb") as f:
        data = f.read().replace(b"selfcheck_ref\0", b"selfcheck_xxx\0")
    with open(elf, "wb") as f:
        f.write(data)
    with memcheck.open_dump(os.path.join(TMP, "d")) as mem:
        v = memcheck.check(mem, m.regs, elf)
    return not v.l0_proven and "has no selfcheck_ref" in v.text


@case
def a_dump_of_another_build_is_not_proven():
    m = Model()
    m.w64(m.REF_VA - memcheck.KERNEL_VIRT_BASE, 0)
    v = run(m, "raw")
    return not v.l0_proven and "not its magic" in v.text


@case
def missing_registers_are_not_proven():
    m = Model()
    m.regs[1].gdt_base = None
    v = run(m, "raw")
    return not v.l0_proven and "lack gdt_base" in v.text


@case
def the_qemu_core_carries_every_vcpus_registers():
    m = Model(nr=3)
    path = os.path.join(TMP, "q.core")
    m.write("qemu-elf", path)
    with memcheck.open_dump(path) as mem:
        got = mem.vcpus
    want = m.regs
    fields = ("rip", "rsp", "cs", "cr3", "gdt_base", "idt_base", "tr_base",
              "gs_base", "kernel_gs_base")
    return sorted(got) == [0, 1, 2] and all(
        getattr(got[n], f) == getattr(want[n], f) for n in got
        for f in fields)


@case
def the_xen_core_carries_every_vcpus_context():
    m = Model(nr=2)
    m.user_mode(1)
    path = os.path.join(TMP, "x.core")
    m.write("xen-core", path)
    with memcheck.open_dump(path) as mem:
        got = mem.vcpus
    return (sorted(got) == [0, 1] and got[1].gs_base == 0 and
            got[1].kernel_gs_base == m.cpus[1]["info"] and
            got[0].gs_base == m.cpus[0]["info"] and
            got[0].rip == m.regs[0].rip and got[1].cr3 == m.task_root)


@case
def a_missing_page_raises_memerror():
    m = Model()
    path = os.path.join(TMP, "x2.core")
    m.write("xen-core", path)
    with memcheck.open_dump(path) as mem:
        try:
            mem.read(0x10000000, 8)
        except memcheck.MemError:
            return True
    return False


@case
def parses_qemus_info_registers():
    with open(fixture("kvm-dump-shutdown.txt")) as f:
        regs = memcheck.parse_qemu_registers(f.read().splitlines())
    v0, v1 = regs[0], regs[1]
    return (sorted(regs) == [0, 1, 2, 3] and v0.cr0 == 0x10 and
            v0.rip == 0xfff0 and v1.rip == 0xffffffff801102b4 and
            v1.rsp == 0xffffc0000001af80 and v1.halted and
            v1.gdt_base == 0xffffc00000016050 and v1.gdt_limit == 0x3f and
            v1.idt_base == 0xffffffff80138e40 and v1.tr_sel == 0x30 and
            v1.tr_base == 0xffffc00000016090 and v1.efer == 0xd01 and
            v1.gs_base == 0xffffc00000016000 and v1.cr3 == 0x1d9000 and
            v1.kernel_gs_base is None)


@case
def parses_xen_hvmctx():
    m = Model(nr=2)
    m.user_mode(1)
    path = os.path.join(TMP, "h.txt")
    write_hvmctx(path, m.regs)
    with open(path) as f:
        got = memcheck.parse_xen_hvmctx(f.read().splitlines())
    fields = memcheck.VcpuRegs.FIELDS[:-1]
    return sorted(got) == [0, 1] and all(
        getattr(got[n], f) == getattr(m.regs[n], f) for n in got
        for f in fields if f not in ("cr2",))


@case
def xen_hvmctx_zero_values_print_without_0x():
    # C's "%#x" prints a zero without its 0x prefix.
    lines = ["Entry 1: type 2 instance 0, length 1024",
             "             gs   0000 (          00000000 +   ffffffff /"
             "   0093)",
             "      shadow gs   0000000000000000   efer       00000d01"]
    v = memcheck.parse_xen_hvmctx(lines)[0]
    return v.gs_base == 0 and v.kernel_gs_base == 0 and v.efer == 0xd01


# --- recorded dumps ----------------------------------------------------------
# One build's ELF (symbols and segments), and per environment the pages
# memcheck read from a real dump (memcheck_fixture.py trim), with the
# registers as the environment got them: tcg's QEMU `info registers -a`
# and ELF core (dump-guest-memory), xl's xen-hvmctx and raw copy
# (xl-memdump). intact: a sound run dumped at a silence (tcg) or at its
# end (xl, SHIMK_XL_DUMP=always); tss: ktest=selftest-tss-triple, CPU1's
# #DF IST pointer aimed at an unmapped page, then a triple fault; pgoff:
# --smp 2 with nr-cpus=1. The GDT and root cases trample the intact dump.

def gunzip(name):
    path = os.path.join(TMP, name[:-3])
    with gzip.open(fixture(name)) as src, open(path, "wb") as dst:
        dst.write(src.read())
    return path


ELF = None


def recorded(env, case_name):
    """(mem, vcpus) of a recorded case."""
    global ELF
    if ELF is None:
        ELF = gunzip("memcheck-shimk.elf.gz")
    with open(fixture("memcheck-%s-%s.regs" % (env, case_name))) as f:
        lines = f.read().splitlines()
    if env == "tcg":
        mem = memcheck.open_dump(gunzip("memcheck-tcg-%s.core.gz"
                                        % case_name))
        vcpus = memcheck.merge_vcpus(memcheck.parse_qemu_registers(lines),
                                     mem.vcpus)
    else:
        mem = memcheck.RawMem(gunzip("memcheck-xl-%s.raw.gz" % case_name),
                              128 << 20)
        vcpus = env_xl.xl_vcpus(lines, 2)
    return mem, vcpus


class Patched:
    """A dump with some bytes changed, as a trample would leave them."""

    def __init__(self, mem):
        self.mem = mem
        self.vcpus = mem.vcpus
        self.patches = {}

    def poke64(self, pa, value):
        self.patches[pa] = struct.pack("<Q", value)

    def page(self, pfn):
        data = bytearray(self.mem.page(pfn))
        for pa, b in self.patches.items():
            if pa // memcheck.PAGE == pfn:
                off = pa % memcheck.PAGE
                data[off:off + len(b)] = b
        return bytes(data)

    read = memcheck.PhysMem.read
    u64 = memcheck.PhysMem.u64


def recorded_verdict(env, case_name, trample=None):
    mem, vcpus = recorded(env, case_name)
    with mem:
        m = Patched(mem)
        if trample:
            trample(m, vcpus)
        return memcheck.check(m, vcpus, ELF)


def gdt_trample(m, vcpus):
    """CPU1's kernel code descriptor overwritten."""
    v = vcpus[1]
    pa = memcheck.Walker(m, v.cr3, True).walk(v.gdt_base + 8)[0]
    m.poke64(pa, 0x1234)


def root_trample(m, vcpus):
    """vCPU1's root loses its kernel-image slot (PML4 entry 511)."""
    m.poke64((vcpus[1].cr3 & memcheck.PTE_ADDR) + 511 * 8, 0)


def each_env(case_name, want, trample=None):
    for env in ("tcg", "xl"):
        v = recorded_verdict(env, case_name, trample)
        if not want(v):
            print("# %s: %s" % (env, v.text))
            return False
    return True


@case
def recorded_intact_state_proves_the_l0():
    return each_env("intact", lambda v: v.l0_proven and v.text ==
                    "L0 fault, proven: shimk's state intact (vCPU0-1: GDT, "
                    "IDT, TSS, kernel root, stacks)")


@case
def recorded_tss_triple_fault_names_shimk():
    return each_env("tss", lambda v: not v.l0_proven and v.text == (
        "shimk fault: TSS on CPU1 corrupted at +0x2c (IST2 "
        "0xffffd07ffffff000 at fault, 0xffffd00000028000 at boot; vCPU1)"))


@case
def recorded_paging_off_vcpu_is_skipped():
    return each_env("pgoff", lambda v: v.l0_proven and v.text.endswith(
        "(vCPU0: GDT, IDT, TSS, kernel root, stacks; vCPU1 paging off)"))


@case
def recorded_dump_with_a_trampled_gdt_names_shimk():
    return each_env("intact", lambda v: not v.l0_proven and v.text.startswith(
        "shimk fault: GDT on CPU1 corrupted at +0x8 (entry 1: 0x1234 at "
        "fault"), gdt_trample)


@case
def recorded_dump_with_a_wrong_kernel_half_names_shimk():
    return each_env("intact", lambda v: not v.l0_proven and (
        "PML4 entry 511 is 0x0" in v.text), root_trample)


if __name__ == "__main__":
    try:
        rc = pytap.main()
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    sys.exit(rc)
