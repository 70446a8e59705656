# SPDX-License-Identifier: GPL-2.0-only
# The detector's mutation table: ktest=tlb-mutation lines, gathered over environments.
"""Parse the "# mutation: class=..." notes of tests/ktest/tlb-mutation.c
from each environment's log and fold them into one table.

A class is caught when every environment that could show it caught it,
and at least one could; a MISSED anywhere, or a class no environment
could show, keeps it out of the count, and the summary line says which.
"""

import re

NOTE_RE = re.compile(
    r"# mutation: class=(?P<cls>[\w-]+) (?P<verdict>caught|cannot-show|MISSED):"
    r" ?(?P<rest>.*)$")
BUG_RE = re.compile(r"with the bug (\d+) stale reads")
CLEAN_RE = re.compile(r"without it (\d+) stale in (\d+)")


def parse(lines):
    """{class: (verdict, bug_stale, clean_stale, clean_flushes, text)}.

    Only the kernel's own notes count: a log also quotes lines back (the
    "### ... before line N '...'" footer, a verdict's "last line '...'"),
    cut short, and a quoted "caught" without its counts once replaced the
    real note and took run-matrix down before its summary line.
    """
    found = {}
    for line in lines:
        line = line.rstrip("\r\n")
        m = NOTE_RE.search(line)
        if not m or "'" in line[:m.start()]:
            continue
        rest = m.group("rest")
        bug = BUG_RE.search(rest)
        clean = CLEAN_RE.search(rest)
        if m.group("verdict") == "caught" and not (bug and clean):
            continue
        found[m.group("cls")] = (
            m.group("verdict"),
            int(bug.group(1)) if bug else None,
            int(clean.group(1)) if clean else None,
            int(clean.group(2)) if clean else None,
            rest)
    return found


def table(per_env):
    """per_env: [(env, {class: parsed})], in row order.

    Returns (lines, caught, total, unshown): the table's lines, the
    classes caught, the classes some environment could show, and
    {class: reason} for those none could.
    """
    classes = []
    for _, found in per_env:
        for c in found:
            if c not in classes:
                classes.append(c)
    width = max([len(e) for e, _ in per_env] + [3])
    cwidth = max([len(c) for c in classes] + [5])
    lines = []
    caught = total = 0
    unshown = {}
    for c in classes:
        shown = missed = False
        reasons = []
        for env, found in per_env:
            if c not in found:
                lines.append("mutation: %-*s %-*s not run" %
                             (width, env, cwidth, c))
                continue
            verdict, bug, clean, flushes, rest = found[c]
            if verdict == "caught":
                shown = True
                lines.append("mutation: %-*s %-*s caught: %s stale reads "
                             "with the bug, %s without (%s flushes)" %
                             (width, env, cwidth, c, bug, clean, flushes))
            elif verdict == "MISSED":
                shown = missed = True
                lines.append("mutation: %-*s %-*s MISSED: %s" %
                             (width, env, cwidth, c, rest))
            else:
                reasons.append("%s: %s" % (env, rest))
                lines.append("mutation: %-*s %-*s cannot show: %s" %
                             (width, env, cwidth, c, rest))
        if shown:
            total += 1
            caught += not missed
        else:
            unshown[c] = "; ".join(reasons) or "no environment ran it"
    return lines, caught, total, unshown


def summary(caught, total, unshown):
    line = "detector: %d of %d injected bug classes caught" % (caught, total)
    if unshown:
        line += " (%d more cannot show in any environment here: %s)" % (
            len(unshown), ", ".join(sorted(unshown)))
    return line
