/* SPDX-License-Identifier: GPL-2.0-only */
/* Freestanding string and memory routines (kernel/lib/string.c). */
#ifndef SHIMK_STRING_H
#define SHIMK_STRING_H

#include <shimk/types.h>

/*
 * The prototypes match ISO C, so the host unit tests, which compile
 * the same pure files, simply link the C library's versions.
 */
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
char *strstr(const char *haystack, const char *needle);

#endif /* SHIMK_STRING_H */
