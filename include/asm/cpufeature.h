/* SPDX-License-Identifier: GPL-2.0-only */
/* The boot CPU's vendor and the features shimk decides policy on. */
#ifndef ASM_CPUFEATURE_H
#define ASM_CPUFEATURE_H

#include <shimk/types.h>

enum cpu_vendor
{
    VENDOR_UNKNOWN,
    VENDOR_INTEL,
    VENDOR_AMD,
    VENDOR_HYGON,
    VENDOR_CENTAUR,
    VENDOR_ZHAOXIN,
};

struct cpu_features
{
    enum cpu_vendor vendor;
    char vendor_str[13];
    uint32_t family, model, stepping;
    uint32_t max_leaf, max_ext_leaf;
    bool hypervisor;    /* CPUID.1:ECX[31] */
    bool apic_present, pge, pcid, invpcid, x2apic, nx, page1g, rdtscp;
    bool invariant_tsc, tsc_deadline, smep, smap;
    unsigned int phys_bits;     /* MAXPHYADDR: CPUID 0x80000008 EAX[7:0] */
};

extern struct cpu_features boot_cpu;

/* Fill boot_cpu from CPUID; early, before anything depends on it. */
void cpu_features_init(void);

/* Vendor from the 12-byte CPUID.0 string (EBX, EDX, ECX order). */
enum cpu_vendor cpu_vendor_from_string(const char *s12);

#endif /* ASM_CPUFEATURE_H */
