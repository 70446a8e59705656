/* SPDX-License-Identifier: GPL-2.0-only */
/* A program that faults on purpose: the task dies, the kernel goes on. */

#include <shimk-user.h>

int main(int argc, char **argv)
{
    u_printf("%s: writing to its own code, which is read-only\n", argv[0]);
    *(volatile char *)(unsigned long)main = 0;
    return 0;
}
