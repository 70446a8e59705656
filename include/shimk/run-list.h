/* SPDX-License-Identifier: GPL-2.0-only */
/* The run= option: a list of program names, each checked (pure). */
#ifndef SHIMK_RUN_LIST_H
#define SHIMK_RUN_LIST_H

#include <shimk/types.h>

/* Programs one boot runs, and the longest name (an archive file name). */
#define RUN_MAX       16
#define RUN_NAME_MAX  31

enum run_name_status
{
    RUN_NAME_OK,
    RUN_NAME_EMPTY,                 /* "a,,b" or a trailing comma */
    RUN_NAME_LONG,                  /* over RUN_NAME_MAX bytes */
    RUN_NAME_CHARS,                 /* not [A-Za-z0-9._-], or a leading '.' */
};

/*
 * The next comma-separated name of list from *pos: false at the end.
 * Otherwise *st says whether it is a good name; a good one is copied
 * into name (RUN_NAME_MAX + 1 bytes), a bad one is skipped whole.
 * Names are restricted so that "NAME| " before a program's output can
 * never read as one of shimk's own protocol lines (docs/design.md).
 */
bool run_list_next(const char *list, size_t *pos, char *name,
                   enum run_name_status *st);

/* "empty name", ... for a message. */
const char *run_name_status_text(enum run_name_status st);

#endif /* SHIMK_RUN_LIST_H */
