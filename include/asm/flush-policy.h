/* SPDX-License-Identifier: GPL-2.0-only */
/* Pure TLB policy decisions (host unit-tested). */
#ifndef ASM_FLUSH_POLICY_H
#define ASM_FLUSH_POLICY_H

#include <asm/cpufeature.h>
#include <shimk/types.h>

/*
 * Xen's global-pages default (xen-command-line.pandoc, "global-pages";
 * commit 5de961d9c0, with the inversion fixed by b041709c36): on,
 * unless virtualized on AMD or Hygon, where SVM cannot intercept
 * single CR4 bits and every PGE toggle costs a VM exit.
 */
bool global_pages_default(enum cpu_vendor vendor, bool virtualized);

/*
 * Resolve the global-pages tri-state (-1 auto, 0, 1) against what the
 * CPU has: PGE is used only if present.
 */
bool global_pages_resolve(int8_t option, bool cpu_has_pge,
                          enum cpu_vendor vendor, bool virtualized);

/*
 * The measured choice, when global-pages= is absent: keep global pages
 * when the full flush that drops them (INVPCID type 2, else the CR4.PGE
 * write pair; cycles, 0 if absent) costs at most 5/4 of a CR3 reload.
 */
bool global_pages_measured(uint64_t pge_pair, uint64_t invpcid, uint64_t cr3);

#endif /* ASM_FLUSH_POLICY_H */
