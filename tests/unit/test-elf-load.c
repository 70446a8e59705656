/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/task/elf-load.c: a static executable planned, every malformed one refused. */

#include <shimk/elf-load.h>

#include <elf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#define LO 0x10000000ull
#define HI 0x100000000000ull

static unsigned char img[0x3000];

/* Text RX at LO+0x1000 (file 0x1000), data RW at LO+0x3000 (file 0x2000). */
static Elf64_Phdr *sample(void)
{
    Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
    Elf64_Phdr *ph = (Elf64_Phdr *)(img + sizeof(*eh));

    memset(img, 0, sizeof(img));
    memcpy(eh->e_ident, ELFMAG, SELFMAG);
    eh->e_ident[EI_CLASS] = ELFCLASS64;
    eh->e_ident[EI_DATA] = ELFDATA2LSB;
    eh->e_type = ET_EXEC;
    eh->e_machine = EM_X86_64;
    eh->e_entry = LO + 0x1010;
    eh->e_phoff = sizeof(*eh);
    eh->e_phentsize = sizeof(*ph);
    eh->e_phnum = 3;
    ph[0] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X,
                          .p_offset = 0x1000, .p_vaddr = LO + 0x1000,
                          .p_filesz = 0x100, .p_memsz = 0x100 };
    ph[1] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_W,
                          .p_offset = 0x2000, .p_vaddr = LO + 0x3000,
                          .p_filesz = 0x10, .p_memsz = 0x5000 };
    ph[2] = (Elf64_Phdr){ .p_type = PT_NOTE };
    return ph;
}

static enum elf_status plan(struct elf_plan *p)
{
    return elf_plan(img, sizeof(img), LO, HI, p);
}

static void plans_a_static_executable(void **state)
{
    struct elf_plan p;

    sample();
    assert_int_equal(plan(&p), ELF_OK);
    assert_int_equal(p.nseg, 2);
    assert_int_equal(p.entry, LO + 0x1010);
    assert_int_equal(p.seg[0].prot, ELF_PROT_R | ELF_PROT_X);
    assert_int_equal(p.seg[1].prot, ELF_PROT_R | ELF_PROT_W);
    assert_int_equal(p.seg[1].memsz, 0x5000);
    assert_int_equal(p.pages, 1 + 5);
}

static void not_elf_or_not_ours(void **state)
{
    Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
    struct elf_plan p;

    sample();
    img[1] = 'X';
    assert_int_equal(plan(&p), ELF_NOT_ELF);
    sample();
    eh->e_ident[EI_CLASS] = ELFCLASS32;
    assert_int_equal(plan(&p), ELF_NOT_X86_64);
    sample();
    eh->e_machine = EM_386;
    assert_int_equal(plan(&p), ELF_NOT_X86_64);
    sample();
    eh->e_type = ET_DYN;
    assert_int_equal(plan(&p), ELF_NOT_STATIC);
    sample()[2].p_type = PT_INTERP;
    assert_int_equal(plan(&p), ELF_NOT_STATIC);
    sample();
    assert_int_equal(elf_plan(img, 40, LO, HI, &p), ELF_TOO_SMALL);
    assert_int_equal(elf_plan(img, 2, LO, HI, &p), ELF_TOO_SMALL);
}

static void bad_program_headers(void **state)
{
    Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
    Elf64_Phdr *ph;
    struct elf_plan p;

    sample();
    eh->e_phentsize = 32;
    assert_int_equal(plan(&p), ELF_BAD_PHDRS);
    sample();
    eh->e_phoff = sizeof(img) - 8;
    assert_int_equal(plan(&p), ELF_TOO_SMALL);
    sample();
    eh->e_phoff = UINT64_MAX - 4;
    assert_int_equal(plan(&p), ELF_TOO_SMALL);
    sample();
    eh->e_phnum = 0;
    assert_int_equal(plan(&p), ELF_BAD_PHDRS);
    ph = sample();
    ph[0].p_type = PT_NOTE;
    ph[1].p_type = PT_NOTE;
    assert_int_equal(plan(&p), ELF_NO_SEGMENTS);
}

