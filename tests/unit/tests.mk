# SPDX-License-Identifier: GPL-2.0-only
# The host unit tests and the sources each one compiles.

unit-tests += vsnprintf
unit-vsnprintf-src := tests/unit/test-vsnprintf.c kernel/lib/vsnprintf.c

unit-tests += cmdline
unit-cmdline-src := tests/unit/test-cmdline.c kernel/boot/cmdline.c \
                    kernel/lib/vsnprintf.c tests/unit/printk-capture.c

unit-tests += mb2-parse
unit-mb2-parse-src := tests/unit/test-mb2-parse.c arch/x86/boot/mb2-parse.c \
                      kernel/boot/memory-map.c kernel/boot/cmdline.c kernel/lib/vsnprintf.c \
                      tests/unit/printk-capture.c tests/unit/fake-phys.c

unit-tests += pvh-parse
unit-pvh-parse-src := tests/unit/test-pvh-parse.c arch/x86/boot/pvh-parse.c \
                      kernel/boot/memory-map.c kernel/boot/cmdline.c kernel/lib/vsnprintf.c \
                      tests/unit/printk-capture.c tests/unit/fake-phys.c

unit-tests += boot-info
unit-boot-info-src := tests/unit/test-boot-info.c kernel/boot/memory-map.c \
                      arch/x86/boot/fw-cfg-parse.c \
                      kernel/lib/vsnprintf.c tests/unit/printk-capture.c

unit-tests += frame-alloc
unit-frame-alloc-src := tests/unit/test-frame-alloc.c kernel/mm/frame-alloc.c

unit-tests += cpuid-leaves
unit-cpuid-leaves-src := tests/unit/test-cpuid-leaves.c guest/cpuid-leaves.c

unit-tests += flush-policy
unit-flush-policy-src := tests/unit/test-flush-policy.c arch/x86/flush/flush-policy.c

unit-tests += acpi-tables
unit-acpi-tables-src := tests/unit/test-acpi-tables.c kernel/boot/acpi-tables.c \
                        kernel/lib/vsnprintf.c tests/unit/printk-capture.c

unit-tests += acpi-walk
unit-acpi-walk-src := tests/unit/test-acpi-walk.c kernel/boot/acpi-walk.c \
                      kernel/boot/acpi-tables.c kernel/lib/string.c kernel/lib/vsnprintf.c \
                      tests/unit/printk-capture.c tests/unit/fake-phys.c

unit-tests += cpumask
unit-cpumask-src := tests/unit/test-cpumask.c kernel/lib/cpumask.c \
                    kernel/lib/vsnprintf.c

unit-tests += ipi-policy
unit-ipi-policy-src := tests/unit/test-ipi-policy.c arch/x86/ipi-policy.c \
                       kernel/lib/cpumask.c kernel/lib/vsnprintf.c

unit-tests += sort
unit-sort-src := tests/unit/test-sort.c kernel/lib/sort.c

unit-tests += selfcheck
unit-selfcheck-src := tests/unit/test-selfcheck.c kernel/selfcheck-diff.c

unit-tests += flush-decisions
unit-flush-decisions-src := tests/unit/test-flush-decisions.c \
                            arch/x86/flush/flush-policy.c

unit-tests += tlb-clock
unit-tlb-clock-src := tests/unit/test-tlb-clock.c arch/x86/flush/tlb-clock.c \
                      kernel/lib/cpumask.c kernel/lib/vsnprintf.c

unit-tests += flush-inject
unit-flush-inject-src := tests/unit/test-flush-inject.c \
                         arch/x86/flush/flush-inject.c arch/x86/flush/tlb-clock.c \
                         kernel/lib/cpumask.c kernel/lib/vsnprintf.c kernel/lib/string.c

unit-tests += cpio
unit-cpio-src := tests/unit/test-cpio.c kernel/task/cpio.c kernel/lib/string.c

unit-tests += run-list
unit-run-list-src := tests/unit/test-run-list.c kernel/task/run-list.c

unit-tests += elf-load
unit-elf-load-src := tests/unit/test-elf-load.c kernel/task/elf-load.c \
                     kernel/lib/string.c

unit-tests += lazy-unmap
unit-lazy-unmap-src := tests/unit/test-lazy-unmap.c kernel/mm/lazy-unmap.c \
                       arch/x86/flush/tlb-clock.c kernel/lib/cpumask.c \
                       kernel/lib/vsnprintf.c

unit-tests += flush-adapt
unit-flush-adapt-src := tests/unit/test-flush-adapt.c \
                        arch/x86/flush/flush-adapt-rule.c

unit-tests += assist-policy
unit-assist-policy-src := tests/unit/test-assist-policy.c \
                          guest/assist-policy.c

unit-tests += kvm-pv
unit-kvm-pv-src := tests/unit/test-kvm-pv.c guest/kvm/kvm-pv.c kernel/lib/cpumask.c \
                   kernel/lib/vsnprintf.c
# A thread plays the host's side of the steal-time byte.
unit-kvm-pv-libs := -pthread

unit-tests += bench-stats
unit-bench-stats-src := tests/unit/test-bench-stats.c kernel/tlbbench/bench-stats.c \
                        kernel/lib/sort.c

unit-tests += apic-calibrate
unit-apic-calibrate-src := tests/unit/test-apic-calibrate.c \
                           arch/x86/apic-calibrate.c

unit-tests += rate-bound
unit-rate-bound-src := tests/unit/test-rate-bound.c arch/x86/rate-bound.c

unit-tests += timer-oneshot
unit-timer-oneshot-src := tests/unit/test-timer-oneshot.c \
                          kernel/sched/timer-oneshot.c

unit-tests += tlbb-line
unit-tlbb-line-src := tests/unit/test-tlbb-line.c kernel/tlbbench/tlbb-line.c \
                      kernel/tlbbench/bench-stats.c kernel/lib/sort.c \
                      kernel/lib/vsnprintf.c

unit-tests += hyperv-leaves
unit-hyperv-leaves-src := tests/unit/test-hyperv-leaves.c \
                          guest/hyperv/leaves.c kernel/lib/vsnprintf.c

unit-tests += hyperv-hcall
unit-hyperv-hcall-src := tests/unit/test-hyperv-hcall.c guest/hyperv/hcall.c \
                         arch/x86/flush/flush-policy.c kernel/lib/cpumask.c \
                         kernel/lib/vsnprintf.c

unit-tests += tlb-detect-power
unit-tlb-detect-power-src := tests/unit/test-tlb-detect-power.c \
                             kernel/tlb-detect/power.c kernel/lib/cpumask.c \
                             kernel/lib/vsnprintf.c

unit-tests += evtchn-2l
unit-evtchn-2l-src := tests/unit/test-evtchn-2l.c guest/xen/evtchn-2l.c \
                      kernel/lib/cpumask.c kernel/lib/string.c \
                      kernel/lib/vsnprintf.c

unit-tests += spin-holder
unit-spin-holder-src := tests/unit/test-spin-holder.c kernel/spin-holder.c

unit-tests += xen-flush-late
unit-xen-flush-late-src := tests/unit/test-xen-flush-late.c \
                           guest/xen/flush-late.c kernel/spin-holder.c

unit-tests += flush-yield
unit-flush-yield-src := tests/unit/test-flush-yield.c \
                        arch/x86/flush/flush-yield-rule.c kernel/lib/cpumask.c \
                        kernel/lib/vsnprintf.c

unit-tests += xs-wire
unit-xs-wire-src := tests/unit/test-xs-wire.c guest/xen/xs-wire.c \
                    guest/xen/control-parse.c
