/* SPDX-License-Identifier: GPL-2.0-only */
/* Host printk for the unit tests: keeps what the kernel code printed. */
#ifndef UNIT_PRINTK_CAPTURE_H
#define UNIT_PRINTK_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>

/* Forget everything printed so far. */
void capture_reset(void);

/* All output since the last reset, level markers removed. */
const char *capture_text(void);

/* Number of complete lines (newlines) printed since the last reset. */
unsigned int capture_lines(void);

/* Whether, and how often, needle occurs in the output. */
bool capture_has(const char *needle);
unsigned int capture_count(const char *needle);

/*
 * Line n (from 0) without its newline, copied into a static buffer,
 * or NULL when there are fewer lines.
 */
const char *capture_line(unsigned int n);

/* Messages printed at a level (LOGLEVEL_*; no marker counts as INFO). */
unsigned int capture_level_count(int level);

/* Print the captured output to stderr: context for a failed assertion. */
void capture_dump(void);

#endif /* UNIT_PRINTK_CAPTURE_H */
