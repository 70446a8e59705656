/* SPDX-License-Identifier: GPL-2.0-only */
/* User tasks: address space set-up, ring-3 threads, kills and exits. */

#include <shimk/console.h>
#include <shimk/elf-load.h>
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

/* A fresh stack in slot's 64 KiB; the gap below it is a guard. */
static int map_stack(struct task *t, unsigned int slot, paddr_t *top_pa)
{
    vaddr_t stack = USER_STACK_VA + (vaddr_t)slot * USER_STACK_SLOT;

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
        *top_pa = pa;
    }
    return 0;
}

static vaddr_t stack_top(unsigned int slot)
{
    return USER_STACK_VA + (vaddr_t)slot * USER_STACK_SLOT + USER_STACK_SIZE;
}

static int start_thread(struct task *t, uint64_t rip, uint64_t rsp,
                        uint64_t arg, unsigned int cpu)
{
    struct user_start *s = kmalloc(sizeof(*s));
    struct thread *th;
    int id;

    s->rip = rip;
    s->rsp = rsp;
    s->arg = arg;
    __atomic_fetch_add(&t->nr_threads, 1, __ATOMIC_SEQ_CST);
    aspace_get(t->as);
    th = thread_alloc_detached(t->name, user_thread_main, s, cpu);
    th->aspace = t->as;
    th->task = t;
    if ( !t->main_id )
        t->main_id = th->id;
    /* Read first: once started it may run, exit and be freed. */
    id = (int)th->id;
    thread_start(th);
    return id;
}

static unsigned int pick_cpu(unsigned int cpu)
{
    if ( cpu >= NR_CPUS || !cpumask_test_cpu(cpu, &cpu_online_mask) )
        cpu = smp_processor_id();
    return cpu;
}

/* A thread's slot and its stack, for a thread that will start at entry. */
static int thread_stack(struct task *t, uint64_t entry, unsigned int *slot,
                        paddr_t *top)
{
    if ( entry >= USER_TOP || entry < PAGE_SIZE )
        return -EFAULT;
    *slot = __atomic_fetch_add(&t->next_slot, 1, __ATOMIC_RELAXED);
    if ( *slot >= TASK_THREADS_MAX )
        return -EAGAIN;
    return map_stack(t, *slot, top);
}

int task_spawn(struct task *t, uint64_t entry, uint64_t arg, unsigned int cpu)
{
    unsigned int slot;
    paddr_t top;
    int rc = thread_stack(t, entry, &slot, &top);

    if ( rc )
        return rc;
    /* As after a call: the ABI's alignment at a function's entry. */
    return start_thread(t, entry, stack_top(slot) - 8, arg, pick_cpu(cpu));
}

int task_spawn_main(struct task *t, uint64_t entry, unsigned int cpu,
                    const char *const *argv, unsigned int argc)
{
    unsigned int slot;
    uint64_t rsp;
    paddr_t top;
    int rc = thread_stack(t, entry, &slot, &top);

    if ( rc )
        return rc;
    if ( elf_stack_setup(phys_to_virt(top), stack_top(slot) - PAGE_SIZE,
                         PAGE_SIZE, argv, argc, entry, &rsp) )
        return -E2BIG;
    return start_thread(t, entry, rsp, argc, pick_cpu(cpu));
}

struct task *task_create(const char *name)
{
    struct task *t = kzalloc(sizeof(*t));

    ksnprintf(t->name, sizeof(t->name), "%s", name);
    t->id = __atomic_fetch_add(&next_task_id, 1, __ATOMIC_RELAXED);
    t->out_lock = (spinlock_t)SPINLOCK_INIT("task-out");
    t->as = aspace_create();
    if ( map_code(t) )
        panic("task %s: cannot map the user code", name);
    t->args = frame_alloc_user();
    if ( !t->args || aspace_map(t->as, USER_ARGS_VA, t->args, ORDER_4K,
                                PROT_READ | PROT_WRITE) )
        panic("task %s: cannot map its args page", name);
    return t;
}

struct task *task_create_bare(const char *name)
{
    struct task *t = kzalloc(sizeof(*t));

    ksnprintf(t->name, sizeof(t->name), "%s", name);
    t->id = __atomic_fetch_add(&next_task_id, 1, __ATOMIC_RELAXED);
    t->as = aspace_create();
    t->own_code = true;
    t->out_lock = (spinlock_t)SPINLOCK_INIT("task-out");
    return t;
}

/* One line of a program's output, "name| " in front, in one write. */
static void emit_line(struct task *t, bool newline)
{
    char line[sizeof(t->name) + 2 + sizeof(t->out) + 1];
    int n = ksnprintf(line, sizeof(line), "%s| ", t->name);

    memcpy(line + n, t->out, t->out_len);
    n += t->out_len;
    if ( newline )
        line[n++] = '\n';
    console_write(line, (size_t)n);
    t->out_len = 0;
}

