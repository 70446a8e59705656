/* SPDX-License-Identifier: GPL-2.0-only */
/* Bring up the application processors: MADT, then INIT-SIPI or the L0. */

#include <guest/hypervisor-ops.h>
#include <shimk/acpi.h>
#include <shimk/boot-info.h>
#include <shimk/cmdline.h>
#include <shimk/frame.h>
#include <shimk/heap.h>
#include <shimk/panic.h>
#include <shimk/printk.h>
#include <shimk/sched.h>
#include <shimk/selfcheck.h>
#include <shimk/string.h>
#include <shimk/time.h>
#include <asm/apic.h>
#include <asm/cpufeature.h>
#include <asm/desc.h>
#include <asm/guarded.h>
#include <asm/msr.h>
#include <asm/page.h>
#include <asm/paging.h>
#include <asm/percpu.h>
#include <asm/processor.h>
#include <asm/smp.h>

/*
 * Two ways to start an AP:
 * - INIT, then STARTUP IPIs through the (virtual) local APIC, into a
 *   real-mode trampoline below 1 MiB (SDM Vol. 3A, 9.4.4).  Every
 *   environment emulates this.
 * - the L0's own call (hypervisor_ops.cpu_up): under Xen, VCPUOP_
 *   initialise + VCPUOP_up.  It is the default there because Xen pauses
 *   every INIT and STARTUP IPI sender until the IPI is delivered, and
 *   Xen 4.17's credit2 (its default scheduler) can leave the paused BSP
 *   unscheduled for good after the unpause: 3-6 % of 4-vCPU boots
 *   stalled so (docs/smp.md, "AP start-up under Xen").  The hypercall
 *   pauses nobody.  ap-start=sipi keeps the IPIs for testing them.
 * APs are started one at a time: they share the trampoline's fields.
 */

unsigned int nr_cpus_online = 1;
unsigned int nr_cpus_present = 1;
unsigned int nr_cpus_wanted = 1;
cpumask_t cpu_online_mask = { { 1 } };
bool cpu_bringup_in_progress;
bool ipi_shorthand_enabled __read_mostly;

static unsigned int opt_nr_cpus = NR_CPUS;
uint_param("nr-cpus", opt_nr_cpus, 1, NR_CPUS);

static bool opt_ipi_shorthand = true;
boolean_param("ipi-shorthand", opt_ipi_shorthand);

/* ap-start=<auto|sipi|hypercall>: how APs are started (see above). */
static char opt_ap_start[16] = "auto";
string_param("ap-start", opt_ap_start);

bool ap_start_hypercall __read_mostly;

static volatile bool panic_stop;

/*
 * ap-start-timeout-ms=: how long an AP may take from its start to C code
 * (default 2000).  smp-test-late-ap=N: the AP that would be CPU N waits
 * that long and a second more before it claims its start, so that the
 * late-AP path runs (ktest smp-late-ap); 0 is off.
 */
static unsigned int opt_ap_start_timeout_ms = 2000;
uint_param("ap-start-timeout-ms", opt_ap_start_timeout_ms, 50, 600000);
static unsigned int opt_test_late_ap;
uint_param("smp-test-late-ap", opt_test_late_ap, 0, NR_CPUS - 1);
/* ...and is not stopped, so that only its start claim keeps it out. */
static bool opt_test_late_ap_unstopped;
boolean_param("smp-test-late-ap-unstopped", opt_test_late_ap_unstopped);

struct late_ap_record smp_late_ap;
unsigned int smp_aps_abandoned;

/* arch/x86/boot/trampoline.S */
extern const char trampoline_start[], trampoline_end[];
extern char tr_gdtr[], tr_prot32_ptr[], tr_long64_ptr[];
extern char tr_cr3[], tr_cr4[], tr_efer[], tr_stack[], tr_cpu[], tr_entry[];
extern const uint32_t tr_prot32_off, tr_long64_off, tr_gdt_off;

static paddr_t tramp_pa;
static char *tramp;             /* the copy, through the direct map */
static paddr_t tramp_root;
static unsigned long bsp_cr4;

#define TRAMP_FIELD(sym) (tramp + (sym - trampoline_start))

