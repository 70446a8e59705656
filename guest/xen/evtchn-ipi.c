/* SPDX-License-Identifier: GPL-2.0-only */
/* Xen: IPIs by event channel (EVTCHNOP_send) instead of the emulated APIC. */

#include <guest/evtchn-2l.h>
#include <guest/xen.h>
#include <shimk/cmdline.h>
#include <shimk/errno.h>
#include <shimk/frame.h>
#include <shimk/heap.h>
#include <shimk/panic.h>
#include <shimk/printk.h>
#include <shimk/sched.h>
#include <shimk/string.h>
#include <asm/apic.h>
#include <asm/page.h>
#include <asm/percpu.h>
#include <asm/processor.h>
#include <asm/smp.h>
#include <asm/tlb-measure.h>
#include <asm/traps.h>
#include <xen/event_channel.h>
#include <xen/hvm/hvm_op.h>
#include <xen/memory.h>
#include <xen/vcpu.h>
#include <xen/xen.h>

/*
 * Under Xen every IPI through the x2APIC is a WRMSR that Xen decodes
 * and emulates in its vLAPIC; an event channel send is a hypercall
 * that sets a bit in shared memory and raises the target's upcall
 * vector.  Linux's HVM and PVH guests use event channels for IPIs
 * (arch/x86/xen/smp_hvm.c) when Xen offers per-vCPU upcall vectors.
 * Under Xen there is no multicast either way: one send per target.
 *
 * The pieces (xen/include/public/):
 * - memory.h: XENMEM_add_to_physmap(XENMAPSPACE_shared_info) places
 *   shared_info, with the pending and mask bitmaps, at a frame of ours;
 * - xen.h: the vCPUs below XEN_LEGACY_MAX_VCPUS have their vcpu_info
 *   in it; vcpu.h: VCPUOP_register_vcpu_info places the others';
 * - hvm/hvm_op.h: HVMOP_set_evtchn_upcall_vector, per vCPU, makes Xen
 *   raise XEN_UPCALL_VECTOR through the vLAPIC (edge: it takes an EOI);
 * - event_channel.h: EVTCHNOP_bind_ipi binds a port to a vCPU,
 *   EVTCHNOP_unmask opens it, EVTCHNOP_send raises it.
 */

/* The IPI vectors a port is bound for (slots of FIRST_IPI_VECTOR). */
static const uint8_t carried[] = {
    INVALIDATE_VECTOR, CALL_VECTOR, RESCHEDULE_VECTOR, TEST_VECTOR,
    TEST_VECTOR2, MEASURE_VECTOR, MEASURE_VECTOR2, MEASURE_VECTOR3,
};

static struct evtchn_ipi_table table;
static struct shared_info *shinfo;
static struct vcpu_info *vinfo[NR_CPUS];
static bool setup_failed;

/* xen-ipi=auto|evtchn|apic (docs/design.md). */
static char opt_xen_ipi[8] = "auto";
string_param("xen-ipi", opt_xen_ipi);

static enum xen_ipi_choice choice = XEN_IPI_APIC;
static uint64_t rt_evtchn, rt_apic;        /* auto's medians, cycles */
static const char *why = "not set up";

static uint64_t upcalls[NR_CPUS], foreign[NR_CPUS], delivered[NR_CPUS];

static unsigned int slot_of(unsigned int vector)
{
    return vector - FIRST_IPI_VECTOR;
}

static bool is_carried(unsigned int vector)
{
    for ( unsigned int i = 0; i < ARRAY_SIZE(carried); i++ )
        if ( carried[i] == vector )
            return true;
    return false;
}

static void deliver(unsigned int port, void *arg)
{
    unsigned int cpu, slot, self = smp_processor_id();

    if ( !evtchn_ipi_owner(&table, port, &cpu, &slot) || cpu != self )
    {
        /* mine[] and owner[] disagree: a bookkeeping error. */
        foreign[self]++;
        return;
    }
    delivered[self]++;
    ipi_deliver(FIRST_IPI_VECTOR + slot, arg);
    /*
     * What do_trap() does after an IPI's vector, for this one: a
     * reschedule IPI is a kick, which wakes sleepers whose timer the L0
     * never delivered (kernel/sched/timer.c); the upcall's own vector
     * would read as any interrupt.
     */
    sched_irq_exit(FIRST_IPI_VECTOR + slot);
}

