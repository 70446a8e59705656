/* SPDX-License-Identifier: GPL-2.0-only */
/* ktest selfcheck: a changed descriptor table byte is found and named. */

#include <shimk/ktest.h>
#include <shimk/selfcheck.h>
#include <shimk/string.h>
#include <asm/percpu.h>
#include <asm/processor.h>

/*
 * Each case changes one byte of this CPU's own tables that nothing uses
 * while interrupts are off (the null descriptor, the #MC IST pointer,
 * RSP0 in ring 0), checks quietly, and puts the byte back before an
 * interrupt could see it.  The shared IDT and kernel root are left
 * alone: another CPU's watch tick would see the change and panic, as it
 * should (the selftest-selfcheck row shows that path).
 */

KTEST(selfcheck, the_boot_copies_match)
{
    KT_EQ(t, selfcheck_this_cpu(SELFCHECK_QUIET), 0);
}

KTEST(selfcheck, a_changed_gdt_byte_is_named)
{
    struct cpu_info *ci = this_cpu();
    unsigned long f = local_irq_save();
    unsigned int n;

    ci->gdt[0] ^= 0x40;                 /* the null descriptor */
    n = selfcheck_this_cpu(SELFCHECK_QUIET);
    ci->gdt[0] ^= 0x40;
    local_irq_restore(f);
    KT_EQ(t, n, 1);
    KT_ASSERTF(t, !strcmp(selfcheck_last.what, "GDT"), "found '%s'",
               selfcheck_last.what);
    KT_EQ(t, selfcheck_last.offset, 0);
    KT_EQ(t, selfcheck_last.cpu, ci->cpu);
}

KTEST(selfcheck, a_changed_ist_pointer_is_named)
{
    struct cpu_info *ci = this_cpu();
    unsigned long f = local_irq_save();
    unsigned int n;

    ci->tss.ist[IST_MC - 1] ^= 0x1000;
    n = selfcheck_this_cpu(SELFCHECK_QUIET);
    ci->tss.ist[IST_MC - 1] ^= 0x1000;
    local_irq_restore(f);
    KT_EQ(t, n, 1);
    KT_ASSERTF(t, !strcmp(selfcheck_last.what, "TSS"), "found '%s'",
               selfcheck_last.what);
    /* ist[2] at 0x34; bit 12 lives in the pointer's second byte. */
    KT_EQ(t, selfcheck_last.offset,
          __builtin_offsetof(struct tss64, ist[IST_MC - 1]) + 1);
}

KTEST(selfcheck, an_rsp0_off_every_kernel_stack_is_named)
{
    struct cpu_info *ci = this_cpu();
    unsigned long f = local_irq_save();
    uint64_t saved = ci->tss.rsp[0];
    unsigned int n;

    ci->tss.rsp[0] = saved - 64;        /* inside a stack, not its top */
    n = selfcheck_this_cpu(SELFCHECK_QUIET);
    ci->tss.rsp[0] = saved;
    local_irq_restore(f);
    KT_EQ(t, n, 1);
    KT_ASSERTF(t, strstr(selfcheck_last.what, "RSP0") != NULL, "found '%s'",
               selfcheck_last.what);
    KT_EQ(t, selfcheck_this_cpu(SELFCHECK_QUIET), 0);
}
