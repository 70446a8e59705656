# SPDX-License-Identifier: GPL-2.0-only
# The boot matrix: its rows, the boots they expand to, and a boot's verdict.
"""What tools/run-matrix knows about the matrix, apart from running it.

A row is one [section] of a matrix file (tests/matrix/*.ini, the keys
in docs/design.md#matrix-keys); Row checks every key as it reads it,
so that a typo fails the whole matrix before anything boots.  expand()
makes the boots of the rows under each --qemu and --repeat; judge()
turns one boot's exit status and output into PASS, FAIL, SKIP or
INCONCLUSIVE, by the rules of docs/design.md#judging-a-row.  A row
passes only when the runner's exit status matches the expected outcome
AND the boot summary names the expected hypervisor: a kernel that
passes its tests after detecting the wrong environment has tested the
wrong thing.

Nothing here starts QEMU: post_check() runs the row's own check
command on output already recorded.  run-matrix keeps the processes,
the thread pool and the printing.
"""

import argparse
import configparser
import glob
import os
import re
import shlex
import subprocess

from bootlib import (bounds, detector, l0rates, l1ver, mutation, peer,
                     qemu, xenver)
from bootlib.common import ROOT

BOOT = os.path.join(ROOT, "tools", "boot")
CHECK_DIR = os.path.join(ROOT, "build", "check")
# The matrix of make check: one file per environment, read in name order.
DEFAULT_MATRIX = os.path.join(ROOT, "tests", "matrix", "*.ini")

KEYS = {"env", "smp", "host_cpus", "mem", "cpu", "append", "xen_append",
        "timeout", "expect", "expect_hv", "summary", "expect_lines",
        "expect_total", "post_check", "groups", "modules", "initrd",
        "long_option", "peer", "peer_timeout", "peer_append", "l0_retries",
        "expect_verdict", "qemu", "expect_log", "xen", "l1_linux",
        "lifecycle"}
# The environments and their tools/boot default timeouts (s).
ENVS = {"tcg": 60, "kvm": 60, "xen": 180, "grub": 60, "grub-xen": 180,
        "xl": 180, "kvm-nested": 240, "hyperv-nested": 240}
NESTED = ("kvm-nested", "hyperv-nested")
# tools/boot --peer linux: where it runs.
PEER_ENVS = ("xl",) + NESTED
# expect_total: "REGEX >= N", REGEX with one group of digits; the numbers
# it finds on every console line are summed.
TOTAL_RE = re.compile(r"^(.*\(.*\).*?)\s+>=\s+(\d+)$")
EXPECTS = {"pass", "fail", "panic"}
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
SUMMARY_RE = re.compile(r"^shimk: boot (.*)$")
PANIC_RE = re.compile(r"^shimk: PANIC on CPU")
# shimk's timer account at exit (kernel/sched/stats.c): a wake that found no
# expiry armed for it is a shimk bug in any row.
TIMER_RE = re.compile(r"^shimk: timer: late wakes: nothing-armed (\d+)")
# Time tools/boot may need beyond the row's own timeout (ISO builds, QEMU
# start-up and tear-down) before it counts as stuck itself.
SLACK_S = 120
# The tools run once before the rows that need them, so that the first
# such row's time does not include a download or a build, with their
# time limits (s). A failure is left for those rows to report as SKIP.
# Each is the tool's argument list under tools/.
PREPARE_XEN = (("fetch-xen",), 1200)
PREPARE_XL = (("xl-dom0",), 1800)
PREPARE_NESTED = (("kvm-l1",), 1800)
PREPARE_QEMU = (("fetch-qemu",), 1200)
XEN_ENVS = ("xen", "grub-xen", "xl")


class MatrixError(Exception):
    """A matrix that cannot be run as written: run-matrix says why and
    exits 2 before anything boots."""


# A row in this group runs only when --only or --group selects it (make
# stress's longer rows), not in a plain run such as make check's.
STRESS_GROUP = "stress"


def selected(rows, named):
    """The rows a run takes: all when named by --only or --group, else
    all but the stress group's."""
    return rows if named else [r for r in rows
                               if STRESS_GROUP not in r.groups]


