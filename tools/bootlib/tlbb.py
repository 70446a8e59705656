# SPDX-License-Identifier: GPL-2.0-only
# TLBB lines (tlbbench's, the Linux peer's): parsed, checked, and judged.
"""The reading side of the TLBB line format (docs/tlbbench.md).

parse_line() turns one console line into a record, a dict of its
key=value words plus "_tag" and "_kind", and refuses a line that is
broken (BadLine): a kind without one of its keys, a count that is not
a number.  read() gathers the records of whole logs, each labelled with
its log and environment; check() is tools/tlbbench-report --check's
verdict on them (make check's bench rows post_check with it).  The rest
turns one boot's records into the issue's benchmark targets and their
verdicts, which the report and the table print (bootlib/tlbb_report.py).
"""

import os
import re
import sys

# tools/boot shows the Linux peer's lines with this before them
# (bootlib/peer.py, docs/linux-peer.md).
PEER_PREFIX = "linux| "
# Xen's console may put "(dN) " before a line; tools/boot puts "linux| "
# before the Linux peer's.
LINE_RE = re.compile(r"^(?:\(d\d+\) |%s)?(TLBB(?:-SUM)?) (.*)$"
                     % re.escape(PEER_PREFIX))
KV_RE = re.compile(r"^([a-z0-9_]+)=(\S+)$")
# The Linux peer's summary, its last TLBB line, on the peer's own console
# (no prefix): tools/boot's peer reader wants it before a pass.
PEER_SUM_RE = re.compile(r"^TLBB-SUM v=1 os=linux ")

# What every line of a kind must carry (docs/tlbbench.md).
REQUIRED = {
    "start": ["profile", "pge", "assisted", "clock"],
    "calib": ["prim"],
    "block": ["wl", "mode", "rep"],
    "cell-remap": ["wl", "mode", "n", "pages", "reps", "p50_cyc", "p50_min",
                   "p50_max", "p90_cyc", "p99_cyc", "max_cyc", "p50_ns",
                   "p90_ns", "p99_ns", "max_ns", "fps", "ipis", "hc",
                   "clk_skip", "checked", "stale", "noisy"],
    "cell-churn": ["wl", "mode", "threads", "reps", "ops_per_s",
                   "flush_share_milli", "ipis", "hc", "checked", "stale",
                   "idle", "noisy"],
    "cell-reuse": ["wl", "mode", "frames", "considered", "skippable",
                   "skipped", "clk_eff", "checked", "stale"],
    "sum": ["stale"],
}
# The Linux peer (os=linux) has no flush counters of shimk's.
PEER_OPTIONAL = {"ipis", "hc", "clk_skip", "flush_share_milli", "idle",
                 "pge", "assisted", "clock",
                 "p50_min", "p50_max"}
INTS = {"n", "reps", "p50_cyc", "p50_min", "p50_max", "p90_cyc", "p99_cyc",
        "max_cyc", "p50_ns", "p90_ns", "p99_ns", "max_ns", "fps", "ipis",
        "hc", "clk_skip", "stale", "noisy", "threads", "ops_per_s",
        "flush_share_milli", "frames", "skippable", "skipped", "cpus",
        "tsc_khz", "rep", "p50_cyc", "checked", "idle", "considered", "ops",
        "flushes"}
# tools/boot's line where it booted again (an L0 fault): the lines
# before it in that log are another run's.
RETRY_MARK = "### retry:"


class BadLine(Exception):
    pass


def parse_line(raw):
    """A dict for a TLBB line, None for other lines; BadLine if broken."""
    m = LINE_RE.match(raw.rstrip("\r\n"))
    if not m:
        return None
    rec = {"_tag": m.group(1)}
    for word in m.group(2).split():
        kv = KV_RE.match(word)
        if not kv:
            raise BadLine("not key=value: %r" % word)
        rec[kv.group(1)] = kv.group(2)
    if rec.get("v") != "1":
        raise BadLine("no v=1")
    for key in ("hv", "cpus"):
        if key not in rec:
            raise BadLine("no %s=" % key)
    if rec["_tag"] == "TLBB-SUM":
        kind = "sum"
    else:
        kind = rec.get("kind", "")
        if kind == "cell":
            kind = "cell-" + ("remap" if rec.get("wl") in ("remap", "global")
                              else rec.get("wl", "?"))
    if kind not in REQUIRED:
        raise BadLine("unknown kind %r" % kind)
    for key in REQUIRED[kind]:
        if rec.get("os") == "linux" and key in PEER_OPTIONAL:
            continue
        if key not in rec:
            raise BadLine("%s line without %s=" % (kind, key))
    for key in INTS & rec.keys():
        if not re.fullmatch(r"\d+", rec[key]):
            raise BadLine("%s=%s is not a number" % (key, rec[key]))
    rec["_kind"] = kind
    return rec


