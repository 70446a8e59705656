/* SPDX-License-Identifier: GPL-2.0-only */
/* Constants usable from both C and assembly. */
#ifndef ASM_ASM_MACROS_H
#define ASM_ASM_MACROS_H

#ifdef __ASSEMBLER__
#define _AC(x, suffix) x
#else
#define _AC__(x, suffix) x##suffix
#define _AC(x, suffix) _AC__(x, suffix)
#endif

#endif /* ASM_ASM_MACROS_H */
