/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel_start(): bring the machine up in order, report, run, exit. */

#include <guest/hypervisor.h>
#include <guest/hypervisor-ops.h>
#include <guest/xen.h>
#include <shimk/boot-info.h>
#include <shimk/cmdline.h>
#include <shimk/console.h>
#include <shimk/exec.h>
#include <shimk/frame.h>
#include <shimk/heap.h>
#include <shimk/ktest.h>
#include <shimk/lifecycle.h>
#include <shimk/panic.h>
#include <shimk/printk.h>
#include <shimk/sched.h>
#include <shimk/selfcheck.h>
#include <shimk/string.h>
#include <shimk/task.h>
#include <shimk/tlbbench.h>
#include <shimk/time.h>
#include <asm/apic.h>
#include <asm/cpufeature.h>
#include <asm/desc.h>
#include <asm/flush-adapt.h>
#include <asm/flushtlb.h>
#include <asm/guarded.h>
#include <asm/paging.h>
#include <asm/percpu.h>
#include <asm/processor.h>
#include <asm/serial.h>
#include <asm/smp.h>

static unsigned int opt_loglevel = LOGLEVEL_DEFAULT;
uint_param("loglevel", opt_loglevel, 0, 7);

static bool opt_idle;
boolean_param("idle", opt_idle);

static void parse_cmdline(const char *cmdline)
{
    extern const struct kernel_param __start_params[], __stop_params[];

    cmdline_parse(cmdline, __start_params, __stop_params - __start_params);
    console_loglevel = opt_loglevel;
    console_apply_selection();
}

/* The facts a log reader needs first: what booted, on what. */
static void print_banner(void)
{
    char sinks[64];

    console_describe(sinks, sizeof(sinks));
    pr_info("shimk: cpu %s family %#x model %#x%s, consoles %s\n",
            boot_cpu.vendor_str, boot_cpu.family, boot_cpu.model,
            boot_cpu.hypervisor ? ", virtualized" : "", sinks);
    boot_info_print();
    if ( boot_info.cmdline[0] )
        pr_info("shimk: command line: %s\n", boot_info.cmdline);
}

/* The two measured-or-forced decisions, with the figures behind them. */
static void print_policy_line(void)
{
    char pge[160], assist[192];

    global_pages_policy_text(pge, sizeof(pge));
    hypervisor_policy_text(assist, sizeof(assist));
    printk("shimk: policy %s %s\n", pge, assist);
}

/*
 * The boot summary (docs/design.md#boot-summary): one line, keys in
 * this order; new keys go at the end.
 */
static void print_boot_summary(void)
{
    printk("shimk: boot hv=%s boot=%s cpus=%u x2apic=%d pge=%d invpcid=%d "
           "pcid=%d assisted-flush=%d tlb-clock=%d shorthand=%d "
           "tsc-khz=%lu ap-start=%s ipi-event=%d\n",
           hv_type_name(hypervisor_type()),
           boot_protocol_name(boot_info.protocol), nr_cpus_online,
           x2apic_enabled, (read_cr4() & X86_CR4_PGE) ? 1 : 0, use_invpcid,
           (read_cr4() & X86_CR4_PCIDE) ? 1 : 0, hypervisor_has_flush_tlb(),
           tlb_clock_enabled, ipi_shorthand_enabled, (unsigned long)tsc_khz,
           ap_start_hypercall ? "hypercall" : "sipi", ipi_by_event);
    hypervisor_print_line();
    print_policy_line();
}

/* The worse of two exit codes: panic > failure > success > skipped. */
static int worse(int a, int b)
{
    static const int rank[] = { [EXIT_SUCCESS] = 1, [EXIT_TEST_FAILED] = 2,
                                [EXIT_PANIC] = 3 };
    int ra = a == EXIT_ALL_SKIPPED ? 0 : rank[a];
    int rb = b == EXIT_ALL_SKIPPED ? 0 : rank[b];

    return ra >= rb ? a : b;
}