def env_label(path, rec):
    """make bench's logs are <env>.log: the file names the environment
    (xen and xl both say hv=xen); other logs go by hv=."""
    stem = os.path.splitext(os.path.basename(path))[0]
    if path == "-" or stem in ("run", ""):
        return rec["hv"]
    return stem


def scan(path, lines, recs, errors):
    """Add the records of one log's lines to recs, and its broken lines
    to errors as (path, lineno, why)."""
    for no, raw in enumerate(lines, 1):
        # tools/boot booted again (an L0 fault): only the last
        # boot's lines count, the earlier ones' are another run.
        if raw.startswith(RETRY_MARK):
            recs[:] = [r for r in recs if r["_log"] != path]
            errors[:] = [e for e in errors if e[0] != path]
            continue
        try:
            rec = parse_line(raw)
        except BadLine as e:
            errors.append((path, no, str(e)))
            continue
        if rec:
            rec["_log"] = path
            rec["_env"] = env_label(path, rec)
            recs.append(rec)


def parse_log(lines, path="-"):
    """(records, errors) of one log given as lines, named path."""
    recs, errors = [], []
    scan(path, lines, recs, errors)
    return recs, errors


def read(paths):
    """All TLBB records of all logs; errors as (path, lineno, why)."""
    recs, errors = [], []
    for path in paths:
        f = sys.stdin if path == "-" else open(path, errors="replace")
        with f:
            scan(path, f, recs, errors)
    return recs, errors


def idle_why(r):
    """Why record r is a workload that did no work, or None."""
    k = r["_kind"]
    if k.startswith("cell") and int(r["checked"]) == 0:
        return "checked no read, so counted no stale read"
    if k == "cell-churn" and int(r.get("idle", "0")):
        return "did no work in %s of %s rounds" % (r["idle"], r["reps"])
    if k == "cell-reuse" and int(r["considered"]) == 0:
        return "reused none of its frames"
    if k == "block" and r.get("wl") == "churn" and r.get("ops") == "0":
        return "did no work (ops=0)"
    return None


def describe(r):
    return " ".join("%s=%s" % (k, r[k]) for k in ("wl", "mode", "n", "pages",
                                                   "rep") if k in r)


def idle_cells(recs):
    """(record, why) for every workload that did no work."""
    return [(r, why) for r in recs for why in [idle_why(r)] if why]


def check(recs, errors):
    """(status, lines): 0 only when no line was broken, there is a start,
    a calib and a summary line, every workload did work and stale is 0
    in every cell and in the summary; the lines say why not, or what
    was checked."""
    out = ["%s:%d: %s" % e for e in errors]
    bad = bool(errors)
    kinds = {r["_kind"] for r in recs}
    for need in ("start", "calib", "sum"):
        if need not in kinds:
            bad = True
            out.append("no %s line" % need)
    idle = idle_cells(recs)
    for r, why in idle:
        out.append("%s %s %s" % (r["_kind"], describe(r), why))
    stale = sum(int(r["stale"]) for r in recs if r["_kind"].startswith("cell"))
    summed = sum(int(r["stale"]) for r in recs if r["_kind"] == "sum")
    if stale:
        out.append("%d stale reads" % stale)
    if summed != stale:
        bad = True
        out.append("the summary says stale=%d, the cells %d"
                   % (summed, stale))
    if bad or stale or idle:
        return 1, out
    checked = sum(int(r["checked"]) for r in recs
                  if r["_kind"].startswith("cell"))
    out.append("%d TLBB lines well formed, every workload did work, %d "
               "reads checked, stale 0" % (len(recs), checked))
    return 0, out


# --- one boot's figures and the targets ---

def is_peer(r):
    """A line of the Linux peer (docs/linux-peer.md), not shimk's."""
    return r.get("os") == "linux"


def shimk_of(rs):
    return [r for r in rs if not is_peer(r)]


