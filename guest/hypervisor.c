/* SPDX-License-Identifier: GPL-2.0-only */
/* Hypervisor detection, the ops table, and the assisted-flush policy. */
/* Modelled in tests/model/shootdown.pml (docs/model.md): change both. */

#include <guest/assist-policy.h>
#include <guest/flush-fault.h>
#include <guest/hypervisor.h>
#include <asm/flush-inject.h>
#include <guest/hypervisor-ops.h>
#include <guest/hyperv.h>
#include <guest/xen.h>
#include <shimk/cmdline.h>
#include <shimk/errno.h>
#include <shimk/panic.h>
#include <shimk/printk.h>
#include <asm/cpufeature.h>
#include <asm/flush-adapt.h>
#include <asm/flushtlb.h>
#include <asm/percpu.h>
#include <asm/processor.h>

struct hv_leaves hv_info __ro_after_init;
struct hypervisor_ops hypervisor_ops __ro_after_init = { .name = "none" };
bool assist_enabled = true;

/* Backend templates (guest/xen/xen.c, guest/kvm/kvm.c, guest/hyperv/). */
extern const struct hypervisor_ops xen_ops, kvm_ops, hyperv_ops;

static int8_t opt_assisted_flush = -1;
tristate_param("assisted-flush", opt_assisted_flush);

static enum assist_decision decision = ASSIST_OFF_NO_HOOK;

static void real_cpuid(uint32_t leaf, uint32_t subleaf, struct cpuid_leaf *r)
{
    cpuid_count(leaf, subleaf, r);
}

void hypervisor_probe(void)
{
    const struct hypervisor_ops *tmpl = NULL;

    hv_identify(real_cpuid, boot_cpu.hypervisor,
                IS_ENABLED(CONFIG_GUEST_HYPERV) ? hyperv_probe : NULL,
                IS_ENABLED(CONFIG_GUEST_KVM), &hv_info);
    if ( hv_info.type == HV_XEN && IS_ENABLED(CONFIG_GUEST_XEN) )
    {
        /* Hypercalls are needed before the command line is even read. */
        xen_hypercall_init();
        tmpl = &xen_ops;
    }
    else if ( hv_info.type == HV_KVM && IS_ENABLED(CONFIG_GUEST_KVM) )
        tmpl = &kvm_ops;
    else if ( hv_info.type == HV_HYPERV && IS_ENABLED(CONFIG_GUEST_HYPERV) )
        tmpl = &hyperv_ops;
    /* Copied once: the templates stay constant, the copy goes read-only. */
    if ( tmpl )
        hypervisor_ops = *tmpl;
}

void hypervisor_cpuid_exit(void)
{
    struct cpuid_leaf r;

    /*
     * CPUID exits unconditionally under VMX (SDM Vol. 3C, "Instructions
     * That Cause VM Exits Unconditionally"); KVM intercepts it under SVM.
     */
    cpuid(HV_LEAF_FIRST, &r);
}

int hypervisor_flush_tlb(cpumask_t *mask, const void *va, unsigned int flags)
{
    int rc;

    if ( !hypervisor_ops.flush_tlb || !assist_enabled )
        return -EOPNOTSUPP;
    /* assisted-flush-fault= (guest/flush-fault.c) answers first. */
    rc = flush_fault_inject();
    if ( rc )
        return rc;
    if ( unlikely(flush_fault_delay) )
    {
        uint64_t start = rdtsc();

        while ( rdtsc() - start < flush_fault_delay )
            cpu_relax();
    }
    /* tlb-inject=l0-lie: an L0 that says it flushed and did not. */
    if ( tlb_injected(TLB_INJECT_L0_LIE) )
        return 0;
    return hypervisor_ops.flush_tlb(mask, va, flags);
}

