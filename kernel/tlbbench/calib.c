/* SPDX-License-Identifier: GPL-2.0-only */
/* tlbbench calibration: each flush primitive and exit on the boot CPU. */

#include <guest/hypervisor.h>
#include <guest/hypervisor-ops.h>
#include <shimk/cpumask.h>
#include <shimk/printk.h>
#include <shimk/time.h>
#include <asm/flushtlb.h>
#include <asm/smp.h>
#include <asm/tlb-measure.h>
#include "workload.h"

static uint64_t cal_pge, cal_cr3;

static void calib_line(const char *prim, uint64_t cyc)
{
    char p[96];

    tlbb_prefix(p, sizeof(p));
    if ( cyc )
        printk("%s kind=calib prim=%s p50_cyc=%lu p50_ns=%lu\n", p, prim,
               (unsigned long)cyc, (unsigned long)cycles_to_ns(cyc));
    else
        printk("%s kind=calib prim=%s skipped=1\n", p, prim);
}

/* p50 of each primitive (asm/tlb-measure.h); 0 prints skipped=1. */
static void calibrate(const struct profile *pf)
{
    unsigned int other = cpumask_next(&cpu_online_mask, 1);

    calib_line("invlpg", measure_invlpg(pf->calib_iters));
    cal_cr3 = measure_cr3_reload(pf->calib_iters);
    calib_line("cr3-reload", cal_cr3);
    cal_pge = measure_pge_toggle(pf->calib_iters);
    calib_line("pge-toggle-pair", cal_pge);
    calib_line("invpcid-all", measure_invpcid_all(pf->calib_iters));
    calib_line(hypervisor_type() == HV_KVM ||
                       hypervisor_type() == HV_HYPERV ? "cpuid-exit"
                                                      : "null-hypercall",
               measure_hypercall(pf->calib_iters));
    calib_line("self-ipi", measure_self_ipi(pf->calib_iters));
    calib_line("ipi-round-trip",
               other < NR_CPUS ? measure_ipi_round_trip(other,
                                                        pf->calib_iters)
                               : 0);
    if ( hypervisor_ops.flush_tlb )
    {
        bool was = assist_enabled;

        /* An L0 flush leaves no clock stamps: the clock goes off. */
        if ( !was )
            tlb_clock_disable();
        assist_enabled = true;
        calib_line("assisted-flush", measure_assisted_flush(pf->calib_iters));
        assist_enabled = was;
    }
    else
        calib_line("assisted-flush", 0);
}

/* CR4 writes that are VM exits show here: well above 1. */
static void calib_summary(char *line, size_t size, size_t *len)
{
    char num[24];

    if ( !cal_pge || !cal_cr3 )
        return;
    tlbb_milli(num, sizeof(num), ratio_milli(cal_pge, cal_cr3));
    tlbb_sum_add(line, size, len, " pge_pair_vs_cr3=%s", num);
}

const struct workload wl_calib = {
    .name = "calib",
    .first = calibrate,
    .summary = calib_summary,
};
