/* SPDX-License-Identifier: GPL-2.0-only */
/* Names for error numbers, so failures print as -EINVAL, not -22. */

#include <shimk/compiler.h>
#include <shimk/errno.h>

static const struct
{
    int err;
    const char *name;
} errno_names[] = {
    { EPERM, "EPERM" },         { ENOENT, "ENOENT" },
    { EINTR, "EINTR" },         { EIO, "EIO" },
    { ENXIO, "ENXIO" },         { E2BIG, "E2BIG" },
    { EAGAIN, "EAGAIN" },       { ENOMEM, "ENOMEM" },
    { EACCES, "EACCES" },       { EFAULT, "EFAULT" },
    { EBUSY, "EBUSY" },         { EEXIST, "EEXIST" },
    { ENODEV, "ENODEV" },       { EINVAL, "EINVAL" },
    { ENOSPC, "ENOSPC" },       { ERANGE, "ERANGE" },
    { ENOSYS, "ENOSYS" },       { ERESTART, "ERESTART" },
    { EOPNOTSUPP, "EOPNOTSUPP" }, { ETIMEDOUT, "ETIMEDOUT" },
    { EISDIR, "EISDIR" },       { EROFS, "EROFS" },
    { ENOTEMPTY, "ENOTEMPTY" }, { EPROTO, "EPROTO" },
    { EISCONN, "EISCONN" },     { EDEADLK, "EDEADLK" },
};

const char *errno_name(int err)
{
    if ( err < 0 )
        err = -err;
    for ( unsigned int i = 0; i < ARRAY_SIZE(errno_names); i++ )
        if ( errno_names[i].err == err )
            return errno_names[i].name;
    return "E?";
}
