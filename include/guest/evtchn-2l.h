/* SPDX-License-Identifier: GPL-2.0-only */
/* Xen 2-level event channels: the IPI port table, the scan (pure; unit-tested). */
#ifndef GUEST_EVTCHN_2L_H
#define GUEST_EVTCHN_2L_H

#include <shimk/cpumask.h>
#include <shimk/types.h>

/*
 * The 2-level ABI (xen/include/public/xen.h, struct shared_info): on a
 * 64-bit guest, evtchn_pending[] and evtchn_mask[] are 64 words of 64
 * bits, one bit per port, and each vCPU's evtchn_pending_sel has one
 * bit per word that may hold a pending port.  Port 0 is never bound.
 */
#define EVTCHN_2L_WORDS 64
#define EVTCHN_2L_PORTS (EVTCHN_2L_WORDS * 64)

/*
 * One port per (CPU, IPI slot): slot is vector - FIRST_IPI_VECTOR, as
 * in the IPI counters (asm/smp.h).  owner[] is the reverse map an
 * upcall reads: cpu * EVTCHN_IPI_SLOTS + slot + 1, 0 for a port that
 * is none of shimk's IPIs.  mine[cpu] has a bit for each port bound to
 * cpu: the pending bitmap is one for the whole domain, so an upcall
 * must take only its own CPU's ports (Xen raised it for those), never
 * another CPU's that happen to be pending in the same word.
 */
#define EVTCHN_IPI_SLOTS 16

struct evtchn_ipi_table
{
    uint16_t port[NR_CPUS][EVTCHN_IPI_SLOTS];
    uint16_t owner[EVTCHN_2L_PORTS];
    uint64_t mine[NR_CPUS][EVTCHN_2L_WORDS];
};

/*
 * Record that port delivers slot to cpu.  0, -EINVAL for a port, CPU
 * or slot out of range, -EEXIST where the port or the (cpu, slot)
 * already has a binding (Xen never gives a port twice: a second one
 * is a bookkeeping error, not a new binding).
 */
int evtchn_ipi_record(struct evtchn_ipi_table *t, unsigned int cpu,
                      unsigned int slot, unsigned int port);

/* The port of (cpu, slot), 0 where none is bound. */
unsigned int evtchn_ipi_port(const struct evtchn_ipi_table *t,
                             unsigned int cpu, unsigned int slot);

/* Whose port is it: true and *cpu, *slot set, or false. */
bool evtchn_ipi_owner(const struct evtchn_ipi_table *t, unsigned int port,
                      unsigned int *cpu, unsigned int *slot);

/*
 * Every port of mask's CPUs bound for slot: a send may go by event
 * channel only if all are (else the local APIC carries it).
 */
bool evtchn_ipi_all_bound(const struct evtchn_ipi_table *t,
                          const cpumask_t *mask, unsigned int slot);

/* The bitmap of cpu's ports, for evtchn_2l_scan(). */
const uint64_t *evtchn_ipi_mine(const struct evtchn_ipi_table *t,
                                unsigned int cpu);

/*
 * One pass of an upcall over the words sel names: each port pending,
 * not masked and in mine (this CPU's) has its pending bit cleared (atomically: Xen sets
 * bits concurrently) and then fn(port, arg) called, in port order.
 * Clearing before handling is what lets a send that arrives during
 * the handler pend the port again and raise a new upcall, as the
 * local APIC's IRR does.  Returns the number of ports handled.
 */
unsigned int evtchn_2l_scan(uint64_t *pending, const uint64_t *mask,
                            const uint64_t *mine, uint64_t sel,
                            void (*fn)(unsigned int port, void *arg),
                            void *arg);

/* xen-ipi=: how IPIs travel under Xen. */
enum xen_ipi_choice
{
    XEN_IPI_AUTO,       /* measured at boot: the cheaper round trip */
    XEN_IPI_EVTCHN,     /* event channels (EVTCHNOP_send) */
    XEN_IPI_APIC,       /* the emulated local APIC's ICR */
};

/* The choice a value of xen-ipi= names; -1 for anything else. */
int xen_ipi_parse(const char *s);

/* The option's name for a choice. */
const char *xen_ipi_name(enum xen_ipi_choice c);

/*
 * auto's decision from two medians of the same round trip, measured
 * interleaved in one boot: event channels where their median is not
 * above the APIC's (they leave the vLAPIC's ICR emulation out; a tie
 * goes to them).  A side that gave no figure (0) loses.
 */
enum xen_ipi_choice xen_ipi_decide(uint64_t evtchn_cycles,
                                   uint64_t apic_cycles);

#endif /* GUEST_EVTCHN_2L_H */
