/* SPDX-License-Identifier: GPL-2.0-only */
/* A program that fails on purpose: its exit status must fail the boot. */

#include <shimk-user.h>

int main(int argc, char **argv)
{
    u_printf("%s: exiting with status 3 on purpose\n", argv[0]);
    return 3;
}