/*
 * Where each CPU was when the panic's NMI stopped it: the report says
 * it, so that a CPU that did not answer a flush shows whether it was
 * running shimk (and where, with interrupts on or off) or was not run by
 * its L0 at all.  Written by the stopped CPU alone, before it halts.
 */
static struct
{
    uint64_t rip, rsp, rflags;
    uint16_t cs;
    bool seen;
} stopped_at[NR_CPUS];
/* How long the report waits for every CPU to answer its NMI. */
#define PANIC_NMI_WAIT_MS 2000

/* smp_say_where()'s question and the asked CPU's answer. */
static struct
{
    uint64_t rip, rsp, rflags;
    uint16_t cs;
    bool asked, seen;
} sampled[NR_CPUS];

static void nmi_stop(struct cpu_regs *regs)
{
    unsigned int self = smp_processor_id();

    if ( !READ_ONCE(panic_stop) &&
         __atomic_exchange_n(&sampled[self].asked, false, __ATOMIC_ACQ_REL) )
    {
        sampled[self].rip = regs->rip;
        sampled[self].rsp = regs->rsp;
        sampled[self].rflags = regs->rflags;
        sampled[self].cs = regs->cs;
        __atomic_store_n(&sampled[self].seen, true, __ATOMIC_RELEASE);
        return;
    }
    if ( READ_ONCE(panic_stop) )
    {
        unsigned int cpu = smp_processor_id();

        stopped_at[cpu].rip = regs->rip;
        stopped_at[cpu].rsp = regs->rsp;
        stopped_at[cpu].rflags = regs->rflags;
        stopped_at[cpu].cs = regs->cs;
        __atomic_store_n(&stopped_at[cpu].seen, true, __ATOMIC_RELEASE);
        halt_forever();
    }
    panic_regs(regs, "unexpected NMI");
}

static bool all_stopped(unsigned int self)
{
    unsigned int cpu;

    for_each_cpu ( cpu, &cpu_online_mask )
        if ( cpu != self &&
             !__atomic_load_n(&stopped_at[cpu].seen, __ATOMIC_ACQUIRE) )
            return false;
    return true;
}

void smp_stop_others_for_panic(void)
{
    unsigned int cpu, self = smp_processor_id();

    WRITE_ONCE(panic_stop, true);
    for_each_cpu ( cpu, &cpu_online_mask )
        if ( cpu != self )
            send_nmi_cpu(cpu);
    /*
     * Give the NMIs time to land before the report starts: 10 ms, and
     * up to PANIC_NMI_WAIT_MS for a CPU its L0 is slow to run.
     */
    mdelay(10);
    for ( unsigned int ms = 10; ms < PANIC_NMI_WAIT_MS && !all_stopped(self);
          ms++ )
        mdelay(1);
}

void smp_print_stopped(void)
{
    unsigned int cpu, self = smp_processor_id();

    for_each_cpu ( cpu, &cpu_online_mask )
    {
        if ( cpu == self )
            continue;
        if ( !__atomic_load_n(&stopped_at[cpu].seen, __ATOMIC_ACQUIRE) )
        {
            printk(KERN_EMERG "shimk: CPU%u did not answer the panic's NMI "
                   "within %u ms: its L0 did not run it meanwhile, or it "
                   "was inside an NMI already\n", cpu, PANIC_NMI_WAIT_MS);
            continue;
        }
        printk(KERN_EMERG "shimk: CPU%u stopped at rip=%016lx cs=%04x "
               "rsp=%016lx rflags=%08lx (interrupts %s)\n", cpu,
               (unsigned long)stopped_at[cpu].rip, stopped_at[cpu].cs,
               (unsigned long)stopped_at[cpu].rsp,
               (unsigned long)stopped_at[cpu].rflags,
               stopped_at[cpu].rflags & X86_EFLAGS_IF ? "on" : "off");
    }
}