static void bad_segments(void **state)
{
    struct elf_plan p;
    Elf64_Phdr *ph;

    ph = sample();
    ph[0].p_filesz = 0x200;                     /* more file than memory */
    assert_int_equal(plan(&p), ELF_SEG_FILE);
    sample()[1].p_offset = sizeof(img) - 8;
    assert_int_equal(plan(&p), ELF_SEG_FILE);
    sample()[1].p_offset = UINT64_MAX;
    assert_int_equal(plan(&p), ELF_SEG_FILE);
    sample()[1].p_vaddr = UINT64_MAX - 0x100;   /* wraps */
    assert_int_equal(plan(&p), ELF_SEG_RANGE);
    sample()[1].p_vaddr = 0xffff800000000000ull; /* the kernel half */
    assert_int_equal(plan(&p), ELF_SEG_RANGE);
    sample()[0].p_vaddr = 0x1000;                /* below the range */
    assert_int_equal(plan(&p), ELF_SEG_RANGE);
    ph = sample();
    ph[1].p_vaddr = LO + 0x1800;                 /* shares text's page */
    ph[1].p_offset = 0x1800;
    assert_int_equal(plan(&p), ELF_SEG_OVERLAP);
    sample()[1].p_vaddr = LO + 0x3010;           /* offset 0x2000 */
    assert_int_equal(plan(&p), ELF_SEG_ALIGN);
}

static void entry_must_be_executable(void **state)
{
    Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
    struct elf_plan p;

    sample();
    eh->e_entry = LO + 0x3000;                   /* the data segment */
    assert_int_equal(plan(&p), ELF_BAD_ENTRY);
    sample();
    eh->e_entry = LO + 0x1100;                   /* one past the text */
    assert_int_equal(plan(&p), ELF_BAD_ENTRY);
    assert_string_equal(elf_status_name(ELF_BAD_ENTRY),
                        "the entry point is in no executable segment");
}

#define STACK_VA 0x7f0000003000ull

/* What a program's _start finds: the psABI's words, in order. */
static void initial_stack_layout(void **state)
{
    static const char *const argv[] = { "prog", "two" };
    uint64_t page[512], rsp, w[12];
    unsigned char *b = (unsigned char *)page;

    memset(page, 0xa5, sizeof(page));
    assert_int_equal(elf_stack_setup(page, STACK_VA, sizeof(page), argv, 2,
                                     0x401000, &rsp), 0);
    assert_int_equal(rsp % 16, 0);
    assert_true(rsp >= STACK_VA && rsp < STACK_VA + sizeof(page));
    memcpy(w, b + (rsp - STACK_VA), sizeof(w));
    assert_int_equal(w[0], 2);                          /* argc */
    assert_string_equal((char *)b + (w[1] - STACK_VA), "prog");
    assert_string_equal((char *)b + (w[2] - STACK_VA), "two");
    assert_int_equal(w[3], 0);                          /* argv's end */
    assert_int_equal(w[4], 0);                          /* envp */
    assert_int_equal(w[5], ELF_AT_PAGESZ);
    assert_int_equal(w[6], 4096);
    assert_int_equal(w[7], ELF_AT_ENTRY);
    assert_int_equal(w[8], 0x401000);
    assert_int_equal(w[9], ELF_AT_NULL);
    /* The strings lie above the words, inside the page. */
    assert_true(w[1] >= rsp + 10 * 8);
    assert_true(w[2] + 4 <= STACK_VA + sizeof(page));
}

/* Arguments that do not fit are refused, never written past the page. */
static void initial_stack_too_big(void **state)
{
    static char big[5000];
    const char *argv[] = { big };
    static const char *many[600];
    unsigned char page[4096 + 64];
    uint64_t rsp;

    memset(big, 'x', sizeof(big) - 1);
    memset(page, 0x5a, sizeof(page));
    assert_int_equal(elf_stack_setup(page, STACK_VA, 4096, argv, 1, 0x401000,
                                     &rsp), -1);
    for ( unsigned int i = 0; i < 600; i++ )
        many[i] = "a";
    assert_int_equal(elf_stack_setup(page, STACK_VA, 4096, many, 600,
                                     0x401000, &rsp), -1);
    /* A string just too long to fit with the words. */
    big[4096 - 10 * 8 - 16] = '\0';
    argv[0] = big;
    assert_int_equal(elf_stack_setup(page, STACK_VA, 4096, argv, 1, 0x401000,
                                     &rsp), -1);
    for ( unsigned int i = 4096; i < sizeof(page); i++ )
        assert_int_equal(page[i], 0x5a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(initial_stack_layout),
        cmocka_unit_test(initial_stack_too_big),
        cmocka_unit_test(plans_a_static_executable),
        cmocka_unit_test(not_elf_or_not_ours),
        cmocka_unit_test(bad_program_headers),
        cmocka_unit_test(bad_segments),
        cmocka_unit_test(entry_must_be_executable),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