/*
 * Passes of the upcall loop in a row on one CPU that delivered no IPI of
 * its own.  Xen raises the upcall, and sets a selector bit, only when a
 * port becomes pending, and the ports shimk does not own stay pending
 * and masked, so a long run of empty passes is Xen signalling through
 * event-channel state that shimk reads wrongly: a vcpu_info or shared
 * info, or port table, that is not this domain's (after a resume without
 * the hook, xen-resume=0: seen as every vCPU in this loop for ever,
 * interrupts off, nothing printed).  A spurious pass now and then (a
 * port the loop already took) resets at the next that delivers.
 */
#define UPCALL_STORM 100u
static unsigned int empty_passes[NR_CPUS];

/*
 * XEN_UPCALL_VECTOR.  The order is xen.h's: clear the upcall flag
 * before reading the selector, the selector before the ports, and each
 * port before its handler, so that a send racing with any step raises
 * the flag again and the loop (or the next upcall) sees it.
 */
static void xen_upcall(struct cpu_regs *regs)
{
    unsigned int cpu = smp_processor_id();
    struct vcpu_info *vi = vinfo[cpu];

    upcalls[cpu]++;
    if ( vi )
        do
        {
            uint64_t sel, before = delivered[cpu];

            __atomic_store_n(&vi->evtchn_upcall_pending, 0,
                             __ATOMIC_SEQ_CST);
            sel = __atomic_exchange_n(&vi->evtchn_pending_sel, 0,
                                      __ATOMIC_SEQ_CST);
            evtchn_2l_scan((uint64_t *)shinfo->evtchn_pending,
                           (const uint64_t *)shinfo->evtchn_mask,
                           evtchn_ipi_mine(&table, cpu), sel, deliver, regs);
            if ( delivered[cpu] != before )
                empty_passes[cpu] = 0;
            else if ( ++empty_passes[cpu] == UPCALL_STORM )
                panic("xen: CPU%u: %u upcall passes in a row delivered no "
                      "IPI (selector now %#lx, %lu ports not its own): Xen "
                      "signals through event-channel state this domain "
                      "does not show shimk (vcpu_info %p, shared info %p "
                      "not registered here, as after a resume without the "
                      "hook)", cpu, UPCALL_STORM, (unsigned long)sel,
                      (unsigned long)foreign[cpu], (void *)vi,
                      (void *)shinfo);
        } while ( __atomic_load_n(&vi->evtchn_upcall_pending,
                                  __ATOMIC_SEQ_CST) );
    apic_eoi();
}

static long evtchn_op(unsigned int cmd, void *arg)
{
    return xen_hypercall2(__HYPERVISOR_event_channel_op, cmd, arg);
}

static int fail(const char *what, long rc)
{
    pr_warn("xen: CPU%u: %s failed (%ld, %s): IPIs stay on the APIC\n",
            smp_processor_id(), what, rc, errno_name((int)rc));
    setup_failed = true;
    ipi_by_event = false;
    why = "set-up failed";
    return (int)rc;
}

/* This CPU's vcpu_info: shared_info's slot, or one registered for it. */
static int place_vcpu_info(unsigned int cpu, unsigned int vcpu)
{
    struct vcpu_register_vcpu_info reg = { 0 };
    struct vcpu_info *vi;
    paddr_t pa;
    long rc;

    if ( vcpu < XEN_LEGACY_MAX_VCPUS )
    {
        vinfo[cpu] = &shinfo->vcpu_info[vcpu];
        return 0;
    }
    /* After a resume: the frame registered before, registered again. */
    if ( vinfo[cpu] )
    {
        reg.mfn = virt_to_phys(vinfo[cpu]) >> PAGE_SHIFT;
        rc = xen_hypercall3(__HYPERVISOR_vcpu_op, VCPUOP_register_vcpu_info,
                            vcpu, &reg);
        return rc ? fail("VCPUOP_register_vcpu_info", rc) : 0;
    }
    /* It may not cross a page (vcpu.h): a frame of its own. */
    if ( !(pa = frame_try_alloc()) )
        return fail("a frame for vcpu_info", -ENOMEM);
    vi = phys_to_virt(pa);
    reg.mfn = pa >> PAGE_SHIFT;
    reg.offset = 0;
    rc = xen_hypercall3(__HYPERVISOR_vcpu_op, VCPUOP_register_vcpu_info,
                        vcpu, &reg);
    if ( rc )
    {
        frame_free(pa);
        return fail("VCPUOP_register_vcpu_info", rc);
    }
    vinfo[cpu] = vi;
    return 0;
}

