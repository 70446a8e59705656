/* SPDX-License-Identifier: GPL-2.0-only */
/* Exception and interrupt dispatch: fix up, hand on, or panic. */

#include <shimk/compiler.h>
#include <shimk/panic.h>
#include <shimk/printk.h>
#include <shimk/sched.h>
#include <shimk/task.h>
#include <asm/apic.h>
#include <asm/extable.h>
#include <asm/guarded.h>
#include <asm/percpu.h>
#include <asm/processor.h>
#include <asm/regs.h>
#include <asm/traps.h>

BUILD_BUG_ON(__builtin_offsetof(struct cpu_regs, rax) != REGS_RAX);
BUILD_BUG_ON(__builtin_offsetof(struct cpu_regs, rdi) != REGS_RDI);
BUILD_BUG_ON(__builtin_offsetof(struct cpu_regs, vector) != REGS_VECTOR);
BUILD_BUG_ON(__builtin_offsetof(struct cpu_regs, rip) != REGS_RIP);
BUILD_BUG_ON(__builtin_offsetof(struct cpu_regs, ss) != REGS_SS);
BUILD_BUG_ON(sizeof(struct cpu_regs) != REGS_SIZE);

static vector_handler_t vector_handlers[256];
void (*user_exception_hook)(struct cpu_regs *regs);
void (*nmi_hook)(struct cpu_regs *regs);

static const char *const exception_names[32] = {
    [0] = "divide error (#DE)",
    [1] = "debug (#DB)",
    [2] = "NMI",
    [3] = "breakpoint (#BP)",
    [4] = "overflow (#OF)",
    [5] = "bound range (#BR)",
    [6] = "invalid opcode (#UD)",
    [7] = "device not available (#NM)",
    [8] = "double fault (#DF)",
    [9] = "coprocessor segment overrun",
    [10] = "invalid TSS (#TS)",
    [11] = "segment not present (#NP)",
    [12] = "stack fault (#SS)",
    [13] = "general protection (#GP)",
    [14] = "page fault (#PF)",
    [16] = "x87 error (#MF)",
    [17] = "alignment check (#AC)",
    [18] = "machine check (#MC)",
    [19] = "SIMD error (#XM)",
    [20] = "virtualization exception (#VE)",
    [21] = "control protection (#CP)",
    [28] = "hypervisor injection (#HV)",
    [29] = "VMM communication (#VC)",
    [30] = "security exception (#SX)",
};

const char *exception_name(unsigned int vector)
{
    if ( vector < 32 && exception_names[vector] )
        return exception_names[vector];
    return vector < 32 ? "reserved exception" : "interrupt";
}

void set_vector_handler(unsigned int vector, vector_handler_t fn)
{
    if ( vector < FIRST_EXTERNAL_VECTOR || vector >= 256 ||
         vector_handlers[vector] )
        panic("vector %u cannot be claimed", vector);
    vector_handlers[vector] = fn;
}

uint64_t search_exception_table(uint64_t rip)
{
    extern const struct exception_table_entry __start_ex_table[],
        __stop_ex_table[];

    for ( const struct exception_table_entry *e = __start_ex_table;
          e < __stop_ex_table; e++ )
        if ( e->insn == rip )
            return e->fixup;
    return 0;
}

static void do_exception(struct cpu_regs *regs)
{
    unsigned int vec = regs->vector;
    uint64_t fixup;

    if ( vec == X86_EXC_NMI && nmi_hook )
    {
        nmi_hook(regs);
        return;
    }

    if ( !regs_from_user(regs) && (fixup = search_exception_table(regs->rip)) )
    {
        regs->rip = fixup;
        return;
    }

    /*
     * NMI and #MC run on IST stacks: never end a task from there (its
     * exit would switch away from an IST stack); #DF never gets here.
     */
    if ( regs_from_user(regs) && user_exception_hook &&
         vec != X86_EXC_NMI && vec != X86_EXC_MC )
    {
        user_exception_hook(regs);
        return;
    }

    if ( vec == X86_EXC_PF )
        panic_regs(regs, "%s in %s mode at %016lx (error %#lx: %s%s%s%s)",
                   exception_name(vec),
                   regs_from_user(regs) ? "user" : "kernel",
                   read_cr2(), (unsigned long)regs->error_code,
                   regs->error_code & PFEC_PRESENT ? "protection" :
                                                     "not present",
                   regs->error_code & PFEC_WRITE ? ", write" : ", read",
                   regs->error_code & PFEC_INSN ? ", fetch" : "",
                   regs->error_code & PFEC_RSVD ? ", reserved bit" : "");
    panic_regs(regs, "%s in %s mode at rip %016lx", exception_name(vec),
               regs_from_user(regs) ? "user" : "kernel",
               (unsigned long)regs->rip);
}

uint64_t safe_halt_races;
struct masked_irqs masked_irqs;

/*
 * An external interrupt is recognised only with RFLAGS.IF set (SDM Vol.
 * 3A, 6.8.1); the saved RFLAGS is the interrupted context's.  With IF
 * clear in it, the L0 delivered the vector against the mask: shimk's
 * critical sections and its IRETQ to ring 3 (entry.S) rely on the mask,
 * so count it and say so at the end of the run.
 */
static void note_masked_irq(const struct cpu_regs *regs, bool duplicate)
{
    unsigned int slot;

    if ( !__atomic_fetch_add(&masked_irqs.count, 1, __ATOMIC_RELAXED) )
    {
        masked_irqs.vector = regs->vector;
        masked_irqs.rip = regs->rip;
        masked_irqs.cpu = this_cpu()->cpu;
    }
    if ( duplicate )
        return;
    slot = __atomic_fetch_add(&masked_irqs.recorded, 1, __ATOMIC_RELAXED);
    if ( slot < MASKED_IRQ_RECORDS )
        masked_irqs.records[slot] = (struct masked_irq_record){
            .rip = regs->rip, .cs = (uint16_t)regs->cs,
            .vector = (uint8_t)regs->vector,
            .cpu = (uint8_t)this_cpu()->cpu };
}

