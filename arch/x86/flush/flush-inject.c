/* SPDX-License-Identifier: GPL-2.0-only */
/* Injected TLB-flush bug classes: names and the arithmetic each one bends. */
/* Modelled in tests/model/shootdown.pml (docs/model.md): change both. */

#include <shimk/string.h>
#include <asm/flush-inject.h>
#include <asm/page.h>

static const char *const names[NR_TLB_INJECT] = {
    [TLB_INJECT_NONE] = "none",
    [TLB_INJECT_SKIP_REMOTE] = "skip-remote",
    [TLB_INJECT_SKIP_CPU] = "skip-cpu",
    [TLB_INJECT_WRONG_PAGE] = "wrong-page",
    [TLB_INJECT_NONGLOBAL] = "nonglobal",
    [TLB_INJECT_CLOCK_OFF_BY_ONE] = "clock-off-by-one",
    [TLB_INJECT_L0_LIE] = "l0-lie",
    [TLB_INJECT_IGNORE_NO_ASSIST] = "ignore-no-assist",
    [TLB_INJECT_LAZY_MAP] = "lazy-map",
};

const char *tlb_inject_name(enum tlb_inject c)
{
    return (unsigned int)c < NR_TLB_INJECT ? names[c] : NULL;
}

int tlb_inject_parse(const char *s)
{
    for ( unsigned int c = 0; c < NR_TLB_INJECT; c++ )
        if ( !strcmp(s, names[c]) )
            return c;
    return -1;
}

/* One page off: the range's end taken for its start, say. */
const void *tlb_inject_wrong_va(const void *va)
{
    return (const char *)va + PAGE_SIZE;
}

/*
 * tlb_need_flush() asks cpu_stamp <= lastuse.  Seen one tick newer, a
 * CPU whose last flush and the frame's last use share a tick counts as
 * flushed after it: the comparison has become cpu_stamp < lastuse.  At
 * the top of the clock the stamp is left alone (it cannot go past it).
 */
uint32_t tlb_inject_stamp(uint32_t stamp, uint32_t mask)
{
    return stamp < mask ? stamp + 1 : stamp;
}
