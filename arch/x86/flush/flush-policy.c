/* SPDX-License-Identifier: GPL-2.0-only */
/* TLB policy decisions: global pages, flush primitive, assist filter (pure). */
/* Modelled in tests/model/shootdown.pml (docs/model.md): change both. */

#include <asm/flush-policy.h>
#include <asm/flushtlb.h>

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

bool global_pages_measured(uint64_t pge_pair, uint64_t invpcid, uint64_t cr3)
{
    /* The full flush that must drop globals: INVPCID, else the CR4 pair. */
    uint64_t global_flush = invpcid ? invpcid : pge_pair;

    if ( !pge_pair )
        return false;   /* no PGE at all */
    /*
     * Global kernel entries survive every CR3 switch, so they are worth
     * a full flush a quarter dearer than a CR3 reload; beyond that the
     * CR4 writes are exits (SVM) and cost more than the refills saved.
     */
    return global_flush * 4 <= cr3 * 5;
}

int flush_order(unsigned int flags)
{
    if ( !(flags & FLUSH_ORDER_MASK) )
        return -1;
    return (int)((flags & FLUSH_ORDER_MASK) - 1);
}

enum flush_kind flush_local_kind(unsigned int flags, bool use_invpcid,
                                 bool pge_on)
{
    int order = flush_order(flags);

    if ( !(flags & (FLUSH_TLB | FLUSH_TLB_GLOBAL)) )
        return FLUSH_KIND_NONE;
    /* INVLPG drops global entries for its address as well. */
    if ( order >= 0 && order < 32 && (1u << order) <= FLUSH_INVLPG_CEILING )
        return FLUSH_KIND_INVLPG;
    if ( flags & FLUSH_TLB_GLOBAL )
    {
        if ( use_invpcid )
            return FLUSH_KIND_INVPCID_ALL;
        if ( pge_on )
            return FLUSH_KIND_PGE_TOGGLE;
        return FLUSH_KIND_CR3_RELOAD;   /* no global entries can exist */
    }
    return use_invpcid ? FLUSH_KIND_INVPCID_NONGLOBAL : FLUSH_KIND_CR3_RELOAD;
}

bool flush_may_assist(unsigned int flags)
{
    return (flags & (FLUSH_TLB | FLUSH_TLB_GLOBAL)) &&
           !(flags & ~FLUSH_ASSISTABLE);
}

const char *flush_kind_name(enum flush_kind k)
{
    static const char *const names[NR_FLUSH_KINDS] = {
        [FLUSH_KIND_NONE] = "none",
        [FLUSH_KIND_INVLPG] = "invlpg",
        [FLUSH_KIND_INVPCID_ALL] = "invpcid-all",
        [FLUSH_KIND_INVPCID_NONGLOBAL] = "invpcid-nonglobal",
        [FLUSH_KIND_PGE_TOGGLE] = "pge-toggle",
        [FLUSH_KIND_CR3_RELOAD] = "cr3-reload",
    };

    return k < NR_FLUSH_KINDS ? names[k] : "?";
}
