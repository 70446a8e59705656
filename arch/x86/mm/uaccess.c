/* SPDX-License-Identifier: GPL-2.0-only */
/* copy_from_user: a checked range, a fault-tolerant copy. */

#include <shimk/aspace.h>
#include <shimk/errno.h>
#include <asm/extable.h>
#include <asm/uaccess.h>

/* rep movsb that stops at a fault; returns the bytes not copied. */
static size_t copy_fixup(void *dst, const void *src, size_t len)
{
    __asm__ __volatile__("1: rep movsb\n"
                         "2:\n"
                         _ASM_EXTABLE(1b, 2b)
                         : "+D"(dst), "+S"(src), "+c"(len) :: "memory");
    return len;
}

int copy_from_user(void *dst, uint64_t usrc, size_t len)
{
    struct aspace *as = aspace_current();

    if ( !as || !aspace_user_range_ok(as, usrc, len, false) )
        return -EFAULT;
    return copy_fixup(dst, (const void *)usrc, len) ? -EFAULT : 0;
}
