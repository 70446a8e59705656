/* SPDX-License-Identifier: GPL-2.0-only */
/* The smallest user program: say where it runs, report through args. */

#include <shimk-user.h>
#include <user/programs.h>

void user_hello(void *argp)
{
    struct hello_args *a = argp;
    char num[24];
    unsigned int n;

    u_puts("user: hello from ring 3 on CPU ");
    n = u_utoa(num, (unsigned long)sys_cpu());
    num[n++] = '\n';
    sys_write(num, n);
    /* Ring 3 indeed: CS's low bits are the privilege level. */
    __asm__ __volatile__("mov %%cs, %0" : "=r"(a->cs));
    a->cpu = (uint64_t)sys_cpu();
    a->magic = HELLO_MAGIC;
    sys_exit(7);
}
