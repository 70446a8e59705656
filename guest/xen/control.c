/* SPDX-License-Identifier: GPL-2.0-only */
/* The Xen control client: watch control/shutdown, do what each word asks. */

#include <guest/xen-control.h>
#include <guest/xen.h>
#include <guest/xenstore.h>
#include <shimk/cmdline.h>
#include <shimk/errno.h>
#include <shimk/lifecycle.h>
#include <shimk/printk.h>
#include <shimk/sched.h>
#include <shimk/string.h>

/*
 * What `xl shutdown`, `xl reboot` and `xl save` drive: libxl writes a
 * word into control/shutdown (libxl_domain.c) and waits for the guest
 * to take it, which the guest says by writing "" back; libxl then
 * waits for the domain's shutdown with the matching reason.  A word
 * shimk does not act on is left in place, so that the toolstack's own
 * timeout says it was not done, never a false acknowledgement.
 *
 * One thread on the boot CPU owns the xenstore client
 * (guest/xenstore.h).  It sleeps between polls, so a run that never
 * sees a request pays one wake per EVENT_POLL_US.
 */

#define CONTROL_NODE  "control/shutdown"
#define CONTROL_TOKEN "shimk-control"
#define VALUE_MAX     64

/* xen-control=0: no client (nothing registered, nothing advertised). */
static bool opt_xen_control = true;
boolean_param("xen-control", opt_xen_control);

static void advertise(void)
{
    char node[48], list[64] = "";
    size_t n = 0;

    for ( unsigned int i = 0; xen_control_features[i]; i++ )
    {
        int rc;

        ksnprintf(node, sizeof(node), "control/feature-%s",
                  xen_control_features[i]);
        rc = xs_write(node, "1");
        if ( rc )
            pr_warn("xen: control: writing %s failed (%s): the toolstack "
                    "may not ask for it\n",
                    node, errno_name(rc));
        else
            n += ksnprintf(list + n, sizeof(list) - n, "%s%s", n ? " " : "",
                           xen_control_features[i]);
    }
    pr_info("xen: control: watching %s (features: %s)\n", CONTROL_NODE,
            list[0] ? list : "none");
}

/* Advertise and watch: at start, and again in the new domain of a resume. */
static int control_connect(void)
{
    int rc;

    advertise();
    /* xenstored fires a new watch once at once: the first read is then. */
    rc = xs_watch(CONTROL_NODE, CONTROL_TOKEN);
    /* Still there: the domain went on, with its store (a checkpoint). */
    if ( rc == -EEXIST )
        rc = 0;
    if ( rc )
        pr_warn("xen: control: watching %s failed (%s)\n", CONTROL_NODE,
                errno_name(rc));
    return rc;
}

/*
 * Read the node and do what it says; returns when that is nothing or a
 * suspend, and then whether the client must connect again (-errno to
 * stop).
 */
static int handle_request(void)
{
    char value[VALUE_MAX];
    enum xen_control_action a;
    int rc;

    rc = xs_read(CONTROL_NODE, value, sizeof(value));
    if ( rc == -ENOENT )
        return 0;
    if ( rc )
    {
        pr_warn("xen: control: reading %s failed (%s)\n", CONTROL_NODE,
                errno_name(rc));
        return 0;
    }
    a = xen_control_parse(value);
    switch ( a )
    {
    case XEN_CONTROL_NONE:
        return 0;
    case XEN_CONTROL_UNSUPPORTED:
        pr_warn("xen: control: '%s' requested: shimk does not support it "
                "(not advertised); left in %s\n",
                value, CONTROL_NODE);
        return 0;
    case XEN_CONTROL_UNKNOWN:
        /* The value came from the toolstack: print it, bounded. */
        pr_warn("xen: control: unknown request '%.32s' (%u bytes) in %s: "
                "ignored\n",
                value, (unsigned int)strlen(value), CONTROL_NODE);
        return 0;
    case XEN_CONTROL_POWEROFF:
    case XEN_CONTROL_REBOOT:
    case XEN_CONTROL_SUSPEND:
        break;
    }
    /* Taken: the toolstack now waits for the shutdown itself. */
    rc = xs_write(CONTROL_NODE, "");
    if ( rc )
        pr_warn("xen: control: clearing %s failed (%s); acting anyway\n",
                CONTROL_NODE, errno_name(rc));
    pr_info("xen: control: %s requested (%s = '%s')\n", xen_control_name(a),
            CONTROL_NODE, value);
    if ( a == XEN_CONTROL_SUSPEND )
    {
        rc = xen_suspend();
        /* A new domain has a new store: our watch and features are gone. */
        return rc == 1 ? control_connect() : 0;
    }
    kernel_stop_requested(a == XEN_CONTROL_REBOOT,
                          "the Xen toolstack (control/shutdown)");
}

static void control_thread(void *arg)
{
    char path[VALUE_MAX];
    int rc;

    if ( (rc = xs_connect()) )
    {
        pr_warn("xen: control: no xenstore (%s): xl shutdown and reboot "
                "will not reach shimk\n",
                errno_name(rc));
        return;
    }
    if ( control_connect() )
        return;
    for ( ;; )
    {
        rc = xs_wait_event(1000, path, sizeof(path));
        if ( rc < 0 )
        {
            pr_warn("xen: control: the watch ended (%s)\n", errno_name(rc));
            return;
        }
        if ( rc && !strcmp(path, CONTROL_NODE) && handle_request() < 0 )
            return;
    }
}

void xen_control_start(void)
{
    if ( !opt_xen_control )
    {
        pr_info("xen: control: off (xen-control=0)\n");
        return;
    }
    if ( !thread_create("xen-control", control_thread, NULL, 0, true) )
        pr_warn("xen: control: no thread for the client\n");
}
