/* SPDX-License-Identifier: GPL-2.0-only */
/* ktest self-tests that must end in a panic: the runner has to see it. */

#include <shimk/ktest.h>
#include <shimk/panic.h>
#include <shimk/sched.h>
#include <shimk/spinlock.h>
#include <shimk/time.h>
#include <asm/desc.h>
#include <asm/flushtlb.h>
#include <asm/page.h>
#include <asm/percpu.h>
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

static volatile bool panic_go, panic_ready;

static void panic_with_the_other(void *arg)
{
    WRITE_ONCE(panic_ready, true);
    while ( !READ_ONCE(panic_go) )
        cpu_relax();
    panic("selftest: two CPUs panic at once (CPU%u)", smp_processor_id());
}

/*
 * Not part of ktest=all: two CPUs that panic at the same moment give
 * one report that the runner can read, its PANIC line whole, not two
 * interleaved (seen at 4 vCPUs on 2: "shimk: PAshiNICmk: PA on CNIPU0C").
 */
KTEST_FLAGS(selftest_panic_twice, two_cpus_at_once, KTEST_EXPLICIT)
{
    unsigned int other = cpumask_next(&cpu_online_mask, 1);

    if ( other >= NR_CPUS )
        KT_SKIP(t, "needs a second CPU");
    thread_create("panicker", panic_with_the_other, NULL, other, true);
    for ( unsigned int ms = 0; !READ_ONCE(panic_ready) && ms < 5000; ms++ )
        mdelay(1);
    KT_ASSERTF(t, panic_ready, "CPU%u never ran the second panicker", other);
    WRITE_ONCE(panic_go, true);
    panic("selftest: two CPUs panic at once (CPU%u)", smp_processor_id());
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

/*
 * Recursion that the compiler cannot turn into a loop: each level keeps
 * a buffer live across the call.  The bound only keeps GCC's infinite-
 * recursion warning quiet; a 16 KiB stack ends far sooner.
 */
static __attribute__((noinline)) unsigned long deep(unsigned long depth)
{
    volatile char pad[256];

    pad[0] = (char)depth;
    if ( depth > (1ul << 20) )
        return 0;
    return deep(depth + 1) + pad[0];
}

/* The CPU the selftests below break: an AP where there is one. */
static unsigned int victim_cpu(void)
{
    unsigned int cpu, last = 0;

    for_each_cpu ( cpu, &cpu_online_mask )
        last = cpu;
    return last;
}

static void overflow(void *arg)
{
    local_irq_disable();
    deep(0);
}

/*
 * Not part of ktest=all: a kernel stack that runs over must end in a #DF
 * on its IST stack that names the guard page it hit, then a panic, never
 * in a silent walk over the memory below (asm/guarded.h).  Interrupts
 * are off, so no trap frame's own stack check gets there first.
 */
KTEST_FLAGS(selftest_stack_overflow, hits_the_guard_page, KTEST_EXPLICIT)
{
    thread_create("overflow", overflow, NULL, victim_cpu(), true);
    thread_sleep_us(5000000);
    ktest_fail(t, __FILE__, __LINE__, "a stack overflow did not panic");
}

static volatile bool tss_changed;

static void change_tss(void *arg)
{
    struct cpu_info *ci = this_cpu();

    /* The #MC IST pointer: nothing uses it unless a machine check comes. */
    ci->tss.ist[IST_MC - 1] += 16;
    WRITE_ONCE(tss_changed, true);
}

/*
 * Not part of ktest=all: a changed TSS must be caught by that CPU's own
 * watch-tick self-check within a few periods (shimk/selfcheck.h), as a
 * panic naming the CPU, the TSS and the byte.
 */
KTEST_FLAGS(selftest_selfcheck, a_changed_tss_is_caught, KTEST_EXPLICIT)
{
    thread_create("change-tss", change_tss, NULL, victim_cpu(), true);
    thread_sleep_us(5000000);
    ktest_fail(t, __FILE__, __LINE__, "%s TSS went unnoticed for 5 s",
               READ_ONCE(tss_changed) ? "a changed" : "the thread to change "
               "the");
}

static void break_df_stack(void *arg)
{
    struct cpu_info *ci = this_cpu();

    local_irq_disable();
    /* Never mapped: the top of the guarded region. */
    ci->tss.ist[IST_DF - 1] = STACKS_BASE + STACKS_SIZE - PAGE_SIZE;
    deep(0);
}

/*
 * Not part of ktest=all: a shimk fault that the CPU cannot report.  With
 * the #DF IST pointer aimed at an unmapped page, a stack overflow's #DF
 * cannot be delivered and the vCPU triple-faults.  The run must fail
 * with a verdict that blames shimk (the environment reads guest memory
 * and finds that CPU's TSS changed), never an L0 fault to be retried.
 */
KTEST_FLAGS(selftest_tss_triple, a_triple_fault_is_blamed_on_shimk,
            KTEST_EXPLICIT)
{
    thread_create("break-df", break_df_stack, NULL, victim_cpu(), true);
    thread_sleep_us(5000000);
    ktest_fail(t, __FILE__, __LINE__, "the broken CPU did not triple-fault");
}

static volatile bool deaf_ready;

static void spin_deaf(void *arg)
{
    local_irq_disable();
    WRITE_ONCE(deaf_ready, true);
    for ( ;; )
        cpu_relax();
}

/*
 * Not part of ktest=all: a flush target that never takes the IPI (its
 * interrupts off for ever) must end in the shootdown's own panic, which
 * says the target took no interrupts, and the report must show it
 * running with interrupts off (its NMI answer; under the nested
 * environments also KVM's view of it, docs/kvm-nested.md): the evidence
 * that tells a deaf shimk CPU from one its L0 never ran.
 */
KTEST_FLAGS(selftest_deaf_target, unacknowledged_flush_is_reported,
            KTEST_EXPLICIT)
{
    unsigned int other = victim_cpu();
    cpumask_t mask;

    if ( other == smp_processor_id() )
        KT_SKIP(t, "needs a second CPU");
    thread_create("deaf", spin_deaf, NULL, other, true);
    for ( unsigned int ms = 0; !READ_ONCE(deaf_ready) && ms < 5000; ms++ )
        mdelay(1);
    KT_ASSERTF(t, deaf_ready, "CPU%u never ran the deaf thread", other);
    cpumask_clear(&mask);
    cpumask_set_cpu(other, &mask);
    /* IPIs only: an L0 flush would need no answer from the target. */
    flush_area_mask(&mask, NULL, FLUSH_TLB | FLUSH_NO_ASSIST);
    ktest_fail(t, __FILE__, __LINE__,
               "a flush to a CPU with interrupts off for ever returned");
}
