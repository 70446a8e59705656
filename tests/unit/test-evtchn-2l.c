/* SPDX-License-Identifier: GPL-2.0-only */
/* guest/xen/evtchn-2l.c: the IPI port table, the upcall's scan, xen-ipi=. */

#include <guest/evtchn-2l.h>
#include <shimk/compiler.h>
#include <shimk/errno.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

static struct evtchn_ipi_table table;

static int setup(void **state)
{
    memset(&table, 0, sizeof(table));
    return 0;
}

/* A binding is found both ways; nothing else is. */
static void record_and_find(void **state)
{
    unsigned int cpu, slot;

    assert_int_equal(evtchn_ipi_record(&table, 3, 11, 77), 0);
    assert_int_equal(evtchn_ipi_port(&table, 3, 11), 77);
    assert_true(evtchn_ipi_owner(&table, 77, &cpu, &slot));
    assert_int_equal(cpu, 3);
    assert_int_equal(slot, 11);
    assert_false(evtchn_ipi_owner(&table, 76, &cpu, &slot));
    assert_int_equal(evtchn_ipi_port(&table, 3, 10), 0);
    assert_int_equal(evtchn_ipi_port(&table, NR_CPUS, 0), 0);
}

/* The last CPU and slot and the last port encode without overflow. */
static void extremes(void **state)
{
    unsigned int cpu, slot;

    assert_int_equal(evtchn_ipi_record(&table, NR_CPUS - 1,
                                       EVTCHN_IPI_SLOTS - 1,
                                       EVTCHN_2L_PORTS - 1), 0);
    assert_true(evtchn_ipi_owner(&table, EVTCHN_2L_PORTS - 1, &cpu, &slot));
    assert_int_equal(cpu, NR_CPUS - 1);
    assert_int_equal(slot, EVTCHN_IPI_SLOTS - 1);
}

/* Port 0, out-of-range values and second bindings are refused. */
static void refusals(void **state)
{
    assert_int_equal(evtchn_ipi_record(&table, 0, 0, 0), -EINVAL);
    assert_int_equal(evtchn_ipi_record(&table, 0, 0, EVTCHN_2L_PORTS),
                     -EINVAL);
    assert_int_equal(evtchn_ipi_record(&table, NR_CPUS, 0, 5), -EINVAL);
    assert_int_equal(evtchn_ipi_record(&table, 0, EVTCHN_IPI_SLOTS, 5),
                     -EINVAL);
    assert_int_equal(evtchn_ipi_record(&table, 1, 2, 5), 0);
    assert_int_equal(evtchn_ipi_record(&table, 2, 2, 5), -EEXIST);
    assert_int_equal(evtchn_ipi_record(&table, 1, 2, 6), -EEXIST);
    assert_int_equal(evtchn_ipi_port(&table, 1, 2), 5);
}

/* A send goes by event channel only if every target is bound. */
static void all_bound(void **state)
{
    cpumask_t m;

    cpumask_clear(&m);
    assert_true(evtchn_ipi_all_bound(&table, &m, 11));
    cpumask_set_cpu(1, &m);
    cpumask_set_cpu(2, &m);
    assert_int_equal(evtchn_ipi_record(&table, 1, 11, 20), 0);
    assert_false(evtchn_ipi_all_bound(&table, &m, 11));
    assert_int_equal(evtchn_ipi_record(&table, 2, 11, 21), 0);
    assert_true(evtchn_ipi_all_bound(&table, &m, 11));
    assert_false(evtchn_ipi_all_bound(&table, &m, 10));
}

static unsigned int seen[64], nr_seen;
static uint64_t all[EVTCHN_2L_WORDS];

static void all_mine(void)
{
    memset(all, 0xff, sizeof(all));
}
static uint64_t *scan_pending;

static void note(unsigned int port, void *arg)
{
    /* The bit is already clear when the handler runs. */
    assert_false(scan_pending[port / 64] & (1ULL << (port % 64)));
    seen[nr_seen++] = port;
    (void)arg;
}

/* Pending and unmasked ports in the selected words, in port order. */
static void scan_order_and_mask(void **state)
{
    uint64_t pending[EVTCHN_2L_WORDS] = { 0 }, mask[EVTCHN_2L_WORDS] = { 0 };

    scan_pending = pending;
    nr_seen = 0;
    all_mine();
    pending[0] = (1ULL << 3) | (1ULL << 63);
    pending[2] = 1ULL << 1;
    pending[5] = 1ULL << 7;           /* its word not selected */
    pending[63] = (1ULL << 63) | 1;
    mask[63] = 1;                     /* masked: stays pending */
    assert_int_equal(evtchn_2l_scan(pending, mask, all, (1ULL << 0) |
                                    (1ULL << 2) | (1ULL << 63), note, NULL),
                     4);
    assert_int_equal(nr_seen, 4);
    assert_int_equal(seen[0], 3);
    assert_int_equal(seen[1], 63);
    assert_int_equal(seen[2], 129);
    assert_int_equal(seen[3], 4095);
    assert_int_equal(pending[0], 0);
    assert_int_equal(pending[2], 0);
    assert_int_equal(pending[5], 1ULL << 7);
    assert_int_equal(pending[63], 1);
}

