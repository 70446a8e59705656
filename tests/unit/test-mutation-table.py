#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# tools/bootlib/mutation.py: ktest=tlb-mutation notes folded into one table (TAP).

import os
import sys

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
sys.path.insert(0, HERE)
from bootlib import mutation  # noqa: E402
from pytap import case  # noqa: E402
import pytap  # noqa: E402

# Recorded from real runs: tcg smp2, and Xen 4.17 in TCG smp4 (as dom0).
with open(os.path.join(HERE, "fixtures", "mutation-tcg.txt")) as f:
    TCG = f.read().splitlines()
with open(os.path.join(HERE, "fixtures", "mutation-xen.txt")) as f:
    XEN = f.read().splitlines()


@case
def parses_counts_and_reasons():
    found = mutation.parse(TCG)
    v, bug, clean, flushes, _ = found["skip-remote"]
    return (len(found) == 8 and v == "caught" and bug > 0 and clean == 0
            and flushes == 1000 and found["l0-lie"][0] == "cannot-show")


@case
def prefixed_lines_parse_too():
    # Xen's console puts "(d0) " before every guest line.
    return mutation.parse(XEN)["l0-lie"][0] == "caught"


@case
def a_class_is_caught_where_any_env_shows_it():
    lines, caught, total, unshown = mutation.table(
        [("tcg", mutation.parse(TCG)), ("xen", mutation.parse(XEN))])
    # nonglobal shows in neither: TCG's TLB drops globals, Xen flushes all.
    return (caught == total == 7 and list(unshown) == ["nonglobal"] and
            len(lines) == 16 and
            "7 of 7" in mutation.summary(caught, total, unshown))


@case
def a_miss_anywhere_is_not_caught():
    xen = [l.replace("class=l0-lie caught: with the bug 10353120 stale",
                     "class=l0-lie MISSED: with the bug 0 stale")
           for l in XEN]
    _, caught, total, _ = mutation.table(
        [("tcg", mutation.parse(TCG)), ("xen", mutation.parse(xen))])
    return caught == 6 and total == 7


@case
def an_env_without_notes_is_not_caught():
    lines, caught, total, unshown = mutation.table([("xl", {})])
    return caught == total == 0 and not lines


@case
def the_table_names_env_class_and_both_counts():
    lines, _, _, _ = mutation.table([("tcg", mutation.parse(TCG))])
    row = [l for l in lines if "skip-cpu" in l][0]
    return ("tcg" in row and "caught:" in row and "with the bug" in row and
            ", 0 without (1000 flushes)" in row)


@case
def a_quoted_note_does_not_replace_the_real_one():
    # From a real xl-bench log: the boot's footer quoted a note, cut short,
    # after the note itself; it must neither count nor crash the table.
    log = TCG + ["### 720 lines in 230.0 s; longest silence 20.0 s, before "
                 "line 581 '# mutation: class=skip-remote caught: with the "
                 "bug 1 stale reads (first a table-wa...'"]
    found = mutation.parse(log)
    table = mutation.table([("tcg", found)])
    return (found["skip-remote"] == mutation.parse(TCG)["skip-remote"] and
            table == mutation.table([("tcg", mutation.parse(TCG))]))


@case
def a_caught_note_without_counts_is_ignored():
    found = mutation.parse(["# mutation: class=lazy-map caught: with the "
                            "bug 2 stale re"])
    return found == {}


sys.exit(pytap.main())
