/* SPDX-License-Identifier: GPL-2.0-only */
/* The hypervisor_ops table: one L0 backend, chosen once at boot. */
#ifndef GUEST_HYPERVISOR_OPS_H
#define GUEST_HYPERVISOR_OPS_H

#include <shimk/cpumask.h>
#include <shimk/errno.h>
#include <shimk/types.h>

/*
 * After Xen's struct hypervisor_ops (asm/guest/hypervisor.h): each
 * backend has a template; the chosen one is copied into the single
 * global hypervisor_ops at boot, and nothing writes it afterwards.
 * Every hook may be NULL; callers go through the guards below.
 */
struct hypervisor_ops
{
    const char *name;
    /* Boot CPU, once, before the APs start. */
    void (*setup)(void);
    /* Each AP, as it comes up. */
    int (*ap_setup)(void);
    /* After a suspend/resume (none happen in shimk today). */
    void (*resume)(void);
    /*
     * Flush the TLBs of the CPUs in mask (never the caller's: that
     * flush is always local).  0 only when the flush is complete on
     * every CPU in mask; anything else makes the caller send IPIs.
     */
    int (*flush_tlb)(const cpumask_t *mask, const void *va,
                     unsigned int flags);
};

extern struct hypervisor_ops hypervisor_ops;

static inline bool hypervisor_has_flush_tlb(void)
{
    return hypervisor_ops.flush_tlb != NULL;
}

static inline int hypervisor_flush_tlb(const cpumask_t *mask, const void *va,
                                       unsigned int flags)
{
    if ( !hypervisor_ops.flush_tlb )
        return -EOPNOTSUPP;
    return hypervisor_ops.flush_tlb(mask, va, flags);
}

static inline int hypervisor_ap_setup(void)
{
    return hypervisor_ops.ap_setup ? hypervisor_ops.ap_setup() : 0;
}

#endif /* GUEST_HYPERVISOR_OPS_H */