def matrix_files():
    """make check's matrix: the files DEFAULT_MATRIX names, in name
    order."""
    return sorted(glob.glob(DEFAULT_MATRIX))


class Row:
    """One [section] of a matrix file, every key checked."""

    def __init__(self, name, sec, path):
        self.name = name
        bad = set(sec.keys()) - KEYS
        if bad:
            raise MatrixError("%s: [%s]: unknown key(s): %s"
                              % (path, name, ", ".join(sorted(bad))))
        if not NAME_RE.match(name):
            raise MatrixError("%s: [%s]: row names are used as file names; "
                              "use letters, digits, '-', '_' and '.'"
                              % (path, name))
        self.env = sec.get("env", "").strip()
        if self.env not in ENVS:
            raise MatrixError("%s: [%s]: env must be one of %s"
                              % (path, name, " ".join(sorted(ENVS))))
        self.expect = sec.get("expect", "pass").strip()
        if self.expect not in EXPECTS:
            raise MatrixError("%s: [%s]: expect must be pass, fail or panic"
                              % (path, name))
        self.smp = self._int(sec, "smp", path)
        self.host_cpus = self._int(sec, "host_cpus", path)
        self.mem = self._int(sec, "mem", path)
        self.timeout = self._int(sec, "timeout", path)
        self.cpu = sec.get("cpu", "").strip()
        self.append = sec.get("append", "").strip()
        self.xen_append = sec.get("xen_append", "").strip()
        self.expect_hv = sec.get("expect_hv", "").strip()
        self.summary = {}
        for kv in sec.get("summary", "").split():
            k, sep, v = kv.partition("=")
            if not sep:
                raise MatrixError("%s: [%s]: summary wants key=value, got "
                                  "'%s'" % (path, name, kv))
            self.summary[k] = v
        # A substring of tools/boot's verdict: for a failure that shimk
        # cannot print itself (a triple fault the memory reader blames on
        # shimk), it stands in for the PANIC line an expect=panic row wants.
        # Several, '|'-separated: any one of them.
        self.expect_verdict = [v.strip() for v in
                               sec.get("expect_verdict", "").split("|")
                               if v.strip()]
        self.expect_lines = [s.strip()
                             for s in sec.get("expect_lines", "").split("|")
                             if s.strip()]
        self.expect_total = None
        if sec.get("expect_total", "").strip():
            m = TOTAL_RE.match(sec["expect_total"].strip())
            try:
                if not m:
                    raise re.error("not 'REGEX >= N'")
                self.expect_total = (re.compile(m.group(1)),
                                     int(m.group(2)), m.group(1))
                if self.expect_total[0].groups != 1:
                    raise re.error("wants exactly one group")
            except re.error as e:
                raise MatrixError("%s: [%s]: expect_total '%s': %s"
                                  % (path, name, sec["expect_total"].strip(),
                                     e))
        # A command run on the row's console output (its file name
        # appended) once the row has otherwise passed; non-zero fails it.
        self.post_check = shlex.split(sec.get("post_check", ""))
        self.groups = sec.get("groups", "").split()
        # User programs for the initrd (tools/boot --module), or a ready
        # archive (--initrd), relative to the tree: built by make.
        self.modules = sec.get("modules", "").split()
        # An option of this many bytes ('x's) before append's own.
        self.long_option = self._int(sec, "long_option", path)
        self.initrd = sec.get("initrd", "").strip()
        # The Linux peer after shimk, in the same L0 boot (docs/
        # linux-peer.md); tools/boot folds its verdict into the run's.
        self.peer = sec.get("peer", "").strip()
        if self.peer not in ("", "linux"):
            raise MatrixError("%s: [%s]: peer must be linux" % (path, name))
        if self.peer and self.env not in PEER_ENVS:
            raise MatrixError("%s: [%s]: peer = linux needs env %s" % (
                path, name, ", ".join(PEER_ENVS)))
        self.peer_timeout = self._int(sec, "peer_timeout", path)
        # More boots than tools/boot's one retry where the L0 was shown
        # to be at fault (a row with the Linux peer boots two guests).
        self.l0_retries = self._int(sec, "l0_retries", path)
        self.peer_append = sec.get("peer_append", "").strip()
        if (self.peer_timeout or self.peer_append) and not self.peer:
            raise MatrixError("%s: [%s]: peer_timeout and peer_append need "
                              "peer = linux" % (path, name))
        # The row's QEMU where it needs one (tools/boot --qemu: system,
        # backports, or a path relative to the tree); run-matrix --qemu
        # overrides it.
        self.qemu = sec.get("qemu", "").strip()
        if self.qemu and self.qemu not in qemu.KEYWORDS:
            if "/" not in self.qemu:
                raise MatrixError("%s: [%s]: qemu must be %s or a path" % (
                    path, name, " or ".join(qemu.KEYWORDS)))
            self.qemu = os.path.join(ROOT, self.qemu)
        # Substrings that must each be in the raw log (--log), or with a
        # leading '!' must not be: the L0's own lines, which never reach
        # the console (Xen's, L1's).
        self.expect_log = [x.strip()
                           for x in sec.get("expect_log", "").split("|")
                           if x.strip()]
        # The L0's version (tools/boot --xen, --l1-linux), empty for the
        # default; the Linux peer runs on the defaults only.
        self.xen = self._version(sec, "xen", xenver, XEN_ENVS, path)
        self.l1_linux = self._version(sec, "l1_linux", l1ver, NESTED, path)
        # tools/boot --lifecycle: the toolstack's steps (env xl) or
        # L1's (kvm-nested, hyperv-nested).
        self.lifecycle = sec.get("lifecycle", "").strip()
        if self.lifecycle and self.env not in ("xl", "kvm-nested",
                                               "hyperv-nested"):
            raise MatrixError("%s: [%s]: lifecycle needs env xl, "
                              "kvm-nested or hyperv-nested"
                              % (path, name))

    def _version(self, sec, key, table, envs, path):
        """A version key (bootlib/xenver.py, bootlib/l1ver.py)."""
        v = sec.get(key, "").strip()
        if not v:
            return v
        where = "%s: [%s]: %s" % (path, self.name, key)
        if v not in table.VERSIONS:
            raise MatrixError("%s must be one of %s" % (
                where, ", ".join(sorted(table.VERSIONS))))
        if self.env not in envs:
            raise MatrixError("%s = %s needs env %s" % (where, v,
                                                        ", ".join(envs)))
        if self.peer:
            raise MatrixError("%s = %s: the Linux peer runs on %s only" % (
                where, v, table.DEFAULT))
        return v

    def _int(self, sec, key, path):
        if key not in sec:
            return None
        try:
            v = int(sec[key])
        except ValueError:
            v = 0
        if v < 1:
            raise MatrixError("%s: [%s]: %s must be a positive integer, got "
                              "'%s'" % (path, self.name, key, sec[key]))
        return v

    def boot_cmd(self, log, qemu_spec=None, extra_append="", scale=1):
        """tools/boot's command line for one boot of the row: extra_append
        and scale are run-matrix's --extra-append and --timeout-scale."""
        cmd = [BOOT, "--env", self.env, "--log", log]
        if qemu_spec:
            cmd += ["--qemu", qemu_spec]
        append = " ".join(x for x in ("x" * (self.long_option or 0),
                                      self.append, extra_append) if x)
        # shimk's share; tools/boot adds the peer's (--peer-timeout).
        timeout = self.expected(scale)
        for opt, val in (("--smp", self.smp),
                         ("--host-cpus", self.host_cpus), ("--mem", self.mem),
                         ("--timeout", timeout), ("--cpu", self.cpu),
                         ("--append", append),
                         ("--xen-append", self.xen_append),
                         ("--xen", self.xen),
                         ("--l1-linux", self.l1_linux),
                         ("--lifecycle", self.lifecycle)):
            if val:
                cmd += [opt, str(val)]
        if self.peer:
            cmd += ["--peer", self.peer,
                    "--peer-timeout", str(self.peer_share(scale))]
            if self.peer_append:
                cmd += ["--peer-append", self.peer_append]
        if self.l0_retries:
            cmd += ["--l0-retries", str(self.l0_retries)]
        for m in self.modules:
            cmd += ["--module", os.path.join(ROOT, m)]
        if self.initrd:
            cmd += ["--initrd", os.path.join(ROOT, self.initrd)]
        return cmd

    def peer_share(self, scale=1):
        """The peer's share of the timeout, as tools/boot's default."""
        if not self.peer:
            return 0
        return peer.share(argparse.Namespace(
            append=self.append, peer_append=self.peer_append,
            peer_timeout=self.peer_timeout)) * scale

    def expected(self, scale=1):
        """The row's timeout: what tools/boot --timeout gets."""
        return (self.timeout or ENVS[self.env]) * scale

    def boot_timeout(self, scale=1):
        """The most one tools/boot run may take: its backstop (a multiple
        of --timeout, bootlib/bounds.py) and the peer's share, plus
        slack."""
        return (bounds.backstop(self.expected(scale)) + SLACK_S +
                self.peer_share(scale))

    def run_limit(self, scale=1):
        """The most one boot of the row may take, with room for every
        boot tools/boot may make: it retries an L0 fault once unless the
        row says otherwise (--l0-retries, default 1)."""
        boots = 1 + (1 if self.l0_retries is None else self.l0_retries)
        return self.boot_timeout(scale) * boots


