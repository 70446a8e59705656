# SPDX-License-Identifier: GPL-2.0-only
# Boots of matrix rows under each QEMU, tallied side by side (--repeat).
#
# Each boot is one tools/boot run of a row: its final verdict, and the
# verdicts and reasons of the attempts its L0-fault retries replaced
# (tools/boot prints each: "env=... rc=2 (...)" then "retry: ..."). A boot
# that passed only after a retry is counted as such, never as a plain
# pass, and its retry reasons are listed.

import re

# tools/boot's verdict and retry notes (stderr, "boot: " removed).
VERDICT_RE = re.compile(r"^env=\S+ rc=(\d+) \((.*)\)(?: \[qemu [^]]*\])?$")
RETRY_RE = re.compile(r"^retry: (?:the \w+ run's L0 was at fault \()?(.*?)"
                      r"(?:\); booting once more)?$")
QEMU_NOTE_RE = re.compile(r"^qemu: (\S+) (\S+) \(")
# The L0 livelock of docs/kvm-nested.md#the-verdicts
# (an L2 vCPU's RIP fixed while KVM keeps entering it) counts where a
# verdict says so. The older verdict, "L2 silent ...: shimk stuck: vCPU0
# running at ...", comes from one register sample: a livelock, or an L2
# only slowed down (a loaded host), so it is counted apart as
# "silent-running", with its place, and never as a livelock.
_SILENT_RUNNING_RE = re.compile(r"silent .*running at")


def livelock(text):
    """Whether a verdict or retry reason says it was an L0 livelock."""
    return "livelock" in text.lower()


def silent_running(text):
    """A silent L2 with a vCPU running, not called a livelock."""
    return not livelock(text) and bool(_SILENT_RUNNING_RE.search(text))


class Boot:
    """One tools/boot run of a row under one QEMU."""

    def __init__(self, row, qemu, n, status, stderr_lines, why="", secs=0.0):
        self.row = row
        self.qemu = qemu        # the --qemu value (or "default")
        self.n = n              # 1-based run number
        self.status = status    # run-matrix's PASS, FAIL or SKIP
        self.why = why          # run-matrix's reason for FAIL or SKIP
        self.secs = secs
        verdicts = [l for l in stderr_lines if VERDICT_RE.match(l)]
        self.retries = []
        for l in stderr_lines:
            m = RETRY_RE.match(l)
            if m and l.startswith("retry: "):
                self.retries.append(m.group(1))
        # The attempts the retries replaced, then the final one.
        self.attempts = verdicts
        self.verdict = verdicts[-1] if verdicts else "no verdict from " \
            "tools/boot"
        self.version = None
        # The host's 1-minute load average at the end (run-matrix sets it).
        self.load = None
        for l in stderr_lines:
            m = QEMU_NOTE_RE.match(l)
            if m:
                self.version = m.group(1)

    def outcome(self):
        if self.status == "PASS":
            if self.retries:
                return "passed after %d retr%s" % (
                    len(self.retries), "y" if len(self.retries) == 1
                    else "ies")
            return "passed"
        return {"FAIL": "failed", "SKIP": "skipped"}.get(self.status,
                                                         self.status)

    def count(self, test):
        """Attempts of this boot whose verdict (or retry reason) passes
        test."""
        # A replaced attempt shows up as its verdict and its retry
        # reason, in that order: each attempt counts once.
        n = 0
        for i, v in enumerate(self.attempts[:-1]):
            r = self.retries[i] if i < len(self.retries) else ""
            n += test(v) or test(r)
        if self.status == "FAIL" and self.attempts:
            n += test(self.verdict)
        return n

    def livelocks(self):
        """Attempts of this boot that ended in an L0 livelock."""
        return self.count(livelock)

    def record(self):
        """The boot as a dict (one JSON line of rates.jsonl)."""
        return {"row": self.row, "qemu": self.qemu, "version": self.version,
                "run": self.n, "status": self.status,
                "outcome": self.outcome(), "verdict": self.verdict,
                "why": self.why, "retries": self.retries,
                "attempts": self.attempts, "livelocks": self.livelocks(),
                "silent_running": self.count(silent_running),
                "secs": round(self.secs, 1), "load": self.load}


def from_record(r):
    """The Boot of one rates.jsonl line (record() read back)."""
    lines = []
    if r.get("version"):
        lines.append("qemu: %s ? (" % r["version"])
    attempts, retries = r.get("attempts", []), r.get("retries", [])
    for i, a in enumerate(attempts):
        lines.append(a)
        if i < len(retries):
            lines.append("retry: " + retries[i])
    b = Boot(r["row"], r["qemu"], r["run"], r["status"], lines,
             r.get("why", ""), r.get("secs", 0.0))
    b.load = r.get("load")
    return b


COLUMNS = ("row", "qemu", "boots", "passed", "after-retry", "failed",
           "skipped", "L0-retries", "livelocks", "silent-running")


def table(boots):
    """Lines: one per (row, QEMU) in first-seen order, then each boot that
    failed or was retried, with its verdict and reasons."""
    keys, tally = [], {}
    for b in boots:
        k = (b.row, b.qemu)
        if k not in tally:
            keys.append(k)
            tally[k] = {"boots": 0, "passed": 0, "after-retry": 0,
                        "failed": 0, "skipped": 0, "L0-retries": 0,
                        "livelocks": 0, "silent-running": 0,
                        "version": None}
        t = tally[k]
        t["boots"] += 1
        t["version"] = t["version"] or b.version
        if b.status == "PASS":
            t["after-retry" if b.retries else "passed"] += 1
        elif b.status == "SKIP":
            t["skipped"] += 1
        else:
            t["failed"] += 1
        t["L0-retries"] += len(b.retries)
        t["livelocks"] += b.livelocks()
        t["silent-running"] += b.count(silent_running)
    rows = [COLUMNS]
    for k in keys:
        t = tally[k]
        label = k[1] + (" %s" % t["version"] if t["version"] else "")
        rows.append((k[0], label) + tuple(str(t[c]) for c in COLUMNS[2:]))
    widths = [max(len(r[i]) for r in rows) for i in range(len(COLUMNS))]
    out = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()
           for r in rows]
    for b in boots:
        if b.status == "PASS" and not b.retries:
            continue
        head = "%s [%s%s] run %d: %s" % (
            b.row, b.qemu, " %s" % b.version if b.version else "", b.n,
            b.outcome())
        if b.secs:
            head += " (%.0f s%s)" % (b.secs, ", load %.1f" % b.load
                                     if b.load is not None else "")
        if b.status == "FAIL":
            # run-matrix's reason, and tools/boot's verdict where the
            # reason does not quote it (a passed boot whose summary or
            # lines were wrong).
            out.append("%s: %s" % (head, b.why or b.verdict))
            if b.attempts and b.verdict not in (b.why or b.verdict):
                out.append("    tools/boot: %s" % b.verdict)
        elif b.status == "SKIP":
            out.append("%s: %s" % (head, b.why))
        else:
            out.append(head)
        for r in b.retries:
            out.append("    retried: %s%s" % (
                r, " (livelock)" if livelock(r) else ""))
    return out
