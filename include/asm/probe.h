/* SPDX-License-Identifier: GPL-2.0-only */
/* Memory reads and writes that report a fault instead of taking it. */
#ifndef ASM_PROBE_H
#define ASM_PROBE_H

#include <shimk/types.h>

/*
 * 0, or -EFAULT if the access faulted (not present, protection).  For
 * tests that must see a mapping disappear, and for user pointers.
 */
int probe_read_u64(const volatile void *va, uint64_t *val);
int probe_write_u64(volatile void *va, uint64_t val);

#endif /* ASM_PROBE_H */
