/* SPDX-License-Identifier: GPL-2.0-only */
/* A lazy unmap, then a map of the same address: no stale frame after. */

#include <shimk/aspace.h>
#include <shimk/frame.h>
#include <shimk/ktest.h>
#include <shimk/sched.h>
#include <shimk/syscall-abi.h>
#include <shimk/time.h>
#include <asm/flush-inject.h>
#include <asm/flushtlb.h>
#include <asm/page.h>
#include <asm/percpu.h>
#include <asm/processor.h>
#include <asm/smp.h>

/*
 * aspace_unmap_lazy() leaves other CPUs' entries for va in place; the
 * old frame is flushed for only when it is reused.  A later map of va
 * to another frame is "not present to present", which needs no flush
 * only if no CPU still holds the entry the lazy unmap removed.
 *
 * A kernel reader on CPU B runs in a test space and caches va -> old
 * frame.  Here (CPU A, outside the space) va is lazily unmapped, mapped
 * to a new frame tagged with the round, and the round is published.
 * B, once it sees the round, must read the new tag through va.
 *
 * The new frame comes two ways, alternating:
 * - from frame_alloc_user(), as SYS_MAP gets it: the oldest deferred
 *   frame, freed before B's latest full flush, so the allocator's clock
 *   filter rightly skips B (B is stamped newer than that frame's last
 *   use); only the map itself can still drop B's entry for va;
 * - from the clean pool (frame_alloc()): no allocator flush at all, as
 *   when the deferred list is empty; this one needs no TLB clock, so
 *   it also bites with the clock off (assisted flush).
 *
 * The first rounds are a control, with the map's flush left out
 * (tlb-inject=lazy-map): if none of them reads the old frame,
 * the environment drops the reader's entry by itself (under Xen in QEMU
 * TCG it did, every round) and the case can prove nothing: it skips.
 */

#define LAZY_VA         (USER_HEAP_VA + 0x30000000ull)
#define LAZY_CONTROL    20
#define LAZY_ROUNDS     200
#define LAZY_ALL        (LAZY_CONTROL + LAZY_ROUNDS)
#define LAZY_WAIT_MS    5000
#define LAZY_MAGIC      0x4c415a59ull   /* "LAZY" */

struct lazy_run
{
    struct aspace *as;
    volatile uint64_t want;     /* round the reader is asked to cache */
    volatile uint64_t cached;   /* round it has cached va for */
    volatile uint64_t gen;      /* round whose frame va now maps */
    volatile uint64_t seen;     /* round it has checked */
    volatile bool stop;
    uint64_t control_stale;     /* in the control rounds */
    uint64_t stale[2];          /* per frame source, after them */
    uint64_t first_round, first_tag;
};

static struct lazy_run lazy_run;

static void lazy_write_tag(paddr_t pa, uint64_t round)
{
    volatile uint64_t *p = phys_to_virt(pa);

    p[0] = LAZY_MAGIC;
    p[1] = round;
}

static uint64_t lazy_read_tag(void)
{
    const volatile uint64_t *p = (const volatile uint64_t *)LAZY_VA;

    return p[0] == LAZY_MAGIC ? p[1] : ~0ull;
}

/*
 * Spin (the space stays loaded: no switch to idle) until *v == want.
 * relax: PAUSE, and look at the clock, at every turn.  The reader does
 * neither while it holds the entry under test: under Xen a PAUSE loop
 * and an emulated RDTSC both exit to the L0, and in QEMU TCG each exit
 * empties the vCPU's TLB, which would hide a missing flush.
 */
static bool lazy_wait(const volatile uint64_t *v, uint64_t want,
                      const volatile bool *stop, bool relax)
{
    uint64_t start = rdtsc(), bound = ms_to_cycles(LAZY_WAIT_MS);
    unsigned int spins = 0;

    while ( __atomic_load_n(v, __ATOMIC_ACQUIRE) != want )
    {
        if ( relax )
            cpu_relax();
        else if ( ++spins % (1u << 22) )
            continue;
        if ( (stop && READ_ONCE(*stop)) || rdtsc() - start > bound )
            return false;
    }
    return true;
}

static void lazy_reader(void *arg)
{
    struct lazy_run *r = arg;

    for ( uint64_t round = 1; round <= LAZY_ALL; round++ )
    {
        uint64_t tag;

        if ( !lazy_wait(&r->want, round, &r->stop, true) )
            return;
        /*
         * A full flush now stamps this CPU after every frame freed so
         * far, so the allocator's filter will skip it; then cache the
         * current translation of va.
         */
        flush_area_local(NULL, FLUSH_TLB);
        (void)lazy_read_tag();
        __atomic_store_n(&r->cached, round, __ATOMIC_RELEASE);

        if ( !lazy_wait(&r->gen, round, &r->stop, false) )
            return;
        tag = lazy_read_tag();
        if ( tag != round && round <= LAZY_CONTROL )
            r->control_stale++;
        else if ( tag != round )
        {
            if ( !r->stale[0] && !r->stale[1] )
            {
                r->first_round = round;
                r->first_tag = tag;
            }
            r->stale[round % 2]++;
        }
        __atomic_store_n(&r->seen, round, __ATOMIC_RELEASE);
    }
}

