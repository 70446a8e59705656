/* SPDX-License-Identifier: GPL-2.0-only */
/* CPU bring-up bookkeeping shared with panic and the boot summary. */

#include <asm/smp.h>

unsigned int nr_cpus_online = 1;

void smp_stop_others_for_panic(void)
{
    /* Only the boot CPU runs until application processors are started. */
}
