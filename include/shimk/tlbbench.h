/* SPDX-License-Identifier: GPL-2.0-only */
/* tlbbench: flush modes compared side by side in one boot. */
#ifndef SHIMK_TLBBENCH_H
#define SHIMK_TLBBENCH_H

/* The bench= profile asked for ("quick", "full"), or "". */
const char *bench_selection(void);

/*
 * Calibrate, run every workload in every mode this machine has, print
 * the TLBB lines (docs/tlbbench.md); returns the exit code: a stale
 * read makes the run a failure.
 */
int tlbbench_run(const char *profile);

#endif /* SHIMK_TLBBENCH_H */