KTEST(tlb, lazy_unmap_then_map)
{
    struct lazy_run *r = &lazy_run;
    unsigned int self = smp_processor_id(), b, skipped_b = 0, clean = 0;
    enum tlb_inject inject = tlb_inject;
    uint32_t dirty_before = frames_dirty(), extra;
    struct thread *th;
    paddr_t pa;
    bool ok = true;

    b = cpumask_first(&cpu_online_mask);
    if ( b == self )
        b = cpumask_next(&cpu_online_mask, self + 1);
    if ( b >= NR_CPUS )
        KT_SKIP(t, "needs a second CPU for the reader");

    *r = (struct lazy_run){ 0 };
    r->as = aspace_create();
    pa = frame_alloc();
    lazy_write_tag(pa, 0);
    KT_EQ(t, aspace_map(r->as, LAZY_VA, pa, ORDER_4K, PROT_READ), 0);
    /* The deferred list must never hold only the frame just unmapped. */
    frame_free_deferred(frame_alloc());

    th = thread_alloc_detached("lazy-reader", lazy_reader, r, b);
    th->detached = false;
    th->aspace = r->as;
    aspace_get(r->as);
    thread_start(th);

    for ( uint64_t round = 1; round <= LAZY_ALL && ok; round++ )
    {
        bool control = round <= LAZY_CONTROL;
        cpumask_t flushed;

        tlb_inject = control ? TLB_INJECT_LAZY_MAP : inject;
        __atomic_store_n(&r->want, round, __ATOMIC_RELEASE);
        if ( !(ok = lazy_wait(&r->cached, round, NULL, false)) )
            break;
        if ( aspace_unmap_lazy(r->as, LAZY_VA, ORDER_4K) )
        {
            ok = false;
            break;
        }
        if ( round % 2 )
        {
            pa = frame_alloc_user_mask(&flushed);
            skipped_b += !control && !cpumask_test_cpu(b, &flushed);
        }
        else
        {
            pa = frame_alloc();
            clean += !control;
        }
        lazy_write_tag(pa, round);
        if ( aspace_map(r->as, LAZY_VA, pa, ORDER_4K, PROT_READ) )
        {
            ok = false;
            break;
        }
        __atomic_store_n(&r->gen, round, __ATOMIC_RELEASE);
        ok = lazy_wait(&r->seen, round, NULL, false);
    }
    tlb_inject = inject;
    WRITE_ONCE(r->stop, true);
    if ( thread_join(th, LAZY_WAIT_MS) )
        KT_ASSERTF(t, false, "reader on CPU%u did not stop", b);
    aspace_put(r->as);

    /* Give back the deferred frames this test added (clean rounds). */
    extra = frames_dirty() > dirty_before ? frames_dirty() - dirty_before : 0;
    for ( uint32_t i = 0; i < extra; i++ )
        frame_free(frame_alloc_user());

    KT_ASSERTF(t, ok, "handshake with the reader on CPU%u timed out "
               "(want %lu cached %lu gen %lu seen %lu)", b,
               (unsigned long)r->want, (unsigned long)r->cached,
               (unsigned long)r->gen, (unsigned long)r->seen);
    ktest_note("lazy-unmap: control (no flush at map): %lu of %u rounds "
               "stale", (unsigned long)r->control_stale, LAZY_CONTROL);
    ktest_note("lazy-unmap: %u rounds, reader CPU%u; %u new frames from "
               "the deferred list (the clock skipped the reader for %u), "
               "%u from the clean pool; stale reads %lu and %lu",
               LAZY_ROUNDS, b, LAZY_ROUNDS - clean, skipped_b, clean,
               (unsigned long)r->stale[1], (unsigned long)r->stale[0]);
    KT_ASSERTF(t, !r->stale[0] && !r->stale[1],
               "%lu/%u rounds read the old frame via va after the map "
               "(%lu deferred, %lu clean; first round %lu tag %#lx)",
               (unsigned long)(r->stale[0] + r->stale[1]), LAZY_ROUNDS,
               (unsigned long)r->stale[1], (unsigned long)r->stale[0],
               (unsigned long)r->first_round, (unsigned long)r->first_tag);
    if ( !r->control_stale )
        KT_SKIP(t, "inconclusive: no control round read the old frame, "
                "so this environment drops the entry by itself");
}
