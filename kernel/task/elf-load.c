/* SPDX-License-Identifier: GPL-2.0-only */
/* Static ELF64 executables: every header checked before anything is loaded (pure). */

#include <shimk/elf-load.h>
#include <shimk/string.h>

/* The gABI's ELF-64 headers, the fields this reader needs. */
struct elf64_ehdr
{
    unsigned char ident[16];
    uint16_t type, machine;
    uint32_t version;
    uint64_t entry, phoff, shoff;
    uint32_t flags;
    uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};

struct elf64_phdr
{
    uint32_t type, flags;
    uint64_t offset, vaddr, paddr, filesz, memsz, align;
};

#define EI_CLASS      4
#define EI_DATA       5
#define ELFCLASS64    2
#define ELFDATA2LSB   1
#define ET_EXEC       2
#define EM_X86_64     62
#define PT_LOAD       1
#define PT_DYNAMIC    2
#define PT_INTERP     3
#define PAGE          4096ull

static uint64_t page_down(uint64_t x)
{
    return x & ~(PAGE - 1);
}

/* Round up, or 0 when that would wrap. */
static uint64_t page_up(uint64_t x)
{
    return x > UINT64_MAX - (PAGE - 1) ? 0 : page_down(x + PAGE - 1);
}

static enum elf_status add_segment(struct elf_plan *p,
                                   const struct elf64_phdr *ph, size_t len,
                                   uint64_t lo, uint64_t hi)
{
    struct elf_segment *s;
    uint64_t start, end;

    if ( ph->filesz > ph->memsz || ph->offset > len ||
         ph->filesz > len - ph->offset )
        return ELF_SEG_FILE;
    if ( !ph->memsz || ph->vaddr > UINT64_MAX - ph->memsz )
        return ELF_SEG_RANGE;
    start = page_down(ph->vaddr);
    end = page_up(ph->vaddr + ph->memsz);
    if ( !end || start < lo || end > hi )
        return ELF_SEG_RANGE;
    /* Loaded page by page: a file page lands at the same page offset. */
    if ( (ph->vaddr ^ ph->offset) & (PAGE - 1) )
        return ELF_SEG_ALIGN;
    for ( unsigned int i = 0; i < p->nseg; i++ )
    {
        const struct elf_segment *o = &p->seg[i];

        /* Page-granular: one page cannot take two segments' rights. */
        if ( start < page_up(o->va + o->memsz) && page_down(o->va) < end )
            return ELF_SEG_OVERLAP;
    }
    if ( p->nseg == ELF_MAX_SEGS )
        return ELF_NO_SEGMENTS;
    s = &p->seg[p->nseg++];
    s->va = ph->vaddr;
    s->memsz = ph->memsz;
    s->off = ph->offset;
    s->filesz = ph->filesz;
    s->prot = ph->flags & (ELF_PROT_R | ELF_PROT_W | ELF_PROT_X);
    p->pages += (end - start) / PAGE;
    return ELF_OK;
}

