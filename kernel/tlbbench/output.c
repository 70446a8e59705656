/* SPDX-License-Identifier: GPL-2.0-only */
/* tlbbench's lines: blocks, cells and the summary (docs/tlbbench.md). */

#include <shimk/compiler.h>
#include <shimk/printk.h>
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

/* One line per repeat, printed after all of them ran. */
void tlbb_print_blocks(const struct cell *c)
{
    const char *mode = tlbb.modes[c->mode].name;
    char p[96];

    tlbb_prefix(p, sizeof(p));
    for ( unsigned int i = 0; i < c->reps; i++ )
    {
        const struct lat_summary *l = &c->rep_lat[i];

        if ( c->wl->throughput )
            printk("%s kind=block wl=%s mode=%s threads=%u rep=%u "
                   "ops=%lu ops_per_s=%lu flush_share_milli=%lu\n", p,
                   c->wl->name, mode, c->n, i, (unsigned long)l->n,
                   (unsigned long)c->rep_fps[i],
                   (unsigned long)c->rep_share[i]);
        else
            printk("%s kind=block wl=%s mode=%s n=%u pages=%s rep=%u "
                   "flushes=%lu p50_cyc=%lu p90_cyc=%lu p99_cyc=%lu "
                   "max_cyc=%lu fps=%lu\n", p, c->wl->name, mode, c->n,
                   c->pages ? "1" : "full", i, (unsigned long)l->n,
                   (unsigned long)l->p50, (unsigned long)l->p90,
                   (unsigned long)l->p99, (unsigned long)l->max,
                   (unsigned long)c->rep_fps[i]);
    }
}

static void print_throughput_cell(const struct cell *c, const char *p)
{
    struct rep_summary rfps, rshare;

    rep_summarize(c->rep_fps, c->reps, 10, &rfps);
    rep_summarize(c->rep_share, c->reps, 10, &rshare);
    printk("%s kind=cell wl=%s mode=%s threads=%u reps=%u "
           "ops_per_s=%lu ops_per_s_min=%lu ops_per_s_max=%lu "
           "flush_share_milli=%lu ipis=%lu hc=%lu checked=%lu stale=%lu "
           "idle=%u noisy=%d\n", p, c->wl->name, tlbb.modes[c->mode].name,
           c->n, c->reps, (unsigned long)rfps.med, (unsigned long)rfps.min,
           (unsigned long)rfps.max, (unsigned long)rshare.med,
           (unsigned long)c->ipis, (unsigned long)c->hc,
           (unsigned long)c->checked, (unsigned long)c->stale, c->idle,
           rfps.noisy);
}

/*
 * A latency cell's figures are medians over its blocks of each block's
 * percentile: p99 of a block is its worst 1 % (nearest rank, so with the
 * quick profile's 60 flushes a block's p99 is its maximum).
 */
static void print_latency_cell(const struct cell *c, const char *p)
{
    uint64_t v[4][MAX_REPS];
    struct rep_summary r[4], rfps;
    char ratio[16];

    for ( unsigned int i = 0; i < c->reps; i++ )
    {
        v[0][i] = c->rep_lat[i].p50;
        v[1][i] = c->rep_lat[i].p90;
        v[2][i] = c->rep_lat[i].p99;
        v[3][i] = c->rep_lat[i].max;
    }
    for ( unsigned int k = 0; k < 4; k++ )
        rep_summarize(v[k], c->reps, 10, &r[k]);
    rep_summarize(c->rep_fps, c->reps, 10, &rfps);
    tlbb_milli(ratio, sizeof(ratio), ratio_milli(r[2].med, r[0].med));
    printk("%s kind=cell wl=%s mode=%s n=%u pages=%s reps=%u "
           "p50_cyc=%lu p50_min=%lu p50_max=%lu p90_cyc=%lu p99_cyc=%lu "
           "max_cyc=%lu p50_ns=%lu p90_ns=%lu p99_ns=%lu max_ns=%lu "
           "p99_vs_p50=%s fps=%lu ipis=%lu hc=%lu clk_skip=%lu checked=%lu "
           "stale=%lu noisy=%d\n",
           p, c->wl->name, tlbb.modes[c->mode].name, c->n,
           c->pages ? "1" : "full", c->reps, (unsigned long)r[0].med,
           (unsigned long)r[0].min, (unsigned long)r[0].max,
           (unsigned long)r[1].med, (unsigned long)r[2].med,
           (unsigned long)r[3].med, (unsigned long)cycles_to_ns(r[0].med),
           (unsigned long)cycles_to_ns(r[1].med),
           (unsigned long)cycles_to_ns(r[2].med),
           (unsigned long)cycles_to_ns(r[3].med), ratio,
           (unsigned long)rfps.med, (unsigned long)c->ipis,
           (unsigned long)c->hc, (unsigned long)c->clk_skip,
           (unsigned long)c->checked, (unsigned long)c->stale, r[0].noisy);
}

void tlbb_print_cell(const struct cell *c)
{
    char p[96];

    tlbb_prefix(p, sizeof(p));
    if ( c->wl->throughput )
        print_throughput_cell(c, p);
    else
        print_latency_cell(c, p);
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
