#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# bootlib/btf.py and svm_probe.py: offsets from BTF, the kprobe line (TAP).

import os
import struct
import sys

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
sys.path.insert(0, HERE)
from bootlib import btf, svm_probe  # noqa: E402
from pytap import case  # noqa: E402
import pytap  # noqa: E402


class Writer:
    """A BTF blob (Documentation/bpf/btf.rst), base or split."""

    def __init__(self, base=None):
        self.base = base
        self.strs = b"" if base else b"\0"
        self.types = b""
        self.next_id = base.next_id if base else 1

    def s(self, name):
        if not name:
            return 0
        if self.base and self.base.has(name):
            return self.base.s(name)
        off = (len(self.base.strs) if self.base else 0) + len(self.strs)
        self.strs += name.encode() + b"\0"
        return off

    def has(self, name):
        return (b"\0" + name.encode() + b"\0") in (b"\0" + self.strs)

    def add(self, kind, name, vlen, size_or_type, extra=b"", kflag=0):
        self.types += struct.pack("<III", self.s(name),
                                  kind << 24 | kflag << 31 | vlen,
                                  size_or_type) + extra
        self.next_id += 1
        return self.next_id - 1

    def int(self, name, size):
        return self.add(btf.KIND_INT, name, 0, size,
                        struct.pack("<I", size * 8))

    def struct(self, name, size, members, kind=btf.KIND_STRUCT, kflag=0):
        extra = b"".join(struct.pack("<III", self.s(n), t, off * 8)
                         for n, t, off in members)
        return self.add(kind, name, len(members), size, extra, kflag)

    def blob(self):
        return struct.pack("<HBBIIIII", btf.BTF_MAGIC, 1, 0, 24, 0,
                           len(self.types), len(self.types),
                           len(self.strs)) + self.types + self.strs


def kernel():
    """vmlinux's BTF (struct kvm_vcpu) and kvm_amd's split on it, with the
    offsets of Debian's 6.1.0-57 (the probe recorded below)."""
    base = Writer()
    u8 = base.int("unsigned char", 1)
    u16 = base.int("short unsigned int", 2)
    u32 = base.int("unsigned int", 4)
    u64 = base.int("long long unsigned int", 8)
    int_ = base.int("int", 4)
    base.struct("kvm_vcpu", 0x1990, [("kvm", u64, 0), ("cpu", int_, 8),
                                     ("vcpu_id", int_, 0x24)])
    base.add(btf.KIND_FUNC_PROTO, "", 1, 0, struct.pack("<II", 0, int_))
    base.add(btf.KIND_ENUM, "e", 1, 4, struct.pack("<Ii", base.s("A"), 1))
    mod = Writer(base)
    vcpu = 6
    c_u32 = mod.add(btf.KIND_CONST, "", 0, u32)
    t_u64 = mod.add(btf.KIND_TYPEDEF, "u64", 0, u64)
    seg = mod.struct("vmcb_seg", 16, [("selector", u16, 0),
                                      ("attrib", u16, 2),
                                      ("limit", c_u32, 4),
                                      ("base", t_u64, 8)])
    names = {"cs": 0x10, "gs": 0x50, "gdtr": 0x60, "idtr": 0x80,
             "tr": 0x90}
    members = [(n, seg, o) for n, o in names.items()]
    members += [("cpl", u8, 0xcb), ("efer", u64, 0xd0), ("cr4", u64, 0x148),
                ("cr3", u64, 0x150), ("cr0", u64, 0x158),
                ("rflags", u64, 0x170), ("rip", u64, 0x178),
                ("rsp", u64, 0x1d8), ("kernel_gs_base", u64, 0x220),
                ("cr2", u64, 0x240)]
    save = mod.struct("vmcb_save_area", 0x298, members)
    ctl = mod.struct("vmcb_control_area", 0x400, [("int_ctl", u32, 0x60)])
    # struct vmcb's save area sits in an anonymous union after the
    # control area.
    anon = mod.struct("", 0x298, [("save", save, 0)], kind=btf.KIND_UNION)
    vmcb = mod.struct("vmcb", 0x698, [("control", ctl, 0), ("", anon, 0x400)])
    ptr = mod.add(btf.KIND_PTR, "", 0, vmcb)
    # Bitfields (kind_flag set: the size in the offset's top byte): b at
    # bit 3, three bits wide.
    mod.add(btf.KIND_STRUCT, "flags", 2, 4,
            struct.pack("<III", mod.s("a"), u32, 3 << 24 | 0) +
            struct.pack("<III", mod.s("b"), u32, 3 << 24 | 3), kflag=1)
    mod.struct("vcpu_svm", 0x2000, [("vcpu", vcpu, 0), ("vmcb", ptr, 0x1998)])
    return btf.Btf(mod.blob(), btf.Btf(base.blob()))


