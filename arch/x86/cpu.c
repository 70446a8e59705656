/* SPDX-License-Identifier: GPL-2.0-only */
/* CPUID: the boot CPU's vendor and features (SDM Vol. 2A, CPUID). */

#include <shimk/string.h>
#include <asm/cpufeature.h>
#include <asm/cpuid.h>

struct cpu_features boot_cpu;

static const struct
{
    const char id[13];
    enum cpu_vendor vendor;
} vendors[] = {
    { "GenuineIntel", VENDOR_INTEL },
    { "AuthenticAMD", VENDOR_AMD },
    { "HygonGenuine", VENDOR_HYGON },
    { "CentaurHauls", VENDOR_CENTAUR },
    { "  Shanghai  ", VENDOR_ZHAOXIN },
};

enum cpu_vendor cpu_vendor_from_string(const char *s12)
{
    for ( unsigned int i = 0; i < sizeof(vendors) / sizeof(vendors[0]); i++ )
        if ( !memcmp(s12, vendors[i].id, 12) )
            return vendors[i].vendor;
    return VENDOR_UNKNOWN;
}

void cpu_features_init(void)
{
    struct cpu_features *f = &boot_cpu;
    struct cpuid_leaf r;

    cpuid(0, &r);
    f->max_leaf = r.a;
    memcpy(f->vendor_str + 0, &r.b, 4);
    memcpy(f->vendor_str + 4, &r.d, 4);
    memcpy(f->vendor_str + 8, &r.c, 4);
    f->vendor_str[12] = '\0';
    f->vendor = cpu_vendor_from_string(f->vendor_str);

    cpuid(1, &r);
    f->family = (r.a >> 8) & 0xf;
    f->model = (r.a >> 4) & 0xf;
    f->stepping = r.a & 0xf;
    if ( f->family == 0xf )
        f->family += (r.a >> 20) & 0xff;
    if ( f->family >= 6 )
        f->model |= ((r.a >> 16) & 0xf) << 4;
    f->hypervisor = r.c & CPUID1_ECX_HYPERVISOR;
    f->pcid = r.c & CPUID1_ECX_PCID;
    f->x2apic = r.c & CPUID1_ECX_X2APIC;
    f->tsc_deadline = r.c & CPUID1_ECX_TSC_DEADLINE;
    f->pge = r.d & CPUID1_EDX_PGE;
    f->apic_present = r.d & CPUID1_EDX_APIC;

    if ( f->max_leaf >= 7 )
    {
        cpuid_count(7, 0, &r);
        f->invpcid = r.b & CPUID7_EBX_INVPCID;
        f->smep = r.b & CPUID7_EBX_SMEP;
        f->smap = r.b & CPUID7_EBX_SMAP;
    }

    cpuid(0x80000000, &r);
    f->max_ext_leaf = r.a;
    if ( f->max_ext_leaf >= 0x80000001 )
    {
        cpuid(0x80000001, &r);
        f->nx = r.d & CPUIDX1_EDX_NX;
        f->page1g = r.d & CPUIDX1_EDX_PAGE1G;
        f->rdtscp = r.d & CPUIDX1_EDX_RDTSCP;
    }
    if ( f->max_ext_leaf >= 0x80000007 )
    {
        cpuid(0x80000007, &r);
        f->invariant_tsc = r.d & CPUIDX7_EDX_INVARIANT_TSC;
    }
    /*
     * SDM Vol. 3A, 4.1.4: MAXPHYADDR from leaf 0x80000008, else 36 where
     * PAE is (every 64-bit CPU).  A value outside 32-52 is the L0's
     * mistake: 52, the architectural maximum, checks nothing away.
     */
    f->phys_bits = 36;
    if ( f->max_ext_leaf >= 0x80000008 )
    {
        cpuid(0x80000008, &r);
        f->phys_bits = r.a & 0xff;
        if ( f->phys_bits < 32 || f->phys_bits > 52 )
            f->phys_bits = 52;
    }
}
