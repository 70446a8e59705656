/* SPDX-License-Identifier: GPL-2.0-only */
/* Hostile CPU state at the ring-3 boundary: flags, return addresses, modes. */

#include <shimk-user.h>
#include <user/programs.h>
#include "ring3.h"

/* Run code bytes written into a fresh RWX page at va; RAX in and out. */
static uint64_t run_at(uint64_t va, uint64_t rax)
{
    __asm__ __volatile__("call *%1"
                         : "+a"(rax)
                         : "r"(va)
                         : "rcx", "r11", "memory");
    return rax;
}

/* SYSCALL from compatibility mode (CSTAR on AMD, #UD on Intel). */
static uint64_t compat_syscall(uint64_t nr)
{
    static const unsigned char sc[2] = { 0x0f, 0x05 };

    return compat_run(HOSTILE_CODE_VA, sc, sizeof(sc), nr);
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
        put_code(USER_TOP_VA - 2, sc, 2);
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
        put_code(HOSTILE_CODE_VA, code, sizeof(code));
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
                                                       0x800);

        if ( !code_page(HOSTILE_CODE_VA) )
            return;
        put_code(HOSTILE_CODE_VA, ud2, 2);
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
