/* SPDX-License-Identifier: GPL-2.0-only */
/* guest/hyperv/hcall.c: input values, results, VP sets, GVA lists, reps. */

#include <guest/hyperv-tlfs.h>
#include <shimk/compiler.h>
#include <shimk/errno.h>
#include <asm/flushtlb.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#define U64(x) ((uint64_t)(x))

/* --- the input value and the result value ------------------------------- */

/* TLFS "Hypercall Inputs": 15:0 code, 16 fast, 26:17, 43:32, 59:48. */
static void control_fields(void **state)
{
    assert_true(hv_control(0x0002, false, 0, 0, 0) == 0x2);
    assert_true(hv_control(0x000b, true, 0, 0, 0) == 0x1000b);
    assert_true(hv_control(0x0013, false, 3, 0, 0) == (0x13 | 3 << 17));
    assert_true(hv_control(0x0003, false, 0, 5, 2) == 0x0002000500000003ull);
    /* Every field at its widest, no overlap. */
    assert_true(hv_control(0xffff, true, 0x3ff, 0xfff, 0xfff) ==
                0x0fff0fff07ffffffull);
    /* A field too wide for its bits is refused, never truncated. */
    assert_true(hv_control(0x0014, false, 0x400, 1, 0) == 0);
    assert_true(hv_control(0x0003, false, 0, 0x1000, 0) == 0);
    assert_true(hv_control(0x0003, false, 0, 1, 0x1000) == 0);
}

/* TLFS "Hypercall Outputs": status 15:0, reps completed 43:32. */
static void result_fields(void **state)
{
    /* The reserved bits (31:16, 63:44) are set and must be ignored. */
    uint64_t r = 0xfffff00affff0003ull;

    assert_int_equal(hv_result_status(r), HV_STATUS_INVALID_HYPERCALL_INPUT);
    assert_int_equal(hv_result_reps(r), 0x00a);
    assert_int_equal(hv_result_reps(U64(0xfff) << 32), 0xfff);
    assert_int_equal(hv_result_status(U64(0x78)), HV_STATUS_TIME_OUT);
}

static void status_errnos(void **state)
{
    assert_int_equal(hv_status_errno(HV_STATUS_SUCCESS), 0);
    assert_int_equal(hv_status_errno(HV_STATUS_INVALID_HYPERCALL_CODE),
                     -ENOSYS);
    assert_int_equal(hv_status_errno(HV_STATUS_INVALID_HYPERCALL_INPUT),
                     -EINVAL);
    assert_int_equal(hv_status_errno(HV_STATUS_INVALID_ALIGNMENT), -EINVAL);
    assert_int_equal(hv_status_errno(HV_STATUS_INVALID_PARAMETER), -EINVAL);
    assert_int_equal(hv_status_errno(HV_STATUS_ACCESS_DENIED), -EACCES);
    assert_int_equal(hv_status_errno(HV_STATUS_INSUFFICIENT_MEMORY),
                     -ENOMEM);
    assert_int_equal(hv_status_errno(HV_STATUS_TIME_OUT), -ETIMEDOUT);
    /* Every failure is an error, known or not. */
    assert_int_equal(hv_status_errno(0x1234), -EIO);
}

/* --- VP indices, masks and sets ----------------------------------------- */

static uint32_t vp_table[8];

static uint32_t table_vp(unsigned int cpu)
{
    return vp_table[cpu];
}

static void collect_vps(void **state)
{
    uint32_t vps[8], max = 99;
    cpumask_t m;

    for ( unsigned int i = 0; i < 8; i++ )
        vp_table[i] = 10 * i;
    cpumask_clear(&m);
    assert_int_equal(hv_collect_vps(&m, table_vp, vps, 8, &max), 0);
    assert_int_equal(max, 0);

    cpumask_set_cpu(0, &m);
    cpumask_set_cpu(2, &m);
    cpumask_set_cpu(7, &m);
    assert_int_equal(hv_collect_vps(&m, table_vp, vps, 8, &max), 3);
    assert_int_equal(vps[0], 0);
    assert_int_equal(vps[1], 20);
    assert_int_equal(vps[2], 70);
    assert_int_equal(max, 70);
    /* No room: refused, not cut short. */
    assert_int_equal(hv_collect_vps(&m, table_vp, vps, 2, &max), -E2BIG);
    /* A CPU whose VP index was never read cannot be a target. */
    vp_table[2] = ~0u;
    assert_int_equal(hv_collect_vps(&m, table_vp, vps, 8, &max), -ENXIO);
}

