# SPDX-License-Identifier: GPL-2.0-only
# TLBB records rendered: make run's table, make bench's report and chart.
"""What tools/tlbbench-report prints and writes, from the records and
verdicts of bootlib/tlbb.py.  Each function returns text (a list of
lines, or a document); the script prints it or writes it to a file.
"""

import html
import math

from bootlib.tlbb import (assist_mode, cyc_ns, idle_cells, describe,
                          overcommit, ratio, remap_cells, shimk_of, targets)


def share(r, sep):
    """The flushing share of a churn cell, where it was measured."""
    if "flush_share_milli" not in r:
        return ""
    return "%s%.1f%% of cycles flushing" % (
        sep, int(r["flush_share_milli"]) / 10.0)


def table(envs):
    """--table: per section the latency cells, the churn cells, the
    targets with their verdicts, and every workload that did no work."""
    out = []
    for env, rs in envs.items():
        out.append("tlbbench (%s): flush latency p50 by mode and targets"
                   % env)
        out.append("  %-14s %-7s %-5s %12s %12s %9s %6s" %
                   ("mode", "targets", "pages", "p50 ns", "p99 ns",
                    "flush/s", "stale"))
        for r in rs:
            if r["_kind"] == "cell-remap":
                out.append("  %-14s %-7s %-5s %12s %12s %9s %6s%s" %
                           (r["mode"], r["n"], r["pages"], r["p50_ns"],
                            r["p99_ns"], r["fps"], r["stale"],
                            "  noisy" if r["noisy"] == "1" else ""))
        for r in rs:
            if r["_kind"] == "cell-churn":
                out.append("  churn %-20s %8s ops/s%s"
                           % (r["mode"], r["ops_per_s"], share(r, ", ")))
        for name, value, verdict in targets(rs):
            out.append("  %-46s %7s  %s" % (name, value, verdict))
        for r, why in idle_cells(rs):
            out.append("  NO WORK: %s %s %s" % (r["_kind"], describe(r),
                                                 why))
    return out


COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]


def svg_chart(envs):
    """Latency against target count, a panel per section (environment,
    vCPUs and overcommit): per mode a solid line for p50 and a dashed
    one for p99; log scale on y, since modes differ by decades."""
    panels = [(env, [r for r in rs if r["_kind"] == "cell-remap" and
                     r["wl"] == "remap" and r["pages"] == "1"])
              for env, rs in envs.items()]
    panels = [(e, rs) for e, rs in panels if rs]
    w, h, pad, cols = 460, 300, 60, 3
    rows_n = max(1, (len(panels) + cols - 1) // cols)
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="11">'
           % (w * min(cols, max(1, len(panels))), (h + 50) * rows_n)]
    modes_all = sorted({r["mode"] for _, rs in panels for r in rs})
    for i, (env, rs) in enumerate(panels):
        x0, y0 = (i % cols) * w, (i // cols) * (h + 50)
        modes = sorted({r["mode"] for r in rs})
        ns = sorted({int(r["n"]) for r in rs})
        vals = [int(r[k]) for r in rs for k in ("p50_ns", "p99_ns")
                if int(r[k]) > 0] or [1]
        lo, hi = math.log10(max(1, min(vals))), math.log10(max(vals) * 1.5)
        if hi - lo < 1:
            lo -= 0.5
            hi += 0.5

        def px(n):
            if len(ns) == 1:
                return x0 + pad + (w - 2 * pad) / 2
            return x0 + pad + (w - 2 * pad) * (ns.index(n) / (len(ns) - 1))

        def py(v):
            return y0 + 30 + (h - pad) * (1 - (math.log10(max(v, 1)) - lo) /
                                          (hi - lo))
        out.append('<text x="%d" y="%d">%s</text>'
                   % (x0 + 10, y0 + 14, html.escape(env)))
        out.append('<text x="%d" y="%d">flush ns by targets: p50 solid, '
                   'p99 dashed</text>' % (x0 + 10, y0 + 27))
        base = y0 + h - pad + 30
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>'
                   % (x0 + pad, base, x0 + w - pad, base))
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>'
                   % (x0 + pad, y0 + 30, x0 + pad, base))
        for n in ns:
            out.append('<text x="%.0f" y="%d" text-anchor="middle">%d</text>'
                       % (px(n), base + 14, n))
        for d in range(int(math.floor(lo)), int(math.ceil(hi)) + 1):
            if lo <= d <= hi:
                out.append('<text x="%d" y="%.0f" text-anchor="end">1e%d'
                           '</text>' % (x0 + pad - 4, py(10 ** d) + 4, d))
        for k, mode in enumerate(modes):
            color = COLORS[modes_all.index(mode) % len(COLORS)]
            for key, dash in (("p50_ns", ""),
                              ("p99_ns", ' stroke-dasharray="4,3"')):
                pts = sorted((int(r["n"]), int(r[key])) for r in rs
                             if r["mode"] == mode)
                out.append('<polyline fill="none" stroke="%s" '
                           'stroke-width="2"%s points="%s"/>' % (
                               color, dash, " ".join(
                                   "%.0f,%.0f" % (px(n), py(v))
                                   for n, v in pts)))
                for n, v in pts:
                    out.append('<circle cx="%.0f" cy="%.0f" r="2.5" '
                               'fill="%s"/>' % (px(n), py(v), color))
            out.append('<text x="%d" y="%d" fill="%s">%s</text>'
                       % (x0 + w - pad - 80, y0 + 44 + 14 * k, color,
                          html.escape(mode)))
    out.append("</svg>")
    return "\n".join(out)


