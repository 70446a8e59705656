/* SPDX-License-Identifier: GPL-2.0-only */
/* User tasks: an address space, its ring-3 threads, their fate. */
#ifndef SHIMK_TASK_H
#define SHIMK_TASK_H

#include <shimk/aspace.h>
#include <shimk/sched.h>
#include <shimk/spinlock.h>
#include <shimk/types.h>

#define TASK_THREADS_MAX 64

struct task
{
    struct aspace *as;
    char name[24];
    unsigned int id;
    unsigned int nr_threads;    /* alive */
    unsigned int next_slot;     /* user stack slots handed out */
    volatile bool killed;
    volatile bool done;         /* every thread has exited */
    int exit_code;
    paddr_t args;               /* the USER_ARGS_VA page (0: none) */
    uint64_t syscalls, syscall_errors;
    /*
     * A program loaded from an ELF file (kernel/task/exec.c): its own code
     * and no shared user/ code or args page, so neither is protected
     * from its system calls.
     */
    bool own_code;
    uint64_t exec_entry;        /* its ELF entry point */
    unsigned int main_id;       /* its first thread */
    volatile bool main_exited;
    int main_code;              /* that thread's exit code */
    char fault[112];            /* the first fault that killed it */
    bool quiet;                 /* kills on purpose: their line at debug */
    /* Console output in whole lines, each with "name| " in front. */
    bool prefix_output;
    spinlock_t out_lock;
    unsigned int out_len;
    char out[160];
};

/* How a task ended (task_wait_end()). */
struct task_end
{
    int code;                   /* as task_wait() returns */
    bool main_exited;           /* the first thread called SYS_EXIT... */
    int main_code;              /* ...with this */
    bool timed_out;             /* killed after the timeout */
    char fault[112];            /* "" or what killed it */
};

/* A user program: an entry point among the user/ code. */
typedef void user_entry_t(void *arg);

/*
 * A task with its address space (user code mapped, a zeroed args page
 * at USER_ARGS_VA) and no thread yet: fill the args through
 * task_args(), then start threads with task_run() or task_spawn().
 */
struct task *task_create(const char *name);
void *task_args(struct task *t);

/* An empty address space, for a program that brings its own code. */
struct task *task_create_bare(const char *name);

/* Start a thread at entry(USER_ARGS_VA) on cpu; its id or -errno. */
int task_run(struct task *t, user_entry_t *entry, unsigned int cpu);

/* Where entry (a user/ function) is in every task's address space. */
uint64_t task_entry_va(user_entry_t *entry);

/* Add a thread at entry(arg) on cpu (SYS_SPAWN, and the first one). */
int task_spawn(struct task *t, uint64_t entry, uint64_t arg, unsigned int cpu);

/*
 * The first thread of a program: at entry with the psABI's initial
 * stack (argc, argv, envp, auxv; shimk/elf-load.h).  Its id or -errno.
 */
int task_spawn_main(struct task *t, uint64_t entry, unsigned int cpu,
                    const char *const *argv, unsigned int argc);

/* SYS_WRITE's bytes, already made printable, to the console. */
void task_write(struct task *t, const char *buf, size_t len);

/*
 * Wait up to timeout_ms for every thread to end; -ETIMEDOUT (the task
 * is then killed and waited for once more).  Frees the task and its
 * address space; returns its exit code otherwise.
 */
int task_wait(struct task *t, uint64_t timeout_ms);

/* The same, telling how it ended (end may not be NULL). */
int task_wait_end(struct task *t, uint64_t timeout_ms, struct task_end *end);

/* Kill: every thread leaves at its next kernel entry. */
void task_kill(struct task *t);

/* The running thread's task, or NULL in a kernel thread. */
struct task *current_task(void);

/* Called on the way back to user mode: preemption and kills. */
void task_user_return(void);

struct cpu_regs;

/*
 * A system call whose return address or stack is not canonical: kill
 * the task (IRETQ would fault in ring 0).
 */
__noreturn void task_kill_bad_return(const struct cpu_regs *regs);

/* SYS_EXIT: end the calling user thread. */
__noreturn void task_exit_current(int code);

void task_init(void);

#endif /* SHIMK_TASK_H */
