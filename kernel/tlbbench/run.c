/* SPDX-License-Identifier: GPL-2.0-only */
/* tlbbench's run: profiles, modes, cells, the shuffled order, the verdict. */

#include <guest/hypervisor.h>
#include <guest/hypervisor-ops.h>
#include <guest/xen.h>
#include <shimk/cmdline.h>
#include <shimk/heap.h>
#include <shimk/panic.h>
#include <shimk/printk.h>
#include <shimk/string.h>
#include <shimk/tlbbench.h>
#include <shimk/time.h>
#include <asm/apic.h>
#include <asm/cpufeature.h>
#include <asm/flush-adapt.h>
#include <asm/processor.h>
#include <asm/smp.h>
#include "workload.h"

/*
 * Everything here runs in one boot, so every ratio it prints compares
 * modes on the same machine, the same L0 and the same moment: the only
 * comparison worth making (docs/tlbbench.md#published-figures).  Modes
 * are switched at run time; blocks of each (workload, mode, targets,
 * size) cell run in a shuffled order, each repeated, and a cell reports
 * the median of its repeats with their range.  Nothing prints inside a
 * timed loop.
 */

static char opt_bench[16];
string_param("bench", opt_bench);

/*
 * The L0's own CPU count, as the runner set it (tools/boot --host-cpus):
 * a guest cannot learn it, and the overcommit ratio is what the figures
 * of an L0 flush depend on most (docs/tlbbench.md#published-figures).
 * Only printed.
 */
static unsigned int opt_host_cpus;
uint_param("host-cpus", opt_host_cpus, 1, 4096);

const char *bench_selection(void)
{
    return opt_bench;
}

/*
 * Churn gets more repeats than the flush cells: the boot's choice is
 * judged against the best of several settings on it, and its blocks
 * spread the most.
 */
static const struct profile profiles[] = {
    { "quick", 3, 60, 150, 64, 48, false, false, 3 },
    { "full", 5, 400, 200, 256, 256, true, true, 7 },
};

/*
 * In this order: the first() hooks run in it, the summary keys come in
 * it.  A new workload is a new file and one line here.
 */
static const struct workload *const workloads[] = {
    &wl_calib, &wl_reuse, &wl_remap, &wl_global, &wl_churn,
};

struct tlbb_run tlbb;

/* --- modes --- */

void tlbb_apply(const struct mode *m)
{
    ipi_shorthand_enabled = m->shorthand < 0 ? tlbb.boot_shorthand
                                             : m->shorthand &&
                                               tlbb.boot_shorthand;
    if ( m->assist == 1 && !assist_enabled )
    {
        /* An L0 flush leaves no clock stamps: off, for the rest of the boot. */
        tlb_clock_disable();
    }
    assist_enabled = m->assist < 0 ? tlbb.boot_assist : m->assist == 1;
    /*
     * A fixed setting is fixed: only the boot's own policy chooses per
     * flush (asm/flush-adapt.h).  Read at each flush: a plain switch.
     */
    WRITE_ONCE(flush_adapt_on, m->assist < 0 && tlbb.boot_adapt);
    if ( m->pge >= 0 && (read_cr4() & X86_CR4_PGE) != (m->pge ? X86_CR4_PGE
                                                              : 0) )
        tlb_set_global_pages(m->pge);
    /* Read by every CPU at each full flush: a plain switch is enough. */
    if ( m->invpcid >= 0 )
        WRITE_ONCE(use_invpcid, m->invpcid && boot_cpu.invpcid);
    /* Read only by the sender: a plain switch is enough. */
    WRITE_ONCE(ipi_by_event, m->ipi_event < 0 ? tlbb.boot_ipi_event
                                              : m->ipi_event == 1);
}

void tlbb_restore(void)
{
    ipi_shorthand_enabled = tlbb.boot_shorthand;
    assist_enabled = tlbb.boot_assist;
    WRITE_ONCE(flush_adapt_on, tlbb.boot_adapt);
    if ( !!(read_cr4() & X86_CR4_PGE) != tlbb.boot_pge )
        tlb_set_global_pages(tlbb.boot_pge);
    WRITE_ONCE(use_invpcid, tlbb.boot_invpcid);
    WRITE_ONCE(ipi_by_event, tlbb.boot_ipi_event);
}