void task_write(struct task *t, const char *buf, size_t len)
{
    unsigned long f;

    if ( !t->prefix_output )
    {
        console_write(buf, len);
        return;
    }
    /* Threads of one task on several CPUs: their lines stay whole. */
    f = spin_lock_irqsave(&t->out_lock);
    for ( size_t i = 0; i < len; i++ )
    {
        if ( buf[i] == '\n' )
        {
            emit_line(t, true);
            continue;
        }
        t->out[t->out_len++] = buf[i];
        if ( t->out_len == sizeof(t->out) )
            emit_line(t, true);
    }
    spin_unlock_irqrestore(&t->out_lock, f);
}

/* What is left of a last line without its newline. */
static void flush_output(struct task *t)
{
    unsigned long f = spin_lock_irqsave(&t->out_lock);

    if ( t->out_len )
        emit_line(t, true);
    spin_unlock_irqrestore(&t->out_lock, f);
}

int task_run(struct task *t, user_entry_t *entry, unsigned int cpu)
{
    return task_spawn(t, task_entry_va(entry), USER_ARGS_VA, cpu);
}

void task_kill(struct task *t)
{
    cpumask_t mask;

    t->killed = true;
    /*
     * A thread spinning in ring 3 (a task may run "jmp ." on a CPU of
     * its own, with no timer armed there) enters the kernel only for
     * an interrupt: send one to every CPU that has the task's space
     * loaded, and its threads leave on the way back (task_user_return).
     */
    smp_mb();
    cpumask_copy(&mask, &t->as->cpus);
    cpumask_clear_cpu(smp_processor_id(), &mask);
    cpumask_and(&mask, &mask, &cpu_online_mask);
    if ( !cpumask_empty(&mask) )
        send_ipi_mask(&mask, RESCHEDULE_VECTOR);
}

/* The running user thread is done: account for it and leave. */
static __noreturn void user_thread_exit(int code)
{
    struct task *t = current_task();

    if ( current_thread()->id == t->main_id )
    {
        t->main_code = code;
        WRITE_ONCE(t->main_exited, true);
    }
    if ( __atomic_sub_fetch(&t->nr_threads, 1, __ATOMIC_SEQ_CST) == 0 )
    {
        t->exit_code = code;
        WRITE_ONCE(t->done, true);
    }
    thread_exit();
}

int task_wait(struct task *t, uint64_t timeout_ms)
{
    struct task_end end;

    return task_wait_end(t, timeout_ms, &end);
}

int task_wait_end(struct task *t, uint64_t timeout_ms, struct task_end *end)
{
    uint64_t start = rdtsc(), bound = ms_to_cycles(timeout_ms);
    int code;

    memset(end, 0, sizeof(*end));

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
            end->timed_out = true;
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
    flush_output(t);
    end->code = code;
    end->main_exited = t->main_exited;
    end->main_code = t->main_code;
    memcpy(end->fault, t->fault, sizeof(end->fault));
    aspace_put(t->as);
    kfree(t);
    return code;
}

/* Kill the current task for what, and leave: the kernel goes on. */
static __noreturn void kill_current(const char *what)
{
    struct task *t = current_task();

    /* Tests that kill thousands of tasks count them instead. */
    if ( t->quiet )
        pr_debug("task %s (id %u) killed: %s\n", t->name, t->id, what);
    else
        pr_warn("task %s (id %u) killed: %s\n", t->name, t->id, what);
    /* The first fault is the cause; the others' threads only follow. */
    if ( !__atomic_exchange_n(&t->killed, true, __ATOMIC_SEQ_CST) )
        ksnprintf(t->fault, sizeof(t->fault), "%s", what);
    task_kill(t);
    local_irq_enable();
    user_thread_exit(-EFAULT);
}

static void user_fault(struct cpu_regs *regs)
{
    struct task *t = current_task();
    char what[sizeof(t->fault)];

    if ( !t )
        panic_regs(regs, "%s in user mode outside any task",
                   exception_name(regs->vector));
    ksnprintf(what, sizeof(what), "%s at rip %#lx (cr2 %#lx, error %#lx) "
              "on CPU%u", exception_name(regs->vector),
              (unsigned long)regs->rip, read_cr2(),
              (unsigned long)regs->error_code, smp_processor_id());
    kill_current(what);
}

void task_kill_bad_return(const struct cpu_regs *regs)
{
    char what[sizeof(((struct task *)0)->fault)];

    ksnprintf(what, sizeof(what), "SYSCALL would return to a non-canonical "
              "address (rip %#lx, rsp %#lx) on CPU%u",
              (unsigned long)regs->rip, (unsigned long)regs->rsp,
              smp_processor_id());
    kill_current(what);
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
