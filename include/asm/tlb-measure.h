/* SPDX-License-Identifier: GPL-2.0-only */
/* Timing the flush primitives, for the measured boot policy and tlbbench. */
#ifndef ASM_TLB_MEASURE_H
#define ASM_TLB_MEASURE_H

#include <shimk/types.h>

/*
 * Each returns the median cost in TSC cycles of one operation over
 * iters runs (LFENCE-ordered RDTSC around each), or 0 when this CPU or
 * L0 cannot do it.  Interrupts are off during each run.
 */
uint64_t measure_invlpg(unsigned int iters);
uint64_t measure_cr3_reload(unsigned int iters);
uint64_t measure_pge_toggle(unsigned int iters);    /* the CR4 write pair */
uint64_t measure_invpcid_all(unsigned int iters);
uint64_t measure_hypercall(unsigned int iters);     /* a null L0 call */
uint64_t measure_assisted_flush(unsigned int iters); /* no other CPU */
uint64_t measure_self_ipi(unsigned int iters);      /* send, take; 0: none */

/* Median round trip of an IPI to cpu and its answer; 0 if impossible. */
uint64_t measure_ipi_round_trip(unsigned int cpu, unsigned int iters);

#endif /* ASM_TLB_MEASURE_H */
