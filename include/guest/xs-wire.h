/* SPDX-License-Identifier: GPL-2.0-only */
/* The xenstore ring protocol: framing, ring copies and reply checks (pure). */
#ifndef GUEST_XS_WIRE_H
#define GUEST_XS_WIRE_H

/* Before xs_wire.h, whose errno table needs the E* names. */
#include <shimk/errno.h>
#include <shimk/types.h>
#include <xen/io/xs_wire.h>

/*
 * The wire protocol of xen/io/xs_wire.h (libxen-dev's, as it is): a
 * guest and xenstored share one page of two 1 KiB rings, each with
 * free-running producer and consumer indexes.  A message is a struct
 * xsd_sockmsg header, then len bytes of payload (NUL-separated
 * strings; a value written is not NUL-terminated).  Replies carry the
 * request's req_id; XS_WATCH_EVENT messages come unasked; XS_ERROR's
 * payload is an errno's name ("ENOENT").
 *
 * Everything here works on index values read once by the caller, so
 * the checks hold whatever the other end does to the page meanwhile:
 * a producer more than a ring ahead of its consumer, a length past
 * XENSTORE_PAYLOAD_MAX or an unknown type is refused, never followed.
 */

/* The most parts one request carries (XS_WATCH: path and token). */
#define XS_MAX_PARTS 2

/* One message as read from the response ring, NUL added after it. */
struct xs_msg
{
    struct xsd_sockmsg hdr;
    char body[XENSTORE_PAYLOAD_MAX + 1];
};

/* The response reader's state: a message may arrive a piece at a time. */
struct xs_rx
{
    uint32_t got; /* bytes of header, then payload, so far */
    struct xs_msg msg;
};

/*
 * A request into buf: header (type, req_id, tx_id 0), then the parts
 * in order, each NUL-terminated except the last when last_raw (XS_WRITE's
 * value).  Returns its length, or -E2BIG past XENSTORE_PAYLOAD_MAX or
 * size, -EINVAL for more than XS_MAX_PARTS.
 */
int xs_msg_build(void *buf, size_t size, uint32_t type, uint32_t req_id,
                 const char *const *parts, unsigned int nr_parts,
                 bool last_raw);

/*
 * Copy up to len bytes of src into a ring whose indexes are cons and
 * *prod, advancing *prod.  Returns the bytes copied (0 when full), or
 * -EIO when the indexes say more than a ring is in flight.
 */
int xs_ring_put(char *ring, uint32_t cons, uint32_t *prod, const void *src,
                size_t len);

/*
 * Feed the reader from a ring whose indexes are *cons and prod,
 * advancing *cons past what it took.  1: rx->msg is a whole message
 * (the next call starts another); 0: more bytes needed; -EIO: bad
 * indexes; -EPROTO: a header no xenstored sends (length or type), after
 * which the ring cannot be trusted.
 */
int xs_rx_feed(struct xs_rx *rx, const char *ring, uint32_t *cons,
               uint32_t prod);

/*
 * An XS_WATCH_EVENT's path and token: two NUL-terminated strings
 * within its payload.  0, or -EPROTO for anything else.
 */
int xs_watch_event(const struct xs_msg *m, const char **path,
                   const char **token);

/* An XS_ERROR's payload as -errno; -EIO for a name it does not know. */
int xs_error_errno(const struct xs_msg *m);

#endif /* GUEST_XS_WIRE_H */
