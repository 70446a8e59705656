/* SPDX-License-Identifier: GPL-2.0-only */
/* A xenstore client over the domain's ring: requests, replies, watch events. */

#include <guest/xen.h>
#include <guest/xenstore.h>
#include <guest/xs-wire.h>
#include <shimk/boot-info.h>
#include <shimk/errno.h>
#include <shimk/printk.h>
#include <shimk/sched.h>
#include <shimk/string.h>
#include <shimk/time.h>
#include <asm/page.h>
#include <asm/paging.h>
#include <asm/processor.h>
#include <xen/event_channel.h>
#include <xen/hvm/params.h>

/*
 * The toolstack gives an HVM/PVH guest one page of xenstore rings and
 * an event channel, named by HVM_PARAM_STORE_PFN and _EVTCHN
 * (hvm/params.h).  The client writes a request into req (data, write
 * barrier, req_prod), kicks the channel, and reads rsp (rsp_prod, read
 * barrier, data, full barrier, rsp_cons), kicking again so that a
 * xenstored waiting for room goes on.  The channel is never bound to
 * an upcall: the one user, the control client, polls, which keeps the
 * event-channel IPI code (guest/xen/evtchn-ipi.c) to its ports alone.
 */

/* Between polls of the response ring: while a reply is due, and not. */
#define REPLY_POLL_US  1000
#define EVENT_POLL_US  100000
#define EVENT_QUEUE    4
#define EVENT_PATH_MAX 128

static volatile struct xenstore_domain_interface *intf;
static evtchn_port_t port;
static uint64_t store_pfn, store_evtchn;
static bool broken;
static uint32_t next_req_id = 1;
static struct xs_rx rx;
static uint64_t nr_replies, nr_events, nr_bad, nr_dropped;

/* Watch events that came while a request waited for its reply. */
static char queued[EVENT_QUEUE][EVENT_PATH_MAX];
static unsigned int queue_head, queue_len;

void xen_store_reserve(struct boot_info *bi)
{
    if ( !xen_hvm_get_param(HVM_PARAM_STORE_PFN, &store_pfn) && store_pfn )
        boot_info_reserve(bi, PFN_PHYS(store_pfn), PAGE_SIZE);
    else
        store_pfn = 0;
    if ( xen_hvm_get_param(HVM_PARAM_STORE_EVTCHN, &store_evtchn) )
        store_evtchn = 0;
}

static void kick(void)
{
    struct evtchn_send send = { .port = port };

    xen_hypercall2(__HYPERVISOR_event_channel_op, EVTCHNOP_send, &send);
}

static int stop(int err, const char *what)
{
    broken = true;
    pr_warn("xenstore: %s (%s): the client stops\n", what, errno_name(err));
    return err;
}

int xs_connect(void)
{
    if ( intf )
        return 0;
    if ( !store_pfn || !store_evtchn )
    {
        pr_warn("xenstore: no ring (HVM_PARAM_STORE_PFN %#lx, EVTCHN %lu)\n",
                (unsigned long)store_pfn, (unsigned long)store_evtchn);
        return -ENODEV;
    }
    intf = ioremap_cache(PFN_PHYS(store_pfn), PAGE_SIZE);
    if ( !intf )
    {
        pr_warn("xenstore: cannot map the ring at pfn %#lx\n",
                (unsigned long)store_pfn);
        return -ENOMEM;
    }
    port = (evtchn_port_t)store_evtchn;
    /* A xenstored that offers reconnection says when it is mid-way. */
    if ( (READ_ONCE(intf->server_features) &
          XENSTORE_SERVER_FEATURE_RECONNECTION) &&
         READ_ONCE(intf->connection) != XENSTORE_CONNECTED )
        return stop(-EAGAIN, "the ring is reconnecting at boot");
    return 0;
}

static void queue_event(const char *path)
{
    if ( queue_len == EVENT_QUEUE || strlen(path) >= EVENT_PATH_MAX )
    {
        /* Our one watch re-reads its node: a lost event loses nothing. */
        nr_dropped++;
        return;
    }
    memcpy(queued[(queue_head + queue_len++) % EVENT_QUEUE], path,
           strlen(path) + 1);
}

/*
 * Take what the response ring holds.  1: rx.msg is a reply (valid until
 * the next call); 0: nothing for the caller (watch events are queued);
 * -EPROTO once the ring broke the protocol.
 */
static int poll_ring(void)
{
    uint32_t prod, cons, before;
    const char *path, *token;
    int rc;

    prod = READ_ONCE(intf->rsp_prod);
    smp_rmb();
    cons = before = READ_ONCE(intf->rsp_cons);
    rc = xs_rx_feed(&rx, (const char *)intf->rsp, &cons, prod);
    smp_mb();
    if ( cons != before )
    {
        WRITE_ONCE(intf->rsp_cons, cons);
        kick();
    }
    if ( rc == -EIO )
        return stop(-EPROTO, "response indexes more than a ring apart");
    if ( rc == -EPROTO )
        return stop(-EPROTO, "a reply header no xenstored sends");
    if ( rc == 0 )
        return 0;
    if ( rx.msg.hdr.type != XS_WATCH_EVENT )
    {
        nr_replies++;
        return 1;
    }
    nr_events++;
    if ( xs_watch_event(&rx.msg, &path, &token) )
    {
        nr_bad++;
        pr_warn("xenstore: a malformed watch event (%u bytes): ignored\n",
                rx.msg.hdr.len);
        return 0;
    }
    queue_event(path);
    return 0;
}

