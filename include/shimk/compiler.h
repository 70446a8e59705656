/* SPDX-License-Identifier: GPL-2.0-only */
/* Compiler attributes and helper macros. */
#ifndef SHIMK_COMPILER_H
#define SHIMK_COMPILER_H

#define __section(s)   __attribute__((__section__(s)))
#define __aligned(a)   __attribute__((__aligned__(a)))
#define __packed       __attribute__((__packed__))
#define __noreturn     __attribute__((__noreturn__))
#define __used         __attribute__((__used__))
#define __unused       __attribute__((__unused__))
#define __weak         __attribute__((__weak__))
#define __noinline     __attribute__((__noinline__))
#define __always_inline inline __attribute__((__always_inline__))
#define __printf(a, b) __attribute__((__format__(__printf__, a, b)))
#define __must_check   __attribute__((__warn_unused_result__))

/* Data written once on the boot CPU, read everywhere after. */
#define __read_mostly  __section(".data.read_mostly")

/*
 * Written during boot only: mark_ro_after_init() then makes these
 * pages read-only, so a stray write faults instead of changing policy.
 */
#define __ro_after_init __section(".data.ro_after_init")

#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#define barrier() __asm__ __volatile__("" ::: "memory")

/*
 * One load or store the compiler may neither tear, merge nor repeat:
 * needed wherever another CPU (or an interrupt) shares the variable.
 */
#define READ_ONCE(x)     (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define BUILD_BUG_ON(c) _Static_assert(!(c), #c)

#define container_of(ptr, type, member) \
    ((type *)((char *)(ptr) - __builtin_offsetof(type, member)))

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

#define ROUNDUP(x, a)   (((x) + (a) - 1) & ~((__typeof__(x))(a) - 1))
#define ROUNDDOWN(x, a) ((x) & ~((__typeof__(x))(a) - 1))
#define IS_ALIGNED(x, a) (((x) & ((__typeof__(x))(a) - 1)) == 0)

#define STR_(x) #x
#define STR(x)  STR_(x)

#endif /* SHIMK_COMPILER_H */
