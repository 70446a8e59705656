/* SPDX-License-Identifier: GPL-2.0-only */
/* MSR accesses that survive a #GP, for MSRs that may not exist. */

#include <shimk/errno.h>
#include <asm/extable.h>
#include <asm/msr.h>

int rdmsr_safe(uint32_t idx, uint64_t *val)
{
    uint32_t lo = 0, hi = 0;
    int err = 0;

    __asm__ __volatile__("1: rdmsr\n"
                         "2:\n"
                         " .pushsection .fixup, \"ax\"\n"
                         "3: mov %[efault], %[err]\n"
                         " jmp 2b\n"
                         " .popsection\n"
                         _ASM_EXTABLE(1b, 3b)
                         : "+a"(lo), "+d"(hi), [err] "+r"(err)
                         : "c"(idx), [efault] "i"(-EFAULT));
    *val = ((uint64_t)hi << 32) | lo;
    return err;
}

int wrmsr_safe(uint32_t idx, uint64_t val)
{
    int err = 0;

    __asm__ __volatile__("1: wrmsr\n"
                         "2:\n"
                         " .pushsection .fixup, \"ax\"\n"
                         "3: mov %[efault], %[err]\n"
                         " jmp 2b\n"
                         " .popsection\n"
                         _ASM_EXTABLE(1b, 3b)
                         : [err] "+r"(err)
                         : "c"(idx), "a"((uint32_t)val),
                           "d"((uint32_t)(val >> 32)), [efault] "i"(-EFAULT)
                         : "memory");
    return err;
}