def parse(text, path):
    """The rows of a matrix file's text, in its order; path names the
    file in errors.  ';' or '#' after a blank starts a comment, and no
    section is a default for the others."""
    cp = configparser.ConfigParser(inline_comment_prefixes=(";", "#"),
                                   interpolation=None, default_section="\0")
    try:
        cp.read_string(text, source=path)
    except configparser.Error as e:
        raise MatrixError("%s: %s" % (path, e))
    return [Row(name, cp[name], path) for name in cp.sections()]


def load(path):
    """The rows of one matrix file, in the file's order."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise MatrixError("%s: %s" % (path, e))
    return parse(text, path)


def load_all(paths):
    """The rows of several matrix files, file after file.  A row name is
    a log's file name and what --only selects, so it may appear once in
    the whole matrix, not only once per file."""
    rows, seen = [], {}
    for path in paths:
        for r in load(path):
            if r.name in seen:
                raise MatrixError("%s: [%s]: a row of that name is already "
                                  "in %s" % (path, r.name, seen[r.name]))
            seen[r.name] = path
            rows.append(r)
    return rows


def list_line(row):
    """The row as tools/run-matrix --list shows it."""
    return ("%-30s env=%-13s expect=%-5s groups=%s%s"
            % (row.name, row.env, row.expect, ",".join(row.groups),
               " qemu=%s" % qemu_tag(row.qemu) if row.qemu else ""))


# --- the boots of a run ---

class Job:
    """One boot of a row: under which QEMU (None: tools/boot's choice),
    which of --repeat's runs, and its log."""

    def __init__(self, row, spec, n, many):
        self.row = row
        self.spec = spec
        self.n = n
        name = row.name
        if many:
            # Every boot keeps its own log: <row>.<qemu>.<run>.log.
            name += ".%s.%d" % (qemu_tag(spec), n)
        self.log = os.path.join(CHECK_DIR, name + ".log")
        self.boot = None

    def key(self):
        return (self.spec, self.n)


def many_boots(specs, repeat):
    """Whether a row boots more than once in the run: then every boot
    keeps its own log and the run ends with the rates table."""
    return repeat > 1 or len(specs) > 1


def expand(rows, specs, repeat):
    """Every boot of the run: each row under each QEMU of specs (None:
    the row's own qemu key, else tools/boot's choice), repeat times.
    Interleaved, so that a machine whose load changes during the run
    weighs on every QEMU alike."""
    many = many_boots(specs, repeat)
    return [Job(r, s or r.qemu or None, n, many)
            for n in range(1, repeat + 1) for r in rows for s in specs]


def by_key(jobs):
    """The jobs of each QEMU and run, in the order first seen: each is a
    matrix of its own, with its own mutation table."""
    keys, groups = [], {}
    for job in jobs:
        if job.key() not in groups:
            keys.append(job.key())
            groups[job.key()] = []
        groups[job.key()].append(job)
    return [(k, groups[k]) for k in keys]


def preparations(rows, jobs):
    """The tools (under tools/) to run once before the rows, with their
    time limits: Xen for the Xen rows, the xl rows' dom0, the nested
    rows' L1, and QEMU 10 where a boot asks for backports."""
    todo = []
    versions = sorted(set(r.xen or xenver.DEFAULT for r in rows
                          if r.env in XEN_ENVS))
    for v in versions:
        todo.append(PREPARE_XEN if v == xenver.DEFAULT else
                    (PREPARE_XEN[0] + (v,), PREPARE_XEN[1]))
    for v in sorted(set(r.xen or xenver.DEFAULT for r in rows
                        if r.env == "xl")):
        todo.append(PREPARE_XL if v == xenver.DEFAULT else
                    (PREPARE_XL[0] + ("--xen", v), PREPARE_XL[1]))
    for v in sorted(set(r.l1_linux or l1ver.DEFAULT for r in rows
                        if r.env in NESTED)):
        todo.append(PREPARE_NESTED if v == l1ver.DEFAULT else
                    (PREPARE_NESTED[0] + ("--linux", v), PREPARE_NESTED[1]))
    if any(j.spec == "backports" for j in jobs):
        todo.append(PREPARE_QEMU)
    return todo


def qemu_tag(spec):
    if not spec or spec in qemu.KEYWORDS:
        return spec or "default"
    # A path: its last folder and file, made file-name safe.
    return re.sub(r"[^A-Za-z0-9_.-]", "_", "-".join(
        spec.rstrip("/").split("/")[-2:]))


def qemu_label(job, stderr):
    """' [qemu 10.0.2 (backports)]' where the row ran under a QEMU that is
    not its environment's default, else ''."""
    spec = job.spec
    if not spec or qemu.is_default(job.row.env, spec):
        return ""
    version = None
    for l in boot_lines(stderr):
        m = l0rates.QEMU_NOTE_RE.match(l)
        if m:
            version = m.group(1)
    return " [qemu %s (%s)]" % (version or "?", qemu_tag(spec))


def job_name(job, stderr, repeat):
    """The boot's name in its result line: the row's, the QEMU where it
    is not the environment's default, and the run with --repeat."""
    name = job.row.name + qemu_label(job, stderr)
    if repeat > 1:
        name += " #%d" % job.n
    return name


# --- what a boot said ---

def boot_lines(stderr):
    """tools/boot's own diagnostics, without the prefix."""
    return [l[6:] for l in stderr.splitlines() if l.startswith("boot: ")]


def verdict_of(stderr):
    lines = [l for l in boot_lines(stderr) if l.startswith("env=")]
    return lines[-1] if lines else "no verdict from tools/boot"


def retries(stderr):
    """tools/boot's notes of the boots it made again, where the L0 was
    shown to be at fault: a retry is never hidden."""
    return [l for l in boot_lines(stderr) if l.startswith("retry: ")]


def last_attempt(lines):
    """The console lines of the boot that counted: after tools/boot's
    last "### retry:" line, which it prints on stdout so that readers
    drop the lines of an attempt whose L0 was at fault (one cut short in
    its boot summary once read as hv=<missing>)."""
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].startswith("### retry:"):
            return lines[i + 1:]
    return lines


