/* SPDX-License-Identifier: GPL-2.0-only */
/* IS_ENABLED(): test a Kconfig bool in C without #ifdef. */
#ifndef SHIMK_KCONFIG_H
#define SHIMK_KCONFIG_H

/*
 * genconfig writes "#define CONFIG_FOO 1" for y and nothing for n.
 * The placeholder trick turns "defined as 1" into 1 and anything else
 * into 0, so "if ( IS_ENABLED(CONFIG_FOO) )" compiles both ways and
 * both branches stay type-checked.
 */
#define KCONFIG_ARG_PLACEHOLDER_1 0,
#define KCONFIG_TAKE_SECOND(ignored, val, ...) val
#define KCONFIG_IS_ENABLED3(arg) KCONFIG_TAKE_SECOND(arg 1, 0, 0)
#define KCONFIG_IS_ENABLED2(val) \
    KCONFIG_IS_ENABLED3(KCONFIG_ARG_PLACEHOLDER_##val)
#define IS_ENABLED(option) KCONFIG_IS_ENABLED2(option)

#endif /* SHIMK_KCONFIG_H */
