/* SPDX-License-Identifier: GPL-2.0-only */
/* Bit counting without the POPCNT instruction. */
#ifndef SHIMK_BITOPS_H
#define SHIMK_BITOPS_H

#include <shimk/types.h>

/*
 * x86-64 baseline lacks POPCNT, and __builtin_popcountll would call
 * libgcc's __popcountdi2, which the kernel does not link.
 */
static inline unsigned int hweight64(uint64_t w)
{
    w -= (w >> 1) & 0x5555555555555555ull;
    w = (w & 0x3333333333333333ull) + ((w >> 2) & 0x3333333333333333ull);
    w = (w + (w >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (unsigned int)((w * 0x0101010101010101ull) >> 56);
}

#endif /* SHIMK_BITOPS_H */
