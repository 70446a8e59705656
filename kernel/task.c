/* SPDX-License-Identifier: GPL-2.0-only */
/* User tasks: address space set-up, ring-3 threads, kills and exits. */

#include <shimk/errno.h>
#include <shimk/frame.h>
#include <shimk/heap.h>
#include <shimk/panic.h>
#include <shimk/printk.h>
#include <shimk/string.h>
#include <shimk/syscall-abi.h>
#include <shimk/task.h>
#include <shimk/time.h>
#include <asm/apic.h>
#include <asm/page.h>
#include <asm/paging.h>
#include <asm/percpu.h>
#include <asm/processor.h>
#include <asm/regs.h>
#include <asm/smp.h>
#include <asm/traps.h>

/*
 * The user programs (user/) are linked into the kernel image between
 * __user_start and __user_end, position independent, and every task
 * maps those same frames read-only at USER_CODE_VA.  They are marked
 * PTE_SOFT_SHARED so tearing a space down never frees them.
 */
extern char __user_start[], __user_end[];

void enter_user(uint64_t rip, uint64_t rsp, uint64_t arg);

static unsigned int next_task_id = 1;

struct task *current_task(void)
{
    struct thread *th = current_thread();

    return th ? th->task : NULL;
}

void *task_args(struct task *t)
{
    return phys_to_virt(t->args);
}

uint64_t task_entry_va(user_entry_t *entry)
{
    return USER_CODE_VA + ((vaddr_t)entry - (vaddr_t)__user_start);
}

static int map_code(struct task *t)
{
    for ( vaddr_t va = (vaddr_t)__user_start; va < (vaddr_t)__user_end;
          va += PAGE_SIZE )
    {
        int rc = pt_map(t->as->root,
                        USER_CODE_VA + (va - (vaddr_t)__user_start),
                        virt_to_phys((void *)va), PT_ORDER_4K,
                        PTE_U | PTE_SOFT_SHARED);

        if ( rc )
            return rc;
    }
    return 0;
}

struct user_start
{
    uint64_t rip, rsp, arg;
};

static void user_thread_main(void *arg)
{
    struct user_start s = *(struct user_start *)arg;

    kfree(arg);
    /* The scheduler loaded this thread's space before running it. */
    enter_user(s.rip, s.rsp, s.arg);
}

int task_spawn(struct task *t, uint64_t entry, uint64_t arg, unsigned int cpu)
{
    struct user_start *s;
    struct thread *th;
    unsigned int slot;
    vaddr_t stack;

    if ( entry >= USER_TOP || entry < PAGE_SIZE )
        return -EFAULT;
    if ( cpu >= NR_CPUS || !cpumask_test_cpu(cpu, &cpu_online_mask) )
        cpu = smp_processor_id();
    slot = __atomic_fetch_add(&t->next_slot, 1, __ATOMIC_RELAXED);
    if ( slot >= TASK_THREADS_MAX )
        return -EAGAIN;

    /* A fresh stack in its own slot; the gap below it is a guard. */
    stack = USER_STACK_VA + (vaddr_t)slot * USER_STACK_SLOT;
    for ( vaddr_t va = stack; va < stack + USER_STACK_SIZE; va += PAGE_SIZE )
    {
        paddr_t pa = frame_alloc_user();
        int rc;

        if ( !pa )
            return -ENOMEM;
        rc = aspace_map(t->as, va, pa, ORDER_4K, PROT_READ | PROT_WRITE);
        if ( rc )
        {
            frame_free(pa);
            return rc;
        }
    }

    s = kmalloc(sizeof(*s));
    s->rip = entry;
    s->rsp = stack + USER_STACK_SIZE - 8;   /* as after a call */
    s->arg = arg;
    __atomic_fetch_add(&t->nr_threads, 1, __ATOMIC_SEQ_CST);
    aspace_get(t->as);
    th = thread_alloc_detached(t->name, user_thread_main, s, cpu);
    th->aspace = t->as;
    th->task = t;
    thread_start(th);
    return (int)th->id;
}

