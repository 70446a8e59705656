/* SPDX-License-Identifier: GPL-2.0-only */
/* Page sizes, page-table entry bits and the virtual memory layout. */
#ifndef ASM_PAGE_H
#define ASM_PAGE_H

#include <asm/asm-macros.h>

#define PAGE_SHIFT      12
#define PAGE_SIZE       (_AC(1, UL) << PAGE_SHIFT)
#define PAGE_MASK       (~(PAGE_SIZE - 1))
#define SUPERPAGE_SHIFT 21
#define SUPERPAGE_SIZE  (_AC(1, UL) << SUPERPAGE_SHIFT)
#define PT_ENTRIES      512

/*
 * 4-level paging entry bits, SDM Vol. 3A, 4.5 (tables 4-14 to 4-20).
 * PTE_PS selects a 2 MiB page in an L2 entry; on an L1 entry the same
 * bit is PAT, which shimk never uses.
 */
#define PTE_P    _AC(0x001, UL)
#define PTE_W    _AC(0x002, UL)
#define PTE_U    _AC(0x004, UL)
#define PTE_PWT  _AC(0x008, UL)
#define PTE_PCD  _AC(0x010, UL)
#define PTE_A    _AC(0x020, UL)
#define PTE_D    _AC(0x040, UL)
#define PTE_PS   _AC(0x080, UL)
#define PTE_G    _AC(0x100, UL)
#define PTE_NX   (_AC(1, UL) << 63)
/* Ignored by the CPU; shimk marks frames no address space owns. */
#define PTE_SOFT_SHARED _AC(0x200, UL)
#define PTE_ADDR_MASK _AC(0x000ffffffffff000, UL)

/*
 * Virtual layout (one PML4 slot is 512 GiB):
 *
 *   0000000000000000 - 00007fffffffffff  user, one per address space
 *   ffff800000000000 - ffff807fffffffff  direct map of RAM     (slot 256)
 *   ffffc00000000000 - ffffc07fffffffff  kernel heap           (slot 384)
 *   ffffd00000000000 - ffffd07fffffffff  guarded stacks and    (slot 416)
 *                                        per-CPU tables
 *   ffffe00000000000 - ffffe07fffffffff  MMIO (ioremap)        (slot 448)
 *   ffffffff80000000 - ffffffffbfffffff  kernel image, physical 0 + x
 *                                                      (slot 511, 2 GiB)
 *
 * Every kernel slot has its L3 table allocated before the first
 * address space is created, so all spaces share the kernel half by
 * copying the PML4 entries once.
 */
#define DIRECTMAP_BASE    _AC(0xffff800000000000, UL)
#define DIRECTMAP_SIZE    (_AC(512, UL) << 30)
#define HEAP_BASE         _AC(0xffffc00000000000, UL)
#define HEAP_SIZE         (_AC(512, UL) << 30)
#define STACKS_BASE       _AC(0xffffd00000000000, UL)
#define STACKS_SIZE       (_AC(512, UL) << 30)
#define IOREMAP_BASE      _AC(0xffffe00000000000, UL)
#define IOREMAP_SIZE      (_AC(512, UL) << 30)
#define KERNEL_VIRT_BASE  _AC(0xffffffff80000000, UL)
#define KERNEL_PHYS_BASE  _AC(0x100000, UL)
#define USER_TOP          _AC(0x0000800000000000, UL)

#define PML4_SLOT(va) (((va) >> 39) & 511)

/* Boot page tables identity-map (and direct-map) this much. */
#define BOOT_MAP_LIMIT    (_AC(4, UL) << 30)

#ifndef __ASSEMBLER__
#include <shimk/types.h>

static inline void *phys_to_virt(paddr_t pa)
{
    return (void *)(pa + DIRECTMAP_BASE);
}

static inline paddr_t virt_to_phys(const void *va)
{
    vaddr_t v = (vaddr_t)va;

    if ( v >= KERNEL_VIRT_BASE )
        return v - KERNEL_VIRT_BASE;
    return v - DIRECTMAP_BASE;
}

#define PFN_DOWN(pa) ((pa) >> PAGE_SHIFT)
#define PFN_UP(pa)   (((pa) + PAGE_SIZE - 1) >> PAGE_SHIFT)
#define PFN_PHYS(pfn) ((paddr_t)(pfn) << PAGE_SHIFT)
#endif

#endif /* ASM_PAGE_H */
