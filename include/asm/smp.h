/* SPDX-License-Identifier: GPL-2.0-only */
/* CPU bring-up state shared with the rest of the kernel. */
#ifndef ASM_SMP_H
#define ASM_SMP_H

#include <shimk/types.h>

/* CPUs running the kernel now (the boot CPU counts). */
extern unsigned int nr_cpus_online;

/*
 * Called by panic() on the panicking CPU: stop every other CPU so the
 * report is the last thing printed.  Bounded; returns in any case.
 */
void smp_stop_others_for_panic(void);

#endif /* ASM_SMP_H */
