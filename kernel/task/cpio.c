/* SPDX-License-Identifier: GPL-2.0-only */
/* newc cpio archives: walk the entries, never past the archive's end (pure). */

#include <shimk/cpio.h>
#include <shimk/string.h>

#define HDR_LEN     110
#define FIELD_LEN   8
#define S_IFMT      0170000u
#define S_IFREG     0100000u

/* Field i of the header (0: ino ... 12: check), after the 6-byte magic. */
static bool field(const char *hdr, unsigned int i, uint32_t *v)
{
    const char *p = hdr + 6 + i * FIELD_LEN;
    uint32_t x = 0;

    for ( unsigned int k = 0; k < FIELD_LEN; k++ )
    {
        char c = p[k];
        unsigned int d;

        if ( c >= '0' && c <= '9' )
            d = c - '0';
        else if ( c >= 'a' && c <= 'f' )
            d = c - 'a' + 10;
        else if ( c >= 'A' && c <= 'F' )
            d = c - 'A' + 10;
        else
            return false;
        x = (x << 4) | d;
    }
    *v = x;
    return true;
}

static size_t align4(size_t x)
{
    return (x + 3) & ~(size_t)3;
}

enum cpio_status cpio_next(const void *base, size_t len, size_t *pos,
                           struct cpio_entry *e)
{
    const char *a = base, *hdr;
    uint32_t mode, filesize, namesize;
    size_t name_at, data_at, end;

    if ( *pos > len || len - *pos < HDR_LEN )
        return CPIO_TRUNCATED;
    hdr = a + *pos;
    if ( memcmp(hdr, "070701", 6) && memcmp(hdr, "070702", 6) )
        return CPIO_BAD_MAGIC;
    for ( unsigned int i = 0; i < 13; i++ )
    {
        uint32_t v;

        if ( !field(hdr, i, &v) )
            return CPIO_BAD_FIELD;
    }
    field(hdr, 1, &mode);
    field(hdr, 6, &filesize);
    field(hdr, 11, &namesize);

    /* Sizes are 32-bit, offsets size_t: no sum below can wrap. */
    name_at = *pos + HDR_LEN;
    if ( namesize < 2 || namesize > len - name_at )
        return namesize < 2 ? CPIO_BAD_NAME : CPIO_TRUNCATED;
    /* Exactly one NUL, the last byte: a name cannot hide a shorter one. */
    for ( size_t i = 0; i < namesize; i++ )
        if ( (a[name_at + i] == '\0') != (i == namesize - 1) )
            return CPIO_BAD_NAME;
    data_at = align4(name_at + namesize);
    if ( data_at > len || filesize > len - data_at )
        return CPIO_TRUNCATED;
    end = align4(data_at + filesize);

    e->name = a + name_at;
    e->data = a + data_at;
    e->size = filesize;
    e->mode = mode;
    if ( !strcmp(e->name, "TRAILER!!!") )
        return CPIO_END;
    /* The last entry's padding may be cut off: nothing is read there. */
    *pos = end < len ? end : len;
    return CPIO_OK;
}

enum cpio_status cpio_find(const void *base, size_t len, const char *name,
                           struct cpio_entry *e)
{
    size_t pos = 0;
    enum cpio_status s;

    while ( (s = cpio_next(base, len, &pos, e)) == CPIO_OK )
    {
        const char *n = e->name;

        /* Archives made with "find ." name files "./prog". */
        if ( n[0] == '.' && n[1] == '/' )
            n += 2;
        if ( !strcmp(n, name) && (e->mode & S_IFMT) == S_IFREG )
            return CPIO_OK;
    }
    return s;
}

const char *cpio_status_name(enum cpio_status s)
{
    static const char *const names[] = {
        [CPIO_OK] = "ok",
        [CPIO_END] = "not in the archive",
        [CPIO_BAD_MAGIC] = "not a newc cpio header",
        [CPIO_BAD_FIELD] = "a header field is not hex",
        [CPIO_TRUNCATED] = "truncated archive",
        [CPIO_BAD_NAME] = "a bad file name",
    };

    return (unsigned int)s < sizeof(names) / sizeof(names[0]) ? names[s]
                                                              : "?";
}