/* The TLFS's example: a mask of 0x51 flushes VPs 0, 4 and 6. */
static void plain_mask(void **state)
{
    static const uint32_t vps[] = { 0, 4, 6 };
    static const uint32_t top[] = { 63, 1 };
    static const uint32_t too_far[] = { 1, 64 };
    uint64_t m;

    assert_int_equal(hv_vp_mask(vps, 3, &m), 0);
    assert_true(m == 0x51);
    assert_int_equal(hv_vp_mask(top, 2, &m), 0);
    assert_true(m == (1ull << 63 | 2));
    assert_int_equal(hv_vp_mask(too_far, 2, &m), -ERANGE);
    assert_int_equal(hv_vp_mask(NULL, 0, &m), 0);
    assert_true(m == 0);
}

/* HV_VP_SET's example: { 0, 5, 130 } is valid banks 0x5, { 0x21, 0x4 }. */
static void sparse_set_example(void **state)
{
    static const uint32_t vps[] = { 0, 5, 130 };
    static const uint32_t shuffled[] = { 130, 5, 0, 5 };
    uint64_t out[8];

    memset(out, 0xee, sizeof(out));
    assert_int_equal(hv_vp_set_sparse(vps, 3, out, 8), 4);
    assert_true(out[0] == HV_GENERIC_SET_SPARSE_4K);
    assert_true(out[1] == 0x5);
    assert_true(out[2] == 0x21);
    assert_true(out[3] == 0x4);
    assert_true(out[4] == 0xeeeeeeeeeeeeeeeeull);   /* nothing past it */

    /* Order and repeats do not matter: banks stay in bank order. */
    memset(out, 0xee, sizeof(out));
    assert_int_equal(hv_vp_set_sparse(shuffled, 4, out, 8), 4);
    assert_true(out[1] == 0x5 && out[2] == 0x21 && out[3] == 0x4);
}

static void sparse_set_limits(void **state)
{
    static const uint32_t last[] = { 4095, 64 };
    static const uint32_t beyond[] = { 4096 };
    uint32_t every_bank[HV_MAX_BANKS];
    uint64_t out[2 + HV_MAX_BANKS];

    /* VP 4095 is the top bit of bank 63; bank 1 comes before it. */
    assert_int_equal(hv_vp_set_sparse(last, 2, out, 8), 4);
    assert_true(out[1] == (1ull << 63 | 1ull << 1));
    assert_true(out[2] == 1);
    assert_true(out[3] == 1ull << 63);
    /* 64 banks of 64 VPs is all a set can say. */
    assert_int_equal(hv_vp_set_sparse(beyond, 1, out, 8), -ERANGE);

    for ( unsigned int i = 0; i < HV_MAX_BANKS; i++ )
        every_bank[i] = i * 64 + i;
    assert_int_equal(hv_vp_set_sparse(every_bank, HV_MAX_BANKS, out,
                                      2 + HV_MAX_BANKS), 2 + HV_MAX_BANKS);
    assert_true(out[1] == ~0ull);
    for ( unsigned int i = 0; i < HV_MAX_BANKS; i++ )
        assert_true(out[2 + i] == 1ull << i);
    /* One word short of room: refused. */
    assert_int_equal(hv_vp_set_sparse(every_bank, HV_MAX_BANKS, out,
                                      1 + HV_MAX_BANKS), -ERANGE);

    /* No VP: an empty sparse set, no banks. */
    assert_int_equal(hv_vp_set_sparse(NULL, 0, out, 8), 2);
    assert_true(out[0] == HV_GENERIC_SET_SPARSE_4K && out[1] == 0);
}

static void all_set(void **state)
{
    uint64_t out[2] = { 7, 7 };

    assert_int_equal(hv_vp_set_all(out), 2);
    assert_true(out[0] == HV_GENERIC_SET_ALL && out[1] == 0);
}

/* --- GVA lists ----------------------------------------------------------- */

