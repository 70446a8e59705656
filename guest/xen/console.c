/* SPDX-License-Identifier: GPL-2.0-only */
/* Xen PV console: the shared ring a domU's `xl console` reads. */

#include <guest/xen.h>
#include <shimk/boot-info.h>
#include <shimk/console.h>
#include <shimk/errno.h>
#include <shimk/printk.h>
#include <shimk/time.h>
#include <asm/page.h>
#include <asm/paging.h>
#include <asm/processor.h>
#include <xen/event_channel.h>
#include <xen/hvm/hvm_op.h>
#include <xen/hvm/params.h>
#include <xen/io/console.h>
#include <xen/sched.h>

/*
 * The toolstack gives an HVM/PVH guest one page of ring (io/console.h)
 * and an event channel, both named by HVM params.  shimk writes the
 * out ring, moves out_prod after the bytes (a write barrier between),
 * and kicks the channel; xenconsoled moves out_cons as it drains.  A
 * full ring waits for it, yielding the vCPU, for a bounded time: then
 * the console is declared stuck and dropped, never hung on.
 */

#define DRAIN_WAIT_MS 1000

static volatile struct xencons_interface *ring;
static evtchn_port_t port;
static bool stuck;

static void kick(void)
{
    struct evtchn_send send = { .port = port };

    xen_hypercall2(__HYPERVISOR_event_channel_op, EVTCHNOP_send, &send);
}

static void pv_console_write(const char *s, size_t len)
{
    while ( len && !stuck )
    {
        XENCONS_RING_IDX cons = READ_ONCE(ring->out_cons);
        XENCONS_RING_IDX prod = ring->out_prod;
        size_t space = sizeof(ring->out) - (prod - cons);

        if ( !space )
        {
            uint64_t start = rdtsc();

            kick();
            while ( READ_ONCE(ring->out_cons) == cons )
            {
                if ( rdtsc() - start > ms_to_cycles(DRAIN_WAIT_MS) )
                {
                    stuck = true;
                    return;
                }
                xen_hypercall2(__HYPERVISOR_sched_op, SCHEDOP_yield, NULL);
            }
            continue;
        }
        for ( ; space && len; space--, len--, s++ )
            ring->out[MASK_XENCONS_IDX(prod++, ring->out)] = *s;
        /* The bytes before the index that publishes them. */
        smp_wmb();
        WRITE_ONCE(ring->out_prod, prod);
        kick();
    }
}

static struct console_sink pv_sink = {
    .name = "pv",
    .write = pv_console_write,
};

static uint64_t console_pfn, console_evtchn;

void xen_console_reserve(struct boot_info *bi)
{
    /* Keep the ring page out of the frame allocator's hands. */
    if ( !xen_hvm_get_param(HVM_PARAM_CONSOLE_PFN, &console_pfn) &&
         console_pfn )
        boot_info_reserve(bi, PFN_PHYS(console_pfn), PAGE_SIZE);
    else
        console_pfn = 0;
    if ( xen_hvm_get_param(HVM_PARAM_CONSOLE_EVTCHN, &console_evtchn) )
        console_evtchn = 0;
}

void xen_console_init(bool domu)
{
    /* A domU's console; a dom0 only on console=pv. */
    if ( !console_selected("pv", domu) )
        return;
    if ( !console_pfn || !console_evtchn )
    {
        pr_warn("xen: no PV console ring (HVM_PARAM_CONSOLE_PFN %#lx, "
                "EVTCHN %lu); output stays on port 0xe9\n",
                (unsigned long)console_pfn, (unsigned long)console_evtchn);
        return;
    }
    ring = ioremap_cache(PFN_PHYS(console_pfn), PAGE_SIZE);
    if ( !ring )
    {
        pr_warn("xen: cannot map the PV console ring at pfn %#lx\n",
                (unsigned long)console_pfn);
        return;
    }
    port = (evtchn_port_t)console_evtchn;
    /* Everything printed so far goes out first: nothing is lost. */
    console_register_replay(&pv_sink);
}

/*
 * After a resume in a new domain: the ring stays at its frame (the
 * toolstack restores the HVM params), its event channel is a new port.
 */
void xen_console_resume(void)
{
    if ( !ring )
        return;
    if ( xen_hvm_get_param(HVM_PARAM_CONSOLE_EVTCHN, &console_evtchn) ||
         !console_evtchn )
    {
        /* Without a port nothing kicks xenconsoled: stop writing. */
        stuck = true;
        return;
    }
    port = (evtchn_port_t)console_evtchn;
    stuck = false;
}
