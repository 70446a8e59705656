/* SPDX-License-Identifier: GPL-2.0-only */
/* tlbbench's lines: blocks, cells and the summary (docs/tlbbench.md). */

#include <shimk/compiler.h>
#include <shimk/printk.h>
#include <shimk/tlbb-line.h>
#include <shimk/time.h>
#include <asm/smp.h>
#include "workload.h"

void tlbb_prefix(char *buf, size_t size)
{
    ksnprintf(buf, size, "TLBB v=1 hv=%s cpus=%u tsc_khz=%lu", tlbb.hv_name,
              nr_cpus_online, (unsigned long)tsc_khz);
}

/* n.nnn from thousandths. */
void tlbb_milli(char *buf, size_t size, uint64_t m)
{
    ksnprintf(buf, size, "%lu.%03lu", (unsigned long)(m / 1000),
              (unsigned long)(m % 1000));
}

/* The cell as the shared line writer (kernel/tlbbench/tlbb-line.c) takes it. */
static void line_view(const struct cell *c, const char *prefix,
                      struct tlbb_cell *v)
{
    *v = (struct tlbb_cell){
        .prefix = prefix,
        .wl = c->wl->name,
        .mode = tlbb.modes[c->mode].name,
        .throughput = c->wl->throughput,
        .n = c->n,
        .reps = c->reps,
        .whole_space = !c->pages,
        .idle = c->idle,
        .rep_lat = c->rep_lat,
        .rep_fps = c->rep_fps,
        .rep_share = c->rep_share,
        .ipis = c->ipis,
        .checked = c->checked,
        .stale = c->stale,
        .has_hc = true,
        .hc = c->hc,
        .clk_skip = c->clk_skip,
        .tsc_khz = tsc_khz_or_guess(),
    };
}

/* One line per repeat, printed after all of them ran. */
void tlbb_print_blocks(const struct cell *c)
{
    struct tlbb_cell v;
    char p[96], line[PRINTK_LINE_MAX];

    tlbb_prefix(p, sizeof(p));
    line_view(c, p, &v);
    for ( unsigned int i = 0; i < c->reps; i++ )
    {
        tlbb_block_line(line, sizeof(line), &v, i);
        printk("%s\n", line);
    }
}

void tlbb_print_cell(const struct cell *c)
{
    struct tlbb_cell v;
    char p[96], line[PRINTK_LINE_MAX];

    tlbb_prefix(p, sizeof(p));
    line_view(c, p, &v);
    tlbb_cell_line(line, sizeof(line), &v);
    printk("%s\n", line);
}

/*
 * Append to the summary line; what does not fit is cut (a printk line
 * holds PRINTK_LINE_MAX), never written past it.
 */
void tlbb_sum_add(char *line, size_t size, size_t *len, const char *fmt, ...)
{
    va_list ap;
    int n;

    if ( *len + 1 >= size )
        return;
    va_start(ap, fmt);
    n = kvsnprintf(line + *len, size - *len, fmt, ap);
    va_end(ap);
    *len = MIN(*len + (size_t)MAX(n, 0), size - 1);
}

/* The same-run ratios (docs/tlbbench.md#published-figures). */
void tlbb_summary(const struct workload *const *wls, unsigned int nr)
{
    char line[PRINTK_LINE_MAX - 8];
    uint64_t stale = tlbb.stale;
    size_t len;

    len = ksnprintf(line, sizeof(line), "TLBB-SUM v=1 hv=%s cpus=%u",
                    tlbb.hv_name, nr_cpus_online);
    for ( unsigned int w = 0; w < nr; w++ )
        if ( wls[w]->summary )
            wls[w]->summary(line, sizeof(line), &len);
    for ( unsigned int i = 0; i < tlbb.nr_cells; i++ )
        stale += tlbb.cells[i].stale;
    tlbb_sum_add(line, sizeof(line), &len, " stale=%lu",
                 (unsigned long)stale);
    printk("%s\n", line);
}
