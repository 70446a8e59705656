/* SPDX-License-Identifier: GPL-2.0-only */
/* Static ELF64 x86-64 executables: check one and plan its loading (pure). */
#ifndef SHIMK_ELF_LOAD_H
#define SHIMK_ELF_LOAD_H

#include <shimk/types.h>

#define ELF_MAX_SEGS 16

#define ELF_PROT_X 0x1u             /* PF_X, PF_W, PF_R (gABI) */
#define ELF_PROT_W 0x2u
#define ELF_PROT_R 0x4u

/* One PT_LOAD: [va, va + memsz), its first filesz bytes from off. */
struct elf_segment
{
    uint64_t va, memsz, off, filesz;
    unsigned int prot;              /* ELF_PROT_* */
};

struct elf_plan
{
    uint64_t entry;
    unsigned int nseg;
    struct elf_segment seg[ELF_MAX_SEGS];
    uint64_t pages;                 /* 4 KiB pages the segments cover */
};

enum elf_status
{
    ELF_OK,
    ELF_TOO_SMALL,                  /* shorter than its headers say */
    ELF_NOT_ELF,                    /* no \x7fELF */
    ELF_NOT_X86_64,                 /* not ELF64, little-endian, x86-64 */
    ELF_NOT_STATIC,                 /* not ET_EXEC, or PT_INTERP/PT_DYNAMIC */
    ELF_BAD_PHDRS,                  /* program headers malformed */
    ELF_NO_SEGMENTS,                /* no PT_LOAD, or more than the max */
    ELF_SEG_FILE,                   /* file bytes outside the image */
    ELF_SEG_RANGE,                  /* wraps, or leaves [lo, hi) */
    ELF_SEG_OVERLAP,                /* two segments share a page */
    ELF_SEG_ALIGN,                  /* va and offset differ within a page */
    ELF_BAD_ENTRY,                  /* entry in no executable segment */
};

/*
 * Check the len-byte image at img (System V gABI, ELF-64 object file
 * format; x86-64 psABI) and fill *p.  Segments must lie in [lo, hi),
 * page-aligned bounds.  Only bytes inside the image are read.
 */
enum elf_status elf_plan(const void *img, size_t len, uint64_t lo,
                         uint64_t hi, struct elf_plan *p);

/* "not a static executable", ... for a message. */
const char *elf_status_name(enum elf_status s);

/*
 * The initial stack of a program's first thread, as the x86-64 psABI
 * (section 3.4, "Process Initialization") lays it out: from the new
 * RSP up, argc, argv[0..argc-1], NULL, an empty envp (NULL), the
 * auxiliary vector (AT_PAGESZ, AT_ENTRY, AT_NULL), then the strings.
 * page is the kernel's view of the stack's top page_size bytes, which
 * the program sees at [page_va, page_va + page_size).  *rsp gets the
 * 16-byte aligned RSP; -1 when it does not fit, else 0.
 */
#define ELF_AT_NULL   0
#define ELF_AT_PAGESZ 6
#define ELF_AT_ENTRY  9

int elf_stack_setup(void *page, uint64_t page_va, size_t page_size,
                    const char *const *argv, unsigned int argc,
                    uint64_t entry, uint64_t *rsp);

#endif /* SHIMK_ELF_LOAD_H */
