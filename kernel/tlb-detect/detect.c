/* SPDX-License-Identifier: GPL-2.0-only */
/* The stale-TLB detector engine: tagged pages, readers, remappers. */

#include <shimk/aspace.h>
#include <shimk/errno.h>
#include <shimk/frame.h>
#include <shimk/heap.h>
#include <shimk/panic.h>
#include <shimk/printk.h>
#include <shimk/sched.h>
#include <shimk/spinlock.h>
#include <shimk/string.h>
#include <shimk/syscall-abi.h>
#include <shimk/task.h>
#include <shimk/time.h>
#include <shimk/tlb-detect.h>
#include <shimk/tlb-detect-power.h>
#include <asm/extable.h>
#include <asm/flush-inject.h>
#include <asm/flushtlb.h>
#include <asm/page.h>
#include <asm/paging.h>
#include <asm/percpu.h>
#include <asm/processor.h>
#include <asm/smp.h>
#include <user/programs.h>
#include "private.h"

/*
 * Every slot is a page holding a tag (slot, generation, frame).  A
 * remapper changes a slot's mapping, flushes, and only then publishes
 * the slot's next generation.  Readers, in ring 3 (user/detect.c) and
 * in the kernel, read the published generation first and the slot
 * after: an older tag, or another slot's, came through a translation
 * the flush should have removed.
 *
 * - User slots live in a task's address space (non-global, flushed
 *   through the space's CPU mask), remapped one by one or four at a
 *   time under one ranged flush; kernel slots live in a window of the
 *   shared kernel half, global when PGE is on, so they need
 *   FLUSH_TLB_GLOBAL on every CPU.
 * - Fault slots, read by the kernel readers only (a ring-3 fault would
 *   end a user reader), are unmapped (a read must then fault) or made
 *   read-only (a write must then fault).
 * - Table slots each sit alone in their page table, so unmapping one
 *   frees the table: the kernel readers also walk it in software with
 *   interrupts off, as aspace_user_range_ok() does, and the flush that
 *   frees it must wait for them (FLUSH_NO_ASSIST).
 * - A 2 MiB slot, tagged at both ends, is remapped whole.
 * - Fault slots are also unmapped lazily and mapped again at once: the
 *   map must drop what the lazy unmap left (aspace_map()).
 *
 * Old frames go straight back to the allocator (after the flush), so
 * they come back as other slots' new frames: a stale translation then
 * shows another slot's tag at once.
 */

static void add_item(struct detect_run *d, enum item_kind kind,
                     unsigned int index)
{
    d->item[d->nitems++] = (struct item){ .kind = kind, .index = index };
}

static int add_fault_slot(struct detect_run *d, vaddr_t va, unsigned int id,
                          bool table)
{
    struct fault_slot *fs = &d->fslot[d->nfslots];
    paddr_t pa = detect_new_frame();

    *fs = (struct fault_slot){ .va = va, .id = id, .table = table, .gen = 1 };
    detect_write_tag(pa, id, 1);
    if ( aspace_map(d->task->as, va, pa, ORDER_4K, PROT_READ | PROT_WRITE) )
        return -ENOMEM;
    add_item(d, ITEM_FAULT, d->nfslots++);
    return 0;
}

