/* SPDX-License-Identifier: GPL-2.0-only */
/* A xenstore client over the domain's ring (guest/xen/xenstore.c). */
#ifndef GUEST_XENSTORE_H
#define GUEST_XENSTORE_H

#include <shimk/types.h>

/*
 * One user at a time, from thread context (the control client's
 * thread): requests wait for their reply by sleeping, bounded by
 * XS_REPLY_MS, and nothing here takes a lock.  Paths without a leading
 * '/' are the domain's own (/local/domain/<domid>/...).  Every call
 * returns 0 or -errno: -ENODEV before a successful xs_connect(),
 * -ETIMEDOUT for a reply that did not come, -EPROTO (after which the
 * client stays down) for a ring that broke the protocol, or the
 * errno xenstored named in its XS_ERROR.
 */
#define XS_REPLY_MS 10000

/* Map the ring (HVM_PARAM_STORE_PFN, _EVTCHN) and check it is usable. */
int xs_connect(void);

/* The value at path, NUL-terminated, in buf; -E2BIG if it did not fit. */
int xs_read(const char *path, char *buf, size_t size);

int xs_write(const char *path, const char *value);

/* Fire a watch event for path (and below it) carrying token. */
int xs_watch(const char *path, const char *token);

/*
 * Wait up to ms for a watch event; 1 with its path in buf, 0 when none
 * came.  Events that arrived during other requests come first.
 */
int xs_wait_event(uint64_t ms, char *path, size_t size);

/*
 * After a resume in a new domain: the same ring frame, a new event
 * channel, no watches (the caller registers its own again).
 */
int xs_resume(void);

/* Counts for the console: replies, watch events, malformed messages. */
void xs_counts(uint64_t *replies, uint64_t *events, uint64_t *bad);

#endif /* GUEST_XENSTORE_H */
