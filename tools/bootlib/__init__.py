# SPDX-License-Identifier: GPL-2.0-only
# Modules of tools/boot, run-matrix and tlbbench-report, one concern each.