def failure_lines(lines, most=24):
    """What failed, from the counted attempt's console: every "not ok"
    line with the comment lines after it, the panic and L0-fault lines
    and the ktest totals.  A failed row prints these before its log's
    tail: the tail alone once hid which two ktests had failed (a fresh
    root's xl-smp4, whose log went with the root)."""
    out, after = [], 0
    for line in last_attempt(lines):
        text = line.split("| ", 1)[-1] if "| " in line else line
        if text.startswith("not ok ") or "PANIC" in text or \
                "L0 fault" in text or text.startswith("KTEST: END"):
            out.append(line)
            after = 3 if text.startswith("not ok ") else 0
        elif after and text.startswith("#"):
            out.append(line)
            after -= 1
        else:
            after = 0
    if len(out) > most:
        out = out[:most] + ["... %d more" % (len(out) - most)]
    return out


def judge(row, rc, stdout, stderr, log=None):
    """Return ("PASS"|"FAIL"|"SKIP"|"INCONCLUSIVE", why).

    In a detector row the kernel's own verdicts come first
    (bootlib/detector.py): a case whose controls saw nothing makes the
    row INCONCLUSIVE once its other checks pass, never PASS.  Only the
    last attempt's lines are judged (last_attempt()).
    """
    lines = last_attempt(stdout.splitlines())
    inconclusive = None
    if "detector" in row.groups:
        rc, inconclusive, fail = detector.row(detector.read(lines), rc,
                                               row.expect)
        if fail:
            return "FAIL", fail
        if rc is None:
            return "INCONCLUSIVE", inconclusive
    status, why = judge_rest(row, rc, lines, stdout, stderr, log)
    if status == "PASS" and inconclusive:
        return "INCONCLUSIVE", inconclusive
    return status, why


