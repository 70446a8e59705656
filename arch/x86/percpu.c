/* SPDX-License-Identifier: GPL-2.0-only */
/* Per-CPU areas: the boot CPU's static one, and the GS base. */

#include <shimk/compiler.h>
#include <asm/msr.h>
#include <asm/percpu.h>

struct cpu_info *cpu_infos[CONFIG_NR_CPUS];

static struct cpu_info bsp_info;
static char bsp_ist_stacks[3][IST_STACK_SIZE] __aligned(16);
extern char bsp_stack[];    /* boot/head.S */

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
    struct cpu_info *ci = &bsp_info;

    ci->self = ci;
    ci->cpu = 0;
    ci->stack_base = bsp_stack;
    ci->kernel_stack_top = (uint64_t)bsp_stack + KERNEL_STACK_SIZE;
    for ( unsigned int i = 0; i < 3; i++ )
        ci->ist_stacks[i] = bsp_ist_stacks[i];
    ci->online = true;
    cpu_infos[0] = ci;
    percpu_set_gs(ci);
    return ci;
}
