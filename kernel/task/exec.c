/* SPDX-License-Identifier: GPL-2.0-only */
/* Load a static ELF64 executable into a fresh task (checked by elf-load.c). */

#include <shimk/aspace.h>
#include <shimk/elf-load.h>
#include <shimk/errno.h>
#include <shimk/exec.h>
#include <shimk/frame.h>
#include <shimk/printk.h>
#include <shimk/string.h>
#include <shimk/syscall-abi.h>
#include <asm/page.h>

/*
 * Frames kept back for the kernel whatever a program asks for: its
 * threads' stacks and page tables, and the kernel's own heap.
 */
#define EXEC_RESERVE_FRAMES 256

static unsigned int prot_of(unsigned int elf_prot)
{
    return (elf_prot & ELF_PROT_R ? PROT_READ : 0) |
           (elf_prot & ELF_PROT_W ? PROT_WRITE : 0) |
           (elf_prot & ELF_PROT_X ? PROT_EXEC : 0);
}

/*
 * One page of a segment: zeroed, with the file bytes that fall in it.
 * elf_plan() checked that [off, off + filesz) lies in the image.
 */
static int load_page(struct task *t, const struct elf_segment *s,
                     const unsigned char *img, vaddr_t va)
{
    paddr_t pa = frame_alloc_user();
    uint64_t lo = MAX(va, s->va), hi = MIN(va + PAGE_SIZE, s->va + s->filesz);
    int rc;

    if ( !pa )
        return -ENOMEM;
    if ( lo < hi )
        memcpy((char *)phys_to_virt(pa) + (lo - va),
               img + s->off + (lo - s->va), hi - lo);
    rc = aspace_map(t->as, va, pa, ORDER_4K, prot_of(s->prot));
    if ( rc )
        frame_free(pa);
    return rc;
}

struct task *task_exec(const char *name, const void *img, size_t len,
                       char *why, size_t why_size)
{
    struct elf_plan plan;
    enum elf_status st;
    struct task *t;

    st = elf_plan(img, len, USER_ELF_LO, USER_ELF_HI, &plan);
    if ( st != ELF_OK )
    {
        ksnprintf(why, why_size, "%s", elf_status_name(st));
        return NULL;
    }
    if ( plan.pages + EXEC_RESERVE_FRAMES > frames_free() )
    {
        ksnprintf(why, why_size, "its segments need %lu pages, and %u are "
                  "free (%u kept for the kernel)", (unsigned long)plan.pages,
                  frames_free(), EXEC_RESERVE_FRAMES);
        return NULL;
    }

    t = task_create_bare(name);
    for ( unsigned int i = 0; i < plan.nseg; i++ )
    {
        const struct elf_segment *s = &plan.seg[i];
        vaddr_t end = ROUNDUP(s->va + s->memsz, PAGE_SIZE);

        for ( vaddr_t va = ROUNDDOWN(s->va, PAGE_SIZE); va < end;
              va += PAGE_SIZE )
        {
            int rc = load_page(t, s, img, va);

            if ( rc )
            {
                ksnprintf(why, why_size, "loading %#lx: %s",
                          (unsigned long)va, errno_name(rc));
                /* No thread ever ran: this frees the space. */
                task_wait(t, 0);
                return NULL;
            }
        }
    }
    pr_info("run: %s: %u segments, %lu pages, entry %#lx\n", name, plan.nseg,
            (unsigned long)plan.pages, (unsigned long)plan.entry);
    /* The entry is only known here; the caller starts the thread. */
    t->exec_entry = plan.entry;
    return t;
}