/* Page number in 63:12, the pages after the first in 11:0. */
static void gva_entry(void **state)
{
    assert_true(hv_gva_entry(0x1234567, 1) == 0x1234000);
    assert_true(hv_gva_entry(0x1234000, 2) == 0x1234001);
    assert_true(hv_gva_entry(0x1234000, 4096) == 0x1234fff);
    /* Out of range counts are clamped to what an entry can say. */
    assert_true(hv_gva_entry(0x1234000, 0) == 0x1234000);
    assert_true(hv_gva_entry(0x1234000, 5000) == 0x1234fff);
    /* A kernel address keeps its upper bits. */
    assert_true(hv_gva_entry(0xffffe04b00000fffull, 3) ==
                0xffffe04b00000002ull);
}

static void gva_fill(void **state)
{
    uint64_t list[8], va = 0x40000123, n = 1;

    memset(list, 0, sizeof(list));
    assert_int_equal(hv_gva_fill(list, 8, &va, &n), 1);
    assert_true(list[0] == 0x40000000);
    assert_true(n == 0 && va == 0x40001000);

    /* 3 * 4096 + 5 pages: three full entries and one of 5 pages. */
    va = 0x40000000;
    n = 3 * 4096 + 5;
    assert_int_equal(hv_gva_fill(list, 8, &va, &n), 4);
    assert_true(list[0] == 0x40000fff);
    assert_true(list[1] == 0x41000fff);
    assert_true(list[2] == 0x42000fff);
    assert_true(list[3] == 0x43000004);
    assert_true(n == 0 && va == 0x43005000);

    /* Room for 2: the rest stays to be sent by the next call. */
    va = 0x40000000;
    n = 3 * 4096 + 5;
    assert_int_equal(hv_gva_fill(list, 2, &va, &n), 2);
    assert_true(n == 4096 + 5 && va == 0x42000000);
    assert_int_equal(hv_gva_fill(list, 2, &va, &n), 2);
    assert_true(list[0] == 0x42000fff && list[1] == 0x43000004);
    assert_true(n == 0);
    /* Nothing left: nothing written. */
    assert_int_equal(hv_gva_fill(list, 2, &va, &n), 0);
}

/* --- rep continuation ---------------------------------------------------- */

static uint64_t result(uint16_t status, unsigned int done)
{
    return (uint64_t)done << 32 | status;
}

static unsigned int start_of(uint64_t control)
{
    return (control >> 48) & 0xfff;
}

static void rep_done_at_once(void **state)
{
    struct hv_rep r;

    hv_rep_begin(&r, hv_control(0x0003, false, 0, 10, 0));
    assert_int_equal(hv_rep_next(&r, result(HV_STATUS_SUCCESS, 10)), 0);
}

/*
 * The TLFS's example: 25 reps, 20 done in time, reissued from 20.  The
 * count is from the start of the list, not from the start index.
 */
static void rep_continues(void **state)
{
    uint64_t c = hv_control(0x0014, false, 2, 25, 0);
    struct hv_rep r;

    hv_rep_begin(&r, c);
    assert_int_equal(hv_rep_next(&r, result(HV_STATUS_SUCCESS, 20)), 1);
    assert_int_equal(start_of(r.control), 20);
    /* Only the start index moved: code, var header, count are kept. */
    assert_true((r.control & ~(0xfffull << 48)) == c);
    assert_int_equal(hv_rep_next(&r, result(HV_STATUS_TIME_OUT, 24)), 1);
    assert_int_equal(start_of(r.control), 24);
    assert_int_equal(hv_rep_next(&r, result(HV_STATUS_SUCCESS, 25)), 0);
}

/* A hypervisor that never gets on is given up on, not spun on. */
static void rep_stalls(void **state)
{
    struct hv_rep r;
    unsigned int i;

    hv_rep_begin(&r, hv_control(0x0003, false, 0, 4, 0));
    assert_int_equal(hv_rep_next(&r, result(HV_STATUS_TIME_OUT, 1)), 1);
    for ( i = 1; i < HV_REP_MAX_STALLS; i++ )
        assert_int_equal(hv_rep_next(&r, result(HV_STATUS_TIME_OUT, 1)), 1);
    assert_int_equal(hv_rep_next(&r, result(HV_STATUS_TIME_OUT, 1)),
                     -ETIMEDOUT);

    /* Progress now and then resets the count. */
    hv_rep_begin(&r, hv_control(0x0003, false, 0, 100, 0));
    for ( i = 1; i < 60; i++ )
    {
        assert_int_equal(hv_rep_next(&r, result(HV_STATUS_TIME_OUT, i)), 1);
        for ( unsigned int j = 1; j < HV_REP_MAX_STALLS; j++ )
            assert_int_equal(hv_rep_next(&r, result(HV_STATUS_TIME_OUT, i)),
                             1);
    }
}