unsigned int tlbb_add_mode(const char *name, int sh, int assist, int pge)
{
    BUG_ON(tlbb.nr_modes == MAX_MODES);
    tlbb.modes[tlbb.nr_modes] = (struct mode){ name, (int8_t)sh,
                                               (int8_t)assist, (int8_t)pge,
                                               -1, -1 };
    return tlbb.nr_modes++;
}

/* The modes this machine has; the workloads add their own. */
static void add_modes(void)
{
    tlbb.nr_modes = 0;
    tlbb.m_assist = tlbb.m_pge_on = tlbb.m_pge_off = NO_MODE;
    tlbb.m_invpcid_on = tlbb.m_invpcid_off = NO_MODE;
    tlbb.m_event = NO_MODE;
    /* The APIC's two ways, as their names say. */
    tlbb.m_unicast = tlbb_add_mode("ipi-unicast", 0, 0, -1);
    tlbb.modes[tlbb.m_unicast].ipi_event = 0;
    tlbb.m_allbut = tlbb_add_mode("ipi-allbut", 1, 0, -1);
    tlbb.modes[tlbb.m_allbut].ipi_event = 0;
    /* The same IPIs by Xen's event channels, beside unicast. */
    if ( hypervisor_ops.send_ipi_event )
    {
        tlbb.m_event = tlbb_add_mode("ipi-evtchn", 0, 0, -1);
        tlbb.modes[tlbb.m_event].ipi_event = 1;
    }
    if ( hypervisor_ops.flush_tlb )
        tlbb.m_assist = tlbb_add_mode(hypervisor_type() == HV_KVM
                                          ? "assist-kvm"
                                      : hypervisor_type() == HV_HYPERV
                                          ? "assist-hyperv"
                                          : "assist-xen",
                                      -1, 1, -1);
    if ( boot_cpu.pge )
    {
        tlbb.m_pge_on = tlbb_add_mode("ipi-pge-on", -1, 0, 1);
        tlbb.m_pge_off = tlbb_add_mode("ipi-pge-off", -1, 0, 0);
    }
    if ( boot_cpu.invpcid )
    {
        tlbb.m_invpcid_on = tlbb_add_mode("ipi-invpcid-on", -1, 0, -1);
        tlbb.modes[tlbb.m_invpcid_on].invpcid = 1;
        tlbb.m_invpcid_off = tlbb_add_mode("ipi-invpcid-off", -1, 0, -1);
        tlbb.modes[tlbb.m_invpcid_off].invpcid = 0;
    }
    tlbb.m_measured = tlbb_add_mode("boot-policy", -1, -1, -1);
}

/* --- cells --- */

struct cell *tlbb_new_cell(const struct workload *wl, unsigned int mode,
                           unsigned int n, unsigned int pages)
{
    struct cell *c;

    if ( tlbb.nr_cells == MAX_CELLS )
    {
        pr_warn("tlbbench: more than %u cells: %s (mode %s, n=%u) left out\n",
                MAX_CELLS, wl->name, tlbb.modes[mode].name, n);
        return NULL;
    }
    c = &tlbb.cells[tlbb.nr_cells++];
    *c = (struct cell){ .wl = wl, .mode = mode, .n = n, .pages = pages };
    return c;
}

const struct cell *tlbb_find(const struct workload *wl, unsigned int mode,
                             unsigned int n, unsigned int pages)
{
    for ( unsigned int i = 0; i < tlbb.nr_cells; i++ )
    {
        const struct cell *c = &tlbb.cells[i];

        if ( c->wl == wl && c->mode == mode && c->n == n &&
             c->pages == pages )
            return c;
    }
    return NULL;
}

static uint64_t med_of(const uint64_t *v, unsigned int n)
{
    struct rep_summary r;

    rep_summarize(v, n, 10, &r);
    return r.med;
}

uint64_t tlbb_med_p50(const struct cell *c)
{
    uint64_t v[MAX_REPS];

    for ( unsigned int i = 0; i < c->reps; i++ )
        v[i] = c->rep_lat[i].p50;
    return med_of(v, c->reps);
}