def section_title(env, start):
    """<log> (hv=, role, N vCPUs[ on H host CPUs, R:1]): the overcommit
    comes from shimk's start line (host-cpus=, docs/tlbbench.md)."""
    title = "%s (hv=%s%s%s, %s vCPUs" % (
        env, start.get("hv", "?"),
        " " + start["hv_version"] if start.get("hv_version") else "",
        ", " + start["role"] if start.get("role") else "",
        start.get("cpus", "?"))
    if "host_cpus" in start:
        title += " on %s host CPUs, %s:1" % (start["host_cpus"],
                                              overcommit(start))
    return title + ")"


def overcommit(start):
    """vCPUs per host CPU as n.nn, or None where the log does not say."""
    try:
        return "%.2f" % (int(start["cpus"]) / int(start["host_cpus"]))
    except (KeyError, ValueError, ZeroDivisionError):
        return None


def by_env(recs):
    """Records by section: one log, that is one boot of one L0, with
    shimk's lines and the Linux peer's of that boot."""
    starts = {}
    for r in recs:
        if r["_kind"] == "start" and not is_peer(r):
            starts.setdefault(r["_env"], r)
    envs = {}
    for r in recs:
        key = section_title(r["_env"], starts.get(r["_env"], r))
        envs.setdefault(key, []).append(r)
    return envs