bool smp_say_where(unsigned int cpu, unsigned int wait_ms, uint64_t *rip,
                   uint64_t *rflags)
{
    uint64_t start, bound = ms_to_cycles(wait_ms);

    if ( cpu >= NR_CPUS || cpu == smp_processor_id() ||
         !cpumask_test_cpu(cpu, &cpu_online_mask) )
        return false;
    __atomic_store_n(&sampled[cpu].seen, false, __ATOMIC_RELAXED);
    __atomic_store_n(&sampled[cpu].asked, true, __ATOMIC_RELEASE);
    send_nmi_cpu(cpu);
    start = rdtsc();
    while ( !__atomic_load_n(&sampled[cpu].seen, __ATOMIC_ACQUIRE) )
    {
        if ( rdtsc() - start > bound )
        {
            /* Taken back, so that a late NMI is not taken for an answer. */
            if ( __atomic_exchange_n(&sampled[cpu].asked, false,
                                     __ATOMIC_ACQ_REL) )
            {
                printk(KERN_ERR "shimk: CPU%u did not answer an NMI within "
                       "%u ms: its L0 did not run it meanwhile, or it was "
                       "inside an NMI already\n", cpu, wait_ms);
                return false;
            }
            /* Answered as it was taken back: wait for the record. */
        }
        cpu_relax();
    }
    printk(KERN_ERR "shimk: CPU%u answered an NMI after %lu us at "
           "rip=%016lx cs=%04x rsp=%016lx rflags=%08lx (interrupts %s)\n",
           cpu, (unsigned long)(cycles_to_ns(rdtsc() - start) / 1000),
           (unsigned long)sampled[cpu].rip, sampled[cpu].cs,
           (unsigned long)sampled[cpu].rsp,
           (unsigned long)sampled[cpu].rflags,
           sampled[cpu].rflags & X86_EFLAGS_IF ? "on" : "off");
    if ( rip )
        *rip = sampled[cpu].rip;
    if ( rflags )
        *rflags = sampled[cpu].rflags;
    return true;
}

/* A RAM page below 640 KiB for the trampoline, as high as possible. */
static paddr_t find_trampoline_page(void)
{
    for ( paddr_t pa = 0x9f000 - PAGE_SIZE; pa >= 0x1000; pa -= PAGE_SIZE )
        for ( unsigned int i = 0; i < boot_info.nr_mmap; i++ )
        {
            const struct mmap_entry *e = &boot_info.mmap[i];

            if ( e->type == MMAP_RAM && e->base <= pa &&
                 pa + PAGE_SIZE <= e->base + e->len )
                return pa;
        }
    return 0;
}

static bool trampoline_setup(void)
{
    size_t size = trampoline_end - trampoline_start;
    uint64_t *root;

    tramp_pa = find_trampoline_page();
    if ( !tramp_pa )
    {
        pr_warn("smp: no RAM page below 640 KiB for the AP trampoline\n");
        return false;
    }
    tramp = phys_to_virt(tramp_pa);
    memcpy(tramp, trampoline_start, size);

    /* The kernel half plus an identity map of the trampoline page. */
    tramp_root = frame_alloc();
    if ( tramp_root >= (1ull << 32) )
        panic("smp: trampoline page table above 4 GiB (%#lx)",
              (unsigned long)tramp_root);
    root = phys_to_virt(tramp_root);
    memcpy(root + 256, (uint64_t *)phys_to_virt(kernel_root) + 256,
           256 * sizeof(uint64_t));
    if ( pt_map(tramp_root, tramp_pa, tramp_pa, PT_ORDER_4K, PTE_W) )
        panic("smp: cannot map the trampoline page");

    *(uint32_t *)(TRAMP_FIELD(tr_gdtr) + 2) = tramp_pa + tr_gdt_off;
    *(uint32_t *)TRAMP_FIELD(tr_prot32_ptr) = tramp_pa + tr_prot32_off;
    *(uint32_t *)TRAMP_FIELD(tr_long64_ptr) = tramp_pa + tr_long64_off;
    *(uint32_t *)TRAMP_FIELD(tr_cr3) = (uint32_t)tramp_root;
    *(uint32_t *)TRAMP_FIELD(tr_cr4) = X86_CR4_PAE;
    *(uint32_t *)TRAMP_FIELD(tr_efer) =
        EFER_LME | (boot_cpu.nx ? EFER_NXE : 0);
    return true;
}

