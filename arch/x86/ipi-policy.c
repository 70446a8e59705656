/* SPDX-License-Identifier: GPL-2.0-only */
/* When the ALLBUT shorthand may replace unicast IPIs (pure; unit-tested). */

#include <shimk/cpumask.h>
#include <asm/smp.h>

bool allbut_eligible(const cpumask_t *mask, unsigned int self,
                     const cpumask_t *online, unsigned int nr_present,
                     bool shorthand_enabled, bool bringup, bool in_irq)
{
    cpumask_t with_self;

    if ( !shorthand_enabled || bringup || in_irq )
        return false;
    if ( cpumask_weight(online) != nr_present || nr_present < 2 )
        return false;
    cpumask_copy(&with_self, mask);
    cpumask_set_cpu(self, &with_self);
    return cpumask_equal(&with_self, online);
}