static int setup(struct detect_run *d, struct detect_result *r)
{
    const struct detect_config *cfg = d->cfg;
    struct detect_args *args;

    d->ops = cfg->mode == DETECT_SYNC ? cfg->ops : 0;
    d->task = task_create("detect");
    args = task_args(d->task);
    args->control_va = CONTROL_VA;

    d->ctl_pa = frame_alloc_user();
    d->ctl = phys_to_virt(d->ctl_pa);
    d->ctl->nslots = cfg->user_slots;
    d->ctl->slot_va = SLOT_VA;
    d->ctl->lazy = cfg->mode == DETECT_LAZY;
    d->ctl->pace_us = d->pace_us;
    d->ctl->burst = d->burst;
    if ( aspace_map(d->task->as, CONTROL_VA, d->ctl_pa, ORDER_4K, PROT_READ) )
        return -ENOMEM;

    for ( unsigned int s = 0; s < cfg->user_slots; s++ )
    {
        paddr_t pa = detect_new_frame();

        detect_write_tag(pa, s, 1);
        d->ctl->gen[s] = 1;
        if ( aspace_map(d->task->as, SLOT_VA + s * PAGE_SIZE, pa, ORDER_4K,
                        PROT_READ) )
            return -ENOMEM;
        if ( !(s % GROUP) )
            add_item(d, ITEM_GROUP, s / GROUP);
    }
    for ( unsigned int s = 0; s < cfg->kernel_slots; s++ )
    {
        paddr_t pa = detect_new_frame();

        detect_write_tag(pa, s, 1);
        d->kctl.gen[s] = 1;
        if ( pt_map(kernel_root, KWINDOW + s * PAGE_SIZE, pa, PT_ORDER_4K,
                    kernel_pte_nx | kernel_pte_global) )
            return -ENOMEM;
        add_item(d, ITEM_KSLOT, s);
    }
    if ( d->ops & (DETECT_OP_UNMAP | DETECT_OP_PROTECT | DETECT_OP_LAZY) )
        for ( unsigned int i = 0; i < FAULT_SLOTS; i++ )
            if ( add_fault_slot(d, FAULT_VA + i * PAGE_SIZE, FAULT_ID + i,
                                false) )
                return -ENOMEM;
    if ( d->ops & DETECT_OP_TABLE )
        for ( unsigned int i = 0; i < TABLE_SLOTS; i++ )
            if ( add_fault_slot(d, TABLE_SLOT_VA(i), TABLE_ID + i, true) )
                return -ENOMEM;
    if ( d->ops & DETECT_OP_HUGE )
    {
        /* One mapped, one for the next remap: two free at a time. */
        if ( frames_2m_free() < 2 )
        {
            d->ops &= ~DETECT_OP_HUGE;
            r->skipped_ops |= DETECT_OP_HUGE;
            r->skip_why = "fewer than two free 2 MiB frames";
        }
        else
        {
            d->huge_pa = frame_alloc_2m();
            detect_write_tag(d->huge_pa, DETECT_HUGE_SLOT, 1);
            detect_write_tag(d->huge_pa + SUPERPAGE_SIZE - PAGE_SIZE,
                             DETECT_HUGE_SLOT, 1);
            d->ctl->huge_gen = 1;
            if ( aspace_map(d->task->as, HUGE_VA, d->huge_pa, ORDER_2M,
                            PROT_READ) )
                return -ENOMEM;
            d->ctl->huge_va = HUGE_VA;
            add_item(d, ITEM_HUGE, 0);
        }
    }
    return 0;
}

/*
 * Unmap the kernel slots, flush, and only then free their frames: an
 * entry left on another CPU must not reach a frame already reused.
 */
static void teardown(struct detect_run *d)
{
    paddr_t old[DETECT_SLOTS_MAX];
    unsigned int n = 0;

    for ( unsigned int s = 0; s < d->cfg->kernel_slots; s++ )
    {
        uint64_t e;

        if ( !pt_unmap(kernel_root, KWINDOW + s * PAGE_SIZE, PT_ORDER_4K,
                       &e) )
            old[n++] = e & PTE_ADDR_MASK;
    }
    flush_area_mask(&cpu_online_mask, NULL, FLUSH_TLB_GLOBAL);
    for ( unsigned int i = 0; i < n; i++ )
        frame_free(old[i]);
    /* Lazy remaps' frames taken for a next remap that never came. */
    for ( unsigned int cpu = 0; cpu < NR_CPUS; cpu++ )
        if ( d->spare[cpu] )
            frame_free(d->spare[cpu]);
    /* The control page and the slots go with the task's space. */
}

static void first_bad(struct detect_result *r, unsigned int cpu,
                      const struct detect_reader *b, enum detect_catch c,
                      bool kernel)
{
    if ( !b->stale || r->stale_user || r->stale_kernel )
        return;
    r->bad_cpu = cpu;
    r->bad_catch = c;
    r->bad_slot = b->bad_slot;
    r->bad_gen = b->bad_gen;
    r->want_gen = b->want_gen;
    r->bad_kernel_mode = kernel;
}

