# SPDX-License-Identifier: GPL-2.0-only
# Objects from kernel/.

obj-y += kernel/boot-info.o
obj-y += kernel/cmdline.o
obj-y += kernel/console.o
obj-y += kernel/errno.o
obj-y += kernel/frame-alloc.o
obj-y += kernel/frames.o
obj-y += kernel/heap.o
obj-y += kernel/main.o
obj-y += kernel/panic.o
obj-y += kernel/printk.o
obj-y += kernel/spinlock.o
obj-y += kernel/string.o
obj-y += kernel/vsnprintf.o
obj-$(CONFIG_KTEST) += kernel/ktest.o
obj-y += kernel/acpi.o
obj-y += kernel/acpi-tables.o
obj-y += kernel/cpumask.o
obj-y += kernel/sched.o
obj-y += kernel/timer-oneshot.o
obj-y += kernel/sort.o
obj-y += kernel/syscall.o
obj-y += kernel/task.o
obj-y += kernel/tlb-detect.o
obj-y += kernel/bench-stats.o
obj-y += kernel/tlbbench.o