void hypervisor_setup(void)
{
    bool hook;
    int probe_rc = 0;
    enum assist_decision d;

    if ( hypervisor_ops.setup )
        hypervisor_ops.setup();
    hook = hypervisor_ops.flush_tlb != NULL;

    if ( assist_needs_probe(opt_assisted_flush, hook) )
    {
        /*
         * The probe asks the L0 to flush the other CPUs: none run yet,
         * so it is cheap and its only effect is to prove the call works.
         */
        cpumask_t none;

        cpumask_clear(&none);
        probe_rc = hypervisor_ops.flush_tlb(&none, NULL, FLUSH_TLB);
    }
    d = assist_decide(opt_assisted_flush, hook, probe_rc);
    if ( d == ASSIST_ON && opt_assisted_flush < 0 )
        /*
         * No option: which flushes go to the L0 is timed per target
         * count once the APs are up (flush_adapt_seed()), and revised
         * at run time (docs/flush.md#the-l0-or-ipis-at-run-time).
         */
        flush_adapt_want();
    if ( d != ASSIST_ON )
        hypervisor_ops.flush_tlb = NULL;
    else
        /*
         * An L0 flush completes without the target stamping its TLB
         * clock (flush rule 4): the clock goes off, for good.
         */
        tlb_clock_disable();

    if ( assist_forced_but_off(opt_assisted_flush, d) )
        pr_warn("cmdline: assisted-flush: %s on %s (kept 0)\n",
                d == ASSIST_OFF_PROBE_FAILED ? "probe flush failed"
                                             : "no L0 flush hook",
                hv_type_name(hv_info.type));
    if ( d == ASSIST_OFF_PROBE_FAILED )
        pr_warn("hypervisor: %s flush probe failed: %d (%s); using IPIs\n",
                hypervisor_ops.name, probe_rc, errno_name(probe_rc));

    flush_fault_setup(d == ASSIST_ON);
    decision = d;
}

void hypervisor_policy_text(char *buf, size_t size)
{
    static const char *const why[] = {
        [ASSIST_ON] = "probe flush worked",
        [ASSIST_OFF_OPTION] = "option",
        [ASSIST_OFF_NO_HOOK] = "no L0 flush hook",
        [ASSIST_OFF_PROBE_FAILED] = "probe flush failed",
    };
    char adapt[200];

    if ( decision == ASSIST_ON && flush_adapt_seeded() )
    {
        flush_adapt_text(adapt, sizeof(adapt));
        ksnprintf(buf, size, "assisted-flush=1 (by target count, timed: "
                  "%s cycles)", adapt);
    }
    else
        ksnprintf(buf, size, "assisted-flush=%d (%s%s)", decision == ASSIST_ON,
                  why[decision],
                  decision == ASSIST_ON && opt_assisted_flush == 1 ?
                      ", option" : "");
}

void hypervisor_print_line(void)
{
    char text[320], other[96];

    text[0] = other[0] = '\0';
    if ( hypervisor_ops.describe )
        hypervisor_ops.describe(text, sizeof(text));
    if ( hv_info.other_type != HV_NONE )
        ksnprintf(other, sizeof(other), "; also %s '%s' at %#x (max leaf "
                  "%#x), not the backend", hv_type_name(hv_info.other_type),
                  hv_info.other_signature, hv_info.other_base,
                  hv_info.other_max_leaf);
    if ( hv_info.type == HV_NONE )
        printk("shimk: hypervisor none (bare metal); assisted flush %s\n",
               assist_decision_text(decision));
    else
        printk("shimk: hypervisor %s '%s' at %#x (max leaf %#x)%s%s%s; "
               "assisted flush %s\n", hv_type_name(hv_info.type),
               hv_info.signature, hv_info.base, hv_info.max_leaf,
               text[0] ? ", " : "", text, other,
               assist_decision_text(decision));
}

void hypervisor_shutdown(int code)
{
    if ( hypervisor_ops.shutdown )
        hypervisor_ops.shutdown(code);
}

void hypervisor_reboot(void)
{
    if ( hypervisor_ops.reboot )
        hypervisor_ops.reboot();
}
