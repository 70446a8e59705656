/* SPDX-License-Identifier: GPL-2.0-only */
/* CPUID access and the feature bits shimk looks at (SDM Vol. 2A, CPUID). */
#ifndef ASM_CPUID_H
#define ASM_CPUID_H

#include <shimk/types.h>

struct cpuid_leaf
{
    uint32_t a, b, c, d;
};

static inline void cpuid_count(uint32_t leaf, uint32_t subleaf,
                               struct cpuid_leaf *r)
{
    __asm__ __volatile__("cpuid"
                         : "=a"(r->a), "=b"(r->b), "=c"(r->c), "=d"(r->d)
                         : "a"(leaf), "c"(subleaf));
}

static inline void cpuid(uint32_t leaf, struct cpuid_leaf *r)
{
    cpuid_count(leaf, 0, r);
}

/* Leaf 1 */
#define CPUID1_ECX_PCID       (1u << 17)
#define CPUID1_ECX_X2APIC     (1u << 21)
#define CPUID1_ECX_TSC_DEADLINE (1u << 24)
#define CPUID1_ECX_HYPERVISOR (1u << 31)
#define CPUID1_EDX_TSC        (1u << 4)
#define CPUID1_EDX_MSR        (1u << 5)
#define CPUID1_EDX_APIC       (1u << 9)
#define CPUID1_EDX_PGE        (1u << 13)
/* Leaf 7, subleaf 0 */
#define CPUID7_EBX_SMEP       (1u << 7)
#define CPUID7_EBX_INVPCID    (1u << 10)
#define CPUID7_EBX_SMAP       (1u << 20)
/* Leaf 0x80000001 */
#define CPUIDX1_EDX_NX        (1u << 20)
#define CPUIDX1_EDX_PAGE1G    (1u << 26)
#define CPUIDX1_EDX_RDTSCP    (1u << 27)
#define CPUIDX1_EDX_LM        (1u << 29)
/* Leaf 0x80000007 */
#define CPUIDX7_EDX_INVARIANT_TSC (1u << 8)

#endif /* ASM_CPUID_H */
