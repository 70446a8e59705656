#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# tools/bootlib/memcheck.py: dumps of each kind read into verdicts (TAP).

import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
sys.path.insert(0, HERE)
from bootlib import memcheck  # noqa: E402
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
def a_gs_base_that_is_no_cpus_names_shimk():
    def mutate(m):
        m.regs[0].gs_base = 0xffffc00000001000
        m.regs[0].kernel_gs_base = 0
    return each_kind(mutate, lambda v: not v.l0_proven and
                     "GS base 0xffffc00000001000 / 0x0 is no CPU's" in v.text)


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


if __name__ == "__main__":
    try:
        rc = pytap.main()
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    sys.exit(rc)
