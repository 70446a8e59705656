# SPDX-License-Identifier: GPL-2.0-only
"""The SPIN model's rows, pan's verdicts and the model table (pure)."""

import os
import re

# The C the model stands for: the pure files it links under REALC, and
# the files whose control flow it follows by hand.  A change to any of
# them fails the model's currency check until the model is checked again
# (tools/model --accept).
MODELLED_PURE = ("arch/x86/flush/tlb-clock.c",
                 "arch/x86/flush/flush-inject.c",
                 "arch/x86/flush/flush-policy.c", "kernel/mm/lazy-unmap.c",
                 "kernel/lib/cpumask.c", "guest/kvm/kvm-pv.c")
MODELLED_FLOW = ("arch/x86/flush/flush-smp.c", "arch/x86/flush/flushtlb.c",
                 "arch/x86/mm/aspace.c", "arch/x86/mm/paging.c",
                 "kernel/mm/frames.c", "guest/hypervisor.c", "guest/kvm/kvm.c", "guest/xen/xen.c",
                 "guest/hyperv/tlb.c")
MODEL_PATH = "tests/model/shootdown.pml"


def modelled_files(root):
    return [p for p in MODELLED_PURE + MODELLED_FLOW
            if os.path.exists(os.path.join(root, p))]


class Row:
    """One line of tests/model/configs.txt."""

    def __init__(self, name, set_, expect, cls, flags, what):
        self.name, self.set, self.expect = name, set_, expect
        self.cls = None if cls == "-" else cls
        self.flags, self.what = flags, what
        self.realc = "REALC" in flags
        # OPT: a large search, worth gcc -O2's slower build of pan
        self.opt = "OPT" in flags
        # MEM=n: pan may use n MiB (a large stress search)
        self.mem = int(self.get("MEM", 0) or 0)
        # MODEL=tso: tests/model/tso.pml instead of shootdown.pml
        self.model = self.get("MODEL", "shootdown")
        # REACH=a+b: the model lines marked "reach: a" and "reach: b" must
        # run in the search, or the row's "holds" proves less than it says
        r = self.get("REACH")
        self.reach = r.split("+") if isinstance(r, str) else []

    def dflags(self):
        return ["-D" + f for f in self.flags
                if f != "OPT" and
                not f.startswith(("REACH=", "MODEL=", "MEM="))]

    def get(self, key, default=None):
        for f in self.flags:
            k, _, v = f.partition("=")
            if k == key:
                return v or True
        return default


def read_configs(path):
    rows = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            left, sep, what = line.partition("|")
            words = left.split()
            if not sep or len(words) < 5:
                raise ValueError("%s:%d: want 'name set expect class flags "
                                 "| what'" % (path, n))
            name, set_, expect, cls = words[:4]
            if set_ not in ("quick", "stress"):
                raise ValueError("%s:%d: set %r" % (path, n, set_))
            if expect not in ("holds", "violation", "deadlock"):
                raise ValueError("%s:%d: expect %r" % (path, n, expect))
            if expect != "holds" and cls == "-":
                raise ValueError("%s:%d: a violation row names its class"
                                 % (path, n))
            rows.append(Row(name, set_, expect, cls, words[4:], what.strip()))
    names = [r.name for r in rows]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError("%s: rows named twice: %s" % (path, ", ".join(dup)))
    return rows


class Result:
    def __init__(self, row, outcome, states=None, depth=None, detail="",
                 trail=None):
        self.row, self.outcome = row, outcome
        self.states, self.depth, self.detail = states, depth, detail
        self.trail = trail
        self.build_s = self.pan_s = None

        self.unreached = []

    def as_expected(self):
        return self.outcome == self.row.expect and not self.unreached

    def line(self):
        r = self.row
        what = "%s" % self.outcome
        if self.states is not None:
            what += ", %s states" % format(self.states, ",")
        if self.pan_s is not None:
            what += ", %.1f s" % self.pan_s
        if self.row.reach and not self.unreached:
            what += ", reached %s" % " ".join(self.row.reach)
        if self.trail:
            what += ", trail %s" % self.trail
        if self.unreached:
            return "FAIL model %s: %s, but never ran the lines marked %s" % (
                r.name, what, ", ".join(self.unreached))
        if self.as_expected():
            return "PASS model %s: %s" % (r.name, what)
        return "FAIL model %s: expected %s, got %s%s" % (
            r.name, r.expect, what, ": " + self.detail if self.detail else "")


