#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# The fences tests/model/tso.pml needs are in the kernel's object code (TAP).

"""
tests/model/tso.pml shows that each store-then-load pair of the
shootdown argument fails under x86-TSO unless the store is a locked
instruction (or followed by MFENCE).  This test reads the kernel's own
objects and checks that each function holding such a store has one: a
compiler or source change that turns one into a plain MOV fails here,
before any run could show it.  Each case names the pair (docs/model.md,
"Under x86-TSO").
"""

import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.realpath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
from pytap import case  # noqa: E402
import pytap  # noqa: E402

BUILD = os.environ.get("BUILD", os.path.join(ROOT, "build"))

# A locked read-modify-write, an XCHG with memory (locked by definition,
# SDM Vol. 3A, 9.1.2.1) or MFENCE: each drains the store buffer.
_FENCE_RE = re.compile(r"\block\b|\bxchg\b.*\(|\bmfence\b")


def disassembly(src):
    """objdump of the kernel object built from src, brought up to date
    first (make rebuilds it only if its source changed)."""
    obj = os.path.join(BUILD, src[:-2] + ".o")
    if BUILD == os.path.join(ROOT, "build"):
        subprocess.run(["make", "-s", "--no-print-directory",
                        os.path.relpath(obj, ROOT)], cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL)
    return subprocess.run(["objdump", "-d", "--no-show-raw-insn", obj],
                          check=True, stdout=subprocess.PIPE,
                          universal_newlines=True).stdout


def function_body(text, name):
    m = re.search(r"^[0-9a-f]+ <%s>:\n(.*?)(?:\n\n|\Z)" % re.escape(name),
                  text, re.M | re.S)
    return m.group(1) if m else None


def fenced(src, name):
    body = function_body(disassembly(src), name)
    if body is None:
        print("# %s: no function %s in its object" % (src, name))
        return False
    hits = [l.strip() for l in body.splitlines() if _FENCE_RE.search(l)]
    if not hits:
        print("# %s: %s has no locked instruction, XCHG or MFENCE"
              % (src, name))
    return bool(hits)


def has_fence(line):
    return bool(_FENCE_RE.search(line))


@case
def fence_pattern_knows_the_forms():
    return (has_fence("lock cmpxchg %rcx,(%rax)") and
            has_fence("xchg   %rax,(%rdx)") and has_fence("mfence") and
            not has_fence("xchg   %ax,%ax") and
            not has_fence("mov    %rdx,(%rax)"))


@case
def pte_exchange_before_the_mask_read_unmap():
    """LITMUS 1 and 3: the unmap's PTE exchange (pt_unmap)."""
    return fenced("arch/x86/mm/paging.c", "pt_unmap")


@case
def pte_change_before_the_mask_read_protect():
    """LITMUS 1: aspace_protect's change (pt_protect); a plain store
    before the fix that tests/model/tso.pml asked for."""
    return fenced("arch/x86/mm/paging.c", "pt_protect")


@case
def pte_exchange_before_the_mask_read_remap():
    """LITMUS 1: aspace_remap_flags's exchange."""
    return fenced("arch/x86/mm/aspace.c", "aspace_remap_flags")


@case
def mask_bit_and_clean_before_the_root_load():
    """LITMUS 1 and 2: aspace_switch's bit set and tlb_clean store."""
    return fenced("arch/x86/mm/aspace.c", "aspace_switch")


@case
def clock_tick_before_the_refill():
    """LITMUS 3: pre_flush's compare-and-swap (or its callers', where
    the compiler inlined it)."""
    src = "arch/x86/flush/flushtlb.c"
    if function_body(disassembly(src), "pre_flush") is not None:
        return fenced(src, "pre_flush")
    return fenced(src, "flush_area_local") and fenced(src, "switch_cr3")


if __name__ == "__main__":
    sys.exit(pytap.main())
