/* SPDX-License-Identifier: GPL-2.0-only */
/* guest/xen/xs-wire.c and control-parse.c: xenstore framing, replies, words. */

#include <guest/xen-control.h>
#include <guest/xs-wire.h>
#include <shimk/compiler.h>
#include <shimk/errno.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

static char ring[XENSTORE_RING_SIZE];
static struct xs_rx rx;

static int setup(void **state)
{
    memset(ring, 0, sizeof(ring));
    memset(&rx, 0, sizeof(rx));
    return 0;
}

/* Put a whole message (header, then body) into ring at *prod. */
static void put_msg(uint32_t *prod, uint32_t type, uint32_t id,
                    const void *body, uint32_t len)
{
    struct xsd_sockmsg h = { .type = type, .req_id = id, .len = len };

    assert_int_equal(xs_ring_put(ring, *prod - 0, prod, &h, sizeof(h)),
                     sizeof(h));
    assert_int_equal(xs_ring_put(ring, *prod - sizeof(h), prod, body, len),
                     len);
}

/* A request's bytes: header, NUL-separated parts, a raw last value. */
static void build(void **state)
{
    const char *parts[] = { "control/shutdown", "" };
    const char *w[] = { "control/feature-poweroff", "1" };
    char buf[128];
    struct xsd_sockmsg h;
    int n;

    n = xs_msg_build(buf, sizeof(buf), XS_READ, 7, parts, 1, false);
    assert_int_equal(n, sizeof(h) + 17);
    memcpy(&h, buf, sizeof(h));
    assert_int_equal(h.type, XS_READ);
    assert_int_equal(h.req_id, 7);
    assert_int_equal(h.tx_id, 0);
    assert_int_equal(h.len, 17);
    assert_memory_equal(buf + sizeof(h), "control/shutdown\0", 17);

    /* XS_WRITE: the value carries no NUL of its own. */
    n = xs_msg_build(buf, sizeof(buf), XS_WRITE, 8, w, 2, true);
    memcpy(&h, buf, sizeof(h));
    assert_int_equal(h.len, 25 + 1);
    assert_int_equal(n, sizeof(h) + 26);
    assert_memory_equal(buf + sizeof(h),
                        "control/feature-poweroff\0"
                        "1",
                        26);

    /* An empty raw value: the path alone. */
    n = xs_msg_build(buf, sizeof(buf), XS_WRITE, 9, parts, 2, true);
    memcpy(&h, buf, sizeof(h));
    assert_int_equal(h.len, 17);
}

static void build_refusals(void **state)
{
    static char big[XENSTORE_PAYLOAD_MAX + 2];
    static char buf[sizeof(struct xsd_sockmsg) + XENSTORE_PAYLOAD_MAX + 8];
    const char *parts[] = { big, "x", "y" };

    memset(big, 'a', XENSTORE_PAYLOAD_MAX);
    assert_int_equal(
        xs_msg_build(buf, sizeof(buf), XS_READ, 1, parts, 1, false), -E2BIG);
    /* Exactly the payload limit, raw: fits. */
    big[XENSTORE_PAYLOAD_MAX - 1] = '\0';
    assert_int_equal(
        xs_msg_build(buf, sizeof(buf), XS_READ, 1, parts, 1, false),
        sizeof(struct xsd_sockmsg) + XENSTORE_PAYLOAD_MAX);
    /* Too small a buffer, too many parts. */
    assert_int_equal(xs_msg_build(buf, 20, XS_READ, 1, parts, 1, false),
                     -E2BIG);
    assert_int_equal(
        xs_msg_build(buf, sizeof(buf), XS_READ, 1, parts, 3, false), -EINVAL);
}

/* The ring wraps and fills: a full ring takes nothing, bad indexes -EIO. */
static void ring_put(void **state)
{
    char data[XENSTORE_RING_SIZE + 10];
    uint32_t prod = 0xfffffff0u; /* the indexes run free and wrap */

    memset(data, 'z', sizeof(data));
    assert_int_equal(xs_ring_put(ring, prod, &prod, "abcdefghijklmnopqrst", 20),
                     20);
    assert_int_equal(prod, 4);
    assert_int_equal(ring[MASK_XENSTORE_IDX(0xfffffff0u)], 'a');
    assert_int_equal(ring[3], 't');
    /* 1004 more fill it; the rest waits. */
    assert_int_equal(xs_ring_put(ring, 0xfffffff0u, &prod, data, sizeof(data)),
                     XENSTORE_RING_SIZE - 20);
    assert_int_equal(xs_ring_put(ring, 0xfffffff0u, &prod, data, 1), 0);
    /* A consumer ahead of the producer is more than a ring in flight. */
    prod = 5;
    assert_int_equal(xs_ring_put(ring, 6, &prod, data, 1), -EIO);
}

/* A reply in pieces, then a watch event after it. */
static void feed_pieces(void **state)
{
    uint32_t prod = 0, cons = 0, part;
    const char *path, *token;

    put_msg(&prod, XS_READ, 3, "poweroff", 8);
    put_msg(&prod, XS_WATCH_EVENT, 0, "control/shutdown\0tok\0", 21);
    /* The first 10 bytes only: half a header. */
    part = 10;
    assert_int_equal(xs_rx_feed(&rx, ring, &cons, part), 0);
    assert_int_equal(cons, 10);
    /* Header and 3 bytes of body. */
    part = sizeof(struct xsd_sockmsg) + 3;
    assert_int_equal(xs_rx_feed(&rx, ring, &cons, part), 0);
    assert_int_equal(xs_rx_feed(&rx, ring, &cons, prod), 1);
    assert_int_equal(rx.msg.hdr.type, XS_READ);
    assert_int_equal(rx.msg.hdr.req_id, 3);
    assert_string_equal(rx.msg.body, "poweroff");
    /* It stopped at the message's end: the event is still there. */
    assert_int_equal(cons, sizeof(struct xsd_sockmsg) + 8);
    assert_int_equal(xs_rx_feed(&rx, ring, &cons, prod), 1);
    assert_int_equal(xs_watch_event(&rx.msg, &path, &token), 0);
    assert_string_equal(path, "control/shutdown");
    assert_string_equal(token, "tok");
    assert_int_equal(cons, prod);
    assert_int_equal(xs_rx_feed(&rx, ring, &cons, prod), 0);
}

