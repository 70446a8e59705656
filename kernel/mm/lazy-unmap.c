/* SPDX-License-Identifier: GPL-2.0-only */
/* Lazy unmaps: which CPUs a later map must flush (pure). */
/* Modelled in tests/model/shootdown.pml (docs/model.md): change both. */

#include <shimk/lazy-unmap.h>

void lazy_unmap_note(struct lazy_unmaps *l, const cpumask_t *holders,
                     uint32_t now)
{
    if ( cpumask_empty(holders) )
        return;
    cpumask_or(&l->cpus, &l->cpus, holders);
    /*
     * One time for every CPU in the record: the latest is the safe
     * one, since a CPU stamped after it flushed after every earlier
     * lazy unmap too.
     */
    l->time = now;
    l->gen++;
}

bool lazy_map_targets(struct lazy_unmaps *l, const cpumask_t *space_cpus,
                      unsigned int (*filter)(cpumask_t *mask,
                                             uint32_t lastuse),
                      cpumask_t *targets, unsigned int *gen)
{
    *gen = l->gen;
    /*
     * A CPU clears its bit in the space's mask only after loading
     * another root, which (without PCIDs) dropped every user entry.
     */
    cpumask_and(&l->cpus, &l->cpus, space_cpus);
    cpumask_copy(targets, &l->cpus);
    if ( cpumask_empty(targets) )
        return false;
    /* Stamped after the latest lazy unmap: flushed after all of them. */
    if ( filter(targets, l->time) )
        cpumask_copy(&l->cpus, targets);
    return !cpumask_empty(targets);
}

void lazy_map_flushed(struct lazy_unmaps *l, const cpumask_t *flushed,
                      unsigned int gen)
{
    if ( l->gen == gen )
        cpumask_andnot(&l->cpus, &l->cpus, flushed);
}
