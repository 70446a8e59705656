/* SPDX-License-Identifier: GPL-2.0-only */
/* The run= option's list of program names, split and checked (pure). */

#include <shimk/run-list.h>

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

bool run_list_next(const char *list, size_t *pos, char *name,
                   enum run_name_status *st)
{
    size_t start = *pos, end = start, len;

    /* The end; a trailing comma adds nothing. */
    if ( !list[start] )
        return false;
    while ( list[end] && list[end] != ',' )
        end++;
    *pos = list[end] ? end + 1 : end;
    len = end - start;

    *st = RUN_NAME_OK;
    if ( !len )
        *st = RUN_NAME_EMPTY;
    else if ( len > RUN_NAME_MAX )
        *st = RUN_NAME_LONG;
    else if ( list[start] == '.' )
        *st = RUN_NAME_CHARS;
    else
        for ( size_t i = start; i < end; i++ )
            if ( !name_char(list[i]) )
                *st = RUN_NAME_CHARS;
    if ( *st == RUN_NAME_OK )
    {
        for ( size_t i = 0; i < len; i++ )
            name[i] = list[start + i];
        name[len] = '\0';
    }
    return true;
}

const char *run_name_status_text(enum run_name_status st)
{
    static const char *const text[] = {
        [RUN_NAME_OK] = "ok",
        [RUN_NAME_EMPTY] = "an empty name",
        [RUN_NAME_LONG] = "a name longer than 31 bytes",
        [RUN_NAME_CHARS] = "a name with characters other than letters, "
                           "digits, '.', '_' and '-' (or a leading '.')",
    };

    return (unsigned int)st < sizeof(text) / sizeof(text[0]) ? text[st]
                                                             : "?";
}
