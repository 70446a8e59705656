/* SPDX-License-Identifier: GPL-2.0-only */
/* ktest self-tests: the harness itself, and a panic on purpose. */

#include <shimk/ktest.h>

/*
 * Not part of ktest=all: proves that a kernel fault reaches the runner
 * as the panic exit code, not as a pass.  Reading a non-present page
 * in kernel mode with no exception-table entry must panic.
 */
KTEST_FLAGS(selftest_panic, page_fault, KTEST_EXPLICIT)
{
    volatile uint64_t *bad = (volatile uint64_t *)0xffff8ff000000000ul;

    (void)*bad;
    ktest_fail(t, __FILE__, __LINE__, "read of an unmapped address returned");
}
