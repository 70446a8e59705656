/* SPDX-License-Identifier: GPL-2.0-only */
/* What lazy unmaps may have left in other CPUs' TLBs (pure, unit-tested). */
#ifndef SHIMK_LAZY_UNMAP_H
#define SHIMK_LAZY_UNMAP_H

#include <shimk/cpumask.h>
#include <shimk/types.h>

/*
 * aspace_unmap_lazy() clears a PTE without a remote flush, so CPUs in
 * the space may keep the old translation.  A later map of the same va
 * is then not a plain "not present to present" change (SDM Vol. 3A,
 * 4.10.4.3): a CPU still holding the old entry would go on using the
 * old frame.  Each space keeps this record, under its lock, so that a
 * map flushes only while such an entry may survive somewhere.
 */
struct lazy_unmaps
{
    /* CPUs that may still hold an entry a lazy unmap removed */
    cpumask_t cpus;
    /* the TLB clock at the latest lazy unmap that added CPUs */
    uint32_t time;
    /* lazy unmaps that added CPUs: a flush racing one clears nothing */
    unsigned int gen;
};

/*
 * A lazy unmap has cleared a PTE: holders are the CPUs that may still
 * cache it (read after the PTE store, with a full fence between), now
 * the TLB clock read after that store (0 when the clock is off).
 */
void lazy_unmap_note(struct lazy_unmaps *l, const cpumask_t *holders,
                     uint32_t now);

/*
 * A map into the space: which CPUs must flush first?  space_cpus is
 * the space's mask; a CPU that has left it loaded another root since,
 * and holds nothing any more.  filter is tlb_clock_filter(): it clears
 * the CPUs whose full flush is provably newer than a time (none when
 * the clock is off).  Both kinds are dropped from the record.  Returns
 * whether targets (the CPUs to flush) is non-empty; *gen gets the
 * record's generation, for lazy_map_flushed().
 */
bool lazy_map_targets(struct lazy_unmaps *l, const cpumask_t *space_cpus,
                      unsigned int (*filter)(cpumask_t *mask,
                                             uint32_t lastuse),
                      cpumask_t *targets, unsigned int *gen);

/*
 * The targets have all flushed their whole (non-global) TLB: drop them
 * from the record, unless a lazy unmap was noted since the targets
 * were chosen (its entries may have been cached after that flush).
 */
void lazy_map_flushed(struct lazy_unmaps *l, const cpumask_t *flushed,
                      unsigned int gen);

#endif /* SHIMK_LAZY_UNMAP_H */
