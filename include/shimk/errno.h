/* SPDX-License-Identifier: GPL-2.0-only */
/* Kernel error numbers: negative returns, Linux/Xen numbering. */
#ifndef SHIMK_ERRNO_H
#define SHIMK_ERRNO_H

/*
 * The values follow Xen's public xen/errno.h (itself Linux's numbers),
 * so a hypercall's negative return is already one of these.
 */
#define EPERM       1
#define ENOENT      2
#define EINTR       4
#define EIO         5
#define ENXIO       6
#define E2BIG       7
#define EAGAIN      11
#define ENOMEM      12
#define EACCES      13
#define EFAULT      14
#define EBUSY       16
#define EEXIST      17
#define ENODEV      19
#define EISDIR      21
#define EINVAL      22
#define ENOSPC      28
#define EROFS       30
#define ERANGE      34
#define EDEADLK     35
#define ENOSYS      38
#define ENOTEMPTY   39
#define EPROTO      71
#define ERESTART    85
#define EOPNOTSUPP  95
#define EISCONN     106
#define ETIMEDOUT   110

/* "EINVAL" for -22 and so on; "E?" for numbers it does not know. */
const char *errno_name(int err);

#endif /* SHIMK_ERRNO_H */
