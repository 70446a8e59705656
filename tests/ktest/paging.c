/* SPDX-License-Identifier: GPL-2.0-only */
/* ktest: page-table map, unmap, protect and translate on a scratch root. */

#include <shimk/errno.h>
#include <shimk/frame.h>
#include <shimk/ktest.h>
#include <shimk/string.h>
#include <asm/page.h>
#include <asm/paging.h>
#include <asm/probe.h>
#include <asm/processor.h>

/*
 * A scratch address space: a root sharing the kernel half, whose user
 * half is private.  Tests switch CR3 to it only while they touch the
 * test addresses, with interrupts off.
 */
#define TEST_VA_4K 0x0000100000000000ul
#define TEST_VA_2M 0x0000100040000000ul

static paddr_t scratch_root(void)
{
    paddr_t root = frame_alloc();
    uint64_t *r = phys_to_virt(root);
    const uint64_t *k = phys_to_virt(kernel_root);

    memcpy(r + 256, k + 256, 256 * sizeof(uint64_t));
    return root;
}

/* Free the user half's tables (the leaf frames belong to the test). */
static void free_tables(paddr_t table, unsigned int level)
{
    uint64_t *t = phys_to_virt(table);

    for ( unsigned int i = 0; i < (level == 4 ? 256 : PT_ENTRIES); i++ )
        if ( level > 1 && (t[i] & PTE_P) && !(t[i] & PTE_PS) )
            free_tables(t[i] & PTE_ADDR_MASK, level - 1);
    frame_free(table);
}

/* Read va through root; -EFAULT if it faults. */
static int read_via(paddr_t root, vaddr_t va, uint64_t *val)
{
    unsigned long f = local_irq_save();
    unsigned long old = read_cr3();
    int rc;

    write_cr3(root);
    rc = probe_read_u64((const void *)va, val);
    write_cr3(old);
    local_irq_restore(f);
    return rc;
}

KTEST(paging, map_translate_read_unmap_4k)
{
    paddr_t root = scratch_root(), frame = frame_alloc(), pa;
    uint64_t v, old;

    *(uint64_t *)phys_to_virt(frame + 8) = 0x5eed5eed;
    KT_EQ(t, pt_map(root, TEST_VA_4K, frame, PT_ORDER_4K, PTE_W), 0);
    KT_EQ(t, pt_translate(root, TEST_VA_4K + 8, &pa), 0);
    KT_EQ(t, pa, frame + 8);
    KT_EQ(t, read_via(root, TEST_VA_4K + 8, &v), 0);
    KT_EQ(t, v, 0x5eed5eed);

    KT_EQ(t, pt_map(root, TEST_VA_4K, frame, PT_ORDER_4K, PTE_W), -EEXIST);
    KT_EQ(t, pt_unmap(root, TEST_VA_4K, PT_ORDER_4K, &old), 0);
    KT_EQ(t, old & PTE_ADDR_MASK, frame);
    KT_EQ(t, pt_translate(root, TEST_VA_4K, &pa), -ENOENT);
    /* CR3 writes flush non-global entries: the read must fault now. */
    KT_EQ(t, read_via(root, TEST_VA_4K + 8, &v), -EFAULT);
    KT_EQ(t, pt_unmap(root, TEST_VA_4K, PT_ORDER_4K, NULL), -ENOENT);

    free_tables(root, 4);
    frame_free(frame);
}