uint64_t tlbb_med_fps(const struct cell *c)
{
    return med_of(c->rep_fps, c->reps);
}

void tlbb_count_flushes(struct cell *c, const struct flush_counters *c0,
                        const struct flush_counters *c1)
{
    c->ipis += c1->ipi_targets - c0->ipi_targets;
    c->hc += c1->assisted_ok + c1->assisted_failed + c1->assisted_partial -
             c0->assisted_ok - c0->assisted_failed - c0->assisted_partial;
    c->clk_skip += c1->clock_skips - c0->clock_skips;
}

/* --- the run --- */

/* An order entry that stands for one round of a throughput workload. */
#define ROUND_OF(w) (0x80000000u | (w))
#define IS_ROUND(o) ((o) & 0x80000000u)

static void run_round(const struct workload *wl, const struct profile *pf,
                      uint64_t *rng)
{
    unsigned int idx[MAX_CELLS], n = 0;

    for ( unsigned int i = 0; i < tlbb.nr_cells; i++ )
        if ( tlbb.cells[i].wl == wl )
            idx[n++] = i;
    shuffle_indices(idx, n, rng);
    for ( unsigned int i = 0; i < n; i++ )
    {
        struct cell *c = &tlbb.cells[idx[i]];

        wl->block(c, pf, c->reps++);
    }
}

static void print_start(const struct profile *pf)
{
    char host[48] = "", ratio[16], l0[24] = "";

    if ( opt_host_cpus )
    {
        tlbb_milli(ratio, sizeof(ratio),
                   (uint64_t)nr_cpus_online * 1000 / opt_host_cpus);
        ksnprintf(host, sizeof(host), " host_cpus=%u overcommit=%s",
                  opt_host_cpus, ratio);
    }
    /* The report names the L0's version: Xen's is XENVER_version's. */
    if ( hypervisor_type() == HV_XEN )
    {
        uint32_t v = xen_version();

        ksnprintf(l0, sizeof(l0), " hv_version=%u.%u", v >> 16,
                  v & 0xffff);
    }
    printk("TLBB v=1 hv=%s%s cpus=%u tsc_khz=%lu kind=start profile=%s "
           "role=%s x2apic=%d pge=%d invpcid=%d assisted=%d clock=%d "
           "clock_bits=%u%s\n", tlbb.hv_name, l0, nr_cpus_online,
           (unsigned long)tsc_khz, pf->name,
           hypervisor_type() != HV_XEN ? "guest"
                                       : xen_is_dom0() ? "dom0" : "domU",
           x2apic_enabled, tlbb.boot_pge, use_invpcid, tlbb.boot_assist,
           tlb_clock_enabled, tlb_clock_mask == 0xffffffffu ? 32 : 0, host);
}

/*
 * Every repeat of every latency cell, and every round of every
 * throughput workload, in one shuffled order.
 */
#define PROGRESS_MS 10000

static void run_blocks(const struct profile *pf)
{
    unsigned int *order, total = 0;
    uint64_t rng = rdtsc(), last;

    order = kmalloc((tlbb.nr_cells * pf->reps + ARRAY_SIZE(workloads) *
                                                    pf->churn_reps) *
                    sizeof(*order));
    for ( unsigned int i = 0; i < tlbb.nr_cells; i++ )
        if ( !tlbb.cells[i].wl->throughput )
            for ( unsigned int r = 0; r < pf->reps; r++ )
                order[total++] = i;
    for ( unsigned int w = 0; w < ARRAY_SIZE(workloads); w++ )
    {
        bool any = false;

        for ( unsigned int i = 0; i < tlbb.nr_cells; i++ )
            any |= tlbb.cells[i].wl == workloads[w];
        if ( workloads[w]->throughput && any )
            for ( unsigned int r = 0; r < pf->churn_reps; r++ )
                order[total++] = ROUND_OF(w);
    }
    shuffle_indices(order, total, &rng);
    last = rdtsc();
    for ( unsigned int k = 0; k < total; k++ )
    {
        struct cell *c;

        /*
         * Between blocks, never inside one: a full run is silent for
         * minutes otherwise, and a console watchdog (the nested
         * environments' L1 stops a guest silent for 60 s) cannot tell
         * that from a hang.
         */
        if ( rdtsc() - last > ms_to_cycles(PROGRESS_MS) )
        {
            printk("tlbbench: %u of %u blocks done\n", k, total);
            last = rdtsc();
        }

        if ( IS_ROUND(order[k]) )
        {
            run_round(workloads[order[k] & ~0x80000000u], pf, &rng);
            continue;
        }
        c = &tlbb.cells[order[k]];
        c->wl->block(c, pf, c->reps++);
    }
    tlbb_restore();
    kfree(order);
}

