/* SPDX-License-Identifier: GPL-2.0-only */
/* The Hyper-V backend (guest/hyperv/): probe, counters, ktest switches. */
#ifndef GUEST_HYPERV_H
#define GUEST_HYPERV_H

#include <guest/cpuid-leaves.h>
#include <guest/hyperv-tlfs.h>
#include <shimk/cpumask.h>
#include <shimk/types.h>

/* The leaves read by hyperv_probe() (zero before, or on another L0). */
extern struct hyperv_leaves hyperv_cpuid;

/*
 * CPUID only, from hypervisor_probe() once "Microsoft Hv"/"Hv#1" was
 * seen: read the leaves and say whether this backend should flush
 * (hyperv_flush_wanted()).  max_leaf: EAX of 0x40000000.
 */
bool hyperv_probe(cpuid_fn fn, uint32_t max_leaf);

/* Where the L0's hypercall page is mapped (NULL without hypercalls). */
extern const void *hyperv_hcall_page;
extern paddr_t hyperv_hcall_frame;

/* Hypercalls made by one CPU (hyperv_counts_cpu()). */
struct hyperv_counts
{
    uint64_t flush_space, flush_list, flush_space_ex, flush_list_ex;
    uint64_t ipi, ipi_ex;
    uint64_t reissued;      /* rep calls issued again (continuations) */
    uint64_t reps;          /* GVA list entries the L0 completed */
    uint64_t failed;        /* calls that ended in an error status */
};

void hyperv_counts_cpu(unsigned int cpu, struct hyperv_counts *out);

/*
 * For ktests and tlbbench: which form the hooks use.  AUTO is the
 * normal rule (Ex when recommended or a VP index is 64 or more).
 */
enum hyperv_form
{
    HYPERV_FORM_AUTO,
    HYPERV_FORM_PLAIN,
    HYPERV_FORM_EX,
};
extern enum hyperv_form hyperv_debug_form;

/*
 * For ktests: send the next n flush calls malformed (a rep count on a
 * simple call, a start index at the rep count on a rep call), which the
 * TLFS answers with HV_STATUS_INVALID_HYPERCALL_INPUT.
 */
extern unsigned int hyperv_debug_malformed;

/*
 * Flush npages pages from va on the CPUs in mask through GVA list
 * calls, whatever the size (the hook lists small ranges only): as many
 * entries and calls as the range needs.  Process context, interrupts
 * on.  0 or -errno; for ktests.
 */
int hyperv_flush_range(const cpumask_t *mask, uint64_t va, uint64_t npages);

#endif /* GUEST_HYPERV_H */
