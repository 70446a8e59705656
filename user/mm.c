/* SPDX-License-Identifier: GPL-2.0-only */
/* Memory system calls from ring 3: each step's result, for the kernel to judge. */

#include <shimk-user.h>
#include <user/programs.h>

#define VA4K  (USER_HEAP_VA + 0x10000)
#define VA2M  (USER_HEAP_VA + 0x200000)

void user_mm(void *argp)
{
    struct mm_args *a = argp;
    volatile uint64_t *p4 = (volatile uint64_t *)VA4K;
    unsigned int n = 0;

#define STEP(expr) (a->result[n++] = (uint64_t)(long)(expr))
    STEP(sys_map(VA4K, 0, UPROT_READ | UPROT_WRITE));   /* 0 */
    p4[1] = 0x1234;
    STEP(p4[1] == 0x1234 && p4[0] == 0 ? 0 : -1);       /* zeroed, RW */
    STEP(sys_map(VA4K, 0, UPROT_READ));                  /* -EEXIST */
    STEP(sys_protect(VA4K, 0, UPROT_READ));              /* 0 */
    STEP(p4[1] == 0x1234 ? 0 : -1);                      /* still readable */
    STEP(sys_unmap(VA4K, 0, 0));                         /* 0 */
    STEP(sys_unmap(VA4K, 0, 0));                         /* -ENOENT */
    STEP(sys_map(VA4K, 0, UPROT_READ | UPROT_WRITE));   /* 0 again */
    STEP(p4[1] == 0 ? 0 : -1);                           /* a fresh frame */
    STEP(sys_unmap(VA4K, 0, UNMAP_LAZY));                /* 0 */
    STEP(sys_map(VA4K + 8, 0, UPROT_READ));              /* -EINVAL */
    STEP(sys_map(VA2M + 4096, 9, UPROT_READ));           /* -EINVAL */
    STEP(sys_map(USER_CODE_VA, 0, UPROT_READ));          /* -EPERM */
    STEP(sys_unmap(USER_CODE_VA, 0, 0));                 /* -EPERM */
    STEP(sys_map(0xffffffff80000000ull, 0, UPROT_READ)); /* -EPERM */
    STEP(sys_map(VA4K, 3, UPROT_READ));                  /* -EINVAL */
    STEP(sys_map(VA4K, 0, 0x80));                        /* -EINVAL */
    STEP(sys_write((const char *)0xffffffff80100000ull, 8)); /* -EFAULT */
    STEP(sys_write((const char *)VA4K, 8));              /* -EFAULT */
#undef STEP
    a->nresults = n;
    sys_exit(0);
}

/*
 * The superpage steps, on their own: the kernel can only skip a whole
 * test, and these cannot run when no 2 MiB frame is free (the first
 * step returns -ENOMEM and the rest do not run).
 */
void user_mm_superpage(void *argp)
{
    struct mm_args *a = argp;
    volatile uint64_t *p2 = (volatile uint64_t *)VA2M;
    unsigned int n = 0;

#define STEP(expr) (a->result[n++] = (uint64_t)(long)(expr))
    STEP(sys_map(VA2M, 9, UPROT_READ | UPROT_WRITE));   /* 0 or -ENOMEM */
    if ( a->result[0] == 0 )
    {
        STEP(p2[0] == 0 && p2[0x200000 / 8 - 1] == 0 ? 0 : -1); /* zeroed */
        p2[0x100000 / 8] = 0x2222;
        STEP(p2[0x100000 / 8] == 0x2222 ? 0 : -1);      /* RW */
        STEP(sys_unmap(VA2M, 9, 0));                     /* 0 */
    }
#undef STEP
    a->nresults = n;
    sys_exit(0);
}