_STORED_RE = re.compile(r"^\s*(\d+(?:e\+\d+)?) states, stored", re.M)
_ERRORS_RE = re.compile(r"errors: (\d+)")
_DEPTH_RE = re.compile(r"depth reached (\d+)")


def parse_pan(row, text):
    """pan's output as a Result: holds, violation, deadlock or error."""
    m = _STORED_RE.search(text)
    states = int(float(m.group(1))) if m else None
    d = _DEPTH_RE.search(text)
    depth = int(d.group(1)) if d else None
    e = _ERRORS_RE.search(text)
    if "max search depth too small" in text:
        return Result(row, "error", states, depth,
                      "search incomplete: max search depth too small")
    if "out of memory" in text or "memory limit" in text.lower() and \
            "exceeded" in text:
        return Result(row, "error", states, depth, "pan ran out of memory")
    if not e:
        last = text.strip().splitlines()[-1:] or ["no output"]
        return Result(row, "error", states, depth,
                      "no verdict from pan: " + last[0])
    if int(e.group(1)) == 0:
        # pan stops at its memory bound and still says "errors: 0"
        if "Search not completed" in text or "MEMLIM bound" in text:
            return Result(row, "error", states, depth,
                          "search incomplete: pan reached its memory bound"
                          if "MEMLIM" in text else "search incomplete")
        return Result(row, "holds", states, depth)
    a = re.search(r"assertion violated (.*?)(?: \(at depth \d+\))?$", text,
                  re.M)
    if a:
        return Result(row, "violation", states, depth,
                      "assertion violated " + a.group(1).strip())
    if re.search(r"invalid end state \(at depth", text):
        return Result(row, "deadlock", states, depth,
                      "invalid end state (a CPU waits for ever)")
    return Result(row, "error", states, depth, "errors without a verdict")


_STATE_RE = re.compile(r"^\s*state\s+(\d+)\s+-\(tr\s+\d+\)->.*=> (.*)$")
_UNREACHED_RE = re.compile(r"^\s+\S+?:\d+, state (\d+),")
_MARK_RE = re.compile(r"^hmark = (\d+)$")


def reached_marks(listing, pan_out):
    """The REACH() marks (numbers) some explored transition ran: pan -d's
    state machine (listing) less the states pan's search reported
    unreached."""
    states, proc = {}, None
    for line in listing.splitlines():
        if line.startswith("proctype ") or line.startswith("claim "):
            proc = line.split()[1]
            continue
        m = _STATE_RE.match(line)
        mark = _MARK_RE.match(m.group(2).strip()) if m else None
        if mark and proc:
            states.setdefault((proc, int(mark.group(1))), set()).add(
                int(m.group(1)))
    unreached, proc = {}, None
    for line in pan_out.splitlines():
        if line.startswith("unreached in "):
            proc = line.split()[-1]
            continue
        m = _UNREACHED_RE.match(line)
        if m and proc:
            unreached.setdefault(proc, set()).add(int(m.group(1)))
    return {n for (p, n), ss in states.items()
            if ss - unreached.get(p, set())}


_MARKDEF_RE = re.compile(r"^#define R_([A-Z0-9_]+)\s+(\d+)", re.M)


def reach_markers(model_text):
    """{name: number} for each "#define R_NAME n" mark in the model."""
    return {m.group(1).lower(): int(m.group(2))
            for m in _MARKDEF_RE.finditer(model_text)}


_STEP_RE = re.compile(r"^\s*(\d+):\s+proc\s+(\d+)\s+\((\S+)\)\s+"
                      r"(\S+?):(\d+)\s+\(state \d+\)\s+\[(.*)\]\s*$")


