#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# bootlib/model.py and the model's tables: rows, pan verdicts, parity (TAP).

import os
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.realpath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, HERE)
from bootlib import model  # noqa: E402
from pytap import case  # noqa: E402
import pytap  # noqa: E402

CONFIGS = os.path.join(ROOT, "tests", "model", "configs.txt")
PML = os.path.join(ROOT, "tests", "model", "shootdown.pml")

# pan's output, cut from real runs of tools/model (SPIN 6.5.2).
PAN_VIOLATION = """\
pan:1: assertion violated  !((tlb[j]!=0)) (at depth 67)
pan: wrote model.pml.trail
State-vector 140 byte, depth reached 67, errors: 1
       26 states, stored
"""
PAN_HOLDS = """\
State-vector 140 byte, depth reached 401, errors: 0
  1653649 states, stored
unreached in proctype Cpu
\tmodel.pml:194, state 74, "wrapp[c] = 1"
\tmodel.pml:211, state 20, "e = 3"
\t(2 of 900 states)
"""
PAN_DEADLOCK = """\
pan:1: invalid end state (at depth 104)
State-vector 100 byte, depth reached 104, errors: 1
       35 states, stored
"""
PAN_DEPTH = """\
error: max search depth too small
State-vector 100 byte, depth reached 199999, errors: 0
  100 states, stored
"""
PAN_MEMLIM = """\
pan: resizing hashtable to -w26.. pan: reached -DMEMLIM bound
(Spin Version 6.5.2 -- 6 December 2019)
Warning: Search not completed
State-vector 156 byte, depth reached 1127, errors: 0
 34000000 states, stored
"""
LISTING = """\
proctype Cpu
\tstate  74 -(tr  23)-> state  76  [id  60 tp   2] [----L] model.pml:194 => hmark = 3
\tstate  90 -(tr  24)-> state  91  [id  61 tp   2] [----L] model.pml:300 => hmark = 3
\tstate  95 -(tr  25)-> state  96  [id  62 tp   2] [----L] model.pml:320 => hmark = 1
"""
TRAIL = """\
  1:\tproc  0 (:init::1) model.pml:524 (state 1)\t[j = 0]
 67:\tproc  1 (Cpu:1) model.pml:400 (state 9)\t[assert(!((tlb[j]!=0)))]
spin: model.pml:400, Error: assertion violated
"""


def row(flags="SCEN=1", expect="holds", cls="-"):
    return model.Row("r", "quick", expect, cls, flags.split(), "what")


@case
def configs_parse_and_name_every_class():
    rows = model.read_configs(CONFIGS)
    return (len(rows) > 40 and
            all(r.cls for r in rows if r.expect != "holds") and
            {r.set for r in rows} == {"quick", "stress"})


@case
def configs_reject_a_violation_without_class():
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("x quick violation - SCEN=1 | what\n")
    try:
        model.read_configs(f.name)
        return False
    except ValueError as e:
        return "class" in str(e)
    finally:
        os.unlink(f.name)


@case
def every_tlb_inject_class_is_a_model_bug_with_a_quick_row():
    """The model's BUG 1-8 are the kernel's tlb-inject= classes, in
    enum order, and each (and kvm-store) has a quick counterexample."""
    with open(os.path.join(ROOT, "arch/x86/flush/flush-inject.c")) as f:
        kernel = re.findall(r'\[TLB_INJECT_\w+\] = "([a-z0-9-]+)"', f.read())
    with open(PML) as f:
        bugs = dict((int(n), name) for n, name in
                    re.findall(r"BUG (\d+): ([a-z0-9-]+)", f.read()))
    classes = kernel[1:]    # "none" is not a bug
    quick = {r.cls for r in model.read_configs(CONFIGS)
             if r.set == "quick" and r.expect != "holds"}
    ok = [bugs.get(i + 1) for i in range(len(classes))] == classes
    missing = [c for c in classes + ["kvm-store"] if c not in quick]
    if not ok or missing:
        print("# model bugs %r, kernel classes %r, no quick row: %r"
              % (bugs, classes, missing))
    return ok and not missing


@case
def every_bug_a_row_uses_is_defined_in_the_model():
    with open(PML) as f:
        defined = {int(n) for n in re.findall(r"BUG (\d+): ", f.read())}
    used = {int(r.get("BUG")) for r in model.read_configs(CONFIGS)
            if r.get("BUG") and r.model == "shootdown"}
    return used <= defined and used