def overview(envs):
    """One row per section: the figures the issue asks for first."""
    md = ["## Overview", "",
          "One row per boot. Ratios are taken within that boot only.", "",
          "| section | vCPUs | host CPUs | vCPUs per host CPU | "
          "assisted/unicast p50, p99 (most targets) | assisted spread p50 "
          "| shimk IPI, assisted / Linux p50 (most targets) | churn choice "
          "/ best |", "|---|---|---|---|---|---|---|---|"]
    for env, rs in envs.items():
        sh = shimk_of(rs)
        start = next((r for r in sh if r["_kind"] == "start"), {})
        summ = next((r for r in sh if r["_kind"] == "sum"), {})
        am = assist_mode(sh)
        a, u = (remap_cells(sh, am) if am else {}), remap_cells(sh,
                                                                "ipi-unicast")
        both = sorted(a.keys() & u.keys())
        au = "-"
        if both:
            n = both[-1]
            au = "%s, %s (n=%d)" % (
                ratio(int(a[n]["p50_cyc"]), int(u[n]["p50_cyc"])),
                ratio(int(a[n]["p99_cyc"]), int(u[n]["p99_cyc"])), n)
        lx = remap_cells(rs, "linux")
        vs = "-"
        common = sorted(k for k in lx.keys() & u.keys() if k)
        if common:
            n = common[-1]
            lp = int(lx[n]["p50_cyc"])
            vs = "%s, %s (n=%d)" % (
                ratio(int(u[n]["p50_cyc"]), lp),
                ratio(int(a[n]["p50_cyc"]), lp) if n in a else "-", n)
        md.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            env.split(" (")[0], start.get("cpus", "?"),
            start.get("host_cpus", "-"), overcommit(start) or "-", au,
            summ.get("assist_spread", "-"), vs,
            summ.get("churn_measured_vs_best", "-")))
    return md + [""]