/* A port pended again by its own handler is seen by the next pass. */
static uint64_t *again_pending;
static unsigned int again_calls;

static void repend(unsigned int port, void *arg)
{
    if ( !again_calls++ )
        again_pending[port / 64] |= 1ULL << (port % 64);
    (void)arg;
}

static void scan_sees_a_send_during_the_handler(void **state)
{
    uint64_t pending[EVTCHN_2L_WORDS] = { 0 }, mask[EVTCHN_2L_WORDS] = { 0 };

    again_pending = pending;
    again_calls = 0;
    all_mine();
    pending[1] = 1ULL << 4;
    assert_int_equal(evtchn_2l_scan(pending, mask, all, 1ULL << 1, repend,
                                    NULL),
                     1);
    assert_int_equal(pending[1], 1ULL << 4);
    assert_int_equal(evtchn_2l_scan(pending, mask, all, 1ULL << 1, repend,
                                    NULL),
                     1);
    assert_int_equal(pending[1], 0);
    assert_int_equal(again_calls, 2);
}

/* An empty selector reads nothing. */
static void scan_empty(void **state)
{
    uint64_t pending[EVTCHN_2L_WORDS], mask[EVTCHN_2L_WORDS] = { 0 };

    memset(pending, 0xff, sizeof(pending));
    all_mine();
    assert_int_equal(evtchn_2l_scan(pending, mask, all, 0, note, NULL), 0);
}

/*
 * The pending bitmap is the domain's: another CPU's port pending in the
 * same word is left for that CPU's upcall (seen under Xen with 4 vCPUs:
 * taking it lost the other CPU's flush and call IPIs).
 */
static void scan_leaves_other_cpus_ports(void **state)
{
    uint64_t pending[EVTCHN_2L_WORDS] = { 0 }, mask[EVTCHN_2L_WORDS] = { 0 };

    memset(&table, 0, sizeof(table));
    assert_int_equal(evtchn_ipi_record(&table, 0, 11, 1), 0);
    assert_int_equal(evtchn_ipi_record(&table, 2, 11, 17), 0);
    scan_pending = pending;
    nr_seen = 0;
    pending[0] = (1ULL << 1) | (1ULL << 17);
    assert_int_equal(evtchn_2l_scan(pending, mask, evtchn_ipi_mine(&table, 0),
                                    1, note, NULL), 1);
    assert_int_equal(seen[0], 1);
    assert_int_equal(pending[0], 1ULL << 17);
    assert_int_equal(evtchn_2l_scan(pending, mask, evtchn_ipi_mine(&table, 2),
                                    1, note, NULL), 1);
    assert_int_equal(seen[1], 17);
    assert_int_equal(pending[0], 0);
}

static void option(void **state)
{
    assert_int_equal(xen_ipi_parse("auto"), XEN_IPI_AUTO);
    assert_int_equal(xen_ipi_parse("evtchn"), XEN_IPI_EVTCHN);
    assert_int_equal(xen_ipi_parse("apic"), XEN_IPI_APIC);
    assert_int_equal(xen_ipi_parse("APIC"), -1);
    assert_int_equal(xen_ipi_parse(""), -1);
    assert_int_equal(xen_ipi_parse(NULL), -1);
    assert_string_equal(xen_ipi_name(XEN_IPI_EVTCHN), "evtchn");
    assert_string_equal(xen_ipi_name((enum xen_ipi_choice)7), "?");
}

/* The cheaper median wins, a tie goes to event channels, 0 loses. */
static void decide(void **state)
{
    assert_int_equal(xen_ipi_decide(90, 100), XEN_IPI_EVTCHN);
    assert_int_equal(xen_ipi_decide(100, 100), XEN_IPI_EVTCHN);
    assert_int_equal(xen_ipi_decide(101, 100), XEN_IPI_APIC);
    assert_int_equal(xen_ipi_decide(0, 100), XEN_IPI_APIC);
    assert_int_equal(xen_ipi_decide(100, 0), XEN_IPI_EVTCHN);
    assert_int_equal(xen_ipi_decide(0, 0), XEN_IPI_APIC);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(record_and_find, setup),
        cmocka_unit_test_setup(extremes, setup),
        cmocka_unit_test_setup(refusals, setup),
        cmocka_unit_test_setup(all_bound, setup),
        cmocka_unit_test(scan_order_and_mask),
        cmocka_unit_test(scan_sees_a_send_during_the_handler),
        cmocka_unit_test(scan_empty),
        cmocka_unit_test(scan_leaves_other_cpus_ports),
        cmocka_unit_test(option),
        cmocka_unit_test(decide),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
