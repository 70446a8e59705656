# SPDX-License-Identifier: GPL-2.0-only
# In-kernel test suites (built in with CONFIG_KTEST).

obj-$(CONFIG_KTEST) += tests/ktest/selftest.o