/* What run_and_exit() is doing: a stop asked from outside says so. */
static const char *running;

static void print_final_counters(void)
{
    flush_counters_print();
    sched_timer_print();
    spin_print();
}

void kernel_stop_requested(bool reboot, const char *why)
{
    const char *cut = READ_ONCE(running);
    int code = EXIT_SUCCESS;

    if ( cut )
    {
        pr_err("shimk: %s asked to %s while %s ran: its verdict is lost\n",
               why, reboot ? "reboot" : "power off", cut);
        code = EXIT_TEST_FAILED;
    }
    else
        pr_info("shimk: %s asked to %s: stopping\n", why,
                reboot ? "reboot" : "power off");
    print_final_counters();
    /*
     * Not machine_exit(): the L0's end must be the one asked for, and
     * there a code of 1 means a reboot (a Xen domU's exit protocol).
     * The code goes to the console for the runner.
     */
    if ( reboot )
        printk("shimk: reboot (exit %d)\n", code);
    else
        printk("shimk: exit %d\n", code);
    local_irq_disable();
    if ( reboot )
        hypervisor_reboot();
    else
        hypervisor_shutdown(EXIT_SUCCESS);
    halt_forever();
}

static __noreturn void run_and_exit(void)
{
    const char *sel = ktest_selection(), *bench = bench_selection();
    const char *run = run_selection();
    int code = EXIT_ALL_SKIPPED;

    if ( sel[0] )
    {
        char facts[CMDLINE_MAX + 96];

        ksnprintf(facts, sizeof(facts), "v=1 hv=%s boot=%s cpus=%u "
                  "cmdline=\"%s\"", hv_type_name(hypervisor_type()),
                  boot_protocol_name(boot_info.protocol), nr_cpus_online,
                  boot_info.cmdline);
        WRITE_ONCE(running, "ktest=");
        code = ktest_run(sel, facts);
    }
    if ( bench[0] )
    {
        WRITE_ONCE(running, "bench=");
        code = worse(code, tlbbench_run(bench));
    }
    /* The user's own programs last: ktest= and bench= are shimk's. */
    if ( run[0] )
    {
        WRITE_ONCE(running, "run=");
        code = worse(code, run_programs());
    }
    if ( sel[0] || bench[0] || run[0] )
    {
        print_final_counters();
        machine_exit(code);
    }
    if ( opt_idle )
    {
        pr_info("shimk: idle (idle=1): nothing else to run\n");
        /*
         * Asleep, not halted in place: this CPU's other threads (Xen's
         * control client) run meanwhile.
         */
        for ( ;; )
            thread_sleep_us(1000000);
    }
    sched_timer_print();
    machine_exit(EXIT_SUCCESS);
}

void kernel_start(uint32_t protocol, uint32_t data_pa, uint32_t magic)
{
    struct cpu_info *bsp = percpu_bsp_init();

    /* Faults are reported from here on (silently until a console). */
    idt_init();
    desc_load_cpu(bsp);
    cpu_features_init();
    hypervisor_probe();

    debugcon_init();
    serial_init();

    boot_info_init(protocol, data_pa, magic);
    parse_cmdline(boot_info.cmdline);
    print_banner();
    time_init();

    frames_init(&boot_info);
    mm_init(&boot_info);
    heap_init();
    guarded_init();
    /* The shared tables are final now; the APs record theirs as they come. */
    selfcheck_record_shared();
    selfcheck_record_cpu(bsp);
    initrd_init();

    flush_init();

    apic_init_bsp();
    apic_timer_calibrate();
    sched_init();
    smp_call_init();
    flush_smp_init();
    hypervisor_setup();
    smp_init();
    task_init();
    local_irq_enable();
    hypervisor_smp_ready();
    /* After the event channels: the IPI path it times is the final one. */
    flush_adapt_seed();
    mark_ro_after_init();

    print_boot_summary();
    run_and_exit();
}