def milli(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def cyc_ns(r, key):
    """A cycle count of record r in ns, by its tsc_khz."""
    khz = int(r.get("tsc_khz", "0"))
    return int(r[key]) * 1000000 // khz if khz and key in r else "?"


def churn_rounds(rs, mode):
    """ops/s of one churn setting's blocks, by round (its rep)."""
    return {int(r["rep"]): int(r["ops_per_s"]) for r in rs
            if r["_kind"] == "block" and r.get("wl") == "churn" and
            r["mode"] == mode and "ops_per_s" in r}


def churn_verdict(rs, summ, v):
    """Met at 0.95.  Below, a sign test over the rounds: every churn
    setting ran once per round, so a choice that lost to the best setting
    in every round most likely lost for real (with 7 rounds, 1 in 128 by
    chance against one equal setting; more often against the best of
    several, which the test does not correct for); one that won some
    rounds lost by less than the run's noise."""
    if v >= 0.95:
        return "met"
    twin = churn_rounds(rs, summ.get("churn_choice"))
    mine = churn_rounds(rs, "boot-policy")
    best = churn_rounds(rs, summ.get("churn_best"))
    rounds = sorted(twin.keys() & mine.keys() & best.keys())
    if not rounds:
        return "NOT MET (no churn block lines to compare)"
    won = sum(1 for i in rounds if twin[i] + mine[i] >= 2 * best[i])
    if won:
        return ("within noise (the choice beat the best in %d of %d rounds)"
                % (won, len(rounds)))
    return "NOT MET (the best beat the choice in all %d rounds)" % len(rounds)


def remap_cells(rs, mode):
    """One-page remap cells of a mode, by target count."""
    return {int(r["n"]): r for r in rs
            if r["_kind"] == "cell-remap" and r["wl"] == "remap" and
            r["pages"] == "1" and r["mode"] == mode}


def assist_mode(rs):
    return next((r["mode"] for r in rs if r["_kind"] == "cell-remap" and
                 r["mode"].startswith("assist-")), None)


def ratio(a, b):
    return "%.3f" % (a / b) if b else "n/a"


def assist_rows(rs):
    """Assisted over unicast per target count at p50 and p99, and the
    assisted flush's spread across target counts at both."""
    am = assist_mode(rs)
    if not am:
        return [("assisted/unicast p50, p99", "n/a",
                 "no L0 flush hook here")]
    a, u = remap_cells(rs, am), remap_cells(rs, "ipi-unicast")
    rows = []
    for n in sorted(a.keys() & u.keys()):
        p50 = ratio(int(a[n]["p50_cyc"]), int(u[n]["p50_cyc"]))
        p99 = ratio(int(a[n]["p99_cyc"]), int(u[n]["p99_cyc"]))
        rows.append(("assisted/unicast at %d targets: p50, p99" % n,
                     "%s, %s" % (p50, p99),
                     ("L0 cheaper" if milli(p50) < 1 else "IPIs cheaper") +
                     " at p50, " +
                     ("L0 cheaper" if milli(p99) < 1 else "IPIs cheaper") +
                     " at p99"))
    if len(a) > 1:
        spread = []
        for key in ("p50_cyc", "p99_cyc"):
            v = [int(r[key]) for r in a.values()]
            spread.append(ratio(max(v), min(v)))
        rows.append(("assisted spread across target counts: p50, p99",
                     ", ".join(spread), "1.000 is flat"))
    return rows


def peer_rows(rs):
    """shimk against the Linux peer of the same L0 boot, per target
    count.  Linux's call also changes the page tables and enters the
    kernel, so besides its whole p50 the row takes its remote part: the
    p50 at n targets less the p50 with no other thread (n=0)."""
    lx = remap_cells(rs, "linux")
    if not lx:
        return []
    sh = shimk_of(rs)
    uni, am = remap_cells(sh, "ipi-unicast"), assist_mode(sh)
    ast = remap_cells(sh, am) if am else {}
    base = int(lx[0]["p50_cyc"]) if 0 in lx else 0
    rows = []
    for n in sorted(k for k in lx if k):
        lp50, lp99 = int(lx[n]["p50_cyc"]), int(lx[n]["p99_cyc"])
        remote = max(lp50 - base, 1)
        for name, cells in (("IPI", uni), ("assisted", ast)):
            if n not in cells:
                continue
            p50, p99 = int(cells[n]["p50_cyc"]), int(cells[n]["p99_cyc"])
            rows.append(("shimk %s / Linux at %d targets: p50, p99, "
                         "p50 against Linux's remote part" % (name, n),
                         "%s, %s, %s" % (ratio(p50, lp50), ratio(p99, lp99),
                                         ratio(p50, remote)),
                         "shimk faster" if p50 < lp50 else "Linux faster"))
    lch = next((r for r in rs if r["_kind"] == "cell-churn" and
                is_peer(r)), None)
    sch = next((r for r in sh if r["_kind"] == "cell-churn" and
                r["mode"] == "boot-policy"), None)
    if lch and sch:
        v = ratio(int(sch["ops_per_s"]), int(lch["ops_per_s"]))
        rows.append(("churn ops/s: shimk boot-policy / Linux", v,
                     "shimk faster" if milli(v) > 1 else "Linux faster"))
    return rows


def targets(rs, rejected=0):
    """The issue's benchmark targets for one environment, as rows of
    (target, value, verdict); rejected: its log's lines that did not
    parse, which may be cells that did not count stale reads."""
    peer = peer_rows(rs)
    rs = shimk_of(rs) + [r for r in rs if is_peer(r) and
                         r["_kind"].startswith("cell")]
    summ = next((r for r in rs if r["_kind"] == "sum"), {})
    rows = assist_rows(shimk_of(rs))
    reuse = next((r for r in rs if r["_kind"] == "cell-reuse"), None)
    if reuse and reuse["mode"] == "clock-off":
        rows.append(("free-reuse clock skips / skippable (>= 0.95)",
                     "n/a", "the TLB clock is off: the L0 flushes "
                     "(docs/flush.md)"))
    elif reuse and int(reuse["skippable"]):
        eff = milli(reuse["clk_eff"])
        rows.append(("free-reuse clock skips / skippable (>= 0.95)",
                     reuse["clk_eff"], "met" if eff >= 0.95 else "NOT MET"))
    elif reuse:
        rows.append(("free-reuse clock skips / skippable (>= 0.95)",
                     "n/a", "nothing was skippable (clock %s)" %
                     reuse["mode"]))
    if "churn_measured_vs_best" in summ:
        v = milli(summ["churn_measured_vs_best"])
        same = summ.get("churn_choice") == summ.get("churn_best")
        rows.append(("churn: measured choice / best fixed (>= 0.95)",
                     summ["churn_measured_vs_best"],
                     churn_verdict(rs, summ, v) +
                     " (choice %s, best %s%s; the twins measured apart "
                     "differ by %s)" % (
                         summ.get("churn_choice", "?"),
                         summ.get("churn_best", "?"),
                         ": the same setting" if same else "",
                         summ.get("churn_twin_ratio", "?"))))
    stale = max(sum(int(r["stale"]) for r in rs
                    if r["_kind"].startswith("cell")),
                sum(int(r["stale"]) for r in rs if r["_kind"] == "sum"))
    idle = idle_cells(rs)
    cells = [r for r in rs if r["_kind"].startswith("cell")]
    if stale:
        verdict = "NOT MET"
    elif rejected:
        verdict = ("NOT MET (%d lines rejected: a cell may not have counted)"
                   % rejected)
    elif not cells:
        verdict = "NOT MET (no cell counted stale reads)"
    elif idle:
        verdict = "NOT MET (%d workloads did no work)" % len(idle)
    else:
        verdict = "met (%d reads checked)" % sum(int(r["checked"])
                                                 for r in cells)
    rows.append(("stale reads in every block", str(stale), verdict))
    return rows + peer
