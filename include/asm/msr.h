/* SPDX-License-Identifier: GPL-2.0-only */
/* Model-specific registers: indices (SDM Vol. 4) and accessors. */
#ifndef ASM_MSR_H
#define ASM_MSR_H

#define MSR_APIC_BASE       0x0000001b
#define MSR_TSC_DEADLINE    0x000006e0  /* SDM Vol. 3A, 11.5.4.1 */
#define MSR_TSC_AUX         0xc0000103
#define MSR_EFER            0xc0000080
#define MSR_STAR            0xc0000081
#define MSR_SYSENTER_CS     0x00000174
#define MSR_LSTAR           0xc0000082
#define MSR_CSTAR           0xc0000083
#define MSR_SFMASK          0xc0000084
#define MSR_FS_BASE         0xc0000100
#define MSR_GS_BASE         0xc0000101
#define MSR_KERNEL_GS_BASE  0xc0000102

#define EFER_SCE  (1 << 0)
#define EFER_LME  (1 << 8)
#define EFER_LMA  (1 << 10)
#define EFER_NXE  (1 << 11)

#ifndef __ASSEMBLER__
#include <shimk/types.h>

static inline uint64_t rdmsr(uint32_t idx)
{
    uint32_t lo, hi;

    __asm__ __volatile__("rdmsr" : "=a"(lo), "=d"(hi) : "c"(idx));
    return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t idx, uint64_t v)
{
    __asm__ __volatile__("wrmsr"
                         :: "c"(idx), "a"((uint32_t)v),
                            "d"((uint32_t)(v >> 32)) : "memory");
}

/*
 * rdmsr/wrmsr that return -EFAULT instead of taking #GP, for MSRs that
 * may be absent (a hypervisor's, or a feature's).  The fault is fixed
 * up through the exception table.
 */
int rdmsr_safe(uint32_t idx, uint64_t *val);
int wrmsr_safe(uint32_t idx, uint64_t val);
#endif /* __ASSEMBLER__ */

#endif /* ASM_MSR_H */
