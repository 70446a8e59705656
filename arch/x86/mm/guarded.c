/* SPDX-License-Identifier: GPL-2.0-only */
/* Guarded kernel stacks and per-CPU tables: slots with an unmapped floor. */

#include <shimk/frame.h>
#include <shimk/panic.h>
#include <shimk/printk.h>
#include <shimk/spinlock.h>
#include <shimk/string.h>
#include <asm/guarded.h>
#include <asm/page.h>
#include <asm/paging.h>

/*
 * Slot i covers [STACKS_BASE + i * GUARDED_SLOT_SIZE, + GUARDED_SLOT_
 * SIZE); its area is the top `pages` pages of it, everything below is
 * never mapped.  4096 slots use 128 MiB of the region's 512 GiB: far
 * more than shimk's threads, CPUs and IST stacks at any one time, since
 * a freed slot is reused.
 */
#define NR_SLOTS    4096u
#define MAX_PAGES   (GUARDED_MAX_BYTES / PAGE_SIZE)
#define NR_STATIC   8u

struct owner
{
    uint8_t kind;                   /* enum guarded_kind */
    uint8_t pages;                  /* mapped pages; 0: never used */
    uint16_t cpu;
    uint32_t thread_id;
    char name[24];
};

static struct owner owners[NR_SLOTS];
/* Free slots by mapped size: slot + 1 of the first, 0 for none. */
static uint32_t free_head[MAX_PAGES + 1];
static uint32_t free_next[NR_SLOTS];
static uint32_t next_slot;          /* first never-used slot */
static uint64_t mapped_pages;       /* in slots, used or free */
static DEFINE_SPINLOCK(guarded_lock);

static struct
{
    uint64_t lo, hi;
    struct owner o;
} statics[NR_STATIC];
static unsigned int nr_statics;

static uint64_t slot_base(uint32_t slot)
{
    return STACKS_BASE + (uint64_t)slot * GUARDED_SLOT_SIZE;
}

static uint64_t area_lo(uint32_t slot, unsigned int pages)
{
    return slot_base(slot) + GUARDED_SLOT_SIZE - pages * PAGE_SIZE;
}

static void set_owner(struct owner *o, enum guarded_kind kind,
                      unsigned int cpu, const char *name, unsigned int id)
{
    o->kind = kind;
    o->cpu = cpu;
    o->thread_id = id;
    ksnprintf(o->name, sizeof(o->name), "%s", name ? name : "");
}

BUILD_BUG_ON(NR_SLOTS * (uint64_t)GUARDED_SLOT_SIZE > STACKS_SIZE);
BUILD_BUG_ON(MAX_PAGES > 255);

/*
 * Every page table the region will need, made once at boot: a slot's
 * first use then maps leaves only, so the frames it takes are exactly
 * its pages (guarded_mapped_bytes(), which the leak checks count).
 */
void guarded_init(void)
{
    paddr_t pa = frame_alloc();

    for ( uint64_t va = STACKS_BASE;
          va < STACKS_BASE + (uint64_t)NR_SLOTS * GUARDED_SLOT_SIZE;
          va += SUPERPAGE_SIZE )
        if ( pt_map(kernel_root, va, pa, PT_ORDER_4K, PTE_W) ||
             pt_unmap(kernel_root, va, PT_ORDER_4K, NULL) )
            panic("guarded areas: no page table for %#lx",
                  (unsigned long)va);
    /* Never reached through: no CPU has run with it mapped. */
    frame_free(pa);
}

uint64_t guarded_mapped_bytes(void)
{
    return READ_ONCE(mapped_pages) * PAGE_SIZE;
}

/* Map a fresh slot's area; guarded_lock held. */
static void map_slot(uint32_t slot, unsigned int pages)
{
    for ( unsigned int i = 0; i < pages; i++ )
    {
        uint64_t va = area_lo(slot, pages) + i * PAGE_SIZE;
        paddr_t pa = frame_try_alloc();
        int rc;

        if ( !pa )
            panic("out of memory: no frame for a guarded stack (%u frames "
                  "free)", frames_free());
        rc = pt_map(kernel_root, va, pa, PT_ORDER_4K,
                    PTE_W | kernel_pte_nx | kernel_pte_global);
        if ( rc )
            panic("guarded areas: mapping %#lx failed: %d",
                  (unsigned long)va, rc);
    }
}

void *guarded_alloc(size_t bytes, enum guarded_kind kind, unsigned int cpu,
                    const char *name, unsigned int id)
{
    unsigned int pages = ROUNDUP(bytes, PAGE_SIZE) / PAGE_SIZE;
    unsigned long f;
    uint32_t slot;
    void *area;

    if ( !pages || pages > MAX_PAGES || kind == GUARDED_FREE ||
         kind >= GUARDED_NR_KINDS )
        panic("guarded_alloc(%zu bytes, kind %u): at most %u bytes of a "
              "real kind", bytes, kind, GUARDED_MAX_BYTES);

    f = spin_lock_irqsave(&guarded_lock);
    if ( free_head[pages] )
    {
        slot = free_head[pages] - 1;
        free_head[pages] = free_next[slot];
    }
    else
    {
        if ( next_slot >= NR_SLOTS )
            panic("guarded areas: all %u slots are in use (threads not "
                  "freed?)", NR_SLOTS);
        slot = next_slot;
        map_slot(slot, pages);
        owners[slot].pages = pages;
        mapped_pages += pages;
        /* Published after the mapping: guarded_lookup() reads it. */
        WRITE_ONCE(next_slot, slot + 1);
    }
    set_owner(&owners[slot], kind, cpu, name, id);
    spin_unlock_irqrestore(&guarded_lock, f);

    area = (void *)area_lo(slot, pages);
    memset(area, 0, pages * PAGE_SIZE);
    return area;
}