# What tools/kvm-l1 wrote for Debian's 6.1.0-57-amd64 (its real BTF).
RECORDED = (
    "p:kvml1/l2_shutdown shutdown_interception vcpu=+0x24(%di):u32 "
    "rip=+0x578(+0x1998(%di)):x64 rsp=+0x5d8(+0x1998(%di)):x64 "
    "cs=+0x410(+0x1998(%di)):x16 cpl=+0x4cb(+0x1998(%di)):u8 "
    "rflags=+0x570(+0x1998(%di)):x64 cr0=+0x558(+0x1998(%di)):x64 "
    "cr2=+0x640(+0x1998(%di)):x64 cr3=+0x550(+0x1998(%di)):x64 "
    "cr4=+0x548(+0x1998(%di)):x64 efer=+0x4d0(+0x1998(%di)):x64 "
    "gdt_base=+0x468(+0x1998(%di)):x64 gdt_limit=+0x464(+0x1998(%di)):x32 "
    "idt_base=+0x488(+0x1998(%di)):x64 idt_limit=+0x484(+0x1998(%di)):x32 "
    "tr_sel=+0x490(+0x1998(%di)):x16 tr_base=+0x498(+0x1998(%di)):x64 "
    "gs_base=+0x458(+0x1998(%di)):x64 "
    "kernel_gs_base=+0x620(+0x1998(%di)):x64")


@case
def offsets_follow_members_through_typedefs_and_anonymous_unions():
    b = kernel()
    return (b.offsetof("vmcb", "save.gdtr.base") == 0x468 and
            b.offsetof("vmcb_save_area", "gdtr.limit") == 0x64 and
            b.offsetof("vcpu_svm", "vcpu.vcpu_id") == 0x24)


@case
def the_probe_line_matches_the_one_recorded_from_the_real_kernel():
    return svm_probe.probe_line(kernel()) == RECORDED


@case
def missing_structs_and_members_are_errors_that_say_which():
    b = kernel()
    out = []
    for s, m in (("vcpu_vmx", "vmcb"), ("vcpu_svm", "vmcb01")):
        try:
            b.offsetof(s, m)
            out.append(None)
        except btf.BtfError as e:
            out.append(str(e))
    return out == ["no struct vcpu_vmx in the BTF",
                   "struct vcpu_svm has no member vmcb01"]


@case
def a_bitfield_member_is_refused():
    b = kernel()
    try:
        b.offsetof("flags", "b")
    except btf.BtfError as e:
        return str(e) == "b is a bitfield" and b.offsetof("flags", "a") == 0
    return False


@case
def bad_blobs_are_errors():
    out = []
    for blob in (b"", b"\x00" * 24, kernel_blob()[:30]):
        try:
            btf.Btf(blob)
            out.append(False)
        except btf.BtfError:
            out.append(True)
    return all(out)


def kernel_blob():
    w = Writer()
    w.int("int", 4)
    return w.blob()


@case
def the_probes_trace_line_is_read_back():
    line = ("CPU 1/KVM-402 [000] d..1. 88.123456: l2_shutdown: "
            "(shutdown_interception+0x4/0x80 [kvm_amd]) vcpu=1 "
            "rip=0xffffffff801116e4 rsp=0xffffc00000032d00 cs=0x8 cpl=0 "
            "gdt_limit=0x4f")
    p = svm_probe.parse(line)
    return (p == {"vcpu": 1, "rip": 0xffffffff801116e4,
                  "rsp": 0xffffc00000032d00, "cs": 8, "cpl": 0,
                  "gdt_limit": 0x4f} and
            svm_probe.parse("kvm_exit: vcpu 0 reason shutdown") is None)


if __name__ == "__main__":
    sys.exit(pytap.main())