/* A start the BSP gave up on: touch nothing, for ever. */
static __noreturn void ap_abandoned(void)
{
    for ( ;; )
        __asm__ __volatile__("cli; hlt" ::: "memory");
}

/*
 * The first thing an AP does, on its own stack and before it loads a GS
 * base or anything shared: claim its start.  The BSP, when the AP is
 * late, claims it the other way (start_ap()); exactly one of the two
 * compare-exchanges wins.  A late AP therefore never runs with a CPU
 * number, run queue or stack that smp_init() has since given to the
 * next AP (under Xen an AP started with VCPUOP_up can run seconds after
 * its deadline).
 */
static __noreturn void ap_entry(struct cpu_info *ci)
{
    uint32_t starting = AP_STARTING;

    /* smp-test-late-ap=: late on purpose, reading only its own ci. */
    while ( rdtsc() < ci->test_delay_until )
        cpu_relax();
    if ( !__atomic_compare_exchange_n(&ci->start_state, &starting,
                                      AP_RUNNING, false, __ATOMIC_SEQ_CST,
                                      __ATOMIC_SEQ_CST) )
        ap_abandoned();
    percpu_set_gs(ci);
    desc_load_cpu(ci);
    write_cr3(kernel_root);
    write_cr4(bsp_cr4);
    ci->cr4 = bsp_cr4;
    selfcheck_record_cpu(ci);
    ci->tlb_clean = true;   /* on the kernel root, nothing else loaded yet */
    apic_init_ap();
    if ( apic_id() != ci->apic_id )
        panic("AP started as APIC id %u, expected %u", apic_id(),
              ci->apic_id);
    if ( hypervisor_ap_setup() )
        pr_warn("CPU%u: the %s backend's per-CPU setup failed\n", ci->cpu,
                hypervisor_ops.name);
    WRITE_ONCE(ci->alive, true);
    sched_start_ap();   /* becomes this CPU's idle thread */
}

/*
 * Each in a guarded area of its own (asm/guarded.h): a stack that runs
 * over, or a runaway walking down memory, faults at once instead of
 * rewriting another CPU's GDT, TSS or IST stack.
 */
static struct cpu_info *alloc_cpu(unsigned int cpu, uint32_t apic_id)
{
    static const enum guarded_kind ist_kind[3] = {
        GUARDED_IST_NMI, GUARDED_IST_DF, GUARDED_IST_MC };
    struct cpu_info *ci = guarded_alloc(sizeof(*ci), GUARDED_CPU_TABLES, cpu,
                                        NULL, 0);

    ci->self = ci;
    ci->cpu = cpu;
    ci->apic_id = apic_id;
    ci->stack_base = guarded_alloc(KERNEL_STACK_SIZE, GUARDED_CPU_STACK, cpu,
                                   NULL, 0);
    ci->kernel_stack_top = (uint64_t)ci->stack_base + KERNEL_STACK_SIZE;
    for ( unsigned int i = 0; i < 3; i++ )
        ci->ist_stacks[i] = guarded_alloc(IST_STACK_SIZE, ist_kind[i], cpu,
                                          NULL, 0);
    return ci;
}

static bool wait_alive(struct cpu_info *ci, uint64_t ms)
{
    uint64_t start = rdtsc(), bound = ms_to_cycles(ms);

    while ( !READ_ONCE(ci->alive) )
    {
        if ( rdtsc() - start > bound )
            return false;
        cpu_relax();
    }
    return true;
}

static bool wait_online(unsigned int cpu, uint64_t ms)
{
    uint64_t start = rdtsc(), bound = ms_to_cycles(ms);

    while ( !cpumask_test_cpu(cpu, &cpu_online_mask) )
    {
        if ( rdtsc() - start > bound )
            return false;
        cpu_relax();
    }
    return true;
}

/*
 * SDM 9.4.4.1: INIT, 10 ms, STARTUP, 200 us, STARTUP.  The 10 ms and
 * the second STARTUP are for real hardware.  An emulated APIC acts on
 * INIT at once and never drops a STARTUP, so under a hypervisor the
 * second one goes only to an AP not alive after SECOND_SIPI_MS: each
 * IPI pauses the sender under Xen, and under TCG an AP takes longer
 * than 1 ms to reach C, so the second STARTUP was always sent.
 */
