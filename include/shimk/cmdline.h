/* SPDX-License-Identifier: GPL-2.0-only */
/* Kernel command line: option table and the pure parser. */
#ifndef SHIMK_CMDLINE_H
#define SHIMK_CMDLINE_H

#include <shimk/compiler.h>
#include <shimk/types.h>

/* Longest command line parsed; the rest is ignored with a warning. */
#define CMDLINE_MAX 4096

enum param_type
{
    PARAM_BOOL,     /* bool: opt, no-opt, opt=<b> */
    PARAM_TRISTATE, /* int8_t: -1 until set ("auto"), then 0 or 1 */
    PARAM_UINT,     /* unsigned int within [min, max] */
    PARAM_STRING,   /* char[size]: one word, or a list "a,b,c" */
};

struct kernel_param
{
    const char *name;
    enum param_type type;
    void *var;
    unsigned int size;          /* PARAM_STRING: buffer size */
    unsigned int min, max;      /* PARAM_UINT: accepted range */
};

/*
 * Options register themselves into a linker section, as Xen's do, so
 * that a file owning a policy also owns its switch.
 */
#define __kparam(name_, type_, var_, size_, min_, max_)                    \
    static const struct kernel_param __kparam_##var_                       \
        __used __section(".params") __aligned(8) = {                  \
            .name = (name_), .type = (type_), .var = &(var_),              \
            .size = (size_), .min = (min_), .max = (max_) }

#define boolean_param(name, var)  __kparam(name, PARAM_BOOL, var, 0, 0, 0)
#define tristate_param(name, var) __kparam(name, PARAM_TRISTATE, var, 0, 0, 0)
#define uint_param(name, var, lo, hi) \
    __kparam(name, PARAM_UINT, var, 0, lo, hi)
#define string_param(name, var) \
    __kparam(name, PARAM_STRING, var, sizeof(var), 0, 0)

/*
 * Copy the options of the len-byte line src (it may end earlier at a
 * NUL) into dst (size bytes, NUL-terminated), whole options only: one
 * that does not fit in what is left is dropped and counted in
 * *dropped, and later ones that fit are still kept, so that one
 * over-long option cannot take the rest of the line with it.  Options
 * are split as cmdline_parse() splits them (blanks, double quotes).
 * Returns the length of dst.
 */
size_t cmdline_fit(char *dst, size_t size, const char *src, size_t len,
                   unsigned int *dropped);

/*
 * Xen's boolean spellings: 0 1 no yes off on false true disable enable.
 * Returns 0 or 1, or -1 when s (of length len) is none of them.
 */
int parse_bool(const char *s, size_t len);

/*
 * Apply every option of cmdline (NUL-terminated, or NULL) to the table
 * of nr params, left to right, so the last occurrence wins.  Unknown
 * options and bad values print "shimk: warning: cmdline: <option>:
 * <problem> (<what was kept>)" and change nothing else.  Returns the
 * number of warnings printed.
 */
unsigned int cmdline_parse(const char *cmdline,
                           const struct kernel_param *params, size_t nr);

#endif /* SHIMK_CMDLINE_H */
