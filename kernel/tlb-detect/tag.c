/* SPDX-License-Identifier: GPL-2.0-only */
/* The detector's tags, frames and stale count, for its run and remappers. */

#include <shimk/frame.h>
#include <shimk/panic.h>
#include <shimk/task.h>
#include <shimk/tlb-detect.h>
#include <asm/page.h>
#include "private.h"

/*
 * Every frame the detector maps carries a tag saying which slot and
 * generation it is (detect.c, at the top): a read through a stale
 * translation finds another slot's tag, or an older one.
 */
void detect_write_tag(paddr_t frame, uint64_t slot, uint64_t gen)
{
    struct detect_tag *tag = phys_to_virt(frame);

    tag->magic = DETECT_MAGIC;
    tag->slot = slot;
    tag->gen = gen;
    tag->frame = frame;
}

paddr_t detect_new_frame(void)
{
    paddr_t pa = frame_alloc_user();

    if ( !pa )
        panic("tlb detector: out of frames");
    return pa;
}

/* Stale reads so far, by every user and kernel reader: racy, a trend. */
uint64_t detect_total_stale(struct detect_run *d)
{
    struct detect_args *args = task_args(d->task);
    uint64_t n = 0;
    unsigned int cpu;

    for ( unsigned int i = 0; i < d->nreaders; i++ )
        n += READ_ONCE(args->reader[i].stale);
    for_each_cpu ( cpu, &d->kreader_cpus )
        n += READ_ONCE(d->kreader[cpu].r.stale);
    return n;
}
