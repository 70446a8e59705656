/* SPDX-License-Identifier: GPL-2.0-only */
/* The four functions GCC may call even in freestanding code. */

#include <shimk/types.h>

/*
 * GCC emits calls to these for structure copies and clears whatever
 * -ffreestanding says (GCC manual, "C Dialect Options"), so every
 * program gets them.  Plain loops: -fno-tree-loop-distribute-patterns
 * keeps GCC from turning them back into calls to themselves.
 */
void *memcpy(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;

    while ( n-- )
        *d++ = *s++;
    return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;

    if ( d < s )
        while ( n-- )
            *d++ = *s++;
    else
        while ( n-- )
            d[n] = s[n];
    return dst;
}

void *memset(void *dst, int c, size_t n)
{
    unsigned char *d = dst;

    while ( n-- )
        *d++ = (unsigned char)c;
    return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;

    for ( ; n; n--, x++, y++ )
        if ( *x != *y )
            return *x < *y ? -1 : 1;
    return 0;
}
