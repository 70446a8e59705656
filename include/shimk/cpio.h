/* SPDX-License-Identifier: GPL-2.0-only */
/* newc cpio archives (Linux's initramfs format): a bounds-checked reader (pure). */
#ifndef SHIMK_CPIO_H
#define SHIMK_CPIO_H

#include <shimk/types.h>

/*
 * The "070701" (newc) format: a 110-byte header of thirteen 8-digit
 * hex fields, the name (NUL included, namesize bytes), padding to 4,
 * the data (filesize bytes), padding to 4; "TRAILER!!!" ends it.  See
 * Linux's Documentation/driver-api/early-userspace/buffer-format.rst.
 */
struct cpio_entry
{
    const char *name;               /* NUL-terminated, inside the archive */
    const void *data;
    size_t size;
    uint32_t mode;                  /* file type and permission bits */
};

enum cpio_status
{
    CPIO_OK,                        /* *e is the next entry */
    CPIO_END,                       /* the trailer: no more entries */
    CPIO_BAD_MAGIC,                 /* not a newc header */
    CPIO_BAD_FIELD,                 /* a field is not 8 hex digits */
    CPIO_TRUNCATED,                 /* header, name or data past the end */
    CPIO_BAD_NAME,                  /* empty, or not NUL-terminated */
};

/*
 * Read the entry at *pos of the len-byte archive at base; on CPIO_OK
 * advance *pos past it.  Nothing outside [base, base + len) is read.
 */
enum cpio_status cpio_next(const void *base, size_t len, size_t *pos,
                           struct cpio_entry *e);

/* The regular file called name; CPIO_OK, or why not (CPIO_END: absent). */
enum cpio_status cpio_find(const void *base, size_t len, const char *name,
                           struct cpio_entry *e);

/* "truncated archive", ... for a message. */
const char *cpio_status_name(enum cpio_status s);

#endif /* SHIMK_CPIO_H */