/*
 * A cell that read nothing counted no stale reads: its stale=0 is no
 * result, and fails the run like a stale read does.
 */
static int verdict(void)
{
    uint64_t stale = tlbb.stale;
    unsigned int idle = tlbb.idle;

    for ( unsigned int i = 0; i < tlbb.nr_cells; i++ )
    {
        const struct cell *c = &tlbb.cells[i];

        stale += c->stale;
        if ( !c->idle && c->checked )
            continue;
        idle++;
        if ( c->wl->throughput )
            printk("tlbbench: %s (mode %s) did no work in %u of %u "
                   "rounds, %lu reads checked\n", c->wl->name,
                   tlbb.modes[c->mode].name, c->idle, c->reps,
                   (unsigned long)c->checked);
        else
            printk("tlbbench: %s (mode %s, n=%u, pages=%s) did no work: "
                   "its readers checked no read\n", c->wl->name,
                   tlbb.modes[c->mode].name, c->n, c->pages ? "1" : "full");
    }
    if ( stale )
        pr_warn("tlbbench: %lu stale reads: these figures are invalid\n",
                (unsigned long)stale);
    if ( idle )
        pr_warn("tlbbench: %u workloads did no work: these figures are "
                "incomplete\n", idle);
    return stale || idle ? EXIT_TEST_FAILED : EXIT_SUCCESS;
}

int tlbbench_run(const char *spec)
{
    const struct profile *pf = NULL;
    int rc;

    for ( unsigned int i = 0; i < ARRAY_SIZE(profiles); i++ )
        if ( !strcmp(spec, profiles[i].name) )
            pf = &profiles[i];
    if ( !pf )
    {
        pr_warn("cmdline: bench: unknown profile '%s' (use quick or full)\n",
                spec);
        return EXIT_TEST_FAILED;
    }
    if ( pf->reps > MAX_REPS || pf->churn_reps > MAX_REPS )
        panic("tlbbench: profile %s has more repeats than a cell holds",
              pf->name);
    memset(&tlbb, 0, sizeof(tlbb));
    ksnprintf(tlbb.hv_name, sizeof(tlbb.hv_name), "%s",
              hv_type_name(hypervisor_type()));
    tlbb.boot_shorthand = ipi_shorthand_enabled;
    tlbb.boot_assist = assist_enabled && hypervisor_ops.flush_tlb;
    tlbb.boot_pge = read_cr4() & X86_CR4_PGE;
    tlbb.boot_invpcid = use_invpcid;
    tlbb.boot_ipi_event = ipi_by_event;
    tlbb.boot_adapt = flush_adapt_on;
    print_start(pf);
    add_modes();
    tlbb.cells = kzalloc(MAX_CELLS * sizeof(*tlbb.cells));

    for ( unsigned int w = 0; w < ARRAY_SIZE(workloads); w++ )
        if ( workloads[w]->first )
            workloads[w]->first(pf);
    for ( unsigned int w = 0; w < ARRAY_SIZE(workloads); w++ )
        if ( workloads[w]->plan )
            workloads[w]->plan(pf);
    run_blocks(pf);

    for ( unsigned int i = 0; i < tlbb.nr_cells; i++ )
        tlbb_print_blocks(&tlbb.cells[i]);
    for ( unsigned int i = 0; i < tlbb.nr_cells; i++ )
        tlbb_print_cell(&tlbb.cells[i]);
    tlbb_summary(workloads, ARRAY_SIZE(workloads));
    rc = verdict();
    kfree(tlbb.cells);
    tlbb.cells = NULL;
    return rc;
}
