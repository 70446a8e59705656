/* SPDX-License-Identifier: GPL-2.0-only */
/* Freestanding memory and string routines. */

#include <shimk/string.h>

/*
 * GCC may emit calls to memcpy, memmove, memset and memcmp even in
 * freestanding code (C11 5.1.2.1 does not free it from that), so
 * these must exist with their standard names.
 */

void *memcpy(void *dst, const void *src, size_t n)
{
    void *ret = dst;

    __asm__ __volatile__("rep movsb"
                         : "+D"(dst), "+S"(src), "+c"(n) :: "memory");
    return ret;
}

void *memmove(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;

    if ( d == s || n == 0 )
        return dst;
    if ( d < s || d >= s + n )
        return memcpy(dst, src, n);
    while ( n-- )
        d[n] = s[n];
    return dst;
}

void *memset(void *dst, int c, size_t n)
{
    void *ret = dst;

    __asm__ __volatile__("rep stosb"
                         : "+D"(dst), "+c"(n) : "a"(c) : "memory");
    return ret;
}

int memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;

    for ( size_t i = 0; i < n; i++ )
        if ( x[i] != y[i] )
            return x[i] - y[i];
    return 0;
}

size_t strlen(const char *s)
{
    size_t n = 0;

    while ( s[n] )
        n++;
    return n;
}

size_t strnlen(const char *s, size_t max)
{
    size_t n = 0;

    while ( n < max && s[n] )
        n++;
    return n;
}

int strcmp(const char *a, const char *b)
{
    while ( *a && *a == *b )
    {
        a++;
        b++;
    }
    return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
    for ( ; n; n--, a++, b++ )
    {
        if ( *a != *b )
            return (unsigned char)*a - (unsigned char)*b;
        if ( !*a )
            break;
    }
    return 0;
}

char *strchr(const char *s, int c)
{
    for ( ;; s++ )
    {
        if ( *s == (char)c )
            return (char *)s;
        if ( !*s )
            return NULL;
    }
}

char *strstr(const char *haystack, const char *needle)
{
    size_t n = strlen(needle);

    for ( ; *haystack; haystack++ )
        if ( !strncmp(haystack, needle, n) )
            return (char *)haystack;
    return n ? NULL : (char *)haystack;
}
