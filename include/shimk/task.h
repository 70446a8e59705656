/* SPDX-License-Identifier: GPL-2.0-only */
/* User tasks: an address space, its ring-3 threads, their fate. */
#ifndef SHIMK_TASK_H
#define SHIMK_TASK_H

#include <shimk/aspace.h>
#include <shimk/sched.h>
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
    paddr_t args;               /* the USER_ARGS_VA page */
    uint64_t syscalls, syscall_errors;
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

/* Start a thread at entry(USER_ARGS_VA) on cpu; its id or -errno. */
int task_run(struct task *t, user_entry_t *entry, unsigned int cpu);

/* Where entry (a user/ function) is in every task's address space. */
uint64_t task_entry_va(user_entry_t *entry);

/* Add a thread at entry(arg) on cpu (SYS_SPAWN, and the first one). */
int task_spawn(struct task *t, uint64_t entry, uint64_t arg, unsigned int cpu);

/*
 * Wait up to timeout_ms for every thread to end; -ETIMEDOUT (the task
 * is then killed and waited for once more).  Frees the task and its
 * address space; returns its exit code otherwise.
 */
int task_wait(struct task *t, uint64_t timeout_ms);

/* Kill: every thread leaves at its next kernel entry. */
void task_kill(struct task *t);

/* The running thread's task, or NULL in a kernel thread. */
struct task *current_task(void);

/* Called on the way back to user mode: preemption and kills. */
void task_user_return(void);

/* SYS_EXIT: end the calling user thread. */
__noreturn void task_exit_current(int code);

void task_init(void);

#endif /* SHIMK_TASK_H */
