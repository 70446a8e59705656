/* SPDX-License-Identifier: GPL-2.0-only */
/* Fuzz kernel/task/elf-load.c: a planned executable keeps every loader rule. */

#include <shimk/elf-load.h>

#include <string.h>

#include "fuzz.h"

#define LO 0x10000ull
#define HI 0x7f0000000000ull
#define PG 4096ull

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *img = malloc(size ? size : 1);
    static struct elf_plan p;
    static uint64_t stack[512];
    const char *argv[] = { "prog", "x" };
    bool entry_ok = false;
    uint64_t rsp;

    memcpy(img, data, size);
    if ( elf_plan(img, size, LO, HI, &p) == ELF_OK )
    {
        PROMISE(p.nseg >= 1 && p.nseg <= ELF_MAX_SEGS, "%u segments",
                p.nseg);
        for ( unsigned int i = 0; i < p.nseg; i++ )
        {
            const struct elf_segment *s = &p.seg[i];

            PROMISE(s->memsz && s->filesz <= s->memsz, "sizes");
            PROMISE(s->va >= LO && s->va + s->memsz <= HI &&
                    s->va + s->memsz > s->va, "segment %u out of range", i);
            PROMISE(s->off <= size && s->filesz <= size - s->off,
                    "segment %u's bytes outside the file", i);
            PROMISE(((s->va ^ s->off) & (PG - 1)) == 0, "misaligned");
            for ( unsigned int j = 0; j < i; j++ )
            {
                const struct elf_segment *o = &p.seg[j];

                PROMISE((s->va + s->memsz - 1) / PG < o->va / PG ||
                        (o->va + o->memsz - 1) / PG < s->va / PG,
                        "segments %u and %u share a page", j, i);
            }
            if ( (s->prot & ELF_PROT_X) && p.entry >= s->va &&
                 p.entry - s->va < s->memsz )
                entry_ok = true;
        }
        PROMISE(entry_ok, "entry %#llx in no executable segment",
                (unsigned long long)p.entry);
        if ( elf_stack_setup(stack, 0x7f0000003000ull, sizeof(stack), argv,
                             2, p.entry, &rsp) == 0 )
            PROMISE(rsp % 16 == 0 && rsp >= 0x7f0000003000ull, "rsp");
    }
    free(img);
    return 0;
}