#define SECOND_SIPI_MS 100

static bool start_ap_sipi(struct cpu_info *ci)
{
    uint32_t sipi = APIC_DM_STARTUP | (uint32_t)(tramp_pa >> PAGE_SHIFT);
    bool virt = boot_cpu.hypervisor;

    *(uint64_t *)TRAMP_FIELD(tr_stack) = ci->kernel_stack_top;
    *(uint64_t *)TRAMP_FIELD(tr_cpu) = (uint64_t)ci;
    *(uint64_t *)TRAMP_FIELD(tr_entry) = (uint64_t)ap_entry;
    smp_mb();

    apic_icr_write(APIC_DM_INIT | APIC_LEVEL_ASSERT, ci->apic_id);
    if ( !virt )
        mdelay(10);
    apic_icr_write(sipi, ci->apic_id);
    if ( wait_alive(ci, virt ? SECOND_SIPI_MS : 1) )
        return true;
    apic_icr_write(sipi, ci->apic_id);
    return wait_alive(ci, opt_ap_start_timeout_ms);
}

/* The L0's call: the AP starts in ap_entry, in long mode, on its stack. */
static bool start_ap_hypercall(struct cpu_info *ci, uint32_t acpi_uid)
{
    int rc = hypervisor_ops.cpu_up(acpi_uid, (uint64_t)ap_entry,
                                   ci->kernel_stack_top, (uint64_t)ci,
                                   kernel_root);

    if ( rc )
        return false;
    return wait_alive(ci, opt_ap_start_timeout_ms);
}

/*
 * The AP is late: take its start away from it and stop it.  False when
 * the AP claimed its start first: it is on its way after all.
 */
static bool abandon_ap(struct cpu_info *ci, uint32_t acpi_uid)
{
    uint32_t starting = AP_STARTING;
    int rc = 0;

    if ( !__atomic_compare_exchange_n(&ci->start_state, &starting,
                                      AP_ABANDONED, false, __ATOMIC_SEQ_CST,
                                      __ATOMIC_SEQ_CST) )
        return false;
    /*
     * It can no longer claim anything; stop it too.  INIT parks it in
     * wait-for-SIPI (SDM Vol. 3A, 9.4.4.1), also before the trampoline's
     * fields are rewritten for the next AP; under the L0's start call,
     * the L0's stop call (VCPUOP_down under Xen).
     */
    if ( ci->test_delay_until && opt_test_late_ap_unstopped )
        ;
    else if ( ap_start_hypercall && hypervisor_ops.cpu_down )
        rc = hypervisor_ops.cpu_down(acpi_uid);
    else if ( !ap_start_hypercall )
        apic_icr_write(APIC_DM_INIT | APIC_LEVEL_ASSERT, ci->apic_id);
    smp_aps_abandoned++;
    if ( ci->test_delay_until )
        smp_late_ap = (struct late_ap_record){
            .ci = ci, .cpu = ci->cpu, .stop_rc = rc,
            .stopped_by_init = !ap_start_hypercall,
            .unstopped = opt_test_late_ap_unstopped };
    pr_warn("smp: CPU with APIC id %u did not start within %u ms: its "
            "start is abandoned (it halts if it comes later) and it was "
            "%s%s\n", ci->apic_id, opt_ap_start_timeout_ms,
            ci->test_delay_until && opt_test_late_ap_unstopped ?
                "left running (smp-test-late-ap-unstopped)" :
            ap_start_hypercall ? "stopped with the L0's call" :
                                 "stopped with INIT",
            rc ? " (which failed)" : "");
    return true;
}