struct task *task_create(const char *name)
{
    struct task *t = kzalloc(sizeof(*t));

    ksnprintf(t->name, sizeof(t->name), "%s", name);
    t->id = __atomic_fetch_add(&next_task_id, 1, __ATOMIC_RELAXED);
    t->as = aspace_create();
    if ( map_code(t) )
        panic("task %s: cannot map the user code", name);
    t->args = frame_alloc_user();
    if ( !t->args || aspace_map(t->as, USER_ARGS_VA, t->args, ORDER_4K,
                                PROT_READ | PROT_WRITE) )
        panic("task %s: cannot map its args page", name);
    return t;
}

int task_run(struct task *t, user_entry_t *entry, unsigned int cpu)
{
    return task_spawn(t, task_entry_va(entry), USER_ARGS_VA, cpu);
}

void task_kill(struct task *t)
{
    t->killed = true;
}

/* The running user thread is done: account for it and leave. */
static __noreturn void user_thread_exit(int code)
{
    struct task *t = current_task();

    if ( __atomic_sub_fetch(&t->nr_threads, 1, __ATOMIC_SEQ_CST) == 0 )
    {
        t->exit_code = code;
        WRITE_ONCE(t->done, true);
    }
    thread_exit();
}

int task_wait(struct task *t, uint64_t timeout_ms)
{
    uint64_t start = rdtsc(), bound = ms_to_cycles(timeout_ms);
    int code;

    /* A task whose threads never started is done as well. */
    while ( !READ_ONCE(t->done) && READ_ONCE(t->nr_threads) )
    {
        if ( rdtsc() - start > bound )
        {
            pr_warn("task %s (id %u): still running after %lu ms; killing "
                    "it\n", t->name, t->id, (unsigned long)timeout_ms);
            task_kill(t);
            start = rdtsc();
            while ( !READ_ONCE(t->done) && READ_ONCE(t->nr_threads) )
            {
                if ( rdtsc() - start > ms_to_cycles(WAIT_BOUND_MS) )
                    panic("task %s (id %u) did not die within %u ms",
                          t->name, t->id, WAIT_BOUND_MS);
                yield();
            }
            code = -ETIMEDOUT;
            goto out;
        }
        yield();
        cpu_relax();
    }
    code = t->exit_code;
out:
    /*
     * Threads are gone, but each drops its reference to the space only
     * once its CPU has switched away from it (finish_switch): wait for
     * that, so the space is freed here, by the last put.
     */
    start = rdtsc();
    while ( __atomic_load_n(&t->as->refs, __ATOMIC_ACQUIRE) > 1 )
    {
        if ( rdtsc() - start > ms_to_cycles(WAIT_BOUND_MS) )
            panic("task %s (id %u): exited threads still hold its space",
                  t->name, t->id);
        yield();
        cpu_relax();
    }
    aspace_put(t->as);
    kfree(t);
    return code;
}

static void user_fault(struct cpu_regs *regs)
{
    struct task *t = current_task();

    if ( !t )
        panic_regs(regs, "%s in user mode outside any task",
                   exception_name(regs->vector));
    pr_warn("task %s (id %u) killed: %s at rip %#lx (cr2 %#lx, error %#lx) "
            "on CPU%u\n", t->name, t->id, exception_name(regs->vector),
            (unsigned long)regs->rip, read_cr2(),
            (unsigned long)regs->error_code, smp_processor_id());
    task_kill(t);
    local_irq_enable();
    user_thread_exit(-EFAULT);
}

void task_user_return(void)
{
    struct task *t = current_task();

    if ( !t )
        return;
    if ( READ_ONCE(t->killed) )
    {
        local_irq_enable();
        user_thread_exit(-EINTR);
    }
    if ( sched_need_resched() )
    {
        local_irq_enable();
        yield();
        local_irq_disable();
    }
}

void task_exit_current(int code)
{
    user_thread_exit(code);
}

void task_init(void)
{
    user_exception_hook = user_fault;
}
