# SPDX-License-Identifier: GPL-2.0-only
# GDB commands for a shimk boot under QEMU's GDB stub (tools/boot --gdb).
#
# gdb -q -x tools/gdb/shimk.py -ex 'target remote 127.0.0.1:PORT' \
#     build/shimk.elf
#
#   shimk-cpus          every vCPU: where it is, which shimk CPU it is,
#                       the root it has loaded, the thread it runs
#   shimk-thread [N]    the thread running on vCPU N (default: the one
#                       GDB has selected), its task and its backtrace
#
# QEMU shows each vCPU as a GDB thread. shimk finds its per-CPU data
# through the GS base (include/asm/percpu.h): in ring 0 that is GS_BASE,
# in ring 3 the kernel's value waits in KERNEL_GS_BASE until SWAPGS.
# QEMU's x86-64 target description carries both (fs_base, gs_base,
# k_gs_base) with the control registers.

import gdb

KERNEL_HALF = 0xffff800000000000


def reg(name):
    try:
        return int(gdb.parse_and_eval("$" + name)) & (2 ** 64 - 1)
    except gdb.error:
        return None


def symbol(addr):
    try:
        block = gdb.block_for_pc(addr)
    except RuntimeError:
        block = None
    while block is not None and block.function is None:
        block = block.superblock
    if block is None or block.function is None:
        return "?"
    return "%s+%#x" % (block.function.name, addr - block.start)


def cpu_info_of_vcpu():
    """(struct cpu_info value, how it was found) for the selected vCPU."""
    cs = reg("cs")
    base = reg("k_gs_base") if cs is not None and cs & 3 else reg("gs_base")
    if base is None:
        return None, "QEMU gave no GS base register"
    if base < KERNEL_HALF:
        return None, "GS base %#x: per-CPU data not set up yet" % base
    ptr = gdb.parse_and_eval("(struct cpu_info *)%d" % base)
    return ptr.dereference(), "GS base"


def thread_line(th):
    if int(th) == 0:
        return "none"
    t = th.dereference()
    text = "thread %d '%s' (%s)" % (int(t["id"]), t["name"].string(),
                                     str(t["state"]))
    task = int(t["task"])
    if task:
        tk = gdb.parse_and_eval("(struct task *)%d" % task).dereference()
        text += ", task %d '%s' (%d threads)" % (
            int(tk["id"]), tk["name"].string(), int(tk["nr_threads"]))
    return text


def current_thread(cpu):
    return gdb.parse_and_eval("runqueues[%d].current" % cpu)


class ShimkCpus(gdb.Command):
    """Every vCPU: rip, ring, shimk CPU id, loaded root, running thread."""

    def __init__(self):
        super().__init__("shimk-cpus", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        selected = gdb.selected_thread()
        inferior = gdb.selected_inferior()
        try:
            for th in sorted(inferior.threads(), key=lambda t: t.num):
                th.switch()
                rip = reg("rip") or 0
                cs = reg("cs") or 0
                line = "vCPU %d: rip %#x %s, ring %d, cr3 %#x" % (
                    th.num - 1, rip, symbol(rip), cs & 3, reg("cr3") or 0)
                ci, how = cpu_info_of_vcpu()
                if ci is None:
                    gdb.write(line + "; " + how + "\n")
                    continue
                cpu = int(ci["cpu"])
                root = int(ci["root"])
                gdb.write("%s\n    shimk CPU%d (APIC id %d), root %s, "
                          "irq depth %d, running %s\n"
                          % (line, cpu, int(ci["apic_id"]),
                             "%#x" % root if root else "the kernel's",
                             int(ci["irq_depth"]),
                             thread_line(current_thread(cpu))))
        finally:
            if selected is not None and selected.is_valid():
                selected.switch()


class ShimkThread(gdb.Command):
    """The thread on vCPU N (default: the selected one), with a backtrace."""

    def __init__(self):
        super().__init__("shimk-thread", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        if arg.strip():
            gdb.execute("thread %d" % (int(arg) + 1), to_string=True)
        ci, how = cpu_info_of_vcpu()
        if ci is None:
            gdb.write("%s\n" % how)
            return
        cpu = int(ci["cpu"])
        gdb.write("shimk CPU%d runs %s\n"
                  % (cpu, thread_line(current_thread(cpu))))
        gdb.execute("bt")


ShimkCpus()
ShimkThread()
gdb.execute("set pagination off")
gdb.write("shimk: commands shimk-cpus and shimk-thread [vCPU] loaded\n")
