/* SPDX-License-Identifier: GPL-2.0-only */
/* Per-CPU areas: the boot CPU's static one, and the GS base. */

#include <shimk/compiler.h>
#include <asm/guarded.h>
#include <asm/msr.h>
#include <asm/page.h>
#include <asm/percpu.h>

struct cpu_info *cpu_infos[CONFIG_NR_CPUS];

/*
 * The boot CPU's tables and stacks live in .bss, each behind a page of
 * its own that mm_init() leaves unmapped (asm/guarded.h), as the APs'
 * do in the guarded region.
 */
static struct
{
    char guard[PAGE_SIZE];
    struct cpu_info ci __aligned(PAGE_SIZE);
} bsp_info_area __aligned(PAGE_SIZE);

static struct
{
    char guard[PAGE_SIZE];
    char stack[IST_STACK_SIZE];
} bsp_ist_areas[3] __aligned(PAGE_SIZE);

extern char bsp_stack[];    /* boot/head.S, behind bsp_stack_guard */

BUILD_BUG_ON(IST_STACK_SIZE % PAGE_SIZE);

void percpu_set_gs(struct cpu_info *ci)
{
    /*
     * GS_BASE is the kernel's while in the kernel; KERNEL_GS_BASE holds
     * the user value (0) that SWAPGS exchanges in on the way out.
     */
    wrmsr(MSR_GS_BASE, (uint64_t)ci);
    wrmsr(MSR_KERNEL_GS_BASE, 0);
}

struct cpu_info *percpu_bsp_init(void)
{
    static const enum guarded_kind ist_kind[3] = {
        GUARDED_IST_NMI, GUARDED_IST_DF, GUARDED_IST_MC };
    struct cpu_info *ci = &bsp_info_area.ci;

    ci->self = ci;
    ci->cpu = 0;
    ci->stack_base = bsp_stack;
    ci->kernel_stack_top = (uint64_t)bsp_stack + KERNEL_STACK_SIZE;
    guarded_register_static(bsp_stack, KERNEL_STACK_SIZE, GUARDED_CPU_STACK,
                            0, NULL);
    for ( unsigned int i = 0; i < 3; i++ )
    {
        ci->ist_stacks[i] = bsp_ist_areas[i].stack;
        guarded_register_static(bsp_ist_areas[i].stack, IST_STACK_SIZE,
                                ist_kind[i], 0, NULL);
    }
    guarded_register_static(ci, sizeof(*ci), GUARDED_CPU_TABLES, 0, NULL);
    ci->online = true;
    cpu_infos[0] = ci;
    percpu_set_gs(ci);
    return ci;
}