def trail_steps(text):
    """spin -t -p (or pan -r) output as one line per step."""
    steps = []
    for line in text.splitlines():
        m = _STEP_RE.match(line)
        if m:
            steps.append("%5s  %-14s line %-5s %s" % (
                m.group(1), m.group(3), m.group(5), m.group(6)))
        elif "assertion violated" in line or "Error:" in line:
            steps.append("       >>> " + line.strip())
    return steps


HOOKS = {"0": "IPIs", "1": "Xen", "2": "KVM", "3": "Hyper-V"}
SCENS = {"1": "remap", "2": "global page", "3": "reuse via clock",
         "4": "table free under walker", "5": "lazy unmap then map"}


def table(results):
    out = ["| row | scenario | L0 hook | vCPUs | expected | result | states "
           "| pan s | |",
           "|---|---|---|---:|---|---|---:|---:|---|"]
    for res in results:
        r = res.row
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r.name, SCENS.get(r.get("SCEN", "1"), "?") +
            (" (C)" if r.realc else ""),
            HOOKS.get(r.get("HOOK", "0"), "?"), r.get("NCPU", "2"),
            r.expect, res.outcome,
            format(res.states, ",") if res.states is not None else "-",
            "%.1f" % res.pan_s if res.pan_s is not None else "-",
            "ok" if res.as_expected() else "**NOT AS EXPECTED**"))
    return "\n".join(out) + "\n"


def summary(results):
    """The verdict lines: clean rows held, bug classes found, and the
    x86-TSO pairs (classes tso-*) whose fences were shown needed."""
    clean = [r for r in results if r.row.expect == "holds"]
    held = [r for r in clean if r.outcome == "holds"]
    lines = ["%d of %d configurations that must hold hold" %
             (len(held), len(clean))]
    for tso, label in ((False, "injected bug classes give a counterexample"),
                       (True, "unfenced x86-TSO pairs give a counterexample")):
        classes = {}
        for res in results:
            if res.row.expect != "holds" and \
                    res.row.cls.startswith("tso-") == tso:
                classes.setdefault(res.row.cls, []).append(res)
        found = [c for c, rs in classes.items()
                 if any(x.outcome == x.row.expect for x in rs)]
        if classes:
            lines.append("%d of %d %s" % (len(found), len(classes), label))
            missed = sorted(set(classes) - set(found))
            if missed:
                lines.append("no counterexample for: " + ", ".join(missed))
    return lines


# "/* model: name() */" in the model names a function of the C.
_MODEL_ANCHOR_RE = re.compile(r"/\*\s*model:\s*([a-z_0-9]+)\(\)")


def anchor_problems(root, model_path):
    """Each function the model names exists; each modelled file names
    the model."""
    problems = []
    with open(model_path) as f:
        names = sorted(set(_MODEL_ANCHOR_RE.findall(f.read())))
    sources = {}
    for rel in modelled_files(root):
        with open(os.path.join(root, rel)) as f:
            sources[rel] = f.read()
    for name in names:
        defn = re.compile(r"^[a-z].*\b%s\([^;]*$" % re.escape(name), re.M)
        if not any(defn.search(text) for text in sources.values()):
            problems.append("the model follows %s(), which no modelled "
                            "file defines" % name)
    for rel, text in sources.items():
        if MODEL_PATH not in text:
            problems.append("%s does not name %s (its anchor)"
                            % (rel, MODEL_PATH))
    return problems


def read_checked(path):
    out = {}
    try:
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 2 and not line.startswith("#"):
                    out[parts[1]] = parts[0]
    except FileNotFoundError:
        pass
    return out


def write_checked(path, hashes):
    with open(path, "w") as f:
        f.write("# SPDX-License-Identifier: GPL-2.0-only\n"
                "# The modelled C files as last checked against the model "
                "(tools/model --accept).\n")
        for rel in sorted(hashes):
            f.write("%s  %s\n" % (hashes[rel], rel))
