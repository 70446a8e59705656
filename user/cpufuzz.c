/* SPDX-License-Identifier: GPL-2.0-only */
/* Ring-3 CPU-state fuzzer: flags, selectors, modes, SYSCALL and INT anywhere. */

#include <shimk-user.h>
#include <user/programs.h>
#include "ring3.h"

/*
 * Every thread gets its own RWX code page at CPUFUZZ_CODE_VA + 64 KiB *
 * index (below 4 GiB, for compatibility mode), where it writes the
 * bytes it runs.  Nothing here is a global: built-in user code is
 * shared read-only (user/build.mk).
 */
static uint64_t thread_page(unsigned int index)
{
    return CPUFUZZ_CODE_VA + (uint64_t)index * 0x10000;
}

static uint64_t call_at(uint64_t va, uint64_t rax)
{
    __asm__ __volatile__("call *%1"
                         : "+a"(rax)
                         : "r"(va)
                         : "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10",
                           "r11", "memory");
    return rax;
}

/* An argument the kernel must check: mapped, unmapped, kernel, wild. */
static uint64_t wild_arg(uint64_t *rs)
{
    uint64_t r = u_rand(rs);

    switch ( r % 6 )
    {
    case 0:
        return CPUFUZZ_SCRATCH_VA + (r >> 8) % (CPUFUZZ_SCRATCH_PAGES << 12);
    case 1:
        return 0xffffffff80000000ull + (r >> 20);
    case 2:
        return 0x0000800000000000ull - (r >> 40);
    case 3:
        return r;
    case 4:
        return (r >> 8) % 4096;
    default:
        return (r >> 3) & 0xffff;
    }
}

static void do_syscall(uint64_t *rs)
{
    uint64_t nr = u_rand(rs) % 16, a0 = wild_arg(rs), a1 = wild_arg(rs),
             a2 = wild_arg(rs);

    /* Not exit (it ends the thread), not a spawn at a wild address. */
    if ( nr == SYS_EXIT || nr == SYS_SPAWN )
        nr = SYS_CPU;
    if ( nr == SYS_SLEEP )
        a0 %= 200;
    if ( nr == SYS_WRITE )
        a1 %= 64;
    syscall5((long)nr, (long)a0, (long)a1, (long)a2, (long)wild_arg(rs),
             (long)wild_arg(rs));
}

/*
 * Any flags POPF takes at CPL 3 (SDM Vol. 1, 3.4.3): CF PF AF ZF SF DF
 * OF NT AC ID; TF only rarely, since a set TF kills the task at once.
 */
static void do_rflags(uint64_t *rs)
{
    uint64_t r = u_rand(rs), flags = 0x202 | (r & 0x244cd5);
    uint64_t rax = SYS_CPU;

    if ( (r >> 32) % 64 == 0 )
        flags |= 0x100;
    __asm__ __volatile__("pushfq\n\t"
                         "push %1\n\t"
                         "popfq\n\t"
                         "syscall\n\t"
                         "popfq"
                         : "+a"(rax)
                         : "r"(flags)
                         : "rcx", "r11", "memory", "cc");
}

static void do_selector(uint64_t *rs)
{
    static const uint16_t good[] = { 0, SEL_USER_DS, 0x3, SEL_USER_CS32 };
    uint64_t r = u_rand(rs);
    uint16_t sel = r % 8 ? good[(r >> 8) % 4] : (uint16_t)(r >> 16);

    /* DS and ES are ignored in 64-bit mode, but loading them checks. */
    switch ( (r >> 32) % 4 )
    {
    case 0:
        __asm__ __volatile__("mov %0, %%ds" :: "r"(sel));
        break;
    case 1:
        __asm__ __volatile__("mov %0, %%es" :: "r"(sel));
        break;
    case 2:
        __asm__ __volatile__("mov %0, %%fs" :: "r"(sel));
        break;
    default:
        __asm__ __volatile__("mov %0, %%gs" :: "r"(sel));
        break;
    }
    syscall3(SYS_CPU, 0, 0, 0);
    __asm__ __volatile__("mov %0, %%ds\n\tmov %0, %%es"
                         :: "r"((uint16_t)SEL_USER_DS));
}

/* Into compatibility mode, maybe a SYSCALL or an INT there, and back. */
static void do_compat(uint64_t *rs, uint64_t page)
{
    uint64_t r = u_rand(rs);
    unsigned char pre[2] = { 0x0f, 0x05 };     /* syscall */
    unsigned int n = 2;

    if ( r % 4 == 1 )
    {
        pre[0] = 0xcd;                          /* int $n */
        pre[1] = (unsigned char)(r >> 8);
    }
    else if ( r % 4 > 1 )
        n = 0;
    compat_run(page, pre, n, SYS_CPU);
}

