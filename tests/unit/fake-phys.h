/* SPDX-License-Identifier: GPL-2.0-only */
/* Fake physical memory behind a phys_map_fn, for the boot-info parsers. */
#ifndef UNIT_FAKE_PHYS_H
#define UNIT_FAKE_PHYS_H

#include <shimk/types.h>

/* Where the fake range starts; anything outside it is out of reach. */
#define FAKE_PHYS_BASE 0x100000ull

/* Fresh zeroed memory [FAKE_PHYS_BASE, FAKE_PHYS_BASE + size). */
void fake_phys_init(size_t size);

/* Free everything, including what fake_phys_map handed out. */
void fake_phys_fini(void);

/* Host pointer to write test input at pa (which must be in range). */
void *fake_phys_ptr(paddr_t pa);

/*
 * The phys_map_fn.  It hands out a private copy of exactly len bytes,
 * so AddressSanitizer reports any read beyond what the parser asked to
 * map, even where real memory would continue.
 */
const void *fake_phys_map(paddr_t pa, size_t len);

/* Calls to fake_phys_map since fake_phys_init. */
unsigned int fake_phys_map_calls(void);

#endif /* UNIT_FAKE_PHYS_H */
