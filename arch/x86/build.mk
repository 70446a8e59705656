# SPDX-License-Identifier: GPL-2.0-only
# Objects from arch/x86/.

obj-y += arch/x86/boot/head.o
obj-y += arch/x86/boot/boot-info.o
obj-y += arch/x86/boot/mb2-parse.o
obj-y += arch/x86/boot/pvh-parse.o
obj-y += arch/x86/cpu.o
obj-y += arch/x86/debugcon.o
obj-y += arch/x86/desc.o
obj-y += arch/x86/entry.o
obj-y += arch/x86/flush-policy.o
obj-y += arch/x86/mm.o
obj-y += arch/x86/msr.o
obj-y += arch/x86/paging.o
obj-y += arch/x86/percpu.o
obj-y += arch/x86/serial-16550.o
obj-y += arch/x86/shutdown.o
obj-y += arch/x86/smp.o
obj-y += arch/x86/time.o
obj-y += arch/x86/traps.o
obj-y += arch/x86/probe.o
obj-y += arch/x86/apic.o
obj-y += arch/x86/boot/trampoline.o
obj-y += arch/x86/ipi.o
obj-y += arch/x86/switch.o
