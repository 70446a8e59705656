/* SPDX-License-Identifier: GPL-2.0-only */
/* The kernel's own page tables: direct map, image, heap and MMIO slots. */

#include <shimk/boot-info.h>
#include <shimk/cmdline.h>
#include <shimk/frame.h>
#include <shimk/image.h>
#include <shimk/panic.h>
#include <shimk/printk.h>
#include <shimk/spinlock.h>
#include <asm/cpufeature.h>
#include <asm/flush-policy.h>
#include <asm/flushtlb.h>
#include <asm/guarded.h>
#include <asm/smp.h>
#include <asm/tlb-measure.h>
#include <asm/page.h>
#include <asm/paging.h>
#include <asm/percpu.h>
#include <asm/processor.h>

paddr_t kernel_root;
uint64_t kernel_pte_global;
uint64_t kernel_pte_nx;

static int8_t opt_global_pages = -1;
tristate_param("global-pages", opt_global_pages);
static uint64_t pge_cost, invpcid_cost, cr3_cost;  /* measured, cycles */

void global_pages_policy_text(char *buf, size_t size)
{
    bool on = kernel_pte_global != 0;

    if ( cr3_cost )
        ksnprintf(buf, size, "global-pages=%d (measured: PGE toggle pair "
                  "%lu, INVPCID %lu, CR3 reload %lu cycles)", on,
                  (unsigned long)pge_cost, (unsigned long)invpcid_cost,
                  (unsigned long)cr3_cost);
    else
        ksnprintf(buf, size, "global-pages=%d (%s)", on,
                  opt_global_pages >= 0 ? "option" :
                  boot_cpu.pge ? "default" : "no PGE");
}

static DEFINE_SPINLOCK(ioremap_lock);
static vaddr_t ioremap_next = IOREMAP_BASE;

static void map_or_panic(vaddr_t va, paddr_t pa, unsigned int order,
                         uint64_t flags)
{
    int rc = pt_map(kernel_root, va, pa, order, flags);

    if ( rc )
        panic("mm: cannot map %#lx -> %#lx (order %u): error %d",
              (unsigned long)va, (unsigned long)pa, order, rc);
}

/* Map [pa, pa + len) at va, with 2 MiB pages where alignment allows. */
static void map_range(vaddr_t va, paddr_t pa, uint64_t len, uint64_t flags)
{
    uint64_t done = 0;

    while ( done < len )
    {
        if ( IS_ALIGNED(pa + done, SUPERPAGE_SIZE) &&
             IS_ALIGNED(va + done, SUPERPAGE_SIZE) &&
             len - done >= SUPERPAGE_SIZE )
        {
            map_or_panic(va + done, pa + done, PT_ORDER_2M, flags);
            done += SUPERPAGE_SIZE;
        }
        else
        {
            map_or_panic(va + done, pa + done, PT_ORDER_4K, flags);
            done += PAGE_SIZE;
        }
    }
}

/*
 * The direct map covers what the kernel may read through it: the
 * first MiB (BIOS tables, the RSDP, the AP trampoline) and every RAM,
 * ACPI and NVS range.  Other holes stay unmapped, so a stray pointer
 * into MMIO space faults instead of touching a device with WB caching.
 */
static void map_direct(const struct boot_info *bi)
{
    uint64_t flags = PTE_W | kernel_pte_nx | kernel_pte_global;
    paddr_t mapped_to = 0x100000;

    map_range(DIRECTMAP_BASE, 0, mapped_to, flags);
    for ( unsigned int i = 0; i < bi->nr_mmap; i++ )
    {
        const struct mmap_entry *e = &bi->mmap[i];
        paddr_t lo = ROUNDDOWN(e->base, PAGE_SIZE);
        paddr_t hi = ROUNDUP(e->base + e->len, PAGE_SIZE);

        if ( e->type != MMAP_RAM && e->type != MMAP_ACPI &&
             e->type != MMAP_NVS )
            continue;
        if ( hi > DIRECTMAP_SIZE )
            panic("mm: RAM at %#lx is beyond the direct map",
                  (unsigned long)hi);
        /* The sanitized map is sorted; ranges may share edge pages. */
        if ( lo < mapped_to )
            lo = mapped_to;
        if ( lo < hi )
            map_range(DIRECTMAP_BASE + lo, lo, hi - lo, flags);
        if ( hi > mapped_to )
            mapped_to = hi;
    }
}

static void map_image_part(const char *start, const char *end,
                           uint64_t flags)
{
    vaddr_t va = (vaddr_t)start;

    for ( ; va < (vaddr_t)end; va += PAGE_SIZE )
        /* The pages below the boot CPU's stacks and tables stay holes. */
        if ( !guarded_is_static_guard(va) )
            map_or_panic(va, va - KERNEL_VIRT_BASE, PT_ORDER_4K,
                         flags | kernel_pte_global);
}

