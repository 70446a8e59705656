/* SPDX-License-Identifier: GPL-2.0-only */
/* panic(), assertions and the machine exit codes (docs/design.md). */
#ifndef SHIMK_PANIC_H
#define SHIMK_PANIC_H

#include <shimk/compiler.h>
#include <shimk/types.h>

/* shimk's exit codes (QEMU turns code c into status (c << 1) | 1). */
#define EXIT_SUCCESS     0
#define EXIT_TEST_FAILED 1
#define EXIT_PANIC       2
#define EXIT_ALL_SKIPPED 38

struct cpu_regs;

/*
 * Print "shimk: PANIC on CPU<n>: <reason>", the registers and a
 * backtrace, stop the other CPUs, and exit with EXIT_PANIC.
 */
__printf(1, 2) __noreturn void panic(const char *fmt, ...);
__printf(2, 3) __noreturn void panic_regs(const struct cpu_regs *regs,
                                          const char *fmt, ...);

/*
 * Leave the machine with code: QEMU's isa-debug-exit where present,
 * then the hypervisor's shutdown, then halt.
 */
__noreturn void machine_exit(int code);

#define BUG_ON(cond)                                                   \
    do                                                                 \
    {                                                                  \
        if ( unlikely(cond) )                                          \
            panic("BUG_ON(%s) at %s:%d", #cond, __FILE__, __LINE__);   \
    } while ( 0 )

#define ASSERT(cond)                                                   \
    do                                                                 \
    {                                                                  \
        if ( unlikely(!(cond)) )                                       \
            panic("assertion '%s' failed at %s:%d", #cond, __FILE__,   \
                  __LINE__);                                           \
    } while ( 0 )

#endif /* SHIMK_PANIC_H */