int xen_evtchn_cpu_setup(void)
{
    unsigned int cpu = smp_processor_id(), vcpu = this_cpu()->hv_vcpu_id;
    struct xen_hvm_evtchn_upcall_vector up;
    long rc;

    if ( !shinfo || setup_failed )
        return -ENODEV;
    if ( vcpu == ~0u )
        return fail("the vCPU id (Xen's CPUID leaf 4 has none)", -ENODEV);
    if ( place_vcpu_info(cpu, vcpu) )
        return -ENODEV;
    /* HVM: IF masks the upcall; the PV mask would only block it. */
    vinfo[cpu]->evtchn_upcall_mask = 0;
    up.vcpu = vcpu;
    up.vector = XEN_UPCALL_VECTOR;
    rc = xen_hypercall2(__HYPERVISOR_hvm_op, HVMOP_set_evtchn_upcall_vector,
                        &up);
    if ( rc )
        return fail("HVMOP_set_evtchn_upcall_vector", rc);
    for ( unsigned int i = 0; i < ARRAY_SIZE(carried); i++ )
    {
        struct evtchn_bind_ipi bind = { .vcpu = vcpu };
        struct evtchn_unmask unmask;
        int r;

        rc = evtchn_op(EVTCHNOP_bind_ipi, &bind);
        if ( rc )
            return fail("EVTCHNOP_bind_ipi", rc);
        r = evtchn_ipi_record(&table, cpu, slot_of(carried[i]), bind.port);
        if ( r )
            return fail("recording the port Xen bound", r);
        unmask.port = bind.port;
        rc = evtchn_op(EVTCHNOP_unmask, &unmask);
        if ( rc )
            return fail("EVTCHNOP_unmask", rc);
    }
    return 0;
}

int xen_evtchn_setup(void)
{
    struct xen_add_to_physmap map = {
        .domid = DOMID_SELF,
        .space = XENMAPSPACE_shared_info,
        .idx = 0,
    };
    enum xen_ipi_choice c = (enum xen_ipi_choice)xen_ipi_parse(opt_xen_ipi);
    paddr_t pa;
    long rc;

    if ( xen_ipi_parse(opt_xen_ipi) < 0 )
    {
        pr_warn("cmdline: xen-ipi=%s: not auto, evtchn or apic; using "
                "auto\n", opt_xen_ipi);
        c = XEN_IPI_AUTO;
    }
    choice = c;
    if ( c == XEN_IPI_APIC )
    {
        why = "xen-ipi=apic";
        return 0;
    }
    /* The frame's RAM goes to Xen; shared_info takes its place. */
    if ( !(pa = frame_try_alloc()) )
        return fail("a frame for shared_info", -ENOMEM);
    map.gpfn = pa >> PAGE_SHIFT;
    rc = xen_hypercall2(__HYPERVISOR_memory_op, XENMEM_add_to_physmap, &map);
    if ( rc )
        return fail("XENMEM_add_to_physmap(shared_info)", rc);
    shinfo = phys_to_virt(pa);
    /* Only our IPI ports open: each is unmasked as it is bound. */
    for ( unsigned int i = 0; i < EVTCHN_2L_WORDS; i++ )
        __atomic_store_n(&shinfo->evtchn_mask[i], ~0UL, __ATOMIC_SEQ_CST);
    set_vector_handler(XEN_UPCALL_VECTOR, xen_upcall);
    return xen_evtchn_cpu_setup();
}

bool xen_evtchn_mapped(void)
{
    return shinfo != NULL;
}

/*
 * After a suspend that Xen resumed in a new domain (guest/xen/suspend.c),
 * on the boot CPU with every other CPU parked: shared info is mapped
 * again at its old frame (the restored frame is plain RAM now, and the
 * new page's masks are clear), every port is masked, and the old port
 * table is forgotten, since no port of the old domain exists.  Each CPU
 * then binds its own again with xen_evtchn_cpu_setup().
 */
