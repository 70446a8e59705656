/* SPDX-License-Identifier: GPL-2.0-only */
/* An end asked from outside: the toolstack powers off or reboots shimk. */
#ifndef SHIMK_LIFECYCLE_H
#define SHIMK_LIFECYCLE_H

#include <shimk/compiler.h>
#include <shimk/types.h>

/*
 * kernel/main.c: the counters every run ends with, then "shimk: exit
 * <code>" and the L0's shutdown with reason poweroff or reboot.  The
 * code is 0 only when shimk had nothing left to run (idle=1, or its
 * selection done): a request that cuts a ktest=, bench= or run= short
 * leaves that verdict unknown, which is a failure, said as such.
 * why: who asked, for the console.
 */
__noreturn void kernel_stop_requested(bool reboot, const char *why);

#endif /* SHIMK_LIFECYCLE_H */
