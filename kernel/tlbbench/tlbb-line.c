/* SPDX-License-Identifier: GPL-2.0-only */
/* TLBB block and cell lines for shimk and the Linux peer alike (pure). */

#include <shimk/printk.h>
#include <shimk/tlbb-line.h>

#define MAX_BLOCKS 16

/* Whatever the TSC rate, as cycles_to_ns() does: exact, no overflow. */
static uint64_t to_ns(uint64_t cycles, uint64_t khz)
{
    if ( !khz )
        return 0;
    return cycles / khz * 1000000 + cycles % khz * 1000000 / khz;
}

/* Append to buf at *len; what does not fit is cut, never overrun. */
static void put(char *buf, size_t size, int *len, const char *fmt, ...)
{
    va_list ap;
    int n;

    if ( *len < 0 || (size_t)*len >= size )
        return;
    va_start(ap, fmt);
    n = kvsnprintf(buf + *len, size - *len, fmt, ap);
    va_end(ap);
    *len += n;
}

int tlbb_block_line(char *buf, size_t size, const struct tlbb_cell *c,
                    unsigned int rep)
{
    const struct lat_summary *l = &c->rep_lat[rep];
    int len = 0;

    if ( c->throughput )
        put(buf, size, &len, "%s kind=block wl=%s mode=%s threads=%u rep=%u "
            "ops=%lu ops_per_s=%lu", c->prefix, c->wl, c->mode, c->n, rep,
            (unsigned long)l->n, (unsigned long)c->rep_fps[rep]);
    else
        put(buf, size, &len, "%s kind=block wl=%s mode=%s n=%u pages=%s "
            "rep=%u flushes=%lu p50_cyc=%lu p90_cyc=%lu p99_cyc=%lu "
            "max_cyc=%lu fps=%lu", c->prefix, c->wl, c->mode, c->n,
            c->whole_space ? "full" : "1", rep, (unsigned long)l->n,
            (unsigned long)l->p50, (unsigned long)l->p90,
            (unsigned long)l->p99, (unsigned long)l->max,
            (unsigned long)c->rep_fps[rep]);
    if ( c->throughput && c->rep_share )
        put(buf, size, &len, " flush_share_milli=%lu",
            (unsigned long)c->rep_share[rep]);
    if ( c->rep_ipis )
        put(buf, size, &len, " ipis=%lu", (unsigned long)c->rep_ipis[rep]);
    return len;
}

static int throughput_cell(char *buf, size_t size, const struct tlbb_cell *c)
{
    struct rep_summary fps, share;
    int len = 0;

    rep_summarize(c->rep_fps, c->reps, TLBB_NOISY_PCT, &fps);
    put(buf, size, &len, "%s kind=cell wl=%s mode=%s threads=%u reps=%u "
        "ops_per_s=%lu ops_per_s_min=%lu ops_per_s_max=%lu", c->prefix,
        c->wl, c->mode, c->n, c->reps, (unsigned long)fps.med,
        (unsigned long)fps.min, (unsigned long)fps.max);
    if ( c->rep_share )
    {
        rep_summarize(c->rep_share, c->reps, TLBB_NOISY_PCT, &share);
        put(buf, size, &len, " flush_share_milli=%lu",
            (unsigned long)share.med);
    }
    put(buf, size, &len, " ipis=%lu", (unsigned long)c->ipis);
    if ( c->has_hc )
        put(buf, size, &len, " hc=%lu", (unsigned long)c->hc);
    put(buf, size, &len, " checked=%lu stale=%lu idle=%u noisy=%d",
        (unsigned long)c->checked, (unsigned long)c->stale, c->idle,
        fps.noisy);
    return len;
}

static int latency_cell(char *buf, size_t size, const struct tlbb_cell *c)
{
    uint64_t v[4][MAX_BLOCKS];
    struct rep_summary r[4], fps;
    uint64_t ratio;
    unsigned int reps = c->reps < MAX_BLOCKS ? c->reps : MAX_BLOCKS;
    int len = 0;

    for ( unsigned int i = 0; i < reps; i++ )
    {
        v[0][i] = c->rep_lat[i].p50;
        v[1][i] = c->rep_lat[i].p90;
        v[2][i] = c->rep_lat[i].p99;
        v[3][i] = c->rep_lat[i].max;
    }
    for ( unsigned int k = 0; k < 4; k++ )
        rep_summarize(v[k], reps, TLBB_NOISY_PCT, &r[k]);
    rep_summarize(c->rep_fps, reps, TLBB_NOISY_PCT, &fps);
    ratio = ratio_milli(r[2].med, r[0].med);
    put(buf, size, &len, "%s kind=cell wl=%s mode=%s n=%u pages=%s reps=%u "
        "p50_cyc=%lu p50_min=%lu p50_max=%lu p90_cyc=%lu p99_cyc=%lu "
        "max_cyc=%lu p50_ns=%lu p90_ns=%lu p99_ns=%lu max_ns=%lu "
        "p99_vs_p50=%lu.%03lu fps=%lu ipis=%lu", c->prefix, c->wl, c->mode,
        c->n, c->whole_space ? "full" : "1", c->reps,
        (unsigned long)r[0].med, (unsigned long)r[0].min,
        (unsigned long)r[0].max, (unsigned long)r[1].med,
        (unsigned long)r[2].med, (unsigned long)r[3].med,
        (unsigned long)to_ns(r[0].med, c->tsc_khz),
        (unsigned long)to_ns(r[1].med, c->tsc_khz),
        (unsigned long)to_ns(r[2].med, c->tsc_khz),
        (unsigned long)to_ns(r[3].med, c->tsc_khz),
        (unsigned long)(ratio / 1000), (unsigned long)(ratio % 1000),
        (unsigned long)fps.med, (unsigned long)c->ipis);
    if ( c->has_hc )
        put(buf, size, &len, " hc=%lu clk_skip=%lu", (unsigned long)c->hc,
            (unsigned long)c->clk_skip);
    put(buf, size, &len, " checked=%lu stale=%lu noisy=%d",
        (unsigned long)c->checked, (unsigned long)c->stale, r[0].noisy);
    return len;
}

int tlbb_cell_line(char *buf, size_t size, const struct tlbb_cell *c)
{
    return c->throughput ? throughput_cell(buf, size, c)
                         : latency_cell(buf, size, c);
}
