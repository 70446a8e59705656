/* SPDX-License-Identifier: GPL-2.0-only */
/* Hostile CPU state at the ring-3 boundary: flags, return addresses, modes. */

#include <shimk-user.h>
#include "programs.h"

#define USER_TOP_VA   0x0000800000000000ull
#define GDT_USER_CS32 0x1b                  /* include/asm/desc.h, RPL 3 */
#define GDT_USER_CS64 0x2b

/* Run code bytes written into a fresh RWX page at va; RAX in and out. */
static uint64_t run_at(uint64_t va, uint64_t rax)
{
    __asm__ __volatile__("call *%1"
                         : "+a"(rax)
                         : "r"(va)
                         : "rcx", "r11", "memory");
    return rax;
}

static void put(uint64_t va, const unsigned char *bytes, unsigned int n)
{
    for ( unsigned int i = 0; i < n; i++ )
        ((volatile unsigned char *)va)[i] = bytes[i];
}

static bool code_page(uint64_t va)
{
    return sys_map(va, 0, UPROT_READ | UPROT_WRITE | UPROT_EXEC) == 0;
}

/*
 * SYSCALL from compatibility mode: far-jump through USER_CS32 to
 * "syscall; jmp far USER_CS64:back", where back is the label below.
 * R8-R15 do not exist in compatibility mode, so R12 keeps RSP, whose
 * upper half that mode leaves undefined (SDM Vol. 1, 3.4.1.1).
 */
static uint64_t compat_syscall(uint64_t nr)
{
    uint64_t va = HOSTILE_CODE_VA, back, rax = nr;
    unsigned char code[9] = { 0x0f, 0x05, 0xea };
    volatile uint32_t *ptr = (volatile uint32_t *)(va + 0x100);

    __asm__ __volatile__("lea 1f(%%rip), %0\n\t"
                         "jmp 2f\n"
                         "1:\n\t"
                         "mov %%r12, %%rsp\n\t"
                         "ret\n"
                         "2:" : "=r"(back));
    code[3] = (unsigned char)back;
    code[4] = (unsigned char)(back >> 8);
    code[5] = (unsigned char)(back >> 16);
    code[6] = (unsigned char)(back >> 24);
    code[7] = GDT_USER_CS64;
    code[8] = 0;
    put(va, code, sizeof(code));
    ptr[0] = (uint32_t)va;
    ptr[1] = GDT_USER_CS32;
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

void user_hostile(void *argp)
{
    struct hostile_args *a = argp;
    uint64_t flags;

    switch ( a->kind )
    {
    case HOSTILE_NT_SYSCALL:
        /* POPF may set NT at CPL 3; the kernel's IRETQ must not see it. */
        __asm__ __volatile__("pushfq\n\t"
                             "orq $0x4000, (%%rsp)\n\t"
                             "popfq\n\t"
                             "syscall\n\t"
                             "pushfq\n\t"
                             "popq %1\n\t"
                             "pushfq\n\t"
                             "andq $~0x4000, (%%rsp)\n\t"
                             "popfq"
                             : "=a"(a->result), "=r"(flags)
                             : "a"((uint64_t)SYS_CPU)
                             : "rcx", "r11", "memory");
        a->rflags = flags;
        break;
    case HOSTILE_SYSCALL_AT_TOP:
    {
        /* RCX after this SYSCALL is 0x800000000000: not canonical. */
        static const unsigned char sc[2] = { 0x0f, 0x05 };
        uint64_t page = USER_TOP_VA - 0x1000;

        if ( !code_page(page) )
            return;
        put(USER_TOP_VA - 2, sc, 2);
        a->result = run_at(USER_TOP_VA - 2, SYS_CPU);
        break;
    }
    case HOSTILE_COMPAT_SYSCALL:
        if ( !code_page(HOSTILE_CODE_VA) )
            return;
        a->result = compat_syscall(SYS_CPU);
        break;
    case HOSTILE_INT_N:
    case HOSTILE_INT3:
    case HOSTILE_ICEBP:
    case HOSTILE_INTO:
    case HOSTILE_BOUND:
    {
        /* The instruction, then RET should it come back at all. */
        unsigned char code[4] = { 0xcd, (unsigned char)a->arg, 0xc3, 0xc3 };

        if ( a->kind == HOSTILE_INT3 )
            code[0] = 0xcc, code[1] = 0xc3;
        else if ( a->kind == HOSTILE_ICEBP )
            code[0] = 0xf1, code[1] = 0xc3;
        else if ( a->kind == HOSTILE_INTO )
            code[0] = 0xce, code[1] = 0xc3;
        else if ( a->kind == HOSTILE_BOUND )
            code[0] = 0x62, code[1] = 0x00;   /* bound (%rax), %eax */
        if ( !code_page(HOSTILE_CODE_VA) )
            return;
        put(HOSTILE_CODE_VA, code, sizeof(code));
        a->result = run_at(HOSTILE_CODE_VA, 0);
        break;
    }
    case HOSTILE_FAR_JMP:
    case HOSTILE_FAR_CALL:
    {
        /*
         * A far pointer (offset 32, selector 16) to a UD2: whatever the
         * selector names, the task ends in #GP, #NP, #SS or #UD.
         */
        static const unsigned char ud2[2] = { 0x0f, 0x0b };
        volatile uint32_t *ptr = (volatile uint32_t *)(HOSTILE_CODE_VA +
                                                       0x100);

        if ( !code_page(HOSTILE_CODE_VA) )
            return;
        put(HOSTILE_CODE_VA, ud2, 2);
        ptr[0] = (uint32_t)HOSTILE_CODE_VA;
        ptr[1] = (uint32_t)a->arg;
        if ( a->kind == HOSTILE_FAR_JMP )
            __asm__ __volatile__("ljmpl *(%0)" :: "r"(ptr) : "memory");
        else
            __asm__ __volatile__("lcalll *(%0)" :: "r"(ptr) : "memory");
        break;
    }
    }
    a->reached_end = 1;
    sys_exit(0);
}
