/* SPDX-License-Identifier: GPL-2.0-only */
/* The user/kernel ABI: system call numbers, layouts, user address map. */
#ifndef SHIMK_SYSCALL_ABI_H
#define SHIMK_SYSCALL_ABI_H

/*
 * Shared by the kernel and the user programs in user/.  SYSCALL with
 * the number in RAX and arguments in RDI, RSI, RDX, R10, R8 (RCX and
 * R11 are the CPU's); the result comes back in RAX, negative errno
 * values (shimk/errno.h) on failure.
 */
#define SYS_EXIT     0  /* (code): end this thread; the task ends with its last */
#define SYS_WRITE    1  /* (buf, len): to the console; bytes written */
#define SYS_YIELD    2  /* (): let another thread run */
#define SYS_MAP      3  /* (va, order, prot): fresh zeroed memory at va */
#define SYS_UNMAP    4  /* (va, order, flags): remove it (UNMAP_LAZY below) */
#define SYS_PROTECT  5  /* (va, order, prot): change its access */
#define SYS_SPAWN    6  /* (entry, arg, cpu): a thread in this space; its id */
#define SYS_CPU      7  /* (): the CPU this thread runs on */
#define SYS_NCPUS    8  /* (): CPUs online */
#define SYS_SLEEP    9  /* (us): block at least this long (at most 1 s) */
#define NR_SYSCALLS  10

/* SYS_MAP/SYS_PROTECT prot bits; SYS_MAP orders 0 (4 KiB) and 9 (2 MiB). */
#define UPROT_READ  0x1
#define UPROT_WRITE 0x2
#define UPROT_EXEC  0x4

/* SYS_UNMAP flag: free with the TLB clock, flush on reuse (4 KiB only). */
#define UNMAP_LAZY  0x1

/* SYS_SPAWN cpu: any value >= the CPU count means "this CPU". */

/* The fixed user address map of every task. */
#define USER_CODE_VA   0x0000000000400000ull   /* user/ programs, RX */
#define USER_ARGS_VA   0x0000000000300000ull   /* one page: in and out */
#define USER_STACK_VA  0x00007f0000000000ull   /* 64 KiB per thread slot */
#define USER_STACK_SLOT 0x10000ull
#define USER_STACK_SIZE 0x4000ull
#define USER_HEAP_VA   0x0000100000000000ull   /* free for SYS_MAP */

/*
 * A program from the initrd (docs/user-abi.md) has none of the above
 * but its stacks: its PT_LOAD segments may lie anywhere in
 * [USER_ELF_LO, USER_ELF_HI), and its first thread's stack holds argc,
 * argv, envp and auxv as the x86-64 psABI lays them out.
 */
#define USER_ELF_LO    0x0000000000010000ull
#define USER_ELF_HI    USER_STACK_VA

#endif /* SHIMK_SYSCALL_ABI_H */