static bool start_ap(struct cpu_info *ci, uint32_t acpi_uid)
{
    static bool late_done;
    bool ok;

    if ( opt_test_late_ap && ci->cpu == opt_test_late_ap && !late_done )
    {
        late_done = true;
        ci->test_delay_until = rdtsc() +
                               ms_to_cycles(opt_ap_start_timeout_ms + 1000);
    }
    cpu_infos[ci->cpu] = ci;
    smp_mb();
    ok = ap_start_hypercall ? start_ap_hypercall(ci, acpi_uid)
                            : start_ap_sipi(ci);
    if ( !ok && abandon_ap(ci, acpi_uid) )
    {
        /* The late AP keeps its memory: it may be running on it. */
        cpu_infos[ci->cpu] = NULL;
        return false;
    }
    if ( !ok && !wait_alive(ci, opt_ap_start_timeout_ms) )
        panic("CPU%u (APIC id %u) claimed its start but did not reach C "
              "within another %u ms", ci->cpu, ci->apic_id,
              opt_ap_start_timeout_ms);
    /* Online once its idle thread runs (sched_start_ap). */
    if ( !wait_online(ci->cpu, opt_ap_start_timeout_ms) )
        panic("CPU%u (APIC id %u) reached C but never went online",
              ci->cpu, ci->apic_id);
    return true;
}

/* ap-start=: the L0's call by default where there is one. */
static void choose_ap_start(void)
{
    bool have = hypervisor_ops.cpu_up != NULL;

    if ( !strcmp(opt_ap_start, "hypercall") )
    {
        if ( !have )
            pr_warn("cmdline: ap-start: hypercall: the L0 (%s) has no "
                    "CPU start call (kept sipi)\n", hypervisor_ops.name ?:
                    "none");
        ap_start_hypercall = have;
    }
    else if ( !strcmp(opt_ap_start, "sipi") )
        ap_start_hypercall = false;
    else
    {
        if ( strcmp(opt_ap_start, "auto") )
            pr_warn("cmdline: ap-start: unknown value '%s' (kept auto)\n",
                    opt_ap_start);
        ap_start_hypercall = have;
    }
    if ( ap_start_hypercall )
        pr_info("smp: starting APs with %s's CPU start call\n",
                hypervisor_ops.name);
    else
        pr_info("smp: starting APs with INIT and STARTUP IPIs\n");
}

void smp_init(void)
{
    static struct madt_info madt;
    uint32_t bsp_apic = apic_id();
    unsigned int cpu = 1, failed = 0, capped = 0, disabled = 0;
    char online[64];

    this_cpu()->apic_id = bsp_apic;
    nmi_hook = nmi_stop;
    bsp_cr4 = read_cr4();

    if ( acpi_find_madt(&madt) )
        goto done;

    choose_ap_start();
    if ( !ap_start_hypercall && !trampoline_setup() )
        goto done;

    WRITE_ONCE(cpu_bringup_in_progress, true);
    for ( unsigned int i = 0; i < madt.nr_cpus; i++ )
    {
        const struct madt_cpu *m = &madt.cpus[i];
        struct cpu_info *ci;

        if ( m->apic_id == bsp_apic )
            continue;
        if ( !m->enabled )
        {
            disabled++;
            continue;
        }
        if ( cpu >= opt_nr_cpus )
        {
            /* Present, never started: also rules out ALLBUT (Xen's rule). */
            capped++;
            continue;
        }
        nr_cpus_wanted++;
        ci = alloc_cpu(cpu, m->apic_id);
        if ( !start_ap(ci, m->acpi_uid) )
        {
            failed++;
            continue;
        }
        cpu++;
    }
    nr_cpus_present = cpu + failed + capped;
    WRITE_ONCE(cpu_bringup_in_progress, false);

done:
    ipi_shorthand_enabled = opt_ipi_shorthand && nr_cpus_online > 1 &&
                            nr_cpus_online == nr_cpus_present;
    cpumask_format(online, sizeof(online), &cpu_online_mask);
    pr_info("smp: %u CPUs online (%s), BSP APIC id %u%s%s\n", nr_cpus_online,
            online, bsp_apic, x2apic_enabled ? ", x2APIC" : ", xAPIC",
            ipi_shorthand_enabled ? ", ALLBUT shorthand" : "");
    for_each_cpu ( cpu, &cpu_online_mask )
        pr_debug("smp: CPU%u is APIC id %u\n", cpu, cpu_infos[cpu]->apic_id);
    if ( capped )
        pr_info("smp: %u more CPUs left offline by nr-cpus=%u\n", capped,
                opt_nr_cpus);
    if ( disabled )
        pr_info("smp: %u CPUs listed as disabled in the MADT\n", disabled);
}
