/* SPDX-License-Identifier: GPL-2.0-only */
/* The Xen control client: what the toolstack asks in control/shutdown. */
#ifndef GUEST_XEN_CONTROL_H
#define GUEST_XEN_CONTROL_H

#include <shimk/types.h>

/*
 * The toolstack (libxl_domain.c, libxl__domain_pvcontrol_write) writes
 * one word into the domain's control/shutdown node; the guest that
 * acts on it writes "" back to say it took it (Linux's
 * drivers/xen/manage.c does the same), and advertises in
 * control/feature-<word> = "1" what it can do.  libxl treats a PVH
 * guest as always having this PV control interface.
 */
enum xen_control_action
{
    XEN_CONTROL_NONE,        /* "": nothing asked (or our own ack) */
    XEN_CONTROL_POWEROFF,    /* "poweroff", and "halt" as Linux takes it */
    XEN_CONTROL_REBOOT,      /* "reboot": the domain's on_reboot applies */
    XEN_CONTROL_SUSPEND,     /* "suspend": xl save, xl migrate */
    XEN_CONTROL_UNSUPPORTED, /* a word Xen defines that shimk does not do */
    XEN_CONTROL_UNKNOWN,     /* anything else: warned, left in place */
};

/* The action for a value read from control/shutdown. */
enum xen_control_action xen_control_parse(const char *value);

/* Its name, for the console ("poweroff", ...). */
const char *xen_control_name(enum xen_control_action a);

/*
 * The control/feature-* nodes shimk writes "1" into: only what it does
 * (a NULL-terminated list).
 */
extern const char *const xen_control_features[];

/* Boot CPU, from hypervisor_ops.smp_ready in a domU: start the client. */
void xen_control_start(void);

#endif /* GUEST_XEN_CONTROL_H */