static int send_request(const void *buf, size_t len)
{
    uint64_t start = rdtsc();
    size_t done = 0;

    while ( done < len )
    {
        uint32_t cons = READ_ONCE(intf->req_cons), prod;
        int n;

        smp_mb();
        prod = READ_ONCE(intf->req_prod);
        n = xs_ring_put((char *)intf->req, cons, &prod,
                        (const char *)buf + done, len - done);
        if ( n < 0 )
            return stop(-EPROTO, "request indexes more than a ring apart");
        smp_wmb();
        WRITE_ONCE(intf->req_prod, prod);
        kick();
        done += (size_t)n;
        if ( done == len )
            break;
        if ( rdtsc() - start > ms_to_cycles(XS_REPLY_MS) )
        {
            pr_warn("xenstore: the request ring stayed full for %u ms\n",
                    XS_REPLY_MS);
            /* Half a request sent: the stream is out of step for good. */
            return stop(-ETIMEDOUT, "a request half sent");
        }
        thread_sleep_us(REPLY_POLL_US);
    }
    return 0;
}

/* One request and its reply, which is left in rx.msg. */
static int talk(uint32_t type, const char *const *parts, unsigned int n,
                bool last_raw)
{
    static char buf[sizeof(struct xsd_sockmsg) + XENSTORE_PAYLOAD_MAX];
    uint32_t id = next_req_id++;
    uint64_t start;
    int len, rc;

    if ( !intf )
        return -ENODEV;
    if ( broken )
        return -EPROTO;
    len = xs_msg_build(buf, sizeof(buf), type, id, parts, n, last_raw);
    if ( len < 0 )
        return len;
    if ( (rc = send_request(buf, (size_t)len)) )
        return rc;
    start = rdtsc();
    for ( ;; )
    {
        rc = poll_ring();
        if ( rc < 0 )
            return rc;
        if ( rc && rx.msg.hdr.req_id == id )
            break;
        if ( rc )
        {
            /* A reply to a request that timed out earlier. */
            nr_bad++;
            pr_warn("xenstore: a reply to request %u, not %u: dropped\n",
                    rx.msg.hdr.req_id, id);
        }
        /* Bounded even while a hostile store streams stray replies. */
        if ( rdtsc() - start > ms_to_cycles(XS_REPLY_MS) )
        {
            pr_warn("xenstore: no reply to request %u (type %u) in %u ms\n", id,
                    type, XS_REPLY_MS);
            return -ETIMEDOUT;
        }
        thread_sleep_us(REPLY_POLL_US);
    }
    if ( rx.msg.hdr.type == XS_ERROR )
        return xs_error_errno(&rx.msg);
    if ( rx.msg.hdr.type != type )
    {
        nr_bad++;
        pr_warn("xenstore: reply type %u to a request of type %u\n",
                rx.msg.hdr.type, type);
        return -EIO;
    }
    return 0;
}

int xs_read(const char *path, char *buf, size_t size)
{
    const char *parts[] = { path };
    int rc = talk(XS_READ, parts, 1, false);

    if ( rc )
        return rc;
    if ( rx.msg.hdr.len >= size )
        return -E2BIG;
    memcpy(buf, rx.msg.body, rx.msg.hdr.len + 1);
    /* A value may hold a NUL: the string ends there. */
    return 0;
}

int xs_write(const char *path, const char *value)
{
    const char *parts[] = { path, value };

    return talk(XS_WRITE, parts, 2, true);
}

int xs_watch(const char *path, const char *token)
{
    const char *parts[] = { path, token };

    return talk(XS_WATCH, parts, 2, false);
}

int xs_wait_event(uint64_t ms, char *path, size_t size)
{
    uint64_t start = rdtsc();

    if ( !intf )
        return -ENODEV;
    for ( ;; )
    {
        int rc;

        if ( queue_len )
        {
            const char *p = queued[queue_head];

            queue_head = (queue_head + 1) % EVENT_QUEUE;
            queue_len--;
            if ( strlen(p) >= size )
                return -E2BIG;
            memcpy(path, p, strlen(p) + 1);
            return 1;
        }
        if ( broken )
            return -EPROTO;
        rc = poll_ring();
        if ( rc < 0 )
            return rc;
        if ( rc )
        {
            nr_bad++;
            pr_warn("xenstore: a reply (request %u) nobody waits for: "
                    "dropped\n",
                    rx.msg.hdr.req_id);
        }
        if ( queue_len )
            continue;
        if ( rdtsc() - start > ms_to_cycles(ms) )
            return 0;
        if ( rc )
            continue;
        thread_sleep_us(EVENT_POLL_US);
    }
}

int xs_resume(void)
{
    uint64_t pfn;

    if ( !intf )
        return -ENODEV;
    if ( xen_hvm_get_param(HVM_PARAM_STORE_PFN, &pfn) || pfn != store_pfn ||
         xen_hvm_get_param(HVM_PARAM_STORE_EVTCHN, &store_evtchn) ||
         !store_evtchn )
        return stop(-ENODEV, "no ring at the old frame after the resume");
    port = (evtchn_port_t)store_evtchn;
    /* Whatever was half read belonged to the old connection. */
    memset(&rx, 0, sizeof(rx));
    queue_len = 0;
    broken = false;
    return 0;
}

void xs_counts(uint64_t *replies, uint64_t *events, uint64_t *bad)
{
    *replies = nr_replies;
    *events = nr_events;
    *bad = nr_bad + nr_dropped;
}
