/* SPDX-License-Identifier: GPL-2.0-only */
/* The xenstore ring protocol: framing, ring copies and reply checks (pure). */

#include <shimk/compiler.h>
#include <shimk/errno.h>
#include <shimk/string.h>
#include <guest/xs-wire.h>

int xs_msg_build(void *buf, size_t size, uint32_t type, uint32_t req_id,
                 const char *const *parts, unsigned int nr_parts, bool last_raw)
{
    struct xsd_sockmsg hdr = { .type = type, .req_id = req_id };
    char *out = buf;
    size_t len = 0;

    if ( nr_parts > XS_MAX_PARTS )
        return -EINVAL;
    for ( unsigned int i = 0; i < nr_parts; i++ )
        len += strlen(parts[i]) + !(last_raw && i == nr_parts - 1);
    if ( len > XENSTORE_PAYLOAD_MAX || sizeof(hdr) + len > size )
        return -E2BIG;
    hdr.len = (uint32_t)len;
    memcpy(out, &hdr, sizeof(hdr));
    out += sizeof(hdr);
    for ( unsigned int i = 0; i < nr_parts; i++ )
    {
        size_t n = strlen(parts[i]) + !(last_raw && i == nr_parts - 1);

        memcpy(out, parts[i], n);
        out += n;
    }
    return (int)(sizeof(hdr) + len);
}

int xs_ring_put(char *ring, uint32_t cons, uint32_t *prod, const void *src,
                size_t len)
{
    uint32_t used = *prod - cons;
    const char *s = src;
    size_t n = 0;

    if ( used > XENSTORE_RING_SIZE )
        return -EIO;
    for ( ; n < len && used < XENSTORE_RING_SIZE; n++, used++ )
        ring[MASK_XENSTORE_IDX((*prod)++)] = s[n];
    return (int)n;
}

/* Is this a header xenstored could send? (xs_wire.h's limits) */
static bool header_ok(const struct xsd_sockmsg *h)
{
    return h->len <= XENSTORE_PAYLOAD_MAX && h->type < XS_TYPE_COUNT;
}

int xs_rx_feed(struct xs_rx *rx, const char *ring, uint32_t *cons,
               uint32_t prod)
{
    uint32_t avail = prod - *cons;
    char *hdr = (char *)&rx->msg.hdr;

    if ( avail > XENSTORE_RING_SIZE )
        return -EIO;
    while ( avail )
    {
        if ( rx->got < sizeof(rx->msg.hdr) )
        {
            hdr[rx->got++] = ring[MASK_XENSTORE_IDX((*cons)++)];
            avail--;
            if ( rx->got == sizeof(rx->msg.hdr) && !header_ok(&rx->msg.hdr) )
                return -EPROTO;
        }
        else if ( rx->got - sizeof(rx->msg.hdr) < rx->msg.hdr.len )
        {
            rx->msg.body[rx->got++ - sizeof(rx->msg.hdr)] =
                ring[MASK_XENSTORE_IDX((*cons)++)];
            avail--;
        }
        if ( rx->got >= sizeof(rx->msg.hdr) &&
             rx->got - sizeof(rx->msg.hdr) == rx->msg.hdr.len )
            break;
    }
    if ( rx->got < sizeof(rx->msg.hdr) ||
         rx->got - sizeof(rx->msg.hdr) < rx->msg.hdr.len )
        return 0;
    rx->msg.body[rx->msg.hdr.len] = '\0';
    rx->got = 0;
    return 1;
}

int xs_watch_event(const struct xs_msg *m, const char **path,
                   const char **token)
{
    size_t len = m->hdr.len, p, t;

    if ( m->hdr.type != XS_WATCH_EVENT || len > XENSTORE_PAYLOAD_MAX )
        return -EPROTO;
    /* Each string must end inside the payload, not at the NUL we add. */
    p = strnlen(m->body, len);
    if ( p + 1 >= len )
        return -EPROTO;
    t = strnlen(m->body + p + 1, len - p - 1);
    if ( p + 1 + t >= len )
        return -EPROTO;
    *path = m->body;
    *token = m->body + p + 1;
    return 0;
}

int xs_error_errno(const struct xs_msg *m)
{
    if ( m->hdr.type != XS_ERROR )
        return -EIO;
    for ( unsigned int i = 0; i < ARRAY_SIZE(xsd_errors); i++ )
        if ( !strcmp(m->body, xsd_errors[i].errstring) )
            return -xsd_errors[i].errnum;
    return -EIO;
}
