/* SPDX-License-Identifier: GPL-2.0-only */
/* ktest self-tests that must end in a panic: the runner has to see it. */

#include <shimk/ktest.h>
#include <shimk/sched.h>
#include <shimk/spinlock.h>
#include <asm/processor.h>
#include <asm/smp.h>

/*
 * Not part of ktest=all: proves that a kernel fault reaches the runner
 * as the panic exit code, not as a pass.  Reading a non-present page
 * in kernel mode with no exception-table entry must panic.
 */
KTEST_FLAGS(selftest_panic, page_fault, KTEST_EXPLICIT)
{
    volatile uint64_t *bad = (volatile uint64_t *)0xffff8ff000000000ul;

    (void)*bad;
    ktest_fail(t, __FILE__, __LINE__, "read of an unmapped address returned");
}

static DEFINE_SPINLOCK(selftest_lock);
static volatile bool selftest_lock_held;

static void hold_lock_forever(void *arg)
{
    spin_lock(&selftest_lock);
    WRITE_ONCE(selftest_lock_held, true);
    for ( ;; )
        cpu_relax();
}

/*
 * Not part of ktest=all: a lock held for ever by another CPU must end
 * in a panic naming the lock and its holder within the wait bound,
 * never in a silent hang.
 */
KTEST_FLAGS(selftest_deadlock, held_lock_is_reported, KTEST_EXPLICIT)
{
    unsigned int other = cpumask_next(&cpu_online_mask, 1);

    if ( other >= NR_CPUS )
        KT_SKIP(t, "needs a second CPU");
    thread_create("holder", hold_lock_forever, NULL, other, true);
    while ( !READ_ONCE(selftest_lock_held) )
        cpu_relax();
    spin_lock(&selftest_lock);
    ktest_fail(t, __FILE__, __LINE__, "a lock held for ever was acquired");
}
