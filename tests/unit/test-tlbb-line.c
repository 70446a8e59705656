/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/tlbbench/tlbb-line.c: the TLBB lines both guests print, field by field. */

#include <shimk/compiler.h>
#include <shimk/tlbb-line.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

static const struct lat_summary lat[3] = {
    { .n = 60, .p50 = 1000, .p90 = 1500, .p99 = 3000, .max = 4000 },
    { .n = 60, .p50 = 1100, .p90 = 1600, .p99 = 2900, .max = 5000 },
    { .n = 60, .p50 = 900, .p90 = 1400, .p99 = 3100, .max = 4500 },
};
static const uint64_t fps[3] = { 500, 520, 480 };
static const uint64_t share[3] = { 100, 120, 80 };
static const uint64_t ipis[3] = { 7, 8, 9 };

/* shimk's latency cell: every field, in the order tlbbench-report reads. */
static void shimk_latency_cell(void **state)
{
    struct tlbb_cell c = {
        .prefix = "TLBB v=1 hv=xen cpus=2 tsc_khz=2000000", .wl = "remap",
        .mode = "assist", .n = 1, .reps = 3, .rep_lat = lat,
        .rep_fps = fps, .rep_share = share, .ipis = 4, .checked = 180,
        .stale = 0, .has_hc = true, .hc = 60, .clk_skip = 2,
        .tsc_khz = 2000000,
    };
    char buf[512];

    tlbb_cell_line(buf, sizeof(buf), &c);
    assert_string_equal(buf,
        "TLBB v=1 hv=xen cpus=2 tsc_khz=2000000 kind=cell wl=remap "
        "mode=assist n=1 pages=1 reps=3 p50_cyc=1000 p50_min=900 "
        "p50_max=1100 p90_cyc=1500 p99_cyc=3000 max_cyc=4500 p50_ns=500 "
        "p90_ns=750 p99_ns=1500 max_ns=2250 p99_vs_p50=3.000 fps=500 "
        "ipis=4 hc=60 clk_skip=2 checked=180 stale=0 noisy=1");
    tlbb_block_line(buf, sizeof(buf), &c, 1);
    assert_string_equal(buf,
        "TLBB v=1 hv=xen cpus=2 tsc_khz=2000000 kind=block wl=remap "
        "mode=assist n=1 pages=1 rep=1 flushes=60 p50_cyc=1100 p90_cyc=1600 "
        "p99_cyc=2900 max_cyc=5000 fps=520");
}

/* The peer's: no hypercall fields, and its IPIs per block. */
static void peer_throughput_cell(void **state)
{
    struct tlbb_cell c = {
        .prefix = "TLBB v=1 os=linux hv=kvm cpus=2", .wl = "churn",
        .mode = "linux", .throughput = true, .n = 2, .reps = 3,
        .rep_lat = lat, .rep_fps = fps, .rep_ipis = ipis, .ipis = 24,
        .checked = 10, .stale = 0, .idle = 1,
    };
    char buf[512];

    tlbb_cell_line(buf, sizeof(buf), &c);
    assert_string_equal(buf,
        "TLBB v=1 os=linux hv=kvm cpus=2 kind=cell wl=churn mode=linux "
        "threads=2 reps=3 ops_per_s=500 ops_per_s_min=480 ops_per_s_max=520 "
        "ipis=24 checked=10 stale=0 idle=1 noisy=0");
    tlbb_block_line(buf, sizeof(buf), &c, 2);
    assert_string_equal(buf,
        "TLBB v=1 os=linux hv=kvm cpus=2 kind=block wl=churn mode=linux "
        "threads=2 rep=2 ops=60 ops_per_s=480 ipis=9");
}

/* shimk's throughput cell keeps its flush share and hypercalls. */
static void shimk_throughput_cell(void **state)
{
    struct tlbb_cell c = {
        .prefix = "P", .wl = "churn", .mode = "ipi", .throughput = true,
        .n = 2, .reps = 3, .rep_lat = lat, .rep_fps = fps,
        .rep_share = share, .has_hc = true, .hc = 3,
    };
    char buf[512];

    tlbb_cell_line(buf, sizeof(buf), &c);
    assert_string_equal(buf,
        "P kind=cell wl=churn mode=ipi threads=2 reps=3 ops_per_s=500 "
        "ops_per_s_min=480 ops_per_s_max=520 flush_share_milli=100 ipis=0 "
        "hc=3 checked=0 stale=0 idle=0 noisy=0");
    tlbb_block_line(buf, sizeof(buf), &c, 0);
    assert_string_equal(buf, "P kind=block wl=churn mode=ipi threads=2 rep=0 "
                             "ops=60 ops_per_s=500 flush_share_milli=100");
}

/* A buffer too small is cut, never overrun. */
static void a_short_buffer_is_cut(void **state)
{
    struct tlbb_cell c = {
        .prefix = "TLBB v=1", .wl = "remap", .mode = "ipi", .n = 1,
        .reps = 1, .rep_lat = lat, .rep_fps = fps, .has_hc = true,
    };
    char buf[40];

    memset(buf, 'x', sizeof(buf));
    tlbb_cell_line(buf, 32, &c);
    assert_int_equal(strlen(buf), 31);
    assert_int_equal(buf[32], 'x');
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shimk_latency_cell),
        cmocka_unit_test(peer_throughput_cell),
        cmocka_unit_test(shimk_throughput_cell),
        cmocka_unit_test(a_short_buffer_is_cut),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
