/* SPDX-License-Identifier: GPL-2.0-only */
/* shimk's user SDK: system call wrappers and small helpers for ring-3 programs. */
#ifndef SHIMK_USER_H
#define SHIMK_USER_H

/*
 * One header for every ring-3 program: those built into the kernel
 * image (user/) and static ELF programs from the initrd (built with
 * tools/shimk-cc).  The numbers and the address map come from the
 * kernel's own <shimk/syscall-abi.h>, the error values from
 * <shimk/errno.h>: one source of truth.  Everything here is static
 * inline, so it needs no library and no writable data.
 * The ABI as a user needs it: docs/user-abi.md.
 */
#include <shimk/errno.h>
#include <shimk/syscall-abi.h>
#include <shimk/types.h>

/*
 * SYSCALL: number in RAX, arguments in RDI, RSI, RDX, R10, R8; the
 * CPU itself clobbers RCX and R11.  A result below 0 is -errno.
 */
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

/* Decimal of a signed value into buf (at least 22 bytes); its length. */
static inline unsigned int u_itoa(char *buf, long v)
{
    if ( v < 0 )
    {
        buf[0] = '-';
        return 1 + u_utoa(buf + 1, -(unsigned long)v);
    }
    return u_utoa(buf, (unsigned long)v);
}

/* "0x" and lower-case hex into buf (at least 19 bytes); its length. */
static inline unsigned int u_xtoa(char *buf, unsigned long v)
{
    unsigned int n = 0, i = 2;
    char tmp[16];

    do
    {
        tmp[n++] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while ( v );
    buf[0] = '0';
    buf[1] = 'x';
    while ( n )
        buf[i++] = tmp[--n];
    buf[i] = '\0';
    return i;
}

/*
 * printf's little sibling: %s, %d/%i/%ld, %u/%lu, %x/%lx/%p and %%,
 * no widths, at most 255 bytes a call (the rest is cut), one write.
 */
static inline void u_printf(const char *fmt, ...)
{
    __builtin_va_list ap;
    char out[256];
    unsigned int n = 0;

    __builtin_va_start(ap, fmt);
    for ( const char *f = fmt; *f && n < sizeof(out) - 24; f++ )
    {
        char num[24];
        const char *s = num;
        unsigned int len;
        bool lng = false;

        if ( *f != '%' )
        {
            out[n++] = *f;
            continue;
        }
        f++;
        if ( *f == 'l' )
        {
            lng = true;
            f++;
        }
        switch ( *f )
        {
        case 's':
            s = __builtin_va_arg(ap, const char *);
            len = (unsigned int)u_strlen(s);
            break;
        case 'd': case 'i':
            len = u_itoa(num, lng ? __builtin_va_arg(ap, long)
                                  : __builtin_va_arg(ap, int));
            break;
        case 'u':
            len = u_utoa(num, lng ? __builtin_va_arg(ap, unsigned long)
                                  : __builtin_va_arg(ap, unsigned int));
            break;
        case 'x': case 'p':
            len = u_xtoa(num, lng || *f == 'p'
                              ? __builtin_va_arg(ap, unsigned long)
                              : __builtin_va_arg(ap, unsigned int));
            break;
        case '%':
            out[n++] = '%';
            continue;
        default:
            /* Not understood: shown as it is, so the mistake is seen. */
            out[n++] = '%';
            if ( !*f )
                f--;
            else
                out[n++] = *f;
            continue;
        }
        while ( len-- && n < sizeof(out) - 1 )
            out[n++] = *s++;
    }
    __builtin_va_end(ap);
    sys_write(out, n);
}

#endif /* SHIMK_USER_H */
