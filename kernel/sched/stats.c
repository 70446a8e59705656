/* SPDX-License-Identifier: GPL-2.0-only */
/* The scheduler's counters: late wakes by cause, kicks, the dump. */

#include <shimk/errno.h>
#include <shimk/aspace.h>
#include <shimk/heap.h>
#include <shimk/panic.h>
#include <shimk/printk.h>
#include <shimk/sched.h>
#include <shimk/selfcheck.h>
#include <shimk/spinlock.h>
#include <shimk/string.h>
#include <shimk/time.h>
#include <shimk/timer-oneshot.h>
#include <asm/apic.h>
#include <asm/flushtlb.h>
#include <asm/guarded.h>
#include <asm/percpu.h>
#include <asm/processor.h>
#include <asm/smp.h>
#include "private.h"

static void add_stats(struct sched_timer_stats *sum,
                      const struct sched_timer_stats *st)
{
    sum->timer_irqs += READ_ONCE(st->timer_irqs);
    sum->arm_writes += READ_ONCE(st->arm_writes);
    sum->arms_kept += READ_ONCE(st->arms_kept);
    sum->kicks_sent += READ_ONCE(st->kicks_sent);
    sum->stall_kicks += READ_ONCE(st->stall_kicks);
    sum->kick_wakes += READ_ONCE(st->kick_wakes);
    sum->lost += READ_ONCE(st->lost);
    for ( unsigned int i = 0; i < NR_LATE_WAKE; i++ )
        sum->late[i] += READ_ONCE(st->late[i]);
    if ( READ_ONCE(st->worst_late_us) > sum->worst_late_us )
    {
        sum->worst_cpu = st->worst_cpu;
        sum->worst_late_us = st->worst_late_us;
        sum->worst_why = st->worst_why;
    }
}

void sched_timer_stats(struct sched_timer_stats *sum)
{
    unsigned int cpu;

    memset(sum, 0, sizeof(*sum));
    for_each_cpu ( cpu, &cpu_online_mask )
        add_stats(sum, &runqueues[cpu].stats);
}

void sched_cpu_timer_stats(unsigned int cpu, struct sched_timer_stats *st)
{
    memset(st, 0, sizeof(*st));
    add_stats(st, &runqueues[cpu].stats);
}

void sched_timer_delta(struct sched_timer_stats *d,
                       const struct sched_timer_stats *a,
                       const struct sched_timer_stats *b)
{
    *d = *b;
    d->timer_irqs -= a->timer_irqs;
    d->arm_writes -= a->arm_writes;
    d->arms_kept -= a->arms_kept;
    d->kicks_sent -= a->kicks_sent;
    d->stall_kicks -= a->stall_kicks;
    d->kick_wakes -= a->kick_wakes;
    d->lost -= a->lost;
    for ( unsigned int i = 0; i < NR_LATE_WAKE; i++ )
        d->late[i] -= a->late[i];
}

void sched_timer_format(char *buf, size_t size,
                        const struct sched_timer_stats *st)
{
    size_t n = ksnprintf(buf, size, "late wakes:");

    for ( unsigned int i = 0; i < NR_LATE_WAKE && n < size; i++ )
        n += ksnprintf(buf + n, size - n, " %s %lu", late_wake_name(i),
                       (unsigned long)st->late[i]);
    if ( n < size )
        n += ksnprintf(buf + n, size - n, ", lost %lu; watchdog kicks %lu "
                       "(+%lu to idle CPUs with threads queued), %lu woke "
                       "sleepers; %lu timer interrupts, %lu arms written, "
                       "%lu kept", (unsigned long)st->lost,
                       (unsigned long)st->kicks_sent,
                       (unsigned long)st->stall_kicks,
                       (unsigned long)st->kick_wakes,
                       (unsigned long)st->timer_irqs,
                       (unsigned long)st->arm_writes,
                       (unsigned long)st->arms_kept);
    if ( st->worst_late_us && n < size )
        ksnprintf(buf + n, size - n, "; latest CPU%u %lu us (%s)",
                  st->worst_cpu, (unsigned long)st->worst_late_us,
                  late_wake_name(st->worst_why));
}

void sched_timer_print(void)
{
    struct sched_timer_stats st;
    char buf[400];

    sched_timer_stats(&st);
    sched_timer_format(buf, sizeof(buf), &st);
    printk("shimk: timer: %s; %lu interrupts came at a halt's HLT before "
           "it ran\n", buf, (unsigned long)READ_ONCE(safe_halt_races));
    if ( st.late[LATE_NOT_ARMED] )
        pr_warn("timer: %lu wakes found nothing armed for them: a shimk "
                "bug\n", (unsigned long)st.late[LATE_NOT_ARMED]);
    if ( READ_ONCE(masked_irqs.count) )
        pr_warn("L0 fault: %lu external interrupts were delivered with "
                "interrupts off (%lu of them a second delivery at the "
                "vector's own entry, dropped), the first vector %u on CPU%u "
                "at %#lx\n", (unsigned long)masked_irqs.count,
                (unsigned long)masked_irqs.duplicates, masked_irqs.vector,
                masked_irqs.cpu, (unsigned long)masked_irqs.rip);
    for ( unsigned int i = 0;
          i < MIN(READ_ONCE(masked_irqs.recorded), MASKED_IRQ_RECORDS); i++ )
    {
        const struct masked_irq_record *r = &masked_irqs.records[i];

        pr_warn("L0 fault: vector %u with interrupts off on CPU%u at "
                "%04x:%016lx\n", r->vector, r->cpu, r->cs,
                (unsigned long)r->rip);
    }
}

void sched_dump(void)
{
    uint64_t now = rdtsc();
    unsigned int cpu;

    for_each_cpu ( cpu, &cpu_online_mask )
    {
        const struct runqueue *rq = &runqueues[cpu];
        uint64_t due = READ_ONCE(rq->next_due);
        struct sched_timer_stats st;
        char when[48], counts[400];

        if ( !due )
            ksnprintf(when, sizeof(when), "no timed event");
        else
            ksnprintf(when, sizeof(when), "%s %lu us",
                      due > now ? "next event in" : "an event overdue by",
                      (unsigned long)(cycles_to_ns(due > now ? due - now
                                                             : now - due) /
                                      1000));
        sched_cpu_timer_stats(cpu, &st);
        sched_timer_format(counts, sizeof(counts), &st);
        printk(KERN_ERR "shimk: CPU%u runs %s, %u queued, %s; %s; its last "
               "timer events (s sleep, h halt, e halt end, a arm asked, w "
               "written, i interrupt), now %lu:\n", cpu, sched_running_on(cpu),
               sched_queued(cpu), when, counts, (unsigned long)now);
        timer_dump_trace(rq);
    }
}