void guarded_free(void *area)
{
    uint64_t va = (uint64_t)area;
    uint32_t slot;
    unsigned long f;
    struct owner *o;

    if ( !area )
        return;
    slot = (va - STACKS_BASE) / GUARDED_SLOT_SIZE;
    if ( va < STACKS_BASE || slot >= READ_ONCE(next_slot) )
        panic("guarded_free(%p): not a guarded area", area);

    f = spin_lock_irqsave(&guarded_lock);
    o = &owners[slot];
    if ( o->kind == GUARDED_FREE || va != area_lo(slot, o->pages) )
        panic("guarded_free(%p): slot %u is %s", area, slot,
              o->kind == GUARDED_FREE ? "free already" :
                                        "not at this address");
    /* Kept mapped for the next area of its size: no shootdown. */
    o->kind = GUARDED_FREE;
    free_next[slot] = free_head[o->pages];
    free_head[o->pages] = slot + 1;
    spin_unlock_irqrestore(&guarded_lock, f);
}

void guarded_register_static(void *lo, size_t bytes, enum guarded_kind kind,
                             unsigned int cpu, const char *name)
{
    uint64_t va = (uint64_t)lo;

    if ( nr_statics >= NR_STATIC || (va & (PAGE_SIZE - 1)) )
        panic("guarded_register_static(%p): no room or not page aligned",
              lo);
    statics[nr_statics].lo = va;
    statics[nr_statics].hi = va + bytes;
    set_owner(&statics[nr_statics].o, kind, cpu, name, 0);
    nr_statics++;
}

bool guarded_is_static_guard(uint64_t va)
{
    for ( unsigned int i = 0; i < nr_statics; i++ )
        if ( (va & PAGE_MASK) == statics[i].lo - PAGE_SIZE )
            return true;
    return false;
}

static void fill(struct guarded_hit *hit, uint64_t lo, uint64_t hi,
                 const struct owner *o, uint64_t va)
{
    hit->where = va >= lo ? GUARDED_IN_AREA : GUARDED_IN_GUARD;
    hit->lo = lo;
    hit->hi = hi;
    hit->kind = o->kind;
    hit->cpu = o->cpu;
    hit->thread_id = o->thread_id;
    memcpy(hit->name, o->name, sizeof(hit->name));
    hit->name[sizeof(hit->name) - 1] = '\0';
}

void guarded_lookup(uint64_t va, struct guarded_hit *hit)
{
    uint32_t used = READ_ONCE(next_slot);

    hit->where = GUARDED_NONE;
    for ( unsigned int i = 0; i < nr_statics; i++ )
        if ( va >= statics[i].lo - PAGE_SIZE && va < statics[i].hi )
        {
            fill(hit, statics[i].lo, statics[i].hi, &statics[i].o, va);
            return;
        }
    if ( va >= STACKS_BASE &&
         va < STACKS_BASE + (uint64_t)used * GUARDED_SLOT_SIZE )
    {
        uint32_t slot = (va - STACKS_BASE) / GUARDED_SLOT_SIZE;
        const struct owner *o = &owners[slot];
        uint64_t lo = area_lo(slot, o->pages);

        fill(hit, lo, slot_base(slot) + GUARDED_SLOT_SIZE, o, va);
    }
}

const char *guarded_kind_name(enum guarded_kind kind)
{
    static const char *const names[GUARDED_NR_KINDS] = {
        [GUARDED_FREE] = "free stack slot",
        [GUARDED_THREAD] = "stack",
        [GUARDED_CPU_STACK] = "own stack",
        [GUARDED_IST_NMI] = "NMI IST stack",
        [GUARDED_IST_DF] = "#DF IST stack",
        [GUARDED_IST_MC] = "#MC IST stack",
        [GUARDED_CPU_TABLES] = "GDT and TSS (struct cpu_info)",
    };

    return kind < GUARDED_NR_KINDS && names[kind] ? names[kind] : "?";
}

int guarded_describe(char *buf, size_t size, const struct guarded_hit *hit)
{
    const char *guard = hit->where == GUARDED_IN_GUARD ?
                        "the guard page below " : "";

    if ( hit->where == GUARDED_NONE )
        return ksnprintf(buf, size, "no guarded area");
    if ( hit->kind == GUARDED_THREAD )
        return ksnprintf(buf, size, "%sthread '%s' (id %u) %s [%#lx-%#lx)",
                         guard, hit->name, hit->thread_id,
                         guarded_kind_name(hit->kind),
                         (unsigned long)hit->lo, (unsigned long)hit->hi);
    if ( hit->kind == GUARDED_FREE )
        return ksnprintf(buf, size, "%sa %s [%#lx-%#lx)", guard,
                         guarded_kind_name(hit->kind),
                         (unsigned long)hit->lo, (unsigned long)hit->hi);
    return ksnprintf(buf, size, "%sCPU%u's %s [%#lx-%#lx)", guard, hit->cpu,
                     guarded_kind_name(hit->kind), (unsigned long)hit->lo,
                     (unsigned long)hit->hi);
}