@case
def flags_for_spin_leave_out_the_runner_s_own():
    r = row("SCEN=3 OPT REACH=skip+clean MODEL=tso MEM=8192 LITMUS=1")
    return (r.dflags() == ["-DSCEN=3", "-DLITMUS=1"] and r.opt and
            r.mem == 8192 and
            r.reach == ["skip", "clean"] and r.model == "tso")


@case
def pan_verdicts():
    v = model.parse_pan(row(expect="violation", cls="x"), PAN_VIOLATION)
    h = model.parse_pan(row(), PAN_HOLDS)
    d = model.parse_pan(row(), PAN_DEADLOCK)
    e = model.parse_pan(row(), PAN_DEPTH)
    n = model.parse_pan(row(), "spin: crashed\n")
    m = model.parse_pan(row(), PAN_MEMLIM)
    return (v.outcome == "violation" and v.states == 26 and v.as_expected()
            and h.outcome == "holds" and h.states == 1653649 and
            d.outcome == "deadlock" and not d.as_expected() and
            e.outcome == "error" and "depth" in e.detail and
            n.outcome == "error" and m.outcome == "error" and
            "memory bound" in m.detail)


@case
def reach_marks_less_the_unreached_states():
    """Mark 3 ran in state 90 though not in 74; mark 1 ran."""
    ran = model.reached_marks(LISTING, PAN_HOLDS)
    only74 = model.reached_marks(LISTING.splitlines()[0] + "\n" +
                                 LISTING.splitlines()[1] + "\n", PAN_HOLDS)
    with open(PML) as f:
        marks = model.reach_markers(f.read())
    return (ran == {1, 3} and only74 == set() and
            {"skip", "clean", "wrap", "wrapdone"} <= set(marks))


@case
def unreached_mark_fails_a_holding_row():
    res = model.parse_pan(row("SCEN=3 REACH=skip"), PAN_HOLDS)
    res.unreached = ["skip"]
    return not res.as_expected() and "never ran" in res.line()


@case
def trail_as_steps():
    steps = model.trail_steps(TRAIL)
    return (len(steps) == 3 and "j = 0" in steps[0] and
            "Cpu:1" in steps[1] and ">>>" in steps[2])


@case
def summary_counts_classes_and_tso_pairs_apart():
    def res(cls, expect, outcome):
        r = model.Result(row(expect=expect, cls=cls), outcome)
        return r
    lines = model.summary([res("-", "holds", "holds"),
                           res("skip-cpu", "violation", "violation"),
                           res("skip-cpu", "violation", "holds"),
                           res("lazy-map", "violation", "holds"),
                           res("tso-a", "violation", "violation")])
    return (lines[0] == "1 of 1 configurations that must hold hold" and
            "1 of 2 injected bug classes give a counterexample" in lines and
            "no counterexample for: lazy-map" in lines and
            "1 of 1 unfenced x86-TSO pairs give a counterexample" in lines)


@case
def anchors_hold_in_the_tree_and_fail_without_one():
    if model.anchor_problems(ROOT, PML):
        print("# %r" % model.anchor_problems(ROOT, PML))
        return False
    tmp = tempfile.mkdtemp()
    try:
        for rel in model.modelled_files(ROOT):
            os.makedirs(os.path.join(tmp, os.path.dirname(rel)),
                        exist_ok=True)
            shutil.copy(os.path.join(ROOT, rel), os.path.join(tmp, rel))
        rel = "kernel/mm/lazy-unmap.c"
        with open(os.path.join(tmp, rel)) as f:
            text = f.read().replace(model.MODEL_PATH, "the model")
        with open(os.path.join(tmp, rel), "w") as f:
            f.write(text.replace("lazy_map_flushed(", "lazy_map_done("))
        probs = model.anchor_problems(tmp, PML)
        return (any(rel in p for p in probs) and
                any("lazy_map_flushed()" in p for p in probs))
    finally:
        shutil.rmtree(tmp)


@case
def checked_hashes_round_trip():
    with tempfile.NamedTemporaryFile("w", delete=False) as f:
        path = f.name
    try:
        model.write_checked(path, {"a.c": "11", "b.c": "22"})
        return model.read_checked(path) == {"a.c": "11", "b.c": "22"}
    finally:
        os.unlink(path)


if __name__ == "__main__":
    sys.exit(pytap.main())
