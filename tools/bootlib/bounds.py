# SPDX-License-Identifier: GPL-2.0-only
# What bounds a tools/boot run, and what its end at a bound means.
#
# A time limit is not a verdict. A run is stopped when its console has
# been silent for the environment's silence bound (a hang, exit 2, after
# the environment asked its L0 for its state), or at a generous total
# backstop; a run still making progress there did not crash or hang: it
# did not finish, and its verdict says what it was doing (exit 1: a test
# that did not complete, as the detector's own time budget is a test
# failure). --timeout S is the time a run is expected to take; the
# backstop is BACKSTOP_FACTOR times it, and a run that passes S is only
# noted.

import collections

# The backstop as a multiple of the run's --timeout.
BACKSTOP_FACTOR = 3
# "Recent progress" at the backstop: lines seen within this many seconds.
RECENT_S = 60.0
# How much of a console line a verdict quotes.
QUOTE_CHARS = 100
# Exit statuses (docs/design.md#runner-exit-status).
HANG = 2
INCOMPLETE = 1


# kernel/task/run-programs.c: a run= program may run this long (run-timeout=, s) before
# shimk kills it, and it may be silent all along.
RUN_TIMEOUT_S = 120
# Room for shimk to report the kill.
RUN_MARGIN_S = 30


def silence_for(default, append):
    """The silence bound for a shimk command line: the environment's, or
    longer where a run= program may legitimately be silent longer (its
    run-timeout=, after which shimk kills it and says so)."""
    words = append.split()
    if not any(w.startswith("run=") for w in words):
        return default
    limit = RUN_TIMEOUT_S
    for w in words:
        if w.startswith("run-timeout="):
            try:
                limit = int(w[len("run-timeout="):])
            except ValueError:
                pass
    return max(default, limit + RUN_MARGIN_S)


def backstop(timeout):
    """The total bound of a run expected to take timeout seconds."""
    return timeout * BACKSTOP_FACTOR


def quote(text):
    text = text.strip()
    if len(text) > QUOTE_CHARS:
        text = text[:QUOTE_CHARS - 3] + "..."
    return "'%s'" % text


class Progress:
    """When console lines came: the silence, recent progress, the longest
    quiet stretch (for sizing the silence bounds)."""

    def __init__(self, start):
        self.start = start
        self.last = start
        self.last_text = None
        self.lines = 0
        self.recent = collections.deque()
        # (seconds, the line that ended the quiet stretch, its number)
        self.longest = (0.0, None, 0)

    def line(self, now, text):
        gap = now - self.last
        self.lines += 1
        if gap > self.longest[0]:
            self.longest = (gap, text, self.lines)
        self.last = now
        self.last_text = text
        self.recent.append(now)
        while self.recent and self.recent[0] < now - RECENT_S:
            self.recent.popleft()

    def silent_for(self, now):
        return now - self.last

    def recent_lines(self, now):
        return sum(1 for t in self.recent if t >= now - RECENT_S)


def finished_tests(ktest_end, exit_line):
    """What shimk said it finished, as a phrase, or None."""
    parts = []
    if ktest_end:
        parts.append("KTEST: END %d passed, %d failed, %d skipped"
                     % ktest_end)
    if exit_line is not None:
        parts.append("'shimk: exit %d'" % exit_line)
    return "; ".join(parts) or None


def silent(progress, now, bound, stall=None, finished=None, where=None):
    """(status, verdict) of a run stopped at its silence bound."""
    quiet = progress.silent_for(now)
    if progress.last_text is None:
        what = "silent %d s from the start (no console line; the bound " \
               "is %g s)" % (quiet, bound)
    else:
        what = "silent %d s (the bound is %g s) after line %d %s" % (
            quiet, bound, progress.lines, quote(progress.last_text))
    if finished:
        # The tests were over: what never came is the exit, through shimk's
        # exit path or the L0's report of it.
        what += "; shimk's tests had finished (%s) but the exit did not " \
                "arrive" % finished
    for extra in (where, stall):
        if extra:
            what += ": %s" % extra
    return HANG, what


def at_backstop(progress, now, limit, timeout, finished=None, where=None):
    """(status, verdict) of a run stopped at its backstop."""
    n = progress.recent_lines(now)
    head = "incomplete: still running at the backstop of %g s (%d x " \
           "--timeout %g s)" % (limit, BACKSTOP_FACTOR, timeout)
    if progress.last_text is None:
        what = "%s: no console line at all" % head
        return HANG, what
    if n:
        what = "%s: %d line%s in the last minute, last line %s" % (
            head, n, "" if n == 1 else "s", quote(progress.last_text))
    else:
        what = "%s: no line in the last minute, the last %d s ago: %s" % (
            head, progress.silent_for(now), quote(progress.last_text))
    if finished:
        what += "; shimk's tests had finished (%s)" % finished
    if where:
        what += "; %s" % where
    return INCOMPLETE, what


def late_note(elapsed, timeout, limit):
    """A note for a run that ended past --timeout, or None."""
    if elapsed <= timeout:
        return None
    return ("the run took %d s, past --timeout %g s (the backstop is %g s)"
            % (elapsed, timeout, limit))
