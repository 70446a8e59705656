# SPDX-License-Identifier: GPL-2.0-only
# The kprobe that keeps an L2 vCPU's state at a triple fault, and its reader.
#
# On SVM a triple fault in a guest is a SHUTDOWN intercept (exit code 0x7f,
# AMD APM vol. 2, appendix C), and KVM resets the vCPU at once: kvm_amd's
# shutdown_interception() (arch/x86/kvm/svm/svm.c) clears the VMCB, which
# it takes to be undefined after that intercept, and INITs the vCPU before
# userspace hears of it, so L2's QEMU only ever shows the reset state. The
# outer QEMU's emulation of the world switch saves the guest's state on
# that exit like on any other (target/i386/tcg/sysemu/svm_helper.c,
# do_vmexit()), and KVM's VMSAVE after VMRUN adds FS, GS, TR, LDTR and
# KERNEL_GS_BASE (arch/x86/kvm/svm/vmenter.S). A kprobe at the entry of
# shutdown_interception() reads them from the save area before the clear.
#
# The probe is a line for tracefs' kprobe_events (the kernel's
# Documentation/trace/kprobetrace.rst): at function entry %di is the
# struct kvm_vcpu *, which is the start of struct vcpu_svm, whose vmcb
# member points at the VMCB; the save area's layout is the APM's table
# B-2 (struct vmcb_save_area in arch/x86/include/asm/svm.h). All offsets
# come from the kernel's own BTF (tools/bootlib/btf.py), since struct
# vcpu_svm's layout changes with the build.

import re

GROUP = "kvml1"
EVENT = "l2_shutdown"
FUNCTION = "shutdown_interception"
# (name in the event, member path in struct vmcb_save_area, fetch type).
# The names are those of memcheck.VcpuRegs where one exists.
FIELDS = (
    ("rip", "rip", "x64"),
    ("rsp", "rsp", "x64"),
    ("cs", "cs.selector", "x16"),
    ("cpl", "cpl", "u8"),
    ("rflags", "rflags", "x64"),
    ("cr0", "cr0", "x64"),
    ("cr2", "cr2", "x64"),
    ("cr3", "cr3", "x64"),
    ("cr4", "cr4", "x64"),
    ("efer", "efer", "x64"),
    ("gdt_base", "gdtr.base", "x64"),
    ("gdt_limit", "gdtr.limit", "x32"),
    ("idt_base", "idtr.base", "x64"),
    ("idt_limit", "idtr.limit", "x32"),
    ("tr_sel", "tr.selector", "x16"),
    ("tr_base", "tr.base", "x64"),
    ("gs_base", "gs.base", "x64"),
    ("kernel_gs_base", "kernel_gs_base", "x64"),
)

_LINE_RE = re.compile(r"\b%s: \([^)]*\)((?: \w+=\S+)+)\s*$" % EVENT)


def probe_line(btf):
    """The kprobe_events line for this kernel's BTF (bootlib.btf.Btf)."""
    vcpu_id = btf.offsetof("vcpu_svm", "vcpu.vcpu_id")
    vmcb = btf.offsetof("vcpu_svm", "vmcb")
    save = btf.offsetof("vmcb", "save")
    args = ["vcpu=+%#x(%%di):u32" % vcpu_id]
    for name, path, typ in FIELDS:
        off = save + btf.offsetof("vmcb_save_area", path)
        args.append("%s=+%#x(+%#x(%%di)):%s" % (name, off, vmcb, typ))
    return "p:%s/%s %s %s" % (GROUP, EVENT, FUNCTION, " ".join(args))


def parse(line):
    """{field: int} from one trace line of the probe, or None."""
    m = _LINE_RE.search(line)
    if not m:
        return None
    out = {}
    for kv in m.group(1).split():
        k, _, v = kv.partition("=")
        try:
            out[k] = int(v, 0)
        except ValueError:
            return None
    if "vcpu" not in out or "rip" not in out:
        return None
    return out
