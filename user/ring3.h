/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers of the hostile ring-3 programs: code pages and compatibility mode. */
#ifndef USER_RING3_H
#define USER_RING3_H

#include <shimk-user.h>

#define USER_TOP_VA   0x0000800000000000ull
#define SEL_USER_CS32 0x1b                  /* include/asm/desc.h, RPL 3 */
#define SEL_USER_DS   0x23
#define SEL_USER_CS64 0x2b

static inline void put_code(uint64_t va, const unsigned char *b,
                            unsigned int n)
{
    for ( unsigned int i = 0; i < n; i++ )
        ((volatile unsigned char *)va)[i] = b[i];
}

/* A fresh RWX page at va, for code the program writes and runs. */
static inline bool code_page(uint64_t va)
{
    return sys_map(va, 0, UPROT_READ | UPROT_WRITE | UPROT_EXEC) == 0;
}

/*
 * Run the n bytes of pre in compatibility mode: far-jump through
 * USER_CS32 to page (below 4 GiB), where pre is followed by "jmp far
 * USER_CS64:back" to the label below; RAX goes in and comes back.
 * R8-R15 do not exist in that mode, so R12 keeps RSP, whose upper half
 * the mode leaves undefined (SDM Vol. 1, 3.4.1.1).  The far pointer
 * lives at page + 0x800.
 */
static inline uint64_t compat_run(uint64_t page, const unsigned char *pre,
                                  unsigned int n, uint64_t rax)
{
    volatile uint32_t *ptr = (volatile uint32_t *)(page + 0x800);
    unsigned char jmp[7] = { 0xea };
    uint64_t back;

    __asm__ __volatile__("lea 1f(%%rip), %0\n\t"
                         "jmp 2f\n"
                         "1:\n\t"
                         "mov %%r12, %%rsp\n\t"
                         "ret\n"
                         "2:" : "=r"(back));
    for ( unsigned int i = 0; i < 4; i++ )
        jmp[1 + i] = (unsigned char)(back >> (8 * i));
    jmp[5] = SEL_USER_CS64;
    put_code(page, pre, n);
    put_code(page + n, jmp, sizeof(jmp));
    ptr[0] = (uint32_t)page;
    ptr[1] = SEL_USER_CS32;
    /* The label returns: the far jump's target acts as a called function. */
    __asm__ __volatile__("lea 3f(%%rip), %%rcx\n\t"
                         "push %%rcx\n\t"
                         "mov %%rsp, %%r12\n\t"
                         "ljmpl *(%1)\n"
                         "3:"
                         : "+a"(rax)
                         : "r"(ptr)
                         : "rcx", "rdx", "r11", "r12", "memory");
    return rax;
}

#endif /* USER_RING3_H */
