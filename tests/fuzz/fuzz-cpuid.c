/* SPDX-License-Identifier: GPL-2.0-only */
/* Fuzz the CPUID hypervisor leaf scan: the input answers every CPUID. */

#include <guest/cpuid-leaves.h>

#include <string.h>

#include "fuzz.h"
#include "printk-capture.h"

static const uint8_t *in;
static size_t in_size;

/* Leaf 0x4000XX00 + k answers from the input at a place the leaf picks. */
static void fake_cpuid(uint32_t leaf, uint32_t subleaf,
                       struct cpuid_leaf *out)
{
    size_t at;

    memset(out, 0, sizeof(*out));
    if ( !in_size )
        return;
    at = ((size_t)(leaf >> 8 & 0xff) * 7 + (leaf & 0xff) * 3 + subleaf) %
         in_size;
    for ( size_t i = 0; i < sizeof(*out); i++ )
        ((uint8_t *)out)[i] = in[(at + i) % in_size];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct hv_leaves l;

    in = data;
    in_size = size;
    capture_reset();
    hv_detect(fake_cpuid, size && (data[0] & 1), &l);
    /* HV_UNKNOWN: the bit is set, no known leaves: base 0. */
    if ( l.type == HV_UNKNOWN )
        PROMISE(!l.base, "unknown at %#x", l.base);
    PROMISE(l.type == HV_NONE || l.type == HV_UNKNOWN ||
            (l.base >= HV_LEAF_FIRST &&
                                  l.base <= HV_LEAF_LAST &&
                                  !(l.base & 0xff)),
            "base %#x", l.base);
    PROMISE(l.type == HV_NONE || l.type == HV_UNKNOWN ||
            (l.max_leaf >= l.base &&
                                  l.max_leaf <= l.base + 0xff),
            "max leaf %#x for base %#x", l.max_leaf, l.base);
    PROMISE(memchr(l.signature, 0, sizeof(l.signature)) != NULL,
            "signature not terminated");
    PROMISE(hv_type_name(l.type) != NULL, "no name for type %d", l.type);
    return 0;
}
