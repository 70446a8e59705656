#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# tools/demo (make run): the L0 it picks and the short table it prints (TAP).

import importlib.machinery
import os
import sys

HERE = os.path.dirname(os.path.realpath(__file__))
TOOLS = os.path.join(HERE, "..", "..", "tools")
sys.path.insert(0, TOOLS)
sys.path.insert(0, HERE)
from pytap import case  # noqa: E402
import pytap  # noqa: E402

demo = importlib.machinery.SourceFileLoader(
    "demo", os.path.join(TOOLS, "demo")).load_module()


@case
def the_short_table_is_ipi_against_the_l0():
    # A kvm-nested bench: assisted rows exist, churn and global do not show.
    rows = demo.short_table(os.path.join(HERE, "fixtures",
                                         "tlbb-kvm-nested-bench.txt"))
    modes = [l.split()[0] for l in rows if l.startswith("  ")]
    return (rows[0].startswith("tlbbench (") and "ipi-unicast" in modes and
            any(m.startswith("assist-") for m in modes) and
            "assisted/unicast" in modes and
            not any(m in ("churn", "ipi-pge-on") for m in modes))


@case
def without_a_trusted_kvm_it_is_xen():
    old = demo.common.kvm_usable
    try:
        demo.common.kvm_usable = lambda: (False, "no /dev/kvm")
        no = demo.choose_env()
        demo.common.kvm_usable = lambda: (True, "")
        yes = demo.choose_env()
    finally:
        demo.common.kvm_usable = old
    return no == ("xen", "no /dev/kvm") and yes[0] == "kvm"


@case
def a_log_without_tlbb_lines_says_so():
    rows = demo.short_table(os.devnull)
    return len(rows) == 1 and rows[0].startswith("demo: no TLBB line in ")


sys.exit(pytap.main())