def markdown(envs, errors):
    """report.md: the overview, then per section its primitives, cells,
    targets and same-run ratios; errors are the lines that did not
    parse, which the targets count against their log."""
    md = ["# tlbbench report", "",
          "Every figure below comes from one boot per environment; ratios "
          "compare modes within that boot only (docs/tlbbench.md). "
          "p50/p99 are medians over the repeats; *noisy* marks cells whose "
          "repeats spread over more than 10% of their median.", "",
          "![flush latency by target count](latency.svg)", ""]
    md += overview(envs)
    for env, rs in envs.items():
        start = next((r for r in rs if r["_kind"] == "start"), {})
        md += ["## %s" % env, "",
               "Profile %s; x2APIC %s, global pages %s, INVPCID %s, "
               "assisted flush %s, TLB clock %s at boot." % (
                   start.get("profile", "?"), start.get("x2apic", "?"),
                   start.get("pge", "?"), start.get("invpcid", "?"),
                   start.get("assisted", "?"), start.get("clock", "?")), "",
               "### Primitives (one CPU)", "",
               "| primitive | p50 cycles | p50 ns |", "|---|---|---|"]
        for r in rs:
            if r["_kind"] == "calib":
                md.append("| %s | %s | %s |" % (
                    r["prim"], r.get("p50_cyc", "n/a"),
                    r.get("p50_ns", "not here")))
        md += ["", "### Remote flush (remap-now, global)", "",
               "| workload | mode | targets | pages | p50 ns (min-max) | "
               "p90 ns | p99 ns | p99/p50 | max ns | flushes/s | IPIs | "
               "L0 calls | stale |",
               "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in rs:
            if r["_kind"] == "cell-remap":
                md.append("| %s | %s | %s | %s | %s (%s-%s)%s | %s | %s | %s "
                          "| %s | %s | %s | %s | %s |" % (
                              r["wl"], r["mode"], r["n"], r["pages"],
                              r["p50_ns"], cyc_ns(r, "p50_min"),
                              cyc_ns(r, "p50_max"),
                              " *noisy*" if r["noisy"] == "1" else "",
                              r["p90_ns"], r["p99_ns"],
                              ratio(int(r["p99_cyc"]), int(r["p50_cyc"])),
                              r["max_ns"], r["fps"], r.get("ipis", "-"),
                              r.get("hc", "-"), r["stale"]))
        md += ["", "### Churn (user threads on every CPU map, touch, unmap)",
               "", "| mode | ops/s (min-max) | flushing share | IPIs | "
               "L0 calls |", "|---|---|---|---|---|"]
        for r in rs:
            if r["_kind"] == "cell-churn":
                md.append("| %s | %s (%s-%s)%s | %s | %s | %s |" % (
                    r["mode"], r["ops_per_s"], r.get("ops_per_s_min", "?"),
                    r.get("ops_per_s_max", "?"),
                    " *noisy*" if r["noisy"] == "1" else "",
                    share(r, "") or "-", r.get("ipis", "-"),
                    r.get("hc", "-")))
        for r in rs:
            if r["_kind"] == "cell-reuse" and r["mode"] == "clock-off":
                md += ["", "### Free-reuse (TLB clock against an oracle)", "",
                       "%s frames freed lazily and reused with the TLB clock "
                       "off (the L0 flushes, docs/flush.md): every reuse "
                       "flushed, %s of those CPU flushes unneeded by the "
                       "oracle; stale reads %s." % (
                           r["frames"], r["skippable"], r["stale"])]
            elif r["_kind"] == "cell-reuse":
                md += ["", "### Free-reuse (TLB clock against an oracle)", "",
                       "%s frames freed lazily and reused: of %s CPU flushes "
                       "an oracle knew to be unneeded, the clock skipped %s "
                       "(clk_eff %s); stale reads %s." % (
                           r["frames"], r["skippable"], r["skipped"],
                           r["clk_eff"], r["stale"])]
        md += ["", "### Targets", "", "| target | value | verdict |",
               "|---|---|---|"]
        rejected = sum(1 for path, _, _ in errors if path == rs[0]["_log"])
        for name, value, verdict in targets(rs, rejected):
            md.append("| %s | %s | %s |" % (name, value, verdict))
        for r in rs:
            if r["_kind"] == "sum":
                peer = r.get("os") == "linux"
                md += ["", "### %s" % ("The Linux peer's summary" if peer
                                       else "Same-run ratios"), "",
                       "| ratio | value |", "|---|---|"]
                for k, v in r.items():
                    if (not k.startswith("_") and
                            k not in ("v", "hv", "cpus", "os")):
                        md.append("| %s | %s |" % (k, v))
        md.append("")
    return "\n".join(md)
