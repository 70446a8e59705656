/* SPDX-License-Identifier: GPL-2.0-only */
/* Fuzz guest/xen/xs-wire.c: any ring content, the reader stays in bounds. */

#include <guest/xs-wire.h>

#include <string.h>

#include "fuzz.h"

/*
 * The input: 4 bytes of rsp_cons, 4 of rsp_prod (the indexes a hostile
 * or broken xenstored leaves), 1 byte per feed of how far the producer
 * has got each time, then the ring's bytes.  The reader must never take
 * more than the indexes allow, never assemble a body past
 * XENSTORE_PAYLOAD_MAX, always NUL-terminate it, and every parse of a
 * whole message must point inside that body.
 */
#define FEEDS 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char ring[XENSTORE_RING_SIZE];
    static struct xs_rx rx;
    uint32_t cons, prod, start;
    const uint8_t *steps;
    unsigned int whole = 0;

    if ( size < 8 + FEEDS )
        return 0;
    memcpy(&cons, data, 4);
    memcpy(&prod, data + 4, 4);
    steps = data + 8;
    memset(ring, 0, sizeof(ring));
    memcpy(ring, data + 8 + FEEDS,
           size - 8 - FEEDS < sizeof(ring) ? size - 8 - FEEDS : sizeof(ring));
    memset(&rx, 0, sizeof(rx));
    start = cons;
    for ( unsigned int f = 0; f < FEEDS; f++ )
    {
        /* The producer as seen at this feed: up to prod, in steps. */
        uint32_t upto = cons + steps[f];
        uint32_t before = cons;
        int rc;

        if ( (uint32_t)(prod - start) <= XENSTORE_RING_SIZE &&
             (uint32_t)(upto - start) > (uint32_t)(prod - start) )
            upto = prod;
        rc = xs_rx_feed(&rx, ring, &cons, upto);
        PROMISE(rc >= -EPROTO && rc <= 1, "rc %d", rc);
        PROMISE((uint32_t)(cons - before) <= (uint32_t)(upto - before) ||
                    rc == -EIO,
                "took %u of %u", cons - before, upto - before);
        if ( rc == -EIO )
        {
            PROMISE(cons == before, "moved on bad indexes");
            break;
        }
        if ( rc < 0 )
            break;
        PROMISE(rx.got <= sizeof(rx.msg.hdr) + XENSTORE_PAYLOAD_MAX, "got %u",
                rx.got);
        if ( rc == 1 )
        {
            const char *p, *t;

            whole++;
            PROMISE(rx.msg.hdr.len <= XENSTORE_PAYLOAD_MAX, "len %u",
                    rx.msg.hdr.len);
            PROMISE(rx.msg.body[rx.msg.hdr.len] == '\0', "no NUL");
            if ( !xs_watch_event(&rx.msg, &p, &t) )
            {
                const char *end = rx.msg.body + rx.msg.hdr.len;

                PROMISE(p == rx.msg.body && t > p && t < end &&
                            t + strlen(t) < end,
                        "event strings outside the payload");
            }
            (void)xs_error_errno(&rx.msg);
        }
    }
    PROMISE(whole <= FEEDS, "%u messages", whole);
    return 0;
}
