/* SPDX-License-Identifier: GPL-2.0-only */
/* Copies from the current task's user memory into the kernel. */
#ifndef ASM_UACCESS_H
#define ASM_UACCESS_H

#include <shimk/types.h>

/*
 * 0, or -EFAULT when any byte of the user range is not mapped for this
 * access in the current address space, or lies outside the user half.
 * The range is checked first (a lockless walk), and the copy itself
 * recovers from a fault through the exception table besides, for a
 * mapping another thread removes meanwhile.
 */
int copy_from_user(void *dst, uint64_t usrc, size_t len);

#endif /* ASM_UACCESS_H */
