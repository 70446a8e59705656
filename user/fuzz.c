/* SPDX-License-Identifier: GPL-2.0-only */
/* System call fuzzer: random numbers and hostile pointers, counted. */

#include <shimk-user.h>
#include <user/programs.h>

/*
 * Arguments worth trying: random bits, kernel addresses, the edges of
 * the user half, unmapped user memory, this task's own code (read-only,
 * shared) and args page.  The stack is left alone, since unmapping it
 * would end the fuzzer, not test the kernel.
 */
static uint64_t pick_arg(uint64_t *rng)
{
    static const uint64_t special[] = {
        0, 1, 4096, 0xffffffff80100000ull, 0xffff800000000000ull,
        0xffffffffffffffffull, 0x00007ffffffff000ull,
        0x0000800000000000ull, 0x0000100000000000ull,
        0x0000100000200000ull, USER_CODE_VA, USER_ARGS_VA,
        0x0000000000001000ull, 0x8000000000000000ull, 9, 0x1ff,
    };
    uint64_t r = u_rand(rng);

    switch ( r % 4 )
    {
    case 0:
        return special[(r >> 8) % (sizeof(special) / sizeof(special[0]))];
    case 1:
        return USER_HEAP_VA + ((r >> 8) % 64) * 4096;  /* map/unmap area */
    case 2:
        return (r >> 8) % 16;                          /* small numbers */
    default:
        return u_rand(rng);
    }
}

void user_fuzz(void *argp)
{
    struct fuzz_args *a = argp;
    uint64_t rng = a->seed | 1;

    for ( uint64_t i = 0; i < a->calls; i++ )
    {
        uint64_t r = u_rand(&rng);
        long nr = (long)(r % (NR_SYSCALLS + 6)) - 3;
        long ret;

        /* Exit would end the run, spawn at random code would kill it. */
        if ( nr == SYS_EXIT || nr == SYS_SPAWN )
            nr = 1000 + (long)(r % 7);
        if ( nr == SYS_SLEEP )
            ret = syscall3(nr, (long)(r >> 62), 0, 0);  /* a few us */
        else if ( nr == SYS_WRITE )
        {
            /*
             * Keep the console readable: only pointers the kernel must
             * refuse (kernel, non-canonical, unmapped), and lengths
             * around the 4096-byte limit.
             */
            static const uint64_t bad[] = { 0xffffffff80100000ull,
                                            0x0000900000000000ull,
                                            USER_HEAP_VA + 0x3f0000, 8 };

            ret = syscall3(nr, (long)bad[(r >> 8) % 4],
                           (long)(4090 + (r >> 60)), 0);
        }
        else if ( (nr == SYS_MAP || nr == SYS_UNMAP || nr == SYS_PROTECT) &&
                  (r & (1ull << 40)) )
            /* Half of these well-formed but for the address. */
            ret = syscall3(nr, (long)pick_arg(&rng), (r >> 41) & 1 ? 9 : 0,
                           (long)((r >> 42) & 7));
        else
            ret = syscall5(nr, (long)pick_arg(&rng), (long)pick_arg(&rng),
                           (long)pick_arg(&rng), (long)pick_arg(&rng),
                           (long)pick_arg(&rng));
        if ( ret < 0 )
        {
            a->errors++;
            if ( -ret < 128 )
                a->by_errno[-ret]++;
        }
        else
            a->ok++;
        a->done++;
    }
    /* Spawn with hostile entries must fail cleanly too. */
    for ( int i = 0; i < 4; i++ )
    {
        static const uint64_t bad[] = { 0xffffffff80100000ull, 0,
                                        0x0000800000000000ull,
                                        0xffffffffffffffffull };
        long ret = syscall3(SYS_SPAWN, (long)bad[i], 0, 0);

        if ( ret < 0 )
        {
            a->errors++;
            if ( -ret < 128 )
                a->by_errno[-ret]++;
        }
        else
            a->ok++;
        a->done++;
    }
    a->finished = 1;
    sys_exit(0);
}