/*
 * The same vector again at the first instruction of its own stub, with
 * IF clear: the L0 delivered one interrupt twice (it re-injected an
 * event whose delivery had completed).  The APIC moved the vector into
 * service once, so one handler run and one EOI are right: the outer
 * delivery, which resumes at the stub when this one returns, does both.
 */
static bool duplicate_irq(const struct cpu_regs *regs)
{
    extern const char trap_stubs[];

    return regs->rip == (uint64_t)trap_stubs + regs->vector * 16;
}

/*
 * What a trap must leave below its frame: enough for a panic's report.
 * Each kernel stack has an unmapped guard page below it (asm/guarded.h),
 * so running off one ends in a #DF; this catches the approach earlier,
 * with a clearer report.  The lookup needs no per-CPU data.
 */
#define STACK_RESERVE 4096

static void check_stack(const struct cpu_regs *regs)
{
    uint64_t at = (uint64_t)regs;
    struct guarded_hit hit;
    char what[128];

    guarded_lookup(at, &hit);
    if ( hit.where == GUARDED_IN_AREA && at - hit.lo >= STACK_RESERVE )
        return;
    if ( hit.where == GUARDED_NONE )
        return;
    guarded_describe(what, sizeof(what), &hit);
    panic_regs(regs, "kernel stack overflow: a %s (vector %u) left %ld "
               "bytes of %s", exception_name(regs->vector),
               (unsigned int)regs->vector, (long)(at - hit.lo), what);
}

/*
 * A #DF is a fault while delivering another.  On a guarded stack that
 * is nearly always a push onto the guard page: the #PF it raises cannot
 * be pushed either, and the CPU switches to the #DF IST stack (SDM Vol.
 * 3A, 6.15, interrupt 8).  CR2 then holds the address of the push that
 * failed and the frame's RSP the overflowing stack pointer.
 */
static __noreturn void double_fault(const struct cpu_regs *regs)
{
    uint64_t cr2 = read_cr2();
    struct guarded_hit hit;
    char what[128];

    guarded_lookup(cr2, &hit);
    if ( hit.where != GUARDED_IN_GUARD )
        guarded_lookup(regs->rsp, &hit);
    if ( hit.where == GUARDED_IN_GUARD )
    {
        guarded_describe(what, sizeof(what), &hit);
        panic_regs(regs, "double fault (#DF): kernel stack overflow on "
                   "CPU%u: rsp %016lx ran into %s (cr2 %016lx)",
                   this_cpu()->cpu, (unsigned long)regs->rsp, what,
                   (unsigned long)cr2);
    }
    guarded_lookup(regs->rsp, &hit);
    guarded_describe(what, sizeof(what), &hit);
    panic_regs(regs, "double fault (#DF) on CPU%u in %s mode: rsp %016lx "
               "(%s), cr2 %016lx", this_cpu()->cpu,
               regs_from_user(regs) ? "user" : "kernel",
               (unsigned long)regs->rsp, what, (unsigned long)cr2);
}

void do_trap(struct cpu_regs *regs)
{
    unsigned int vec = regs->vector;
    struct cpu_info *ci;
    /* Interrupt context: no IPI shorthands, no sleeping (asm/smp.h). */
    bool irq = vec >= FIRST_EXTERNAL_VECTOR || vec == X86_EXC_NMI ||
               vec == X86_EXC_MC;

    /*
     * The entry code has made the GS base the kernel's (entry.S); the
     * stack check needs no per-CPU data, so it comes first.  A #DF, from
     * either ring, is never survivable: report it from its IST stack.
     */
    if ( vec == X86_EXC_DF )
        double_fault(regs);
    check_stack(regs);
    ci = this_cpu();
    if ( vec >= FIRST_EXTERNAL_VECTOR && !(regs->rflags & X86_EFLAGS_IF) )
    {
        note_masked_irq(regs, duplicate_irq(regs));
        if ( duplicate_irq(regs) )
        {
            __atomic_fetch_add(&masked_irqs.duplicates, 1, __ATOMIC_RELAXED);
            return;
        }
    }
    ci->irq_depth += irq;
    if ( vec >= FIRST_EXTERNAL_VECTOR )
        WRITE_ONCE(ci->irqs_taken, ci->irqs_taken + 1);
    /* Taken at safe_halt's HLT before it ran: the halt is over anyway. */
    if ( vec >= FIRST_EXTERNAL_VECTOR &&
         regs->rip == (uint64_t)safe_halt_hlt )
    {
        regs->rip++;
        __atomic_fetch_add(&safe_halt_races, 1, __ATOMIC_RELAXED);
    }
    if ( vec < FIRST_EXTERNAL_VECTOR )
        do_exception(regs);
    else if ( likely(vector_handlers[vec] != NULL) )
        vector_handlers[vec](regs);
    else
        panic_regs(regs, "unexpected interrupt on vector %u", vec);
    /* Sleepers never wait on the timer alone (kernel/sched/sched.c). */
    if ( vec >= FIRST_EXTERNAL_VECTOR && vec != TIMER_VECTOR )
        sched_irq_exit(vec);
    ci->irq_depth -= irq;
    /*
     * Back to ring 3: the place to preempt, or to end a killed task;
     * never from an IST stack, which a switch away would leave in use.
     */
    if ( regs_from_user(regs) && vec != X86_EXC_NMI && vec != X86_EXC_MC )
        task_user_return();
}
