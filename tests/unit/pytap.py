# SPDX-License-Identifier: GPL-2.0-only
# The TAP runner of the Python unit tests (tests/unit/test-*.py).

CASES = []


def case(fn):
    """Register a test: a function that returns True when it passed."""
    CASES.append(fn)
    return fn


def main():
    print("1..%d" % len(CASES))
    failed = 0
    for i, fn in enumerate(CASES, 1):
        try:
            ok = fn()
        except Exception as e:  # a crash is a failure, with its reason
            ok = False
            print("# %s: %r" % (fn.__name__, e))
        print("%s %d - %s" % ("ok" if ok else "not ok", i, fn.__name__))
        failed += not ok
    return 1 if failed else 0