int xen_evtchn_resume(void)
{
    struct xen_add_to_physmap map = {
        .domid = DOMID_SELF,
        .space = XENMAPSPACE_shared_info,
        .idx = 0,
    };
    long rc;

    if ( !shinfo )
        return 0;
    memset(&table, 0, sizeof(table));
    map.gpfn = virt_to_phys(shinfo) >> PAGE_SHIFT;
    rc = xen_hypercall2(__HYPERVISOR_memory_op, XENMEM_add_to_physmap, &map);
    if ( rc )
        return fail("XENMEM_add_to_physmap(shared_info) at resume", rc);
    for ( unsigned int i = 0; i < EVTCHN_2L_WORDS; i++ )
        __atomic_store_n(&shinfo->evtchn_mask[i], ~0UL, __ATOMIC_SEQ_CST);
    return xen_evtchn_cpu_setup();
}

int xen_send_ipi_event(const cpumask_t *mask, unsigned int vector)
{
    unsigned int cpu, slot = slot_of(vector);

    if ( !is_carried(vector) ||
         !evtchn_ipi_all_bound(&table, mask, slot) )
        return -EOPNOTSUPP;
    for_each_cpu ( cpu, mask )
    {
        struct evtchn_send send = {
            .port = evtchn_ipi_port(&table, cpu, slot),
        };
        long rc = evtchn_op(EVTCHNOP_send, &send);

        /* A bound IPI port cannot refuse a send: an IPI would be lost. */
        if ( rc )
            panic("xen: EVTCHNOP_send of IPI %#x to CPU%u (port %u) "
                  "failed: %ld (%s)", vector, cpu, send.port, rc,
                  errno_name((int)rc));
    }
    return 0;
}

void xen_evtchn_smp_ready(void)
{
    unsigned int target = NR_CPUS;

    if ( !shinfo || setup_failed )
        return;
    for ( unsigned int cpu = 0; cpu < NR_CPUS; cpu++ )
        if ( cpu != smp_processor_id() &&
             cpumask_test_cpu(cpu, &cpu_online_mask) &&
             evtchn_ipi_port(&table, cpu, slot_of(MEASURE_VECTOR3)) )
        {
            target = cpu;
            break;
        }
    if ( choice == XEN_IPI_EVTCHN )
    {
        ipi_by_event = true;
        why = "xen-ipi=evtchn";
        return;
    }
    if ( target == NR_CPUS )
    {
        why = "auto: one CPU, no IPI to time";
        return;
    }
    /* The same round trip both ways, interleaved: ratios, one boot. */
    for ( unsigned int r = 0; r < 4; r++ )
    {
        uint64_t e, a;

        ipi_by_event = true;
        e = measure_ipi_round_trip(target, 16);
        ipi_by_event = false;
        a = measure_ipi_round_trip(target, 16);
        rt_evtchn = r ? (rt_evtchn < e ? rt_evtchn : e) : e;
        rt_apic = r ? (rt_apic < a ? rt_apic : a) : a;
    }
    ipi_by_event = xen_ipi_decide(rt_evtchn, rt_apic) ==
                             XEN_IPI_EVTCHN;
    why = "auto";
}

void xen_evtchn_describe(char *buf, size_t size)
{
    if ( choice == XEN_IPI_AUTO && rt_apic )
        ksnprintf(buf, size, ", IPIs by %s (%s: round trip %lu against "
                  "%lu cycles)", ipi_by_event ? "evtchn" : "apic",
                  why, (unsigned long)(ipi_by_event ? rt_evtchn
                                                              : rt_apic),
                  (unsigned long)(ipi_by_event ? rt_apic
                                                         : rt_evtchn));
    else
        ksnprintf(buf, size, ", IPIs by %s (%s)",
                  ipi_by_event ? "evtchn" : "apic", why);
}

bool xen_evtchn_ipi_usable(void)
{
    return shinfo && !setup_failed;
}

void xen_evtchn_counts(uint64_t *nr_upcalls, uint64_t *nr_foreign)
{
    *nr_upcalls = *nr_foreign = 0;
    for ( unsigned int cpu = 0; cpu < NR_CPUS; cpu++ )
    {
        *nr_upcalls += upcalls[cpu];
        *nr_foreign += foreign[cpu];
    }
}
