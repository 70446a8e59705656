/* SPDX-License-Identifier: GPL-2.0-only */
/* TLB policy decisions, kept pure so every case is unit-tested. */

#include <asm/flush-policy.h>

bool global_pages_default(enum cpu_vendor vendor, bool virtualized)
{
    return !(virtualized && (vendor == VENDOR_AMD || vendor == VENDOR_HYGON));
}

bool global_pages_resolve(int8_t option, bool cpu_has_pge,
                          enum cpu_vendor vendor, bool virtualized)
{
    if ( !cpu_has_pge )
        return false;
    if ( option >= 0 )
        return option;
    return global_pages_default(vendor, virtualized);
}