enum elf_status elf_plan(const void *img, size_t len, uint64_t lo,
                         uint64_t hi, struct elf_plan *p)
{
    const unsigned char *b = img;
    struct elf64_ehdr eh;
    bool entry_ok = false;

    memset(p, 0, sizeof(*p));
    if ( len < 4 || memcmp(b, "\x7f" "ELF", 4) )
        return len < 4 ? ELF_TOO_SMALL : ELF_NOT_ELF;
    if ( len < sizeof(eh) )
        return ELF_TOO_SMALL;
    memcpy(&eh, b, sizeof(eh));
    if ( eh.ident[EI_CLASS] != ELFCLASS64 || eh.ident[EI_DATA] != ELFDATA2LSB ||
         eh.machine != EM_X86_64 )
        return ELF_NOT_X86_64;
    if ( eh.type != ET_EXEC )
        return ELF_NOT_STATIC;
    if ( eh.phentsize != sizeof(struct elf64_phdr) || !eh.phnum )
        return ELF_BAD_PHDRS;
    if ( eh.phoff > len ||
         (uint64_t)eh.phnum * sizeof(struct elf64_phdr) > len - eh.phoff )
        return ELF_TOO_SMALL;

    for ( unsigned int i = 0; i < eh.phnum; i++ )
    {
        struct elf64_phdr ph;
        enum elf_status s;

        /* Copied: the image need not be aligned. */
        memcpy(&ph, b + eh.phoff + i * sizeof(ph), sizeof(ph));
        if ( ph.type == PT_INTERP || ph.type == PT_DYNAMIC )
            return ELF_NOT_STATIC;
        if ( ph.type != PT_LOAD || !ph.memsz )
            continue;
        s = add_segment(p, &ph, len, lo, hi);
        if ( s != ELF_OK )
            return s;
    }
    if ( !p->nseg )
        return ELF_NO_SEGMENTS;
    for ( unsigned int i = 0; i < p->nseg; i++ )
    {
        const struct elf_segment *s = &p->seg[i];

        if ( (s->prot & ELF_PROT_X) && eh.entry >= s->va &&
             eh.entry - s->va < s->memsz )
            entry_ok = true;
    }
    if ( !entry_ok )
        return ELF_BAD_ENTRY;
    p->entry = eh.entry;
    return ELF_OK;
}

const char *elf_status_name(enum elf_status s)
{
    static const char *const names[] = {
        [ELF_OK] = "ok",
        [ELF_TOO_SMALL] = "shorter than its headers say",
        [ELF_NOT_ELF] = "not an ELF file",
        [ELF_NOT_X86_64] = "not ELF64 little-endian x86-64",
        [ELF_NOT_STATIC] = "not a static executable (ET_EXEC, no "
                           "interpreter)",
        [ELF_BAD_PHDRS] = "malformed program headers",
        [ELF_NO_SEGMENTS] = "no loadable segment, or too many",
        [ELF_SEG_FILE] = "a segment's file bytes lie outside the file",
        [ELF_SEG_RANGE] = "a segment wraps or leaves the user range",
        [ELF_SEG_OVERLAP] = "two segments share a page",
        [ELF_SEG_ALIGN] = "a segment's address and file offset differ "
                          "within a page",
        [ELF_BAD_ENTRY] = "the entry point is in no executable segment",
    };

    return (unsigned int)s < sizeof(names) / sizeof(names[0]) ? names[s]
                                                              : "?";
}

int elf_stack_setup(void *page, uint64_t page_va, size_t page_size,
                    const char *const *argv, unsigned int argc,
                    uint64_t entry, uint64_t *rsp)
{
    unsigned char *b = page;
    size_t strings = 0, words, at;
    uint64_t str_va, w;

    for ( unsigned int i = 0; i < argc; i++ )
    {
        size_t n = strlen(argv[i]) + 1;

        if ( n > page_size || strings > page_size - n )
            return -1;
        strings += n;
    }
    /* argc, argv and its NULL, envp's NULL, three auxv pairs. */
    words = 1 + argc + 1 + 1 + 6;
    if ( argc > page_size / 8 ||
         words * 8 + 16 + strings > page_size )
        return -1;

    /* Strings at the very top, the words below them, RSP 16-aligned. */
    at = page_size - strings;
    str_va = page_va + at;
    at = (at - words * 8) & ~(size_t)15;
    *rsp = page_va + at;

#define PUT(v) (w = (v), memcpy(b + at, &w, 8), at += 8)
    PUT(argc);
    for ( unsigned int i = 0; i < argc; i++ )
    {
        size_t n = strlen(argv[i]) + 1;

        PUT(str_va);
        memcpy(b + (str_va - page_va), argv[i], n);
        str_va += n;
    }
    PUT(0);                     /* argv's end */
    PUT(0);                     /* envp: empty */
    PUT(ELF_AT_PAGESZ);
    PUT(PAGE);
    PUT(ELF_AT_ENTRY);
    PUT(entry);
    PUT(ELF_AT_NULL);
    PUT(0);
#undef PUT
    return 0;
}
