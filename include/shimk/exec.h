/* SPDX-License-Identifier: GPL-2.0-only */
/* Programs from the initrd: the archive, the loader, the run= option. */
#ifndef SHIMK_EXEC_H
#define SHIMK_EXEC_H

#include <shimk/cpio.h>
#include <shimk/task.h>
#include <shimk/types.h>

/*
 * Pick the initrd among the boot modules: the first that lies in RAM
 * and starts with a newc header.  Prints what it found.
 */
void initrd_init(void);

/* Whether there is one, and the file called name in it (cpio_find()). */
bool initrd_present(void);
enum cpio_status initrd_find(const char *name, struct cpio_entry *e);

/*
 * A task holding the static ELF64 executable img (len bytes), its
 * segments loaded with the rights they ask for, no thread yet; NULL
 * with why filled in when the file is refused or memory runs out.
 */
struct task *task_exec(const char *name, const void *img, size_t len,
                       char *why, size_t why_size);

/* The run= option's value ("" when absent). */
const char *run_selection(void);

/*
 * Run each program of run= in order, each to its end; the boot's exit
 * code for them: EXIT_SUCCESS when every one exited 0, otherwise
 * EXIT_TEST_FAILED (docs/user-abi.md).
 */
int run_programs(void);

#endif /* SHIMK_EXEC_H */
