/* SPDX-License-Identifier: GPL-2.0-only */
/* run=NAME[,NAME...]: the initrd's programs, one task each, in order. */

#include <shimk/cmdline.h>
#include <shimk/errno.h>
#include <shimk/exec.h>
#include <shimk/panic.h>
#include <shimk/printk.h>
#include <shimk/run-list.h>
#include <shimk/string.h>
#include <asm/percpu.h>

static char opt_run[RUN_MAX * (RUN_NAME_MAX + 1)];
string_param("run", opt_run);

/*
 * How long one program may run before it is killed: every wait has a
 * bound.  Generous, since a program's own work is unknown here.
 */
static unsigned int opt_run_timeout = 120;
uint_param("run-timeout", opt_run_timeout, 1, 86400);

const char *run_selection(void)
{
    return opt_run;
}

/* "exit 0", or why the program failed, into buf; true when it passed. */
static bool describe_end(const struct task_end *end, char *buf, size_t size)
{
    if ( end->timed_out )
        ksnprintf(buf, size, "still running after %u s (run-timeout=), "
                  "killed", opt_run_timeout);
    else if ( end->fault[0] )
        ksnprintf(buf, size, "killed by %s", end->fault);
    else if ( !end->main_exited )
        ksnprintf(buf, size, "ended without its first thread's exit "
                  "(code %d)", end->code);
    else if ( end->main_code )
        ksnprintf(buf, size, "exit status %d", end->main_code);
    else
    {
        ksnprintf(buf, size, "exit status 0");
        return true;
    }
    return false;
}

/* Load, start and wait for one program; whether it exited 0. */
static bool run_one(const char *name)
{
    struct cpio_entry e;
    enum cpio_status cs;
    struct task_end end;
    struct task *t;
    char why[160];
    const char *argv[] = { name };
    int id;

    if ( !initrd_present() )
    {
        pr_warn("run: %s: failed: not started: no initrd was given (QEMU "
                "-initrd, GRUB module2, xl ramdisk=; tools/boot --module)\n",
                name);
        return false;
    }
    cs = initrd_find(name, &e);
    if ( cs != CPIO_OK )
    {
        pr_warn("run: %s: failed: not started: %s\n", name,
                cs == CPIO_END ? "not in the initrd" : cpio_status_name(cs));
        return false;
    }
    t = task_exec(name, e.data, e.size, why, sizeof(why));
    if ( !t )
    {
        pr_warn("run: %s: failed: not started: %s\n", name, why);
        return false;
    }
    t->prefix_output = true;
    id = task_spawn_main(t, t->exec_entry, smp_processor_id(), argv, 1);
    if ( id < 0 )
    {
        pr_warn("run: %s: failed: not started: its first thread: %s\n",
                name, errno_name(id));
        task_wait(t, 0);
        return false;
    }
    task_wait_end(t, (uint64_t)opt_run_timeout * 1000, &end);
    if ( describe_end(&end, why, sizeof(why)) )
    {
        printk("run: %s: %s\n", name, why);
        return true;
    }
    pr_warn("run: %s: failed: %s\n", name, why);
    return false;
}

int run_programs(void)
{
    char name[RUN_NAME_MAX + 1];
    enum run_name_status st;
    unsigned int passed = 0, failed = 0;
    size_t pos = 0;

    while ( run_list_next(opt_run, &pos, name, &st) )
    {
        if ( st != RUN_NAME_OK )
        {
            pr_warn("run: program %u: failed: not started: %s\n",
                    passed + failed + 1, run_name_status_text(st));
            failed++;
            continue;
        }
        if ( run_one(name) )
            passed++;
        else
            failed++;
    }
    printk("run: %u programs: %u exited 0, %u failed\n", passed + failed,
           passed, failed);
    return failed ? EXIT_TEST_FAILED : EXIT_SUCCESS;
}
