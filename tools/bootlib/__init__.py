# SPDX-License-Identifier: GPL-2.0-only
# Modules of tools/boot, one concern each.
