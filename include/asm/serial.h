/* SPDX-License-Identifier: GPL-2.0-only */
/* The x86 console sinks: COM1 and port 0xe9. */
#ifndef ASM_SERIAL_H
#define ASM_SERIAL_H

#include <shimk/types.h>

/* Register COM1 if a 16550 answers there; returns whether it did. */
bool serial_init(void);

/* Register the port 0xe9 sink (always safe: unclaimed ports ignore it). */
void debugcon_init(void);

#endif /* ASM_SERIAL_H */
