/* SPDX-License-Identifier: GPL-2.0-only */
/* Xen 2-level event channels: the IPI port table, the scan (pure; unit-tested). */

#include <guest/evtchn-2l.h>
#include <shimk/errno.h>
#include <shimk/string.h>

int evtchn_ipi_record(struct evtchn_ipi_table *t, unsigned int cpu,
                      unsigned int slot, unsigned int port)
{
    if ( cpu >= NR_CPUS || slot >= EVTCHN_IPI_SLOTS || !port ||
         port >= EVTCHN_2L_PORTS )
        return -EINVAL;
    if ( t->owner[port] || t->port[cpu][slot] )
        return -EEXIST;
    t->port[cpu][slot] = (uint16_t)port;
    t->owner[port] = (uint16_t)(cpu * EVTCHN_IPI_SLOTS + slot + 1);
    __atomic_fetch_or(&t->mine[cpu][port / 64], 1ULL << (port % 64),
                      __ATOMIC_RELEASE);
    return 0;
}

const uint64_t *evtchn_ipi_mine(const struct evtchn_ipi_table *t,
                                unsigned int cpu)
{
    return t->mine[cpu < NR_CPUS ? cpu : 0];
}

unsigned int evtchn_ipi_port(const struct evtchn_ipi_table *t,
                             unsigned int cpu, unsigned int slot)
{
    if ( cpu >= NR_CPUS || slot >= EVTCHN_IPI_SLOTS )
        return 0;
    return t->port[cpu][slot];
}

bool evtchn_ipi_owner(const struct evtchn_ipi_table *t, unsigned int port,
                      unsigned int *cpu, unsigned int *slot)
{
    unsigned int o;

    if ( port >= EVTCHN_2L_PORTS || !(o = t->owner[port]) )
        return false;
    *cpu = (o - 1) / EVTCHN_IPI_SLOTS;
    *slot = (o - 1) % EVTCHN_IPI_SLOTS;
    return true;
}

bool evtchn_ipi_all_bound(const struct evtchn_ipi_table *t,
                          const cpumask_t *mask, unsigned int slot)
{
    unsigned int cpu;

    for_each_cpu ( cpu, mask )
        if ( !evtchn_ipi_port(t, cpu, slot) )
            return false;
    return true;
}

unsigned int evtchn_2l_scan(uint64_t *pending, const uint64_t *mask,
                            const uint64_t *mine, uint64_t sel,
                            void (*fn)(unsigned int port, void *arg),
                            void *arg)
{
    unsigned int handled = 0;

    while ( sel )
    {
        unsigned int w = (unsigned int)__builtin_ctzll(sel);
        uint64_t ready;

        sel &= sel - 1;
        ready = __atomic_load_n(&pending[w], __ATOMIC_ACQUIRE) &
                ~__atomic_load_n(&mask[w], __ATOMIC_RELAXED) &
                __atomic_load_n(&mine[w], __ATOMIC_RELAXED);
        while ( ready )
        {
            unsigned int b = (unsigned int)__builtin_ctzll(ready);
            uint64_t bit = 1ULL << b;

            ready &= ready - 1;
            /* Only the upcall that clears it handles it. */
            if ( __atomic_fetch_and(&pending[w], ~bit, __ATOMIC_SEQ_CST) &
                 bit )
            {
                fn(w * 64 + b, arg);
                handled++;
            }
        }
    }
    return handled;
}

static const char *const names[] = {
    [XEN_IPI_AUTO] = "auto",
    [XEN_IPI_EVTCHN] = "evtchn",
    [XEN_IPI_APIC] = "apic",
};

int xen_ipi_parse(const char *s)
{
    for ( unsigned int i = 0; i < sizeof(names) / sizeof(names[0]); i++ )
        if ( s && !strcmp(s, names[i]) )
            return (int)i;
    return -1;
}

const char *xen_ipi_name(enum xen_ipi_choice c)
{
    return (unsigned int)c < sizeof(names) / sizeof(names[0]) ? names[c]
                                                               : "?";
}

enum xen_ipi_choice xen_ipi_decide(uint64_t evtchn_cycles,
                                   uint64_t apic_cycles)
{
    if ( !evtchn_cycles )
        return XEN_IPI_APIC;
    if ( !apic_cycles )
        return XEN_IPI_EVTCHN;
    return evtchn_cycles <= apic_cycles ? XEN_IPI_EVTCHN : XEN_IPI_APIC;
}
