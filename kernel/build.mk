# SPDX-License-Identifier: GPL-2.0-only
# Objects from kernel/, folder by folder.

# The core: start-up, console, panic, locks, the ktest runner.
obj-y += kernel/main.o
obj-y += kernel/console.o
obj-y += kernel/printk.o
obj-y += kernel/panic.o
obj-y += kernel/spinlock.o
obj-y += kernel/selfcheck-diff.o
obj-$(CONFIG_KTEST) += kernel/ktest.o

# lib/: the freestanding library.
obj-y += kernel/lib/string.o
obj-y += kernel/lib/vsnprintf.o
obj-y += kernel/lib/sort.o
obj-y += kernel/lib/cpumask.o
obj-y += kernel/lib/errno.o
obj-y += kernel/spin-holder.o

# mm/: frames, the heap, lazily freed frames.
obj-y += kernel/mm/frame-alloc.o
obj-y += kernel/mm/frames.o
obj-y += kernel/mm/heap.o
obj-y += kernel/mm/lazy-unmap.o

# boot/: what the boot loader and the firmware said.
obj-y += kernel/boot/memory-map.o
obj-y += kernel/boot/cmdline.o
obj-y += kernel/boot/acpi.o
obj-y += kernel/boot/acpi-tables.o
obj-y += kernel/boot/acpi-walk.o

# sched/: run queues, the timer and its watchdog.
obj-y += kernel/sched/sched.o
obj-y += kernel/sched/timer.o
obj-y += kernel/sched/stats.o
obj-y += kernel/sched/timer-oneshot.o

# task/: tasks, system calls and the initrd's programs.
obj-y += kernel/task/task.o
obj-y += kernel/task/syscall.o
obj-y += kernel/task/cpio.o
obj-y += kernel/task/elf-load.o
obj-y += kernel/task/exec.o
obj-y += kernel/task/initrd.o
obj-y += kernel/task/run-list.o
obj-y += kernel/task/run-programs.o

# tlb-detect/: the stale-TLB detector.
obj-y += kernel/tlb-detect/detect.o
obj-y += kernel/tlb-detect/read.o
obj-y += kernel/tlb-detect/remap.o
obj-y += kernel/tlb-detect/power.o
obj-y += kernel/tlb-detect/tag.o

# tlbbench/: the flush benchmark.
obj-y += kernel/tlbbench/bench-stats.o
obj-y += kernel/tlbbench/run.o
obj-y += kernel/tlbbench/output.o
obj-y += kernel/tlbbench/tlbb-line.o
obj-y += kernel/tlbbench/calib.o
obj-y += kernel/tlbbench/reuse.o
obj-y += kernel/tlbbench/remap.o
obj-y += kernel/tlbbench/churn.o
