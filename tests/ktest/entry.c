/* SPDX-License-Identifier: GPL-2.0-only */
/* ktest entry: kernel-mode entries on the user's GS base, through entry.S. */

#include <shimk/ktest.h>
#include <asm/apic.h>
#include <asm/extable.h>
#include <asm/msr.h>
#include <asm/percpu.h>
#include <asm/processor.h>
#include <asm/smp.h>

/*
 * An interrupt or exception can reach the kernel at an instruction that
 * runs on the user's GS base (entry.S explains where).  These cases put
 * the CPU in exactly that state with SWAPGS, then take an exception and
 * an interrupt in ring 0 through the real stubs: the entry must find
 * the kernel's GS base itself, run the handler on it, and give the
 * user's back on return.  Before every ring-0 entry read MSR_GS_BASE,
 * the #UD below sent do_trap()'s first per-CPU load through GS base 0:
 * a page fault that faulted again at every level down the heap.
 */

static volatile uint64_t ipi_gs_base;
static volatile unsigned int ipi_taken;

static void entry_test_ipi(struct cpu_regs *regs)
{
    ipi_gs_base = rdmsr(MSR_GS_BASE);
    ipi_taken++;
}

struct gs_state
{
    uint64_t gs_base, kernel_gs_base;
};

static void read_gs(struct gs_state *s)
{
    s->gs_base = rdmsr(MSR_GS_BASE);
    s->kernel_gs_base = rdmsr(MSR_KERNEL_GS_BASE);
}

/* A #UD at a plain kernel RIP on the user's GS base; fixed up to 2:. */
static bool ud_on_user_gs(struct gs_state *in)
{
    bool fixed = true;

    __asm__ __volatile__("swapgs\n\t"
                         "1: ud2\n\t"
                         "movb $0, %[fixed]\n\t"
                         "2:\n\t"
                         _ASM_EXTABLE(1b, 2b)
                         : [fixed] "+m"(fixed) :: "memory");
    read_gs(in);
    __asm__ __volatile__("swapgs" ::: "memory");
    return fixed;
}

/* A #PF (a read of an unmapped kernel address) on the user's GS base. */
static bool pf_on_user_gs(struct gs_state *in)
{
    bool fixed = true;
    uint64_t v;

    __asm__ __volatile__("swapgs\n\t"
                         "1: movq (%[bad]), %[v]\n\t"
                         "movb $0, %[fixed]\n\t"
                         "2:\n\t"
                         _ASM_EXTABLE(1b, 2b)
                         : [fixed] "+m"(fixed), [v] "=r"(v)
                         : [bad] "r"(0xffff8ff000000000ul)
                         : "memory");
    read_gs(in);
    __asm__ __volatile__("swapgs" ::: "memory");
    return fixed;
}

KTEST(entry, exceptions_on_the_user_gs_base_are_handled)
{
    struct cpu_info *ci = this_cpu();
    struct gs_state ud_in, pf_in;
    unsigned long f = local_irq_save();
    bool ud, pf;

    ud = ud_on_user_gs(&ud_in);
    pf = pf_on_user_gs(&pf_in);
    local_irq_restore(f);
    KT_ASSERT(t, ud);
    KT_EQ(t, ud_in.gs_base, 0);         /* the user's base, given back */
    KT_EQ(t, ud_in.kernel_gs_base, (uint64_t)ci);
    KT_ASSERT(t, pf);
    KT_EQ(t, pf_in.gs_base, 0);
    KT_EQ(t, pf_in.kernel_gs_base, (uint64_t)ci);
    KT_EQ(t, rdmsr(MSR_GS_BASE), (uint64_t)ci);
    KT_EQ(t, this_cpu(), ci);
}

KTEST(entry, an_irq_on_the_user_gs_base_is_handled)
{
    static bool claimed;
    struct cpu_info *ci = this_cpu();
    struct gs_state in;
    unsigned int before;
    unsigned long f;

    if ( !claimed )
    {
        set_ipi_handler(ENTRY_TEST_VECTOR, entry_test_ipi);
        claimed = true;
    }
    f = local_irq_save();
    before = ipi_taken;
    ipi_gs_base = 0;
    send_ipi_self(ENTRY_TEST_VECTOR);
    /*
     * The self-IPI is pending; it is taken in ring 0 while the user's GS
     * base is loaded, inside the STI...CLI window.  The bounded loop
     * waits for the APIC to deliver it.
     */
    __asm__ __volatile__("swapgs\n\t"
                         "sti\n\t"
                         "mov $100000, %%ecx\n\t"
                         "1: cmpl %[before], %[taken]\n\t"
                         "jne 2f\n\t"
                         "pause\n\t"
                         "dec %%ecx\n\t"
                         "jnz 1b\n\t"
                         "2: cli\n\t"
                         : : [before] "r"(before), [taken] "m"(ipi_taken)
                         : "rcx", "memory", "cc");
    read_gs(&in);
    __asm__ __volatile__("swapgs" ::: "memory");
    local_irq_restore(f);
    KT_ASSERTF(t, ipi_taken == before + 1, "the self-IPI was %s",
               ipi_taken == before ? "not taken" : "taken more than once");
    KT_EQ(t, ipi_gs_base, (uint64_t)ci);    /* the handler ran on ours */
    KT_EQ(t, in.gs_base, 0);                /* and gave the user's back */
    KT_EQ(t, in.kernel_gs_base, (uint64_t)ci);
}