KTEST(paging, map_2m_superpage)
{
    paddr_t root = scratch_root(), pa;
    uint64_t pte, v;
    unsigned int order;
    /* Any 2 MiB-aligned RAM will do to read: the kernel image's. */
    paddr_t big = 0;

    KT_EQ(t, pt_map(root, TEST_VA_2M, big, PT_ORDER_2M, 0), 0);
    KT_EQ(t, pt_lookup(root, TEST_VA_2M + 0x12345, &pte, &order), 0);
    KT_EQ(t, order, PT_ORDER_2M);
    KT_ASSERT(t, pte & PTE_PS);
    KT_EQ(t, pt_translate(root, TEST_VA_2M + 0x1ff008, &pa), 0);
    KT_EQ(t, pa, big + 0x1ff008);
    KT_EQ(t, read_via(root, TEST_VA_2M + 0x100000, &v), 0);
    KT_EQ(t, v, *(const uint64_t *)phys_to_virt(0x100000));

    /* A 4K mapping inside the superpage must be refused. */
    KT_EQ(t, pt_map(root, TEST_VA_2M + PAGE_SIZE, 0, PT_ORDER_4K, 0),
          -EEXIST);
    /* Misaligned superpage requests are refused. */
    KT_EQ(t, pt_map(root, TEST_VA_2M + PAGE_SIZE, 0, PT_ORDER_2M, 0),
          -EINVAL);
    KT_EQ(t, pt_unmap(root, TEST_VA_2M, PT_ORDER_4K, NULL), -ENOENT);
    KT_EQ(t, pt_unmap(root, TEST_VA_2M, PT_ORDER_2M, NULL), 0);
    KT_EQ(t, pt_translate(root, TEST_VA_2M, &pa), -ENOENT);
    free_tables(root, 4);
}

KTEST(paging, protect_read_only)
{
    paddr_t root = scratch_root(), frame = frame_alloc();
    uint64_t pte;
    unsigned int order;

    KT_EQ(t, pt_map(root, TEST_VA_4K, frame, PT_ORDER_4K, PTE_W | PTE_U), 0);
    KT_EQ(t, pt_protect(root, TEST_VA_4K, PT_ORDER_4K, 0, PTE_W), 0);
    KT_EQ(t, pt_lookup(root, TEST_VA_4K, &pte, &order), 0);
    KT_ASSERT(t, !(pte & PTE_W));
    KT_ASSERT(t, pte & PTE_U);
    KT_EQ(t, pte & PTE_ADDR_MASK, frame);
    KT_EQ(t, pt_protect(root, TEST_VA_4K + PAGE_SIZE, PT_ORDER_4K, 0, PTE_W),
          -ENOENT);
    free_tables(root, 4);
    frame_free(frame);
}

KTEST(paging, rejects_non_canonical)
{
    paddr_t root = scratch_root(), frame = frame_alloc();

    KT_EQ(t, pt_map(root, 0x0000800000000000ul, frame, PT_ORDER_4K, 0),
          -EINVAL);
    KT_EQ(t, pt_map(root, TEST_VA_4K + 1, frame, PT_ORDER_4K, 0), -EINVAL);
    free_tables(root, 4);
    frame_free(frame);
}

KTEST(paging, kernel_layout)
{
    extern char __text_start[], __rodata_start[];
    extern char __ro_after_init_start[], bsp_stack[], bsp_stack_guard[];
    uint64_t pte;
    unsigned int order;

    /* Text is executable and read-only, data is writable, all kernel-only. */
    KT_EQ(t, pt_lookup(kernel_root, (vaddr_t)__text_start, &pte, &order), 0);
    KT_ASSERT(t, !(pte & PTE_W) && !(pte & PTE_NX) && !(pte & PTE_U));
    KT_EQ(t, pt_lookup(kernel_root, (vaddr_t)__rodata_start, &pte, &order),
          0);
    KT_ASSERT(t, !(pte & PTE_W) && !(pte & PTE_U));
    KT_EQ(t, pt_lookup(kernel_root, (vaddr_t)bsp_stack, &pte, &order), 0);
    KT_ASSERT(t, (pte & PTE_W) && !(pte & PTE_U));
    KT_EQ(t, pte & PTE_G, kernel_pte_global);
    /* The page below the boot CPU's stack is a hole (asm/guarded.h). */
    KT_EQ(t, pt_lookup(kernel_root, (vaddr_t)bsp_stack_guard, &pte, &order),
          -ENOENT);
    /* __ro_after_init data became read-only at the end of boot. */
    KT_EQ(t, pt_lookup(kernel_root, (vaddr_t)__ro_after_init_start, &pte,
                       &order), 0);
    KT_ASSERT(t, !(pte & PTE_W));
    /* The direct map covers low memory; the user half is empty. */
    KT_EQ(t, pt_lookup(kernel_root, DIRECTMAP_BASE + 0x1000, &pte, &order),
          0);
    KT_EQ(t, pt_lookup(kernel_root, 0x1000, &pte, &order), -ENOENT);
    KT_EQ(t, read_cr3() & X86_CR3_ADDR_MASK, kernel_root);
}