def judge_rest(row, rc, lines, stdout, stderr, log):
    """The row's own checks: exit status, summary, lines, counts."""
    if rc == 77:
        verdict = verdict_of(stderr)
        if "(everything skipped)" in verdict:
            return "SKIP", "shimk skipped everything"
        why = [l for l in boot_lines(stderr) if not l.startswith("env=")]
        return "SKIP", why[-1] if why else verdict
    want = {"pass": 0, "fail": 1, "panic": 2}[row.expect]
    if rc != want:
        return "FAIL", "expected %s, tools/boot said: %s" % (
            row.expect, verdict_of(stderr))
    if row.expect_verdict and not any(v in verdict_of(stderr)
                                      for v in row.expect_verdict):
        return "FAIL", "expected a verdict with '%s', tools/boot said: %s" % (
            "' or '".join(row.expect_verdict), verdict_of(stderr))
    if row.expect == "panic" and not row.expect_verdict and \
            not any(PANIC_RE.match(l) for l in lines):
        return "FAIL", ("expected a shimk panic, got rc 2 without a "
                        "'shimk: PANIC on CPU' line (%s)" % verdict_of(stderr))

    summary = None
    for l in lines:
        m = SUMMARY_RE.match(l)
        if m:
            summary = dict(kv.partition("=")[::2] for kv in m.group(1).split())
            break
    if summary is None:
        if row.expect == "pass":
            return "FAIL", "no boot summary line"
    else:
        if row.expect_hv and summary.get("hv") != row.expect_hv:
            return "FAIL", "boot summary says hv=%s, expected hv=%s" % (
                summary.get("hv", "<missing>"), row.expect_hv)
        for k, v in row.summary.items():
            if k not in summary:
                return "FAIL", "boot summary has no %s=" % k
            if summary[k] != v:
                return "FAIL", "boot summary says %s=%s, expected %s=%s" % (
                    k, summary[k], k, v)
    for s in row.expect_lines:
        if not any(s in l for l in lines):
            return "FAIL", "no output line contains '%s'" % s
    if row.expect_log:
        try:
            with open(log, encoding="utf-8", errors="replace") as f:
                raw = f.read()
        except (OSError, TypeError) as e:
            return "FAIL", "expect_log: cannot read the log: %s" % e
        for s in row.expect_log:
            if s.startswith("!"):
                if s[1:] in raw:
                    return "FAIL", "the raw log contains '%s'" % s[1:]
            elif s not in raw:
                return "FAIL", "no line of the raw log contains '%s'" % s
    if row.expect_total:
        rx, least, text = row.expect_total
        total = sum(int(m.group(1)) for m in map(rx.search, lines) if m)
        if total < least:
            return "FAIL", ("'%s' totals %d on the console, expected at "
                            "least %d" % (text, total, least))
    timer = [TIMER_RE.match(l) for l in lines if TIMER_RE.match(l)]
    if timer and int(timer[-1].group(1)):
        return "FAIL", ("%s late wakes found no timer expiry armed for them "
                        "(a shimk bug; see the 'shimk: timer:' line)"
                        % timer[-1].group(1))
    if row.expect == "pass" and not timer:
        return "FAIL", "no 'shimk: timer:' account at exit"
    if row.post_check:
        return post_check(row, stdout, log)
    return "PASS", ""


