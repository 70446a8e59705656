/* SPDX-License-Identifier: GPL-2.0-only */
/* Page-table operations on any root, and the kernel's own tables. */
#ifndef ASM_PAGING_H
#define ASM_PAGING_H

#include <asm/page.h>
#include <shimk/types.h>

#define PT_ORDER_4K 0
#define PT_ORDER_2M 9

/*
 * Map one page of 2^order frames at va.  Intermediate tables are
 * allocated as needed (user-accessible below USER_TOP).  -EEXIST if
 * anything is mapped there already, -EINVAL for a misaligned va/pa,
 * -ENOMEM when a table cannot be allocated.
 */
int pt_map(paddr_t root, vaddr_t va, paddr_t pa, unsigned int order,
           uint64_t flags);

/*
 * Remove the mapping of va made with this order; the old entry goes
 * to *old (may be NULL).  -ENOENT if no such mapping.  The caller
 * flushes TLBs: this only edits memory.
 */
int pt_unmap(paddr_t root, vaddr_t va, unsigned int order, uint64_t *old);

/* Replace the flag bits of a mapping: (pte & ~clear) | set. */
int pt_protect(paddr_t root, vaddr_t va, unsigned int order, uint64_t set,
               uint64_t clear);

/*
 * Find the leaf mapping va: the entry and its order.  -ENOENT if va
 * is not mapped.
 */
int pt_lookup(paddr_t root, vaddr_t va, uint64_t *pte, unsigned int *order);

/* The present leaf entry mapping va with this order, or NULL. */
uint64_t *pt_leaf(paddr_t root, vaddr_t va, unsigned int order);

/*
 * Turn the 2 MiB mapping holding va into 512 4 KiB entries with the
 * same frames and bits, so that one page of it can change.  0 when va
 * is mapped with 4 KiB pages already, -ENOENT when not mapped,
 * -ENOMEM.  The caller flushes the TLB (SDM Vol. 3A, 4.10.4.2: a page
 * size change needs an invalidation).
 */
int pt_split(paddr_t root, vaddr_t va);

/* Physical address va translates to under root, or -ENOENT. */
int pt_translate(paddr_t root, vaddr_t va, paddr_t *pa);

/* --- kernel address space (arch/x86/mm/mm.c) --- */

/* The kernel's root table: the kernel half every address space shares. */
extern paddr_t kernel_root;

/* Flags for kernel mappings: PTE_G when global pages are enabled. */
extern uint64_t kernel_pte_global;

/* "global-pages=N (why)", for the boot policy line. */
void global_pages_policy_text(char *buf, size_t size);

/* Make the __ro_after_init data read-only, on every CPU; end of boot. */
void mark_ro_after_init(void);

/* Whether new kernel mappings get PTE_G (tlb_set_global_pages()). */
void kernel_pte_global_set(bool on);

/* PTE_NX when EFER.NXE is on, else 0 (the bit is reserved without it). */
extern uint64_t kernel_pte_nx;

struct boot_info;

/* Build the kernel's page tables from the memory map and load them. */
void mm_init(const struct boot_info *bi);

/* Map len bytes of device memory at pa, uncached; NULL on failure. */
void *ioremap(paddr_t pa, size_t len);

/* Map len bytes of firmware tables at pa, cached, read-only. */
const void *ioremap_ro(paddr_t pa, size_t len);

/* Map len bytes of memory shared with the L0 at pa, cached, writable. */
void *ioremap_cache(paddr_t pa, size_t len);

/*
 * For code the L0 writes into guest memory (Hyper-V's hypercall page):
 * map the frame at pa executable and read-only at a fresh address, and
 * write-protect its direct-map alias, so that shimk keeps no writable
 * mapping of it.  Boot CPU, before the APs start.  NULL on failure.
 */
const void *map_l0_code_page(paddr_t pa);

#endif /* ASM_PAGING_H */