static void rep_errors(void **state)
{
    struct hv_rep r;

    /* An error status ends it, whatever was done before. */
    hv_rep_begin(&r, hv_control(0x0003, false, 0, 10, 0));
    assert_int_equal(hv_rep_next(&r, result(HV_STATUS_INVALID_PARAMETER, 3)),
                     -EINVAL);
    /* More done than asked, or fewer than before: not believed. */
    hv_rep_begin(&r, hv_control(0x0003, false, 0, 10, 0));
    assert_int_equal(hv_rep_next(&r, result(HV_STATUS_SUCCESS, 11)), -EIO);
    hv_rep_begin(&r, hv_control(0x0003, false, 0, 10, 6));
    assert_int_equal(hv_rep_next(&r, result(HV_STATUS_SUCCESS, 5)), -EIO);
}

/* A simple call has no reps: success is done, anything else failed. */
static void simple_calls(void **state)
{
    struct hv_rep r;

    hv_rep_begin(&r, hv_control(0x0002, false, 0, 0, 0));
    assert_int_equal(hv_rep_next(&r, result(HV_STATUS_SUCCESS, 0)), 0);
    assert_int_equal(hv_rep_next(&r, result(HV_STATUS_TIME_OUT, 0)),
                     -ETIMEDOUT);
    assert_int_equal(hv_rep_next(&r,
                                 result(HV_STATUS_INVALID_HYPERCALL_CODE, 0)),
                     -ENOSYS);
}

/* --- flush requests ------------------------------------------------------ */

static void plan_rules(void **state)
{
    const void *va = (const void *)0xffffe04b00001000ull;
    struct hv_flush_req req;

    /* One page: a list, globals included, every address space. */
    hv_flush_plan(FLUSH_TLB | FLUSH_ORDER(0), va, false, &req);
    assert_true(req.list && req.npages == 1 && !req.all);
    assert_true(req.va == 0xffffe04b00001000ull);
    assert_true(req.hv_flags == HV_FLUSH_ALL_VIRTUAL_ADDRESS_SPACES);
    hv_flush_plan(FLUSH_TLB_GLOBAL | FLUSH_ORDER(0), va, true, &req);
    assert_true(req.list && req.all);
    assert_true(req.hv_flags == HV_FLUSH_ALL_VIRTUAL_ADDRESS_SPACES);

    /* Up to the INVLPG ceiling a list, above it the whole space. */
    hv_flush_plan(FLUSH_TLB | FLUSH_ORDER(5), va, false, &req);
    assert_true(req.list && req.npages == FLUSH_INVLPG_CEILING);
    hv_flush_plan(FLUSH_TLB | FLUSH_ORDER(6), va, false, &req);
    assert_false(req.list);
    assert_true(req.hv_flags == (HV_FLUSH_ALL_VIRTUAL_ADDRESS_SPACES |
                                 HV_FLUSH_NON_GLOBAL_MAPPINGS_ONLY));

    /* A whole flush: globals may stay unless FLUSH_TLB_GLOBAL. */
    hv_flush_plan(FLUSH_TLB, NULL, false, &req);
    assert_false(req.list);
    assert_true(req.hv_flags & HV_FLUSH_NON_GLOBAL_MAPPINGS_ONLY);
    hv_flush_plan(FLUSH_TLB_GLOBAL, NULL, false, &req);
    assert_false(req.list);
    assert_true(req.hv_flags == HV_FLUSH_ALL_VIRTUAL_ADDRESS_SPACES);
    hv_flush_plan(FLUSH_TLB | FLUSH_TLB_GLOBAL, NULL, false, &req);
    assert_true(req.hv_flags == HV_FLUSH_ALL_VIRTUAL_ADDRESS_SPACES);

    /* An order without an address cannot be listed. */
    hv_flush_plan(FLUSH_TLB | FLUSH_ORDER(0), NULL, false, &req);
    assert_false(req.list);
}

