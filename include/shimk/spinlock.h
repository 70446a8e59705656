/* SPDX-License-Identifier: GPL-2.0-only */
/* Ticket spinlocks whose waits are bounded and reported. */
#ifndef SHIMK_SPINLOCK_H
#define SHIMK_SPINLOCK_H

#include <shimk/compiler.h>
#include <shimk/types.h>

/*
 * A ticket lock is FIFO, so no waiter starves.  The lock remembers its
 * name and holder: a wait that outlasts the bound panics and names
 * both instead of hanging the machine without a word.
 */
typedef struct spinlock
{
    volatile uint16_t head;     /* ticket being served */
    volatile uint16_t tail;     /* next ticket to hand out */
    int16_t owner;              /* holding CPU, -1 when free */
    const char *name;
} spinlock_t;

#define SPINLOCK_INIT(n) { .head = 0, .tail = 0, .owner = -1, .name = (n) }
#define DEFINE_SPINLOCK(l) spinlock_t l = SPINLOCK_INIT(#l)

void spin_lock(spinlock_t *l);
void spin_unlock(spinlock_t *l);
unsigned long spin_lock_irqsave(spinlock_t *l);
void spin_unlock_irqrestore(spinlock_t *l, unsigned long flags);

/*
 * The end of a run: how many waits went past the bound because the L0
 * kept descheduled the CPU they waited for (shimk/spin-holder.h).
 */
void spin_print(void);

#endif /* SHIMK_SPINLOCK_H */