/* An empty reply (XS_WRITE's is "OK"; a read of "" is 0 bytes). */
static void feed_empty(void **state)
{
    uint32_t prod = 0, cons = 0;

    put_msg(&prod, XS_READ, 4, "", 0);
    assert_int_equal(xs_rx_feed(&rx, ring, &cons, prod), 1);
    assert_int_equal(rx.msg.hdr.len, 0);
    assert_string_equal(rx.msg.body, "");
}

/* Headers no xenstored sends, and indexes a ring apart, are refused. */
static void feed_refusals(void **state)
{
    uint32_t prod = 0, cons = 0;
    struct xsd_sockmsg h = { .type = XS_READ, .len = XENSTORE_PAYLOAD_MAX + 1 };

    xs_ring_put(ring, 0, &prod, &h, sizeof(h));
    assert_int_equal(xs_rx_feed(&rx, ring, &cons, prod), -EPROTO);

    setup(state);
    prod = cons = 0;
    h.len = 0;
    h.type = XS_TYPE_COUNT;
    xs_ring_put(ring, 0, &prod, &h, sizeof(h));
    assert_int_equal(xs_rx_feed(&rx, ring, &cons, prod), -EPROTO);

    setup(state);
    cons = 0;
    assert_int_equal(xs_rx_feed(&rx, ring, &cons, XENSTORE_RING_SIZE + 1),
                     -EIO);
    assert_int_equal(cons, 0);
}

/* A watch event must hold two strings inside its payload. */
static void watch_event_shapes(void **state)
{
    struct xs_msg m = { .hdr = { .type = XS_WATCH_EVENT } };
    const char *p, *t;

    memcpy(m.body, "a\0b\0", 4);
    m.hdr.len = 4;
    assert_int_equal(xs_watch_event(&m, &p, &t), 0);
    /* No token's NUL inside (the reader's own NUL does not count). */
    m.hdr.len = 3;
    m.body[3] = '\0';
    assert_int_equal(xs_watch_event(&m, &p, &t), -EPROTO);
    /* Path only. */
    m.hdr.len = 2;
    assert_int_equal(xs_watch_event(&m, &p, &t), -EPROTO);
    /* No NUL at all. */
    memcpy(m.body, "abcd", 4);
    m.body[4] = '\0';
    m.hdr.len = 4;
    assert_int_equal(xs_watch_event(&m, &p, &t), -EPROTO);
    /* An empty token is a token. */
    memcpy(m.body, "a\0\0", 3);
    m.hdr.len = 3;
    assert_int_equal(xs_watch_event(&m, &p, &t), 0);
    assert_string_equal(t, "");
    /* Not an event. */
    m.hdr.type = XS_READ;
    assert_int_equal(xs_watch_event(&m, &p, &t), -EPROTO);
}

static void error_names(void **state)
{
    struct xs_msg m = { .hdr = { .type = XS_ERROR } };

    strcpy(m.body, "ENOENT");
    assert_int_equal(xs_error_errno(&m), -ENOENT);
    strcpy(m.body, "EACCES");
    assert_int_equal(xs_error_errno(&m), -EACCES);
    strcpy(m.body, "EWHATEVER");
    assert_int_equal(xs_error_errno(&m), -EIO);
    m.hdr.type = XS_READ;
    strcpy(m.body, "ENOENT");
    assert_int_equal(xs_error_errno(&m), -EIO);
}

/* The words of control/shutdown, and only what shimk does advertised. */
static void control_words(void **state)
{
    assert_int_equal(xen_control_parse(""), XEN_CONTROL_NONE);
    assert_int_equal(xen_control_parse("poweroff"), XEN_CONTROL_POWEROFF);
    assert_int_equal(xen_control_parse("halt"), XEN_CONTROL_POWEROFF);
    assert_int_equal(xen_control_parse("reboot"), XEN_CONTROL_REBOOT);
    assert_int_equal(xen_control_parse("suspend"), XEN_CONTROL_SUSPEND);
    assert_int_equal(xen_control_parse("s3"), XEN_CONTROL_UNSUPPORTED);
    assert_int_equal(xen_control_parse("Poweroff"), XEN_CONTROL_UNKNOWN);
    assert_int_equal(xen_control_parse("poweroff "), XEN_CONTROL_UNKNOWN);
    assert_string_equal(xen_control_name(XEN_CONTROL_REBOOT), "reboot");
    for ( unsigned int i = 0; xen_control_features[i]; i++ )
    {
        enum xen_control_action a = xen_control_parse(xen_control_features[i]);

        assert_true(a == XEN_CONTROL_POWEROFF || a == XEN_CONTROL_REBOOT ||
                    a == XEN_CONTROL_SUSPEND);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(build, setup),
        cmocka_unit_test_setup(build_refusals, setup),
        cmocka_unit_test_setup(ring_put, setup),
        cmocka_unit_test_setup(feed_pieces, setup),
        cmocka_unit_test_setup(feed_empty, setup),
        cmocka_unit_test_setup(feed_refusals, setup),
        cmocka_unit_test_setup(watch_event_shapes, setup),
        cmocka_unit_test_setup(error_names, setup),
        cmocka_unit_test_setup(control_words, setup),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
