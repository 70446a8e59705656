/* SPDX-License-Identifier: GPL-2.0-only */
/* Fault-tolerant memory accesses through the exception table. */

#include <shimk/errno.h>
#include <asm/extable.h>
#include <asm/probe.h>

int probe_read_u64(const volatile void *va, uint64_t *val)
{
    uint64_t v = 0;
    int err = 0;

    __asm__ __volatile__("1: movq (%[p]), %[v]\n"
                         "2:\n"
                         " .pushsection .fixup, \"ax\"\n"
                         "3: mov %[efault], %[err]\n"
                         " jmp 2b\n"
                         " .popsection\n"
                         _ASM_EXTABLE(1b, 3b)
                         : [v] "+r"(v), [err] "+r"(err)
                         : [p] "r"(va), [efault] "i"(-EFAULT)
                         : "memory");
    *val = v;
    return err;
}

int probe_write_u64(volatile void *va, uint64_t val)
{
    int err = 0;

    __asm__ __volatile__("1: movq %[v], (%[p])\n"
                         "2:\n"
                         " .pushsection .fixup, \"ax\"\n"
                         "3: mov %[efault], %[err]\n"
                         " jmp 2b\n"
                         " .popsection\n"
                         _ASM_EXTABLE(1b, 3b)
                         : [err] "+r"(err)
                         : [p] "r"(va), [v] "r"(val), [efault] "i"(-EFAULT)
                         : "memory");
    return err;
}