def post_check(row, stdout, log=None):
    """Run the row's post_check on its console output, written beside
    the row's log as <log>.out (with --repeat each boot has its own)."""
    path = (log[:-len(".log")] if log and log.endswith(".log")
            else os.path.join(CHECK_DIR, row.name)) + ".out"
    with open(path, "w", encoding="utf-8") as f:
        f.write(stdout)
    cmd = list(row.post_check)
    if not os.path.isabs(cmd[0]) and os.sep in cmd[0]:
        cmd[0] = os.path.join(ROOT, cmd[0])
    try:
        r = subprocess.run(cmd + [path], stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return "FAIL", "post_check %s: %s" % (row.post_check[0], e)
    said = [l for l in (r.stdout + r.stderr).splitlines() if l.strip()]
    if r.returncode:
        return "FAIL", "post_check %s said: %s" % (
            " ".join(row.post_check), " / ".join(said[-5:]) or
            "exit %d" % r.returncode)
    return "PASS", ""


# --- the lines of the report ---

def result_line(status, name, secs, why, retried=()):
    """A boot's line: PASS (with every retry it took), SKIP,
    INCONCLUSIVE or FAIL (whose log tail run-matrix adds below)."""
    if status == "PASS":
        return "PASS %s (%.1fs%s)" % (name, secs, "".join(
            ", after a %s" % l for l in retried))
    if status == "SKIP":
        return "SKIP %s: %s" % (name, why)
    if status == "INCONCLUSIVE":
        return ("INCONCLUSIVE %s (%.1fs): %s; counted as skipped"
                % (name, secs, why))
    if retried:
        # How many boots the verdict is the last of: a row that spent
        # its retries on proven L0 faults reads differently from one
        # that failed on its first boot.
        return "FAIL %s: %s (the last of %d boots: %d retried after a " \
               "proven L0 fault)" % (name, why, len(retried) + 1,
                                     len(retried))
    return "FAIL %s: %s" % (name, why)


def count(statuses):
    """Passed, failed and skipped: an INCONCLUSIVE boot counts as skipped
    (the kernel said its detector could not have failed there)."""
    counts = {"PASS": 0, "FAIL": 0, "SKIP": 0}
    for s in statuses:
        counts[{"INCONCLUSIVE": "SKIP"}.get(s, s)] += 1
    return counts


def summary_line(counts):
    return "matrix: %d passed, %d failed, %d skipped" % (
        counts["PASS"], counts["FAIL"], counts["SKIP"])


def mutation_lines(rows, results, logs):
    """The mutation rows' classes, one line per environment and class,
    then the classes no environment could show and the detector's
    summary; [] without a mutation row that ran.  results and logs are
    by row name.  The environments come in the order of ENVS, whichever
    matrix file each row is in."""
    per_env = []
    for r in rows:
        if "mutation" not in r.groups or results.get(r.name) == "SKIP":
            continue
        try:
            with open(logs[r.name], encoding="utf-8",
                      errors="replace") as f:
                per_env.append((r.env, mutation.parse(f)))
        except OSError:
            per_env.append((r.env, {}))
    if not per_env:
        return []
    order = list(ENVS)
    per_env.sort(key=lambda e: order.index(e[0]))
    lines, caught, total, unshown = mutation.table(per_env)
    for c, why in sorted(unshown.items()):
        lines.append("mutation: %s cannot show anywhere here: %s" % (c, why))
    return lines + [mutation.summary(caught, total, unshown)]
