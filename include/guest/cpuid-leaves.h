/* SPDX-License-Identifier: GPL-2.0-only */
/* Hypervisor CPUID leaf scan (pure; unit-tested with recorded fixtures). */
#ifndef GUEST_CPUID_LEAVES_H
#define GUEST_CPUID_LEAVES_H

#include <asm/cpuid.h>
#include <shimk/types.h>

enum hv_type
{
    HV_NONE,        /* CPUID.1:ECX[31] clear: bare metal */
    HV_XEN,
    HV_KVM,
    HV_HYPERV,
    HV_TCG,         /* QEMU's software emulation */
    HV_UNKNOWN,     /* the bit is set, no signature shimk knows */
};

/* How the scan reads CPUID: the real instruction, or a test fixture. */
typedef void (*cpuid_fn)(uint32_t leaf, uint32_t subleaf,
                         struct cpuid_leaf *out);

struct hv_leaves
{
    enum hv_type type;
    uint32_t base;          /* 0x40000000 + n * 0x100 */
    uint32_t max_leaf;      /* EAX of the base leaf */
    char signature[13];
    /*
     * A second interface the same L0 offers, not the one chosen: KVM
     * with Hyper-V enlightenments shows "Microsoft Hv" at 0x40000000
     * and its own leaves at 0x40000100.  HV_NONE when there is none.
     */
    enum hv_type other_type;
    uint32_t other_base, other_max_leaf;
    char other_signature[13];
};

#define HV_LEAF_FIRST 0x40000000u
#define HV_LEAF_LAST  0x4000ff00u
#define HV_LEAF_STEP  0x100u

/*
 * Find the base leaf whose signature is sig (12 bytes), accepting it
 * only when EAX, its highest leaf, lies in [base + min_extra,
 * base + 0xff]: TCG answers junk above its own leaves, and the range
 * check rejects it.  Returns the base, or 0.
 */
uint32_t hv_find_leaves(cpuid_fn fn, const char *sig, uint32_t min_extra,
                        uint32_t *max_leaf);

/*
 * Decide which L0 this is.  Order matters: Xen first, because a Xen
 * with Viridian enabled shows "Microsoft Hv" at 0x40000000 and its own
 * leaves at 0x40000100 (xen/arch-x86/cpuid.h); then Hyper-V, KVM and
 * TCG.  With Hyper-V found, KVM's leaves are looked for too and kept
 * as the other interface.  hypervisor_bit is CPUID.1:ECX[31].
 */
void hv_detect(cpuid_fn fn, bool hypervisor_bit, struct hv_leaves *out);

/*
 * KVM with Hyper-V enlightenments: which interface to drive.  Hyper-V's
 * when use_hyperv (its backend is built and its remote flush is
 * recommended), else KVM's own when kvm_built, else Hyper-V's anyway.
 * Choosing KVM swaps the two in *l, so that type, base and signature
 * name the interface in use.  No change unless both are present.
 */
void hv_choose_interface(struct hv_leaves *l, bool use_hyperv,
                         bool kvm_built);

/*
 * The whole rule, as shimk applies it at boot and the Linux peer
 * (peer/tlbpeer.c) applies it to say the same hv=: hv_detect(), then,
 * with Hyper-V found, hv_choose_interface() with use_hyperv from
 * hyperv_wanted (the Hyper-V leaves read and judged; NULL where that
 * backend is not built).
 */
void hv_identify(cpuid_fn fn, bool hypervisor_bit,
                 bool (*hyperv_wanted)(cpuid_fn fn, uint32_t max_leaf),
                 bool kvm_built, struct hv_leaves *out);

/*
 * Hyper-V's part of the rule (guest/hyperv/leaves.c): its leaves read,
 * hypercalls usable and its remote flush recommended.  A hyperv_wanted
 * for hv_identify() that keeps nothing.
 */
bool hyperv_leaves_want_flush(cpuid_fn fn, uint32_t max_leaf);

const char *hv_type_name(enum hv_type t);

#endif /* GUEST_CPUID_LEAVES_H */