static void collect(struct detect_run *d, struct detect_result *r)
{
    struct detect_args *args = task_args(d->task);
    unsigned int cpu;

    r->flushes = d->flushes;
    r->unchecked = d->unchecked;
    r->spin = d->spin;
    for ( unsigned int i = 0; i < NR_DETECT_OPS; i++ )
        r->ops[i] = d->ops_done[i];
    cpumask_copy(&r->reader_cpus, &d->reader_cpus);
    for_each_cpu ( cpu, &d->reader_cpus )
        r->checked_on[cpu] = d->checked_on[cpu];
    for ( unsigned int i = 0; i < d->nreaders; i++ )
    {
        struct detect_reader *u = &args->reader[i];
        enum detect_catch c = u->bad_slot == DETECT_HUGE_SLOT ? CATCH_HUGE
                                                              : CATCH_REMAP;

        r->reads_user += u->reads;
        r->old_reads += u->old;
        if ( u->stale )
            cpumask_set_cpu(d->user_cpu[i], &r->stale_cpus);
        first_bad(r, d->user_cpu[i], u, c, false);
        r->stale_user += u->stale;
        r->stale_by[c] += u->stale;
    }
    for_each_cpu ( cpu, &d->kreader_cpus )
    {
        struct kreader *k = &d->kreader[cpu];

        r->reads_kernel += k->r.reads;
        r->old_reads += k->r.old;
        if ( k->r.stale )
            cpumask_set_cpu(cpu, &r->stale_cpus);
        first_bad(r, cpu, &k->r, k->first, true);
        r->stale_kernel += k->r.stale;
        for ( unsigned int c = 0; c < NR_DETECT_CATCH; c++ )
            r->stale_by[c] += k->by[c];
        r->faults += k->faults;
        r->blocked_writes += k->blocked;
        r->walks += k->walks;
    }
    this_cpu()->flush.stale_reads += r->stale_user + r->stale_kernel;
}

/* How often a run says how far it got. */
#define PROGRESS_MS 20000

