/* SPDX-License-Identifier: GPL-2.0-only */
/* Faults on purpose: each must kill this task and leave the kernel running. */

#include <shimk-user.h>
#include <user/programs.h>

/* An address the compiler cannot reason about (or warn on). */
static inline volatile uint64_t *at(uint64_t va)
{
    __asm__ __volatile__("" : "+r"(va));
    return (volatile uint64_t *)va;
}

void user_crash(void *argp)
{
    struct crash_args *a = argp;
    volatile uint64_t sink;

    switch ( a->kind )
    {
    case CRASH_NULL_READ:
        sink = *at(8);
        break;
    case CRASH_KERNEL_READ:
        sink = *at(0xffffffff80100000ull);
        break;
    case CRASH_WRITE_CODE:
        *at(USER_CODE_VA) = 0;
        break;
    case CRASH_PRIVILEGED:
        __asm__ __volatile__("hlt");
        break;
    case CRASH_UD:
        __asm__ __volatile__("ud2");
        break;
    case CRASH_DIVIDE:
    {
        uint64_t lo = 1, hi = 0, zero = 0;

        /* The compiler would fold a C division by a known 0. */
        __asm__ __volatile__("divq %2" : "+a"(lo), "+d"(hi) : "r"(zero));
        sink = lo;
        break;
    }
    case CRASH_NONCANONICAL:
        sink = *at(0x0000900000000000ull);
        break;
    }
    (void)sink;
    a->reached_end = 1;
    sys_exit(0);
}
