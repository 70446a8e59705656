/* SPDX-License-Identifier: GPL-2.0-only */
/* Fuzz kernel/boot/cmdline.c: any bytes as a command line; no option half set. */

#include <shimk/cmdline.h>

#include <string.h>

#include "fuzz.h"
#include "printk-capture.h"

static bool opt_bool;
static int8_t opt_tri;
static unsigned int opt_uint;
static char opt_str[16];

static const struct kernel_param params[] = {
    { "flag", PARAM_BOOL, &opt_bool, 0, 0, 0 },
    { "tri", PARAM_TRISTATE, &opt_tri, 0, 0, 0 },
    { "n", PARAM_UINT, &opt_uint, 0, 3, 100 },
    { "s", PARAM_STRING, opt_str, sizeof(opt_str), 0, 0 },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *line = malloc(size + 1);
    bool str_nul = false;

    memcpy(line, data, size);
    line[size] = '\0';
    capture_reset();
    opt_bool = false;
    opt_tri = -1;
    opt_uint = 50;
    memcpy(opt_str, "initial", 8);
    cmdline_parse(line, params, sizeof(params) / sizeof(params[0]));
    free(line);

    PROMISE(opt_tri >= -1 && opt_tri <= 1, "tristate %d", opt_tri);
    PROMISE(opt_uint >= 3 && opt_uint <= 100, "uint %u", opt_uint);
    for ( size_t i = 0; i < sizeof(opt_str); i++ )
        if ( !opt_str[i] )
        {
            str_nul = true;
            break;
        }
    PROMISE(str_nul, "string option not terminated");
    /* Quotes may hold blanks; never a control or non-ASCII byte. */
    for ( size_t i = 0; opt_str[i]; i++ )
        PROMISE((unsigned char)opt_str[i] >= ' ' &&
                (unsigned char)opt_str[i] < 0x7f,
                "byte %#x kept in a string option",
                (unsigned char)opt_str[i]);
    return 0;
}