int tlb_detect_run(const struct detect_config *cfg, struct detect_result *r)
{
    struct detect_run *d = kzalloc(sizeof(*d));
    struct thread *kreaders[NR_CPUS];
    cpumask_t remap_cpus;
    unsigned int cpu, nrem = 0, idx = 0, nk = 0;
    enum tlb_inject boot_inject = TLB_INJECT_NONE;
    uint64_t waited, last, since, said;
    int rc;

    memset(r, 0, sizeof(*r));
    if ( cfg->user_slots > DETECT_SLOTS_MAX ||
         cfg->kernel_slots > DETECT_SLOTS_MAX || cfg->inject >= NR_TLB_INJECT )
    {
        kfree(d);
        return -EINVAL;
    }
    /*
     * Remappers and readers on their own CPUs (detect_place_cpus()): a
     * remapper sharing its CPU with readers would get a slice in three,
     * and fewer flushes would be checked.
     */
    if ( !detect_place_cpus(&cfg->place, &cpu_online_mask, smp_processor_id(),
                            &remap_cpus, &d->reader_cpus) )
    {
        kfree(d);
        return -EINVAL;
    }
    d->cfg = cfg;
    d->stall = ms_to_cycles(cfg->max_ms);
    d->spin = cfg->place.spin || detect_readers_spin();
    d->burst = d->spin ? SPIN_BURST : detect_burst;
    d->pace_us = detect_pace_us;
    rc = setup(d, r);
    if ( rc )
        return rc;
    cpumask_copy(&r->remap_cpus, &remap_cpus);

    /*
     * Readers: one user thread and one kernel thread on each such CPU;
     * spinning ones, one of either kind in turn, kernel first (only the
     * kernel readers read the kernel and fault slots).
     */
    for_each_cpu ( cpu, &d->reader_cpus )
    {
        bool spin = d->spin, user, kernel;

        user = cfg->user_slots && idx < DETECT_READERS_MAX &&
               (!spin || (nk & 1));
        kernel = !spin || !user;
        nk++;
        if ( user )
        {
            d->user_cpu[idx] = cpu;
            task_spawn(d->task, task_entry_va(user_detect_reader), idx++,
                       cpu);
        }
        d->nreaders = idx;
        if ( !kernel )
            continue;
        cpumask_set_cpu(cpu, &d->kreader_cpus);
        kreaders[cpu] = thread_alloc_detached("kreader", detect_kernel_reader, d,
                                              cpu);
        kreaders[cpu]->detached = false;
        kreaders[cpu]->aspace = d->task->as;
        aspace_get(d->task->as);
        thread_start(kreaders[cpu]);
    }
    d->start = rdtsc();
    /* A control's bug, from the first change on. */
    if ( cfg->inject )
    {
        boot_inject = __atomic_load_n(&tlb_inject, __ATOMIC_SEQ_CST);
        __atomic_store_n(&tlb_inject, cfg->inject, __ATOMIC_SEQ_CST);
    }
    for_each_cpu ( cpu, &remap_cpus )
    {
        struct remapper_arg *ra = kmalloc(sizeof(*ra));

        ra->d = d;
        ra->index = nrem++;
        __atomic_fetch_add(&d->remappers_running, 1, __ATOMIC_RELAXED);
        thread_create("remapper", detect_remapper, ra, cpu, true);
    }

    /*
     * A slow host only makes the run longer: it ends early only when
     * progress stopped, with no flush checked for max_ms (the runner's
     * own timeout bounds the whole), or at a stale read when asked.
     */
    last = 0;
    since = said = d->start;
    while ( !READ_ONCE(d->stop) && !detect_run_over(d) )
    {
        uint64_t now = rdtsc(), n = READ_ONCE(d->flushes);

        if ( n != last )
        {
            last = n;
            since = now;
        }
        else if ( now - since >= d->stall )
        {
            r->stalled_ms = cycles_to_ns(now - since) / 1000000;
            break;
        }
        /*
         * A long run says now and then how far it got: a user sees it
         * move, and under nested KVM L1 stops a guest silent for 60 s
         * (tools/kvm-l1-init, KVMRUN_SILENT).  Not a verdict.
         */
        if ( now - said >= ms_to_cycles(PROGRESS_MS) )
        {
            printk("# tlb detector: %lu of %lu flushes checked (%lu not) "
                   "in %lu s\n", (unsigned long)n,
                   (unsigned long)cfg->flushes,
                   (unsigned long)READ_ONCE(d->unchecked),
                   (unsigned long)(cycles_to_ns(now - d->start) /
                                   1000000000));
            said = now;
        }
        /*
         * Seldom: each look is a switch on CPU0, a reader's CPU, and
         * under Xen a switch's MSR writes exit, which empties the TLB
         * whose stale entries the readers are there to find.
         */
        thread_sleep_us(50000);
    }
    detect_stop_run(d);
    r->ms = cycles_to_ns(rdtsc() - d->start) / 1000000;

    waited = rdtsc();
    while ( READ_ONCE(d->remappers_running) )
    {
        if ( rdtsc() - waited > ms_to_cycles(WAIT_BOUND_MS) )
        {
            sched_dump();
            panic("tlb detector: %u remappers still running %u ms after "
                  "the stop", d->remappers_running, WAIT_BOUND_MS);
        }
        yield();
    }
    for_each_cpu ( cpu, &d->kreader_cpus )
    {
        if ( thread_join(kreaders[cpu], WAIT_BOUND_MS) )
            panic("tlb detector: kernel reader on CPU%u did not stop", cpu);
    }
    /*
     * Nothing changes any more: back to the boot's kernel, and no entry
     * the bug left behind may outlive the run.  A user reader still in
     * its last round reads through entries this flush leaves right.
     */
    if ( cfg->inject )
    {
        __atomic_store_n(&tlb_inject, boot_inject, __ATOMIC_SEQ_CST);
        flush_area_mask(&cpu_online_mask, NULL,
                        FLUSH_TLB_GLOBAL | FLUSH_NO_ASSIST);
    }

    /* User readers exit by themselves; collect before the task goes. */
    waited = rdtsc();
    while ( !READ_ONCE(d->task->done) && d->nreaders )
    {
        if ( rdtsc() - waited > ms_to_cycles(WAIT_BOUND_MS) )
        {
            sched_dump();
            panic("tlb detector: the user readers did not exit %u ms after "
                  "the stop", WAIT_BOUND_MS);
        }
        yield();
    }
    collect(d, r);

    teardown(d);
    if ( d->nreaders )
        task_wait(d->task, WAIT_BOUND_MS);
    else
    {
        task_kill(d->task);
        task_wait(d->task, WAIT_BOUND_MS);
    }
    kfree(d);
    return 0;
}

void detect_format(char *buf, size_t len, const struct detect_result *r)
{
    size_t n;
    unsigned int cpu;

    n = ksnprintf(buf, len, "changes: %lu remaps, %lu ranged, %lu unmaps "
                  "(%lu reads faulted), %lu protects (%lu writes faulted), "
                  "%lu table frees (%lu walks), %lu 2M, %lu lazy unmaps; "
                  "checked per CPU:",
                  (unsigned long)r->ops[0], (unsigned long)r->ops[1],
                  (unsigned long)r->ops[2], (unsigned long)r->faults,
                  (unsigned long)r->ops[3], (unsigned long)r->blocked_writes,
                  (unsigned long)r->ops[4], (unsigned long)r->walks,
                  (unsigned long)r->ops[5], (unsigned long)r->ops[6]);
    for_each_cpu ( cpu, &r->reader_cpus )
        if ( n < len )
            n += ksnprintf(buf + n, len - n, " %u:%lu", cpu,
                           (unsigned long)r->checked_on[cpu]);
    if ( r->skipped_ops && n < len )
        ksnprintf(buf + n, len - n, "; 2M skipped: %s", r->skip_why);
}
