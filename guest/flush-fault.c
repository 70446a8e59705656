/* SPDX-License-Identifier: GPL-2.0-only */
/* assisted-flush-fault=: make the L0 flush hook fail after boot, on purpose. */

#include <guest/flush-fault.h>
#include <shimk/cmdline.h>
#include <shimk/errno.h>
#include <shimk/printk.h>
#include <shimk/string.h>

/*
 * Modes: enosys and einval fail every call with that error;
 * intermittent fails every third call with -EINVAL, so that assisted
 * and fallen-back flushes mix in one run.  The boot probe flush has
 * already been made when this is armed: the hook is kept, and only
 * later flushes fail.
 */
#define FAULT_INTERMITTENT 1

static char opt_fault[16];
string_param("assisted-flush-fault", opt_fault);

bool flush_fault_armed;
uint64_t assist_faults_injected;
uint64_t flush_fault_delay;
static int fault_mode;      /* 0 none, FAULT_INTERMITTENT, else a -errno */

static int parse_mode(const char *s)
{
    if ( !strcmp(s, "enosys") )
        return -ENOSYS;
    if ( !strcmp(s, "einval") )
        return -EINVAL;
    if ( !strcmp(s, "intermittent") )
        return FAULT_INTERMITTENT;
    return 0;
}

void flush_fault_setup(bool assist_on)
{
    if ( !opt_fault[0] )
        return;
    fault_mode = parse_mode(opt_fault);
    if ( !fault_mode )
    {
        pr_warn("cmdline: assisted-flush-fault: invalid mode '%s' (kept "
                "none)\n", opt_fault);
        return;
    }
    /* Without the hook there is nothing to fail. */
    flush_fault_armed = assist_on;
    if ( flush_fault_armed )
        pr_warn("assisted-flush-fault=%s: the L0 flush hook fails on "
                "purpose from now on\n", opt_fault);
}

int flush_fault_next(void)
{
    static unsigned int calls;
    int rc = fault_mode;

    if ( rc == FAULT_INTERMITTENT )
        rc = __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED) % 3 ? 0
                                                                 : -EINVAL;
    if ( rc )
        __atomic_fetch_add(&assist_faults_injected, 1, __ATOMIC_RELAXED);
    return rc;
}

bool assist_fault_mode_set(void)
{
    return flush_fault_armed;
}

int flush_fault_force(int rc)
{
    int old = flush_fault_armed ? fault_mode : 0;

    fault_mode = rc;
    /* The mode first: a CPU that sees the flag must see its mode. */
    __atomic_store_n(&flush_fault_armed, rc != 0, __ATOMIC_RELEASE);
    return old;
}

void flush_fault_slow(uint64_t cycles)
{
    __atomic_store_n(&flush_fault_delay, cycles, __ATOMIC_RELEASE);
}