static void do_syscall_at(uint64_t *rs, uint64_t page)
{
    static const unsigned char sc[3] = { 0x0f, 0x05, 0xc3 };
    uint64_t r = u_rand(rs);

    /* Now and then the very top of the user half: the task dies there. */
    if ( r % 32 == 0 )
    {
        if ( sys_map(USER_TOP_VA - 0x1000, 0,
                     UPROT_READ | UPROT_WRITE | UPROT_EXEC) &&
             *(volatile unsigned char *)(USER_TOP_VA - 2) != 0x0f )
            return;
        put_code(USER_TOP_VA - 2, sc, 2);
        call_at(USER_TOP_VA - 2, SYS_CPU);
        return;
    }
    r = (r >> 8) % (0x800 - 3);
    put_code(page + r, sc, 3);
    call_at(page + r, SYS_CPU);
}

static void do_int(uint64_t *rs, uint64_t page)
{
    uint64_t r = u_rand(rs);
    unsigned char code[3] = { 0xcd, (unsigned char)r, 0xc3 };

    put_code(page, code, 3);
    call_at(page, 0);
}

static void do_bytes(uint64_t *rs, uint64_t page)
{
    unsigned char code[17];

    for ( unsigned int i = 0; i < 16; i += 8 )
    {
        uint64_t r = u_rand(rs);

        for ( unsigned int k = 0; k < 8; k++ )
            code[i + k] = (unsigned char)(r >> (8 * k));
    }
    code[16] = 0xc3;
    put_code(page, code, sizeof(code));
    call_at(page, u_rand(rs));
}

/* Weights out of 64: the actions that usually kill the task are rare. */
static enum cpufuzz_action pick(uint64_t *rs)
{
    uint64_t r = u_rand(rs) % 64;

    if ( r < 24 )
        return CPUFUZZ_SYSCALL;
    if ( r < 40 )
        return CPUFUZZ_RFLAGS;
    if ( r < 50 )
        return CPUFUZZ_SELECTOR;
    if ( r < 58 )
        return CPUFUZZ_COMPAT;
    if ( r < 62 )
        return CPUFUZZ_SYSCALL_AT;
    return r < 63 ? CPUFUZZ_INT : CPUFUZZ_BYTES;
}

static void fuzz_thread(void *argp)
{
    struct cpufuzz_args *a = (struct cpufuzz_args *)USER_ARGS_VA;
    unsigned int me = (unsigned int)(uint64_t)argp;
    struct cpufuzz_thread *t = &a->t[me];
    uint64_t page = thread_page(me), rs = t->seed | 1;

    if ( sys_map(page, 0, UPROT_READ | UPROT_WRITE | UPROT_EXEC) )
        sys_exit(2);
    while ( t->iterations < a->iterations && !a->stop )
    {
        enum cpufuzz_action act = pick(&rs);

        /* Counted before: an action that kills still happened. */
        t->last_action = act;
        t->by_action[act]++;
        t->iterations++;
        t->seed = rs;
        switch ( act )
        {
        case CPUFUZZ_SYSCALL:
            do_syscall(&rs);
            break;
        case CPUFUZZ_RFLAGS:
            do_rflags(&rs);
            break;
        case CPUFUZZ_SELECTOR:
            do_selector(&rs);
            break;
        case CPUFUZZ_COMPAT:
            do_compat(&rs, page);
            break;
        case CPUFUZZ_SYSCALL_AT:
            do_syscall_at(&rs, page);
            break;
        case CPUFUZZ_INT:
            do_int(&rs, page);
            break;
        default:
            do_bytes(&rs, page);
            break;
        }
    }
    sys_exit(0);
}

/* The mapper: pages the fuzzers pass to the kernel come and go. */
static void mapper(struct cpufuzz_args *a, uint64_t seed)
{
    uint64_t rs = seed | 1;

    while ( !a->stop )
    {
        uint64_t r = u_rand(&rs);
        uint64_t va = CPUFUZZ_SCRATCH_VA + (r % CPUFUZZ_SCRATCH_PAGES) * 4096;

        switch ( (r >> 32) % 3 )
        {
        case 0:
            sys_map(va, 0, UPROT_READ | UPROT_WRITE);
            break;
        case 1:
            sys_unmap(va, 0, (r >> 40) & 1 ? UNMAP_LAZY : 0);
            break;
        default:
            sys_protect(va, 0, (r >> 40) & 1 ? UPROT_READ
                                             : UPROT_READ | UPROT_WRITE);
            break;
        }
        a->maps++;
        if ( a->maps % 64 == 0 )
            sys_yield();
    }
    sys_exit(0);
}

void user_cpufuzz(void *argp)
{
    struct cpufuzz_args *a = argp;
    long ncpus = sys_ncpus();

    /* Fuzzers on CPUs 1.., this thread maps on CPU 0 (all when alone). */
    for ( unsigned int i = 0; i < a->nthreads; i++ )
        if ( sys_spawn(fuzz_thread, (void *)(uint64_t)i,
                       ncpus > 1 ? 1 + i % (ncpus - 1) : 0) < 0 )
            sys_exit(3);
    mapper(a, a->t[0].seed ^ 0x9e3779b97f4a7c15ull);
}
