/* SPDX-License-Identifier: GPL-2.0-only */
/* System calls: argument checks and dispatch (ABI: shimk/syscall-abi.h). */

#include <shimk/aspace.h>
#include <shimk/console.h>
#include <shimk/errno.h>
#include <shimk/frame.h>
#include <shimk/printk.h>
#include <shimk/sched.h>
#include <shimk/syscall-abi.h>
#include <shimk/task.h>
#include <asm/page.h>
#include <asm/desc.h>
#include <asm/percpu.h>
#include <asm/processor.h>
#include <asm/regs.h>
#include <asm/smp.h>
#include <asm/uaccess.h>

/*
 * Every argument is untrusted: addresses are checked against the user
 * half and the task's own mappings, sizes are bounded, and a bad value
 * is an error code, never a kernel fault.  The user code region is
 * shared kernel memory, so it cannot be unmapped or changed.
 */

#define WRITE_MAX 4096

/* The shared user/ code, which an ELF program does not have. */
static bool in_code(const struct task *t, uint64_t va, unsigned int order)
{
    extern char __user_start[], __user_end[];
    uint64_t size = (uint64_t)(__user_end - __user_start);
    uint64_t len = PAGE_SIZE << order;

    return !t->own_code && va < USER_CODE_VA + size &&
           USER_CODE_VA < va + len;
}

static bool is_args(const struct task *t, uint64_t va)
{
    return t->args && va == USER_ARGS_VA;
}

static bool order_ok(uint64_t order, uint64_t va)
{
    return (order == ORDER_4K || order == ORDER_2M) &&
           !(va & ((PAGE_SIZE << order) - 1));
}

static unsigned int prot_of(uint64_t uprot)
{
    return (uprot & UPROT_READ ? PROT_READ : 0) |
           (uprot & UPROT_WRITE ? PROT_WRITE : 0) |
           (uprot & UPROT_EXEC ? PROT_EXEC : 0);
}

static long sys_write(struct task *t, uint64_t buf, uint64_t len)
{
    char chunk[256];
    uint64_t done = 0;

    if ( len > WRITE_MAX )
        return -EINVAL;
    while ( done < len )
    {
        size_t n = MIN(sizeof(chunk), len - done);

        if ( copy_from_user(chunk, buf + done, n) )
            return done ? (long)done : -EFAULT;
        /* The console carries the protocol: no control bytes from users. */
        for ( size_t i = 0; i < n; i++ )
            if ( (chunk[i] < 0x20 && chunk[i] != '\n' && chunk[i] != '\t') ||
                 chunk[i] == 0x7f )
                chunk[i] = '?';
        task_write(t, chunk, n);
        done += n;
    }
    return (long)done;
}

static long sys_map(struct task *t, uint64_t va, uint64_t order,
                    uint64_t uprot)
{
    paddr_t pa;
    int rc;

    if ( !order_ok(order, va) || (uprot & ~(uint64_t)7) )
        return -EINVAL;
    if ( va >= USER_TOP || in_code(t, va, order) )
        return -EPERM;
    pa = order == ORDER_2M ? frame_alloc_2m() : frame_alloc_user();
    if ( !pa )
        return -ENOMEM;
    rc = aspace_map(t->as, va, pa, order, prot_of(uprot));
    if ( rc )
    {
        if ( order == ORDER_2M )
            frame_free_2m(pa);
        else
            frame_free(pa);
    }
    return rc;
}

static long sys_unmap(struct task *t, uint64_t va, uint64_t order,
                      uint64_t flags)
{
    paddr_t old;
    int rc;

    if ( !order_ok(order, va) || (flags & ~(uint64_t)UNMAP_LAZY) )
        return -EINVAL;
    if ( va >= USER_TOP || in_code(t, va, order) || is_args(t, va) )
        return -EPERM;
    if ( flags & UNMAP_LAZY )
        return order == ORDER_4K ? aspace_unmap_lazy(t->as, va, order)
                                 : -EINVAL;
    rc = aspace_unmap(t->as, va, order, &old);
    if ( rc )
        return rc;
    if ( order == ORDER_2M )
        frame_free_2m(old);
    else
        frame_free(old);
    return 0;
}

static long sys_protect(struct task *t, uint64_t va, uint64_t order,
                        uint64_t uprot)
{
    if ( !order_ok(order, va) || (uprot & ~(uint64_t)7) )
        return -EINVAL;
    if ( va >= USER_TOP || in_code(t, va, order) || is_args(t, va) )
        return -EPERM;
    return aspace_protect(t->as, va, order, prot_of(uprot));
}

void do_syscall(struct cpu_regs *regs)
{
    struct task *t = current_task();
    uint64_t a0 = regs->rdi, a1 = regs->rsi, a2 = regs->rdx;
    long ret;

    t->syscalls++;
    /*
     * The return goes through IRETQ, which faults in ring 0, after
     * SWAPGS, on a non-canonical RIP (SDM Vol. 2A, IRET): a task that
     * places SYSCALL in the last bytes of the user half returns to
     * 0x800000000000.  It has nowhere to go back to, so it is killed
     * like a task that faulted there.  RSP gets the same rule.
     */
    if ( regs->rip >= USER_TOP || regs->rsp >= USER_TOP )
        task_kill_bad_return(regs);
    switch ( regs->cs == USER_CS32 ? (uint64_t)-1 : regs->rax )
    {
    case SYS_EXIT:
        task_exit_current((int)a0);
    case SYS_WRITE:
        ret = sys_write(t, a0, a1);
        break;
    case SYS_YIELD:
        yield();
        ret = 0;
        break;
    case SYS_MAP:
        ret = sys_map(t, a0, a1, a2);
        break;
    case SYS_UNMAP:
        ret = sys_unmap(t, a0, a1, a2);
        break;
    case SYS_PROTECT:
        ret = sys_protect(t, a0, a1, a2);
        break;
    case SYS_SPAWN:
        ret = task_spawn(t, a0, a1, a2 > NR_CPUS ? NR_CPUS : (unsigned int)a2);
        break;
    case SYS_CPU:
        ret = smp_processor_id();
        break;
    case SYS_NCPUS:
        ret = nr_cpus_online;
        break;
    case SYS_SLEEP:
        thread_sleep_us(MIN(a0, (uint64_t)1000000));
        ret = 0;
        break;
    default:
        ret = -ENOSYS;
        break;
    }
    if ( ret < 0 )
        t->syscall_errors++;
    regs->rax = (uint64_t)ret;
    local_irq_disable();
    task_user_return();
}
