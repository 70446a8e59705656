/* SPDX-License-Identifier: GPL-2.0-only */
/* panic(): a loud, complete report, then the panic exit code. */

#include <shimk/console.h>
#include <shimk/panic.h>
#include <shimk/printk.h>
#include <shimk/selfcheck.h>
#include <asm/guarded.h>
#include <asm/page.h>
#include <asm/percpu.h>
#include <asm/processor.h>
#include <asm/regs.h>
#include <asm/smp.h>

void save_current_regs(struct cpu_regs *r);

static void print_regs(const struct cpu_regs *r, bool trap)
{
    if ( trap )
        printk(KERN_EMERG "  vector=%lu error=%#lx\n",
               (unsigned long)r->vector, (unsigned long)r->error_code);
    printk(KERN_EMERG "  rip=%016lx cs=%04lx rflags=%016lx\n",
           (unsigned long)r->rip, (unsigned long)r->cs,
           (unsigned long)r->rflags);
    printk(KERN_EMERG "  rsp=%016lx ss=%04lx\n", (unsigned long)r->rsp,
           (unsigned long)r->ss);
    printk(KERN_EMERG "  rax=%016lx rbx=%016lx rcx=%016lx\n",
           (unsigned long)r->rax, (unsigned long)r->rbx,
           (unsigned long)r->rcx);
    printk(KERN_EMERG "  rdx=%016lx rsi=%016lx rdi=%016lx\n",
           (unsigned long)r->rdx, (unsigned long)r->rsi,
           (unsigned long)r->rdi);
    printk(KERN_EMERG "  rbp=%016lx r8 =%016lx r9 =%016lx\n",
           (unsigned long)r->rbp, (unsigned long)r->r8,
           (unsigned long)r->r9);
    printk(KERN_EMERG "  r10=%016lx r11=%016lx r12=%016lx\n",
           (unsigned long)r->r10, (unsigned long)r->r11,
           (unsigned long)r->r12);
    printk(KERN_EMERG "  r13=%016lx r14=%016lx r15=%016lx\n",
           (unsigned long)r->r13, (unsigned long)r->r14,
           (unsigned long)r->r15);
}

static void print_control_regs(void)
{
    printk(KERN_EMERG "  cr0=%016lx cr2=%016lx\n", read_cr0(), read_cr2());
    printk(KERN_EMERG "  cr3=%016lx cr4=%016lx\n", read_cr3(), read_cr4());
}

/*
 * Walk saved frame pointers; every frame is range-checked first, and
 * stays inside the stack the walk began on: above a guarded stack's top
 * lies the next slot's unmapped floor (asm/guarded.h).
 */
static void print_backtrace(uint64_t rbp)
{
    struct guarded_hit stack;

    guarded_lookup(rbp, &stack);
    printk(KERN_EMERG "  backtrace:\n");
    for ( unsigned int depth = 0; depth < 16; depth++ )
    {
        const uint64_t *frame = (const uint64_t *)rbp;

        if ( rbp < DIRECTMAP_BASE || (rbp & 7) )
            break;
        if ( stack.where == GUARDED_IN_AREA &&
             (rbp < stack.lo || rbp + 16 > stack.hi) )
            break;
        printk(KERN_EMERG "    [<%016lx>]\n", (unsigned long)frame[1]);
        if ( frame[0] <= rbp )
            break;
        rbp = frame[0];
    }
}

/*
 * One CPU reports.  Two CPUs that panic at once (both waiting for the
 * same lock at 4 vCPUs on 2, under nested KVM) once wrote their lines
 * into each other, "shimk: PAshiNICmk: PA on CNIPU0C", and the runner
 * found no PANIC line.  The first to claim panic_cpu reports; a later
 * one leaves its reason here and stops, and the reporter prints it
 * after its own line.
 */
static int panic_cpu = -1;
static char late_reason[NR_CPUS][160];
static bool late_set[NR_CPUS];

static void print_late_reasons(unsigned int self)
{
    for ( unsigned int cpu = 0; cpu < NR_CPUS; cpu++ )
        if ( cpu != self && __atomic_load_n(&late_set[cpu], __ATOMIC_ACQUIRE) )
            printk(KERN_EMERG "shimk: CPU%u panicked too, while CPU%u "
                   "reported: %s\n", cpu, self, late_reason[cpu]);
}

static __noreturn void do_panic(const struct cpu_regs *regs, bool trap,
                                const char *fmt, va_list ap)
{
    struct cpu_info *ci = this_cpu();
    char reason[256];

    local_irq_disable();
    if ( ci->panic_depth++ )
    {
        /* Panicking inside the panic report: say why and leave. */
        console_force_unlock();
        kvsnprintf(reason, sizeof(reason), fmt, ap);
        printk(KERN_EMERG "shimk: PANIC on CPU%u: nested panic: %s\n",
               ci->cpu, reason);
        machine_exit(EXIT_PANIC);
    }

    {
        int none = -1;

        if ( !__atomic_compare_exchange_n(&panic_cpu, &none, (int)ci->cpu,
                                          false, __ATOMIC_SEQ_CST,
                                          __ATOMIC_SEQ_CST) )
        {
            kvsnprintf(late_reason[ci->cpu], sizeof(late_reason[0]), fmt,
                       ap);
            __atomic_store_n(&late_set[ci->cpu], true, __ATOMIC_RELEASE);
            /* The reporter's NMI, or its exit, ends this CPU. */
            for ( ;; )
                __asm__ __volatile__("cli; hlt" ::: "memory");
        }
    }

    /*
     * The reason first: if stopping the others goes wrong (an L0 that
     * ends the guest on another CPU's fault), the line is out already.
     */
    console_force_unlock();
    kvsnprintf(reason, sizeof(reason), fmt, ap);
    printk(KERN_EMERG "shimk: PANIC on CPU%u: %s\n", ci->cpu, reason);
    /* Only one CPU reports; the others are stopped (asm/smp.h). */
    smp_stop_others_for_panic();
    console_force_unlock();
    print_late_reasons(ci->cpu);
    print_regs(regs, trap);
    smp_print_stopped();
    print_control_regs();
    print_backtrace(regs->rbp);
    /* Whether a CPU's tables were trampled tells whose fault this is. */
    selfcheck_report_all();
    machine_exit(EXIT_PANIC);
}

void panic(const char *fmt, ...)
{
    struct cpu_regs regs;
    va_list ap;

    /* No trap frame: show the registers as panic() was entered. */
    save_current_regs(&regs);
    va_start(ap, fmt);
    do_panic(&regs, false, fmt, ap);
}

void panic_regs(const struct cpu_regs *regs, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    do_panic(regs, true, fmt, ap);
}
