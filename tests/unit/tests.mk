# SPDX-License-Identifier: GPL-2.0-only
# The host unit tests and the sources each one compiles.

unit-tests += vsnprintf
unit-vsnprintf-src := tests/unit/test-vsnprintf.c kernel/vsnprintf.c
