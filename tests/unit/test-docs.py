#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# The docs stand on their own, and docs/design.md matches the tree (TAP).
#
# tools/check-links: its slugs and link rules on small cases, then the tree
# itself (every link of README.md, CHANGES.md and docs/ resolves; nothing
# cites a document a clone lacks). The README stays a front door: short,
# linking every page of docs/, each page opening with its SPDX and purpose
# lines; CHANGES.md speaks without issue numbers. Then the contract's
# tables against the code: command-line options, tools/boot's options,
# the matrix keys (and testing.md's legend of them), the environments,
# the boot summary's keys and order, the exit codes.

import ast
import importlib.machinery
import importlib.util
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.realpath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from pytap import case  # noqa: E402
import pytap  # noqa: E402


def load_tool(name):
    path = os.path.join(ROOT, "tools", name)
    loader = importlib.machinery.SourceFileLoader(name.replace("-", "_"),
                                                  path)
    spec = importlib.util.spec_from_loader(loader.name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


cl = load_tool("check-links")


def read(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


DESIGN = read("docs/design.md")


def section(heading):
    """The text of docs/design.md under a heading, up to the next one of
    the same or a higher level."""
    level = len(heading) - len(heading.lstrip("#"))
    lines = DESIGN.split("\n")
    start = lines.index(heading) + 1
    end = len(lines)
    for i in range(start, len(lines)):
        m = re.match(r"^(#+) ", lines[i])
        if m and len(m.group(1)) <= level:
            end = i
            break
    return "\n".join(lines[start:end])


def first_cells(text):
    """The first cell of each body row of the tables in text."""
    cells = []
    for line in text.split("\n"):
        if not line.startswith("|") or line.startswith("|---"):
            continue
        cell = re.split(r"(?<!\\)\|", line)[1].strip()
        cells.append(cell)
    return cells[1:] if cells else cells


def code_words(cells):
    """Every `...` of the cells, as written."""
    return [w for c in cells for w in re.findall(r"`([^`]+)`", c)]


def tree_files(top, suffixes):
    for d, dirs, files in os.walk(os.path.join(ROOT, top)):
        for f in files:
            if f.endswith(suffixes):
                yield os.path.join(d, f)


@case
def slugs_are_githubs():
    return (cl.slugify("The L0's side") == "the-l0s-side" and
            cl.slugify("`make bench`: vCPU counts and overcommit") ==
            "make-bench-vcpu-counts-and-overcommit" and
            cl.slugify("FLUSH_NO_ASSIST: flushes that are barriers") ==
            "flush_no_assist-flushes-that-are-barriers" and
            cl.slugify("The first trial of QEMU 10.0.2") ==
            "the-first-trial-of-qemu-1002")


@case
def a_repeated_heading_gets_a_number():
    found = cl.anchors("# A\n## A\n```\n# A\n```\n### A\n<a id=\"x\"></a>\n")
    return found == {"a", "a-1", "a-2", "x"}


@case
def links_in_code_are_not_links_and_text_may_wrap():
    text = ("[a](#one) `[b](#two)`\n```\n[c](#three)\n```\n"
            "[wrapped\ntext](#four)\n")
    return cl.links(text) == [(1, "#one"), (5, "#four")]


@case
def broken_links_are_found():
    with tempfile.TemporaryDirectory() as tmp:
        os.mkdir(os.path.join(tmp, "docs"))
        with open(os.path.join(tmp, "docs", "a.md"), "w") as f:
            f.write("# A\n## Here\n")
        readme = os.path.join(tmp, "README.md")
        with open(readme, "w") as f:
            f.write("[1](docs/a.md#here) [2](docs/a.md#gone) [3](docs/b.md)"
                    "\n[4](../outside.md) [5](https://example.org/#x) "
                    "[6](#nowhere)\n")
        problems = cl.check_file(readme, tmp)
    return problems == [
        "README.md:1: docs/a.md#gone: no such anchor in docs/a.md",
        "README.md:1: docs/b.md: no such file",
        "README.md:2: ../outside.md: outside the tree",
        "README.md:2: #nowhere: no such anchor in README.md"]


@case
def every_link_of_the_docs_resolves():
    problems = []
    cache = {}
    for path in cl.doc_files(ROOT):
        problems += cl.check_file(path, ROOT, cache)
    for p in problems:
        print("# %s" % p)
    return not problems


@case
def nothing_cites_a_document_a_clone_lacks():
    found = cl.outside_citations(ROOT)
    for p in found:
        print("# %s" % p)
    return not found


README_MAX_LINES = 260   # "at most about 250"


def docs_pages():
    docs = os.path.join(ROOT, "docs")
    return sorted(f for f in os.listdir(docs) if f.endswith(".md"))


@case
def the_readme_is_short_and_links_every_page():
    text = read("README.md")
    targets = {t.partition("#")[0] for _, t in cl.links(text)}
    missing = [p for p in ["CHANGES.md"] + ["docs/" + f for f in
                                            docs_pages()]
               if p not in targets]
    for p in missing:
        print("# README.md does not link %s" % p)
    lines = text.count("\n")
    if lines > README_MAX_LINES:
        print("# README.md has %d lines, more than %d"
              % (lines, README_MAX_LINES))
    return not missing and lines <= README_MAX_LINES


@case
def every_page_opens_with_its_spdx_and_purpose_lines():
    bad = []
    for f in docs_pages():
        head = read("docs/" + f).split("\n")[:2]
        if (len(head) < 2 or
                head[0] != "<!-- SPDX-License-Identifier: GPL-2.0-only -->"
                or not re.fullmatch(r"<!-- \S.* -->", head[1])):
            bad.append(f)
    for f in bad:
        print("# docs/%s: the first two lines are not the SPDX and "
              "purpose comments" % f)
    return not bad and len(docs_pages()) > 10


@case
def changes_speak_without_issue_numbers():
    found = [(n, line) for n, line in
             enumerate(read("CHANGES.md").split("\n"), 1)
             if re.search(r"(?<![\w/&])#\d+(?![\w-])|\b[Ii]ssues? \d", line)]
    for n, line in found:
        print("# CHANGES.md:%d: %s" % (n, line.strip()))
    return not found


@case
def every_registered_option_is_in_the_contract_and_no_other():
    code = set()
    rx = re.compile(r"\b(?:boolean|tristate|uint|string)_param\(\s*"
                    r"\"([^\"]+)\"")
    for top in ("arch", "guest", "kernel", "tests/ktest"):
        for path in tree_files(top, (".c",)):
            with open(path, encoding="utf-8") as f:
                code.update(rx.findall(f.read()))
    cells = first_cells(section("### Options")) + \
        first_cells(section("### Debug and test options"))
    doc = {w.split("=")[0] for w in code_words(cells)}
    for name in sorted(code - doc):
        print("# registered, not in docs/design.md: %s" % name)
    for name in sorted(doc - code):
        print("# in docs/design.md, not registered: %s" % name)
    return code == doc and len(code) > 30


@case
def tools_boot_options_are_in_the_contract():
    code = set(re.findall(r"add_argument\(\s*\"(--[a-z0-9-]+)\"",
                          read("tools/boot")))
    doc = {w.split()[0] for w in
           code_words(first_cells(section("### Runner options")))}
    for o in sorted(code ^ doc):
        print("# only in %s: %s" % ("tools/boot" if o in code
                                    else "docs/design.md", o))
    return code == doc and "--env" in code


def literal(rel, name):
    m = re.search(r"^%s = (\{.*?\})$" % name, read(rel), re.M | re.S)
    return ast.literal_eval(m.group(1))


@case
def matrix_keys_are_the_contracts():
    code = literal("tools/bootlib/matrix.py", "KEYS")
    doc = set(code_words(first_cells(section("### Matrix keys"))))
    for k in sorted(code ^ doc):
        print("# only in %s: %s" % ("tools/bootlib/matrix.py" if k in code
                                    else "docs/design.md", k))
    return code == doc


@case
def the_matrix_files_legend_names_every_key():
    text = read("docs/testing.md")
    keys = text.split("\n### Keys\n", 1)[1].split("\n## ", 1)[0]
    doc = set(re.findall(r"^- `([a-z0-9_]+)`:", keys, re.M))
    code = literal("tools/bootlib/matrix.py", "KEYS")
    for k in sorted(code ^ doc):
        print("# only in %s: %s" % ("tools/bootlib/matrix.py" if k in code
                                    else "docs/testing.md", k))
    return code == doc


@case
def environments_are_the_contracts():
    code = set(literal("tools/bootlib/matrix.py", "ENVS"))
    doc = set(code_words(first_cells(section("### Environments"))))
    return code == doc and len(code) == 8


@case
def boot_summary_keys_come_in_the_contracts_order():
    src = read("kernel/main.c")
    m = re.search(r"printk\(\"shimk: boot ((?:[^;])*?)\\n\"", src, re.S)
    fmt = re.sub(r"\"\s*\"", "", m.group(1))
    code = re.findall(r"([a-z0-9-]+)=%", fmt)
    block = re.search(r"```\n(shimk: boot .*?)```",
                      section("### Boot summary"), re.S).group(1)
    doc = re.findall(r"([a-z0-9-]+)=<", block)
    if code != doc:
        print("# kernel/main.c: %s" % " ".join(code))
        print("# docs/design.md: %s" % " ".join(doc))
    return code == doc and code[:2] == ["hv", "boot"]


@case
def exit_codes_are_the_contracts():
    code = {int(v) for v in re.findall(r"#define EXIT_\w+\s+(\d+)",
                                       read("include/shimk/panic.h"))}
    rows = [l for l in section("### shimk's exit codes").split("\n")
            if re.match(r"^\| \d", l)]
    doc = {int(r.split("|")[1]) for r in rows}
    qemu = {int(r.split("|")[1]): int(r.split("|")[2]) for r in rows}
    return code == doc and all(q == (c << 1) | 1 for c, q in qemu.items())


if __name__ == "__main__":
    sys.exit(pytap.main())
