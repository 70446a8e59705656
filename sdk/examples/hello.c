/* SPDX-License-Identifier: GPL-2.0-only */
/* The smallest program from the initrd: who and where it is, then exit 0. */

#include <shimk-user.h>

int main(int argc, char **argv)
{
    unsigned long cs;

    /* Ring 3 indeed: CS's low two bits are the privilege level. */
    __asm__ __volatile__("mov %%cs, %0" : "=r"(cs));
    u_printf("hello from ring 3: %s on CPU %ld of %ld, argc %d, cs %lx\n",
             argv[0], sys_cpu(), sys_ncpus(), argc, cs);
    return (cs & 3) == 3 ? 0 : 1;
}