void mm_init(const struct boot_info *bi)
{
    static const vaddr_t kernel_slots[] = { DIRECTMAP_BASE, HEAP_BASE,
                                            STACKS_BASE, IOREMAP_BASE,
                                            KERNEL_VIRT_BASE };
    uint64_t *root;
    bool pge;

    kernel_pte_nx = boot_cpu.nx ? PTE_NX : 0;
    pge = global_pages_resolve(opt_global_pages, boot_cpu.pge,
                               boot_cpu.vendor, boot_cpu.hypervisor);
    if ( opt_global_pages == 1 && !boot_cpu.pge )
        pr_warn("global-pages=1 but the CPU has no PGE (kept 0)\n");
    if ( opt_global_pages < 0 && boot_cpu.pge )
    {
        /*
         * No option: measure instead of trusting the vendor rule (Xen
         * guesses that CR4 writes trap on AMD; here we time them).
         */
        this_cpu()->cr4 = read_cr4();
        pge_cost = measure_pge_toggle(64);
        invpcid_cost = measure_invpcid_all(64);
        cr3_cost = measure_cr3_reload(64);
        pge = global_pages_measured(pge_cost, invpcid_cost, cr3_cost);
    }
    kernel_pte_global = pge ? PTE_G : 0;

    kernel_root = frame_alloc();
    root = phys_to_virt(kernel_root);
    /* Shared L3 tables: every address space copies these entries. */
    for ( unsigned int i = 0; i < ARRAY_SIZE(kernel_slots); i++ )
        root[PML4_SLOT(kernel_slots[i])] = frame_alloc() | PTE_P | PTE_W;

    map_direct(bi);
    map_image_part(__text_start, __text_end, 0);
    map_image_part(__rodata_start, __rodata_end, kernel_pte_nx);
    map_image_part(__data_start, __image_end, PTE_W | kernel_pte_nx);

    /* For an L0's register dump: which CR3 is the kernel's own. */
    pr_debug("mm: kernel root at %#lx\n", (unsigned long)kernel_root);
    write_cr3(kernel_root);
    if ( pge )
        write_cr4(read_cr4() | X86_CR4_PGE);
    else
        write_cr4(read_cr4() & ~X86_CR4_PGE);
}

void mark_ro_after_init(void)
{
    extern char __ro_after_init_start[], __ro_after_init_end[];

    for ( vaddr_t va = (vaddr_t)__ro_after_init_start;
          va < (vaddr_t)__ro_after_init_end; va += PAGE_SIZE )
        if ( pt_protect(kernel_root, va, PT_ORDER_4K, 0, PTE_W) )
            panic("mm: cannot write-protect %#lx", (unsigned long)va);
    /* The entries may be global, and every CPU may cache them. */
    flush_area_mask(&cpu_online_mask, NULL, FLUSH_TLB_GLOBAL);
}

void kernel_pte_global_set(bool on)
{
    kernel_pte_global = on && boot_cpu.pge ? PTE_G : 0;
}

/* flags: every leaf bit but P and G (added here); NX is the caller's. */
static void *ioremap_flags(paddr_t pa, size_t len, uint64_t flags)
{
    paddr_t base = ROUNDDOWN(pa, PAGE_SIZE);
    uint64_t size = ROUNDUP(pa + len, PAGE_SIZE) - base;
    unsigned long f = spin_lock_irqsave(&ioremap_lock);
    vaddr_t va = ioremap_next;

    if ( va + size > IOREMAP_BASE + IOREMAP_SIZE )
    {
        spin_unlock_irqrestore(&ioremap_lock, f);
        return NULL;
    }
    ioremap_next += size;
    for ( uint64_t off = 0; off < size; off += PAGE_SIZE )
        if ( pt_map(kernel_root, va + off, base + off, PT_ORDER_4K,
                    flags | kernel_pte_global) )
        {
            spin_unlock_irqrestore(&ioremap_lock, f);
            return NULL;
        }
    spin_unlock_irqrestore(&ioremap_lock, f);
    return (void *)(va + (pa - base));
}

void *ioremap(paddr_t pa, size_t len)
{
    return ioremap_flags(pa, len, PTE_W | PTE_PCD | PTE_PWT | kernel_pte_nx);
}

const void *ioremap_ro(paddr_t pa, size_t len)
{
    return ioremap_flags(pa, len, kernel_pte_nx);
}

void *ioremap_cache(paddr_t pa, size_t len)
{
    return ioremap_flags(pa, len, PTE_W | kernel_pte_nx);
}

const void *map_l0_code_page(paddr_t pa)
{
    vaddr_t alias = (vaddr_t)phys_to_virt(pa);
    uint64_t pte;
    unsigned int order;
    const void *va;

    if ( pa & ~PAGE_MASK )
        return NULL;
    /*
     * RAM is direct-mapped writable, with 2 MiB pages where it can be:
     * split the one holding pa, then drop W from its 4 KiB entry.  A
     * frame outside the direct map (not RAM) has no alias to protect.
     */
    if ( !pt_lookup(kernel_root, alias, &pte, &order) &&
         (pt_split(kernel_root, alias) ||
          pt_protect(kernel_root, alias, PT_ORDER_4K, 0, PTE_W)) )
        return NULL;
    /* Read-only, and executable: no NX. */
    va = ioremap_flags(pa, PAGE_SIZE, 0);
    /* The old alias entry may be cached anywhere, globally or not. */
    flush_area_mask(&cpu_online_mask, NULL, FLUSH_TLB_GLOBAL);
    return va;
}
