# SPDX-License-Identifier: GPL-2.0-only
# Objects from arch/x86/.

# boot/: the entry points and the boot protocols' readers.
obj-y += arch/x86/boot/head.o
obj-y += arch/x86/boot/boot-info.o
obj-y += arch/x86/boot/mb2-parse.o
obj-y += arch/x86/boot/pvh-parse.o
obj-y += arch/x86/boot/fw-cfg.o
obj-y += arch/x86/boot/fw-cfg-parse.o
obj-y += arch/x86/boot/trampoline.o

# The CPU: descriptors, traps, entry, APIC, SMP, time.
obj-y += arch/x86/cpu.o
obj-y += arch/x86/debugcon.o
obj-y += arch/x86/desc.o
obj-y += arch/x86/entry.o
obj-y += arch/x86/msr.o
obj-y += arch/x86/percpu.o
obj-y += arch/x86/serial-16550.o
obj-y += arch/x86/shutdown.o
obj-y += arch/x86/smp.o
obj-y += arch/x86/time.o
obj-y += arch/x86/traps.o
obj-y += arch/x86/probe.o
obj-y += arch/x86/apic.o
obj-y += arch/x86/apic-timer.o
obj-y += arch/x86/apic-calibrate.o
obj-y += arch/x86/rate-bound.o
obj-y += arch/x86/ipi.o
obj-y += arch/x86/switch.o
obj-y += arch/x86/safe-halt.o
obj-y += arch/x86/ipi-policy.o
obj-y += arch/x86/smp-call.o
obj-y += arch/x86/syscall.o
obj-y += arch/x86/selfcheck.o

# mm/: page tables, address spaces, guarded stacks, user access.
obj-y += arch/x86/mm/mm.o
obj-y += arch/x86/mm/paging.o
obj-y += arch/x86/mm/aspace.o
obj-y += arch/x86/mm/uaccess.o
obj-y += arch/x86/mm/guarded.o

# flush/: the TLB flush path, its policy, the TLB clock, fault injection.
obj-y += arch/x86/flush/flush-policy.o
obj-y += arch/x86/flush/flush-adapt-rule.o
obj-y += arch/x86/flush/flush-yield-rule.o
obj-y += arch/x86/flush/flush-adapt.o
obj-y += arch/x86/flush/flush-smp.o
obj-y += arch/x86/flush/flushtlb.o
obj-y += arch/x86/flush/flush-inject.o
obj-y += arch/x86/flush/tlb-clock.o
obj-y += arch/x86/flush/tlb-measure.o