static uint64_t page[HV_PAGE_WORDS];

static void build_plain(void **state)
{
    static const uint32_t vps[] = { 0, 4, 6 };
    static const uint32_t high[] = { 0, 64 };
    struct hv_flush_req req;
    uint64_t control;

    hv_flush_plan(FLUSH_TLB, NULL, false, &req);
    req.vps = vps;
    req.nr_vps = 3;
    assert_int_equal(hv_flush_build(page, &req, &control), 0);
    assert_true(control == HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE);
    assert_true(page[0] == 0);
    assert_true(page[1] == (HV_FLUSH_ALL_VIRTUAL_ADDRESS_SPACES |
                            HV_FLUSH_NON_GLOBAL_MAPPINGS_ONLY));
    assert_true(page[2] == 0x51);

    /* Every VP: the flag, and the mask is ignored. */
    hv_flush_plan(FLUSH_TLB_GLOBAL, NULL, true, &req);
    assert_int_equal(hv_flush_build(page, &req, &control), 0);
    assert_true(page[1] == (HV_FLUSH_ALL_VIRTUAL_ADDRESS_SPACES |
                            HV_FLUSH_ALL_PROCESSORS));
    assert_true(page[2] == 0);

    /* One page: a rep call of one entry, after the 3-word header. */
    hv_flush_plan(FLUSH_TLB | FLUSH_ORDER(0), (const void *)0x7000123000,
                  false, &req);
    req.vps = vps;
    req.nr_vps = 3;
    assert_int_equal(hv_flush_build(page, &req, &control), 0);
    assert_true(control == (HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST | 1ull << 32));
    assert_true(page[2] == 0x51);
    assert_true(page[3] == 0x7000123000);
    assert_true(req.npages == 0);

    /* VP 64 cannot be named in a 64-bit mask. */
    req.vps = high;
    req.nr_vps = 2;
    req.npages = 1;
    assert_int_equal(hv_flush_build(page, &req, &control), -ERANGE);
}

static void build_ex(void **state)
{
    static const uint32_t vps[] = { 0, 5, 130 };
    struct hv_flush_req req;
    uint64_t control;

    /* The banks are the variable header: 2 words of it. */
    hv_flush_plan(FLUSH_TLB, NULL, false, &req);
    req.ex = true;
    req.vps = vps;
    req.nr_vps = 3;
    assert_int_equal(hv_flush_build(page, &req, &control), 0);
    assert_true(control == (HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE_EX |
                            2ull << 17));
    assert_true(page[1] == (HV_FLUSH_ALL_VIRTUAL_ADDRESS_SPACES |
                            HV_FLUSH_NON_GLOBAL_MAPPINGS_ONLY));
    assert_true(page[2] == HV_GENERIC_SET_SPARSE_4K && page[3] == 0x5);
    assert_true(page[4] == 0x21 && page[5] == 0x4);

    /* Every VP: HV_GENERIC_SET_ALL, no banks, no flag. */
    hv_flush_plan(FLUSH_TLB, NULL, true, &req);
    req.ex = true;
    assert_int_equal(hv_flush_build(page, &req, &control), 0);
    assert_true(control == HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE_EX);
    assert_false(page[1] & HV_FLUSH_ALL_PROCESSORS);
    assert_true(page[2] == HV_GENERIC_SET_ALL && page[3] == 0);

    /* A list: entries after the whole header, fixed and variable. */
    hv_flush_plan(FLUSH_TLB | FLUSH_ORDER(1), (const void *)0x7000123000,
                  false, &req);
    req.ex = true;
    req.vps = vps;
    req.nr_vps = 3;
    assert_int_equal(hv_flush_build(page, &req, &control), 0);
    assert_true(control == (HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST_EX |
                            2ull << 17 | 1ull << 32));
    assert_true(page[6] == 0x7000123001);
}

