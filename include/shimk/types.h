/* SPDX-License-Identifier: GPL-2.0-only */
/* Fixed-width types shared by the kernel and the host unit tests. */
#ifndef SHIMK_TYPES_H
#define SHIMK_TYPES_H

/*
 * GCC ships these three headers for freestanding use, so the same
 * pure files build in the kernel (-ffreestanding -nostdinc plus GCC's
 * own include directory) and in the host unit tests.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint64_t paddr_t;
typedef unsigned long vaddr_t;
typedef long ssize_t;

#endif /* SHIMK_TYPES_H */
