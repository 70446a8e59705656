/* SPDX-License-Identifier: GPL-2.0-only */
/* What user programs have: system call wrappers and a few helpers. */
#ifndef USER_LIB_H
#define USER_LIB_H

/*
 * User code is built position independent and mapped at USER_CODE_VA
 * in every task, from the kernel image's own frames, read-only.  So it
 * may not have writable globals, and may not call anything outside
 * user/ (the build checks both).  Everything here is static inline.
 */
#include <shimk/syscall-abi.h>
#include <shimk/types.h>

static inline long syscall3(long nr, long a0, long a1, long a2)
{
    long ret;

    __asm__ __volatile__("syscall"
                         : "=a"(ret)
                         : "a"(nr), "D"(a0), "S"(a1), "d"(a2)
                         : "rcx", "r11", "memory");
    return ret;
}

static inline long syscall5(long nr, long a0, long a1, long a2, long a3,
                            long a4)
{
    register long r10 __asm__("r10") = a3;
    register long r8 __asm__("r8") = a4;
    long ret;

    __asm__ __volatile__("syscall"
                         : "=a"(ret)
                         : "a"(nr), "D"(a0), "S"(a1), "d"(a2), "r"(r10),
                           "r"(r8)
                         : "rcx", "r11", "memory");
    return ret;
}

static inline __attribute__((__noreturn__)) void sys_exit(long code)
{
    syscall3(SYS_EXIT, code, 0, 0);
    for ( ;; )
        ;
}

static inline long sys_write(const char *buf, unsigned long len)
{
    return syscall3(SYS_WRITE, (long)buf, (long)len, 0);
}

static inline long sys_yield(void)
{
    return syscall3(SYS_YIELD, 0, 0, 0);
}

static inline long sys_map(unsigned long va, int order, int prot)
{
    return syscall3(SYS_MAP, (long)va, order, prot);
}

static inline long sys_unmap(unsigned long va, int order, int flags)
{
    return syscall3(SYS_UNMAP, (long)va, order, flags);
}

static inline long sys_protect(unsigned long va, int order, int prot)
{
    return syscall3(SYS_PROTECT, (long)va, order, prot);
}

static inline long sys_spawn(void (*entry)(void *), void *arg, long cpu)
{
    return syscall3(SYS_SPAWN, (long)entry, (long)arg, cpu);
}

static inline long sys_cpu(void)
{
    return syscall3(SYS_CPU, 0, 0, 0);
}

static inline long sys_sleep(unsigned long us)
{
    return syscall3(SYS_SLEEP, (long)us, 0, 0);
}

static inline long sys_ncpus(void)
{
    return syscall3(SYS_NCPUS, 0, 0, 0);
}

static inline unsigned long u_strlen(const char *s)
{
    unsigned long n = 0;

    while ( s[n] )
        n++;
    return n;
}

static inline void u_puts(const char *s)
{
    sys_write(s, u_strlen(s));
}

/* Decimal into buf (at least 21 bytes); returns its length. */
static inline unsigned int u_utoa(char *buf, unsigned long v)
{
    char tmp[21];
    unsigned int n = 0, i = 0;

    do
    {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while ( v );
    while ( n )
        buf[i++] = tmp[--n];
    buf[i] = '\0';
    return i;
}

static inline uint64_t u_rdtsc(void)
{
    uint32_t lo, hi;

    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

/* xorshift64*: enough randomness for fuzzing, no state in globals. */
static inline uint64_t u_rand(uint64_t *state)
{
    uint64_t x = *state;

    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545f4914f6cdd1dull;
}

#endif /* USER_LIB_H */
