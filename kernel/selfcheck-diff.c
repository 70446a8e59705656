/* SPDX-License-Identifier: GPL-2.0-only */
/* The self-check's pure parts: the copies' sum and the first difference. */

#include <shimk/selfcheck.h>

/*
 * FNV-1a, a 64-bit word at a time (offset basis and prime as in the
 * 64-bit FNV-1a of Fowler, Noll and Vo).  Not a cryptographic hash: it
 * only has to tell a trampled copy from an intact one, and the memory
 * reader (tools/bootlib/memcheck.py) computes the same in a few lines.
 */
uint64_t selfcheck_sum(const uint64_t *words, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;

    for ( size_t i = 0; i < n; i++ )
    {
        h ^= words[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

long selfcheck_first_diff(const void *live, const void *boot, size_t len,
                          size_t skip, size_t skip_len)
{
    const unsigned char *a = live, *b = boot;

    for ( size_t i = 0; i < len; i++ )
    {
        if ( i >= skip && i - skip < skip_len )
            continue;
        if ( a[i] != b[i] )
            return (long)i;
    }
    return -1;
}