/* A list longer than a page: the rest goes in the next call. */
static void build_long_list(void **state)
{
    static const uint32_t vps[] = { 1 };
    uint32_t many[HV_MAX_BANKS];
    struct hv_flush_req req;
    uint64_t control;

    memset(&req, 0, sizeof(req));
    req.list = true;
    req.vps = vps;
    req.nr_vps = 1;
    req.va = 0x100000000ull;
    req.npages = 600ull * 4096;
    assert_int_equal(hv_flush_build(page, &req, &control), 0);
    /* 512 words less the 3-word header. */
    assert_true(control == (HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST |
                            509ull << 32));
    assert_true(page[3] == 0x100000fff);
    assert_true(page[511] == 0x100000000ull + 508ull * 0x1000000 + 0xfff);
    assert_true(req.npages == 91ull * 4096);
    assert_int_equal(hv_flush_build(page, &req, &control), 0);
    assert_true(control == (HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST |
                            91ull << 32));
    assert_true(req.npages == 0);
    /* Nothing left is not a call. */
    assert_int_equal(hv_flush_build(page, &req, &control), -EINVAL);

    /* The most banks: 2 + 2 + 64 words of header, 444 entries after. */
    for ( unsigned int i = 0; i < HV_MAX_BANKS; i++ )
        many[i] = i * 64;
    req.ex = true;
    req.vps = many;
    req.nr_vps = HV_MAX_BANKS;
    req.va = 0x100000000ull;
    req.npages = 600ull * 4096;
    assert_int_equal(hv_flush_build(page, &req, &control), 0);
    assert_true(control == (HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST_EX |
                            64ull << 17 | 444ull << 32));
    assert_true(page[68] == 0x100000fff);
}

/* --- cluster IPIs -------------------------------------------------------- */

static void ipi_build(void **state)
{
    static const uint32_t vps[] = { 1, 2 };
    static const uint32_t far[] = { 1, 70 };
    uint64_t control, in, out;

    /* Plain: a fast call, the vector in RDX, the mask in R8. */
    assert_int_equal(hv_ipi_build(page, false, 0xf0, vps, 2, &control, &in,
                                  &out), 0);
    assert_true(control == (HVCALL_SEND_SYNTHETIC_CLUSTER_IPI | 1ull << 16));
    assert_true(in == 0xf0 && out == 0x6);
    assert_int_equal(hv_ipi_build(page, false, 0xf0, far, 2, &control, &in,
                                  &out), -ERANGE);

    /* Ex: vector, then the set at offset 8, its banks the var header. */
    memset(page, 0xee, sizeof(page));
    assert_int_equal(hv_ipi_build(page, true, 0xf0, far, 2, &control, &in,
                                  &out), 0);
    assert_true(control == (HVCALL_SEND_SYNTHETIC_CLUSTER_IPI_EX |
                            2ull << 17));
    assert_true(page[0] == 0xf0);
    assert_true(page[1] == HV_GENERIC_SET_SPARSE_4K && page[2] == 0x3);
    assert_true(page[3] == 0x2 && page[4] == 1ull << 6);

    /* Vectors 0x10-0xff only. */
    assert_int_equal(hv_ipi_build(page, false, 0x0f, vps, 2, &control, &in,
                                  &out), -EINVAL);
    assert_int_equal(hv_ipi_build(page, true, 0x100, vps, 2, &control, &in,
                                  &out), -EINVAL);
    assert_int_equal(hv_ipi_build(page, false, 0x10, vps, 2, &control, &in,
                                  &out), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(control_fields),
        cmocka_unit_test(result_fields),
        cmocka_unit_test(status_errnos),
        cmocka_unit_test(collect_vps),
        cmocka_unit_test(plain_mask),
        cmocka_unit_test(sparse_set_example),
        cmocka_unit_test(sparse_set_limits),
        cmocka_unit_test(all_set),
        cmocka_unit_test(gva_entry),
        cmocka_unit_test(gva_fill),
        cmocka_unit_test(rep_done_at_once),
        cmocka_unit_test(rep_continues),
        cmocka_unit_test(rep_stalls),
        cmocka_unit_test(rep_errors),
        cmocka_unit_test(simple_calls),
        cmocka_unit_test(plan_rules),
        cmocka_unit_test(build_plain),
        cmocka_unit_test(build_ex),
        cmocka_unit_test(build_long_list),
        cmocka_unit_test(ipi_build),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
