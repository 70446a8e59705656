/* SPDX-License-Identifier: GPL-2.0-only */
/* What guest/hyperv/hyperv.c and tlb.c share. */
#ifndef GUEST_HYPERV_PRIVATE_H
#define GUEST_HYPERV_PRIVATE_H

#include <guest/hyperv.h>
#include <shimk/cpumask.h>
#include <shimk/types.h>

/* Each CPU's input page for memory-based calls, and its counters. */
struct hv_pcpu
{
    uint64_t *input;        /* HV_PAGE_SIZE, page aligned; NULL: none */
    paddr_t input_pa;
    struct hyperv_counts counts;
};

extern struct hv_pcpu hv_pcpu[NR_CPUS];

/* The Ex forms are recommended (0x40000004 EAX bit 11). */
extern bool hv_use_ex;

/* The hooks (tlb.c). */
int hyperv_flush_tlb(cpumask_t *mask, const void *va, unsigned int flags);
int hyperv_send_ipi_mask(const cpumask_t *mask, unsigned int vector);

#endif /* GUEST_HYPERV_PRIVATE_H */
