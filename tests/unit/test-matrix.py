#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# tools/bootlib/matrix.py: matrix rows read and checked, boots judged (TAP).

import os
import sys
import tempfile

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
sys.path.insert(0, HERE)
from bootlib import matrix  # noqa: E402
from pytap import case  # noqa: E402
import pytap  # noqa: E402


def fixture(name):
    with open(os.path.join(HERE, "fixtures", name)) as f:
        return f.read()


# Recorded from real runs: the console of tcg-smp2 (ktest=all, cut to its
# boot, the last tests and its exit), of selftest-panic, and of tcg-bench
# (its boot summary, a cut of its TLBB lines and its exit).
SMP2 = fixture("matrix-tcg-smp2.txt")
PANIC = fixture("matrix-selftest-panic.txt")
BENCH = fixture("tlbb-tcg-bench.txt")
# tools/boot's verdicts, as its stderr has them.
PASSED = "boot: env=tcg rc=0 (passed)\n"
FAILED = "boot: env=tcg rc=1 (test failure: not ok 3 - smp: ipi)\n"
PANICKED = "boot: env=tcg rc=2 (shimk panic: page fault)\n"

ROW = """
[tcg-smp2]
env = tcg
smp = 2
cpu = max,-x2apic   ; xAPIC whichever QEMU runs
append = ktest=all run=hello
modules = build/user-elf/hello
expect_hv = tcg
summary = cpus=2 x2apic=0 shorthand=1
expect_lines = KTEST: END 58 passed|shimk: exit 0
expect_total = KTEST: END (\\d+) passed >= 50
timeout = 90
groups = tcg smp apic
"""


def row(text=ROW, name=None):
    rows = matrix.parse(text, "test.ini")
    return rows[0] if name is None else [r for r in rows if r.name == name][0]


def refused(text):
    """The MatrixError text a matrix is refused with, or None."""
    try:
        matrix.parse(text, "test.ini")
    except matrix.MatrixError as e:
        return str(e)
    return None


@case
def a_row_is_read_from_ini_text():
    r = row()
    return (r.name == "tcg-smp2" and r.env == "tcg" and r.smp == 2 and
            r.cpu == "max,-x2apic" and r.expect == "pass" and
            r.summary == {"cpus": "2", "x2apic": "0", "shorthand": "1"} and
            r.expect_lines == ["KTEST: END 58 passed", "shimk: exit 0"] and
            r.expect_total[1:] == (50, r"KTEST: END (\d+) passed") and
            r.groups == ["tcg", "smp", "apic"] and r.timeout == 90 and
            r.mem is None and r.peer == "" and r.post_check == [])


@case
def the_boot_command_says_what_the_row_does():
    cmd = row().boot_cmd("/tmp/x.log", None, "tlb-detect-flushes=9", 2)
    return (cmd[:5] == [matrix.BOOT, "--env", "tcg", "--log", "/tmp/x.log"]
            and cmd[cmd.index("--timeout") + 1] == "180" and
            cmd[cmd.index("--append") + 1] ==
            "ktest=all run=hello tlb-detect-flushes=9" and
            cmd[cmd.index("--module") + 1] ==
            os.path.join(matrix.ROOT, "build/user-elf/hello") and
            "--qemu" not in cmd)


@case
def a_long_option_goes_first_and_qemu_paths_are_the_trees():
    r = row("[a]\nenv = tcg\nlong_option = 5\nappend = ktest=cmdline\n"
            "qemu = build/qemu/bin/qemu-system-x86_64\n")
    cmd = r.boot_cmd("/l.log", r.qemu)
    return (cmd[cmd.index("--append") + 1] == "xxxxx ktest=cmdline" and
            cmd[cmd.index("--qemu") + 1] == os.path.join(
                matrix.ROOT, "build/qemu/bin/qemu-system-x86_64") and
            matrix.list_line(r).endswith(
                "groups= qemu=bin-qemu-system-x86_64"))


@case
def time_limits_follow_the_environment_and_retries():
    xl = row("[a]\nenv = xl\nl0_retries = 2\n")
    tcg = row("[b]\nenv = tcg\n")
    # xl's default 180 s; tcg's 60 s, scaled by --timeout-scale.
    return (xl.expected() == 180 and tcg.expected(10) == 600 and
            xl.run_limit() == 3 * xl.boot_timeout() and
            tcg.run_limit() == 2 * tcg.boot_timeout() and
            tcg.boot_timeout() > tcg.expected())


@case
def a_peer_row_gets_the_peers_share():
    r = row("[a]\nenv = xl\nappend = bench=quick\npeer = linux\n"
            "peer_append = peer=full\n")
    cmd = r.boot_cmd("/l.log")
    return (cmd[cmd.index("--peer") + 1] == "linux" and
            cmd[cmd.index("--peer-timeout") + 1] == "1200" and
            cmd[cmd.index("--peer-append") + 1] == "peer=full" and
            r.peer_share(2) == 2400)


@case
def a_row_with_a_bad_key_is_refused():
    why = refused(ROW + "expect_line = typo\nsmpp = 2\n")
    return why == "test.ini: [tcg-smp2]: unknown key(s): expect_line, smpp"


@case
def bad_values_are_refused_with_the_key():
    cases = {
        "[a]\nenv = tcg-nested\n": "env must be one of",
        "[a]\nsmp = 2\n": "env must be one of",
        "[a b]\nenv = tcg\n": "row names are used as file names",
        "[a]\nenv = tcg\nexpect = crash\n": "expect must be pass, fail",
        "[a]\nenv = tcg\nsmp = two\n": "smp must be a positive integer",
        "[a]\nenv = tcg\ntimeout = 0\n": "timeout must be a positive",
        "[a]\nenv = tcg\nsummary = cpus\n": "summary wants key=value",
        "[a]\nenv = tcg\nexpect_total = (a)(b) >= 1\n":
            "wants exactly one group",
        "[a]\nenv = tcg\nexpect_total = (\\d+) stale\n":
            "not 'REGEX >= N'",
        "[a]\nenv = tcg\npeer = linux\n": "peer = linux needs env",
        "[a]\nenv = xl\npeer_append = peer=full\n": "need peer = linux",
        "[a]\nenv = tcg\nqemu = qemu10\n": "qemu must be system or",
        "env = tcg\n": "File contains no section headers",
        "[a]\nenv = tcg\n[a]\nenv = kvm\n": "section 'a' already exists",
    }
    bad = []
    for text, want in cases.items():
        why = refused(text)
        if not why or want not in why or not why.startswith("test.ini: "):
            bad.append((text, why))
    for text, why in bad:
        print("# %r: %r" % (text, why))
    return not bad


@case
def a_name_may_be_in_one_file_only():
    with tempfile.TemporaryDirectory() as tmp:
        a, b = os.path.join(tmp, "a.ini"), os.path.join(tmp, "b.ini")
        with open(a, "w") as f:
            f.write("[x]\nenv = tcg\n[y]\nenv = kvm\n")
        with open(b, "w") as f:
            f.write("[z]\nenv = xen\n[x]\nenv = xl\n")
        names = [r.name for r in matrix.load_all([a])]
        try:
            matrix.load_all([a, b])
            why = None
        except matrix.MatrixError as e:
            why = str(e)
    return (names == ["x", "y"] and
            why == "%s: [x]: a row of that name is already in %s" % (b, a))


@case
def a_recorded_pass_passes():
    return matrix.judge(row(), 0, SMP2, PASSED) == ("PASS", "")


@case
def only_the_last_attempt_is_judged():
    # A fresh-root kvm-nested-mutation: the first attempt triple-faulted
    # (an L0 fault, proven) while printing its boot summary, and the
    # cut line was read as hv=<missing>.
    cut = "shimk: boot \n### retry: L0 fault, proven: L2 vCPU0 ...\n"
    retried = PASSED.replace("boot: env=", "boot: retry: the first run's "
                             "L0 was at fault (L0 fault, proven: ...); "
                             "booting once more\nboot: env=", 1)
    return (matrix.judge(row(), 0, cut + SMP2, retried) == ("PASS", "") and
            matrix.last_attempt(["a", "### retry: x", "b"]) == ["b"] and
            matrix.last_attempt(["a", "b"]) == ["a", "b"])


@case
def the_wrong_hypervisor_fails_a_passing_boot():
    r = row(ROW.replace("expect_hv = tcg", "expect_hv = kvm"))
    return matrix.judge(r, 0, SMP2, PASSED) == (
        "FAIL", "boot summary says hv=tcg, expected hv=kvm")


@case
def each_check_of_a_pass_row_can_fail_it():
    r = row()
    rc1 = matrix.judge(r, 1, SMP2, FAILED)
    summ = matrix.judge(row(ROW.replace("x2apic=0", "x2apic=1")), 0, SMP2,
                        PASSED)
    line = matrix.judge(row(ROW.replace("|shimk: exit 0", "|no such")), 0,
                        SMP2, PASSED)
    total = matrix.judge(row(ROW.replace(">= 50", ">= 59")), 0, SMP2,
                         PASSED)
    no_timer = matrix.judge(r, 0, SMP2.replace("shimk: timer:", "timer:"),
                            PASSED)
    armed = matrix.judge(r, 0, SMP2.replace("nothing-armed 0",
                                            "nothing-armed 3"), PASSED)
    no_summary = matrix.judge(r, 0, SMP2.replace("shimk: boot ", "boot "),
                              PASSED)
    return (rc1 == ("FAIL", "expected pass, tools/boot said: env=tcg rc=1 "
                    "(test failure: not ok 3 - smp: ipi)") and
            summ == ("FAIL", "boot summary says x2apic=0, expected "
                     "x2apic=1") and
            line == ("FAIL", "no output line contains 'no such'") and
            total == ("FAIL", "'KTEST: END (\\d+) passed' totals 58 on the "
                      "console, expected at least 59") and
            no_timer == ("FAIL", "no 'shimk: timer:' account at exit") and
            armed[0] == "FAIL" and armed[1].startswith("3 late wakes") and
            no_summary == ("FAIL", "no boot summary line"))


@case
def a_panic_row_wants_shimks_panic_line():
    r = row("[selftest-panic]\nenv = tcg\nappend = ktest=selftest-panic\n"
            "expect = panic\nexpect_hv = tcg\n")
    blamed = row("[t]\nenv = xl\nexpect = panic\n"
                 "expect_verdict = shimk fault: TSS on CPU1\n")
    return (matrix.judge(r, 2, PANIC, PANICKED) == ("PASS", "") and
            matrix.judge(r, 2, SMP2, PANICKED)[1].startswith(
                "expected a shimk panic, got rc 2 without a 'shimk: PANIC") and
            matrix.judge(r, 0, PANIC, PASSED)[0] == "FAIL" and
            # No PANIC line: the runner's verdict stands in for it.
            matrix.judge(blamed, 2, "", "boot: env=xl rc=2 (triple fault: "
                         ": shimk fault: TSS on CPU1 corrupted)\n") ==
            ("PASS", "") and
            matrix.judge(blamed, 2, "", PANICKED)[1].startswith(
                "expected a verdict with 'shimk fault: TSS on CPU1'"))


@case
def an_expected_verdict_may_be_any_of_several():
    r = row("[t]\nenv = kvm-nested\nexpect = panic\n"
            "expect_verdict = L1 saw: vCPU1 running|: a loop;\n")
    said = "boot: env=kvm-nested rc=2 (panic; while ..., L1 saw: %s)\n"
    moving = said % "vCPU1 running, RIP moving (spin_deaf+0x12)"
    loop = said % ("vCPU1 at 0x1 in all 5 samples, but KVM entered it at "
                   "0x1, 0x2: a loop; ...")
    livelock = said % "L0 livelock: vCPU1 entered 900 times"
    return (matrix.judge(r, 2, PANIC, moving) == ("PASS", "") and
            matrix.judge(r, 2, PANIC, loop) == ("PASS", "") and
            matrix.judge(r, 2, PANIC, livelock)[1].startswith(
                "expected a verdict with 'L1 saw: vCPU1 running' or "
                "': a loop;'"))


@case
def exit_77_is_a_skip_with_the_runners_reason():
    r = row()
    return (matrix.judge(r, 77, "", "boot: env=tcg rc=77 (everything "
                         "skipped)\n") == ("SKIP", "shimk skipped everything")
            and matrix.judge(r, 77, "", "boot: /dev/kvm not usable: "
                             "Permission denied\nboot: env=kvm rc=77 "
                             "(skip)\n") ==
            ("SKIP", "/dev/kvm not usable: Permission denied") and
            matrix.judge(r, 77, "", "") == ("SKIP",
                                            "no verdict from tools/boot"))


@case
def a_detector_row_without_power_is_inconclusive():
    # tcg with 1 vCPU: no remote flush, so every case's controls saw
    # nothing and shimk exits with the skip code.  A negative control
    # then has nothing to show; a pass row still has its other checks
    # (here the boot summary and timer line of tcg-smp2's console).
    log = fixture("detector-tcg1-one-cpu.txt")
    skipped = "boot: env=tcg rc=77 (everything skipped)\n"
    neg = row("[n]\nenv = tcg\nexpect = fail\nexpect_hv = tcg\n"
              "groups = tcg detector negative\n")
    pos = row("[p]\nenv = tcg\nexpect_hv = tcg\ngroups = tcg detector\n")
    plain = row("[d]\nenv = tcg\nexpect_hv = tcg\ngroups = tcg\n")
    why = ("sync-every-mode, huge-remap, lazy-free-reuse-via-clock: "
           "inconclusive: one CPU, so every flush is local and no control "
           "can leave out a remote one")
    return (matrix.judge(neg, 77, log, skipped) == ("INCONCLUSIVE", why) and
            matrix.judge(pos, 77, SMP2 + log, skipped) ==
            ("INCONCLUSIVE", why) and
            matrix.judge(pos, 77, log, skipped) ==
            ("FAIL", "no boot summary line") and
            matrix.judge(plain, 77, log, skipped) ==
            ("SKIP", "shimk skipped everything"))


@case
def expect_log_reads_the_raw_log():
    r = row("[x]\nenv = xen\nexpect = fail\n"
            "expect_log = Using APIC driver default|"
            "!Switched to APIC driver x2apic\n")
    failed = "boot: env=xen rc=1 (test failure)\n"
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "x.log")
        with open(log, "w") as f:
            f.write("(XEN) Using APIC driver default\n")
        good = matrix.judge(r, 1, "", failed, log)
        with open(log, "a") as f:
            f.write("(XEN) Switched to APIC driver x2apic_cluster\n")
        bad = matrix.judge(r, 1, "", failed, log)
        with open(log, "w") as f:
            f.write("(XEN) nothing\n")
        missing = matrix.judge(r, 1, "", failed, log)
    unread = matrix.judge(r, 1, "", failed, os.path.join(HERE, "nosuch"))
    return (good == ("PASS", "") and
            bad == ("FAIL", "the raw log contains 'Switched to APIC driver "
                    "x2apic'") and
            missing == ("FAIL", "no line of the raw log contains 'Using "
                        "APIC driver default'") and
            unread[1].startswith("expect_log: cannot read the log: "))


@case
def post_check_runs_on_the_console_beside_the_log():
    r = row("[tcg-bench]\nenv = tcg\nexpect_hv = tcg\n"
            "expect_lines = TLBB-SUM v=1\n"
            "post_check = tools/tlbbench-report --check\n")
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "tcg-bench.log")
        good = matrix.judge(r, 0, BENCH, PASSED, log)
        kept = os.path.exists(os.path.join(tmp, "tcg-bench.out"))
        stale = BENCH.replace("checked=1496 stale=0", "checked=1496 stale=2")
        bad = matrix.judge(r, 0, stale, PASSED, log)
    return (good == ("PASS", "") and kept and bad[0] == "FAIL" and
            bad[1].startswith("post_check tools/tlbbench-report --check "
                              "said: ") and "2 stale reads" in bad[1])


@case
def boots_interleave_rows_qemus_and_runs():
    rows = matrix.parse("[a]\nenv = tcg\n[b]\nenv = kvm\nqemu = backports\n",
                        "t.ini")
    one = matrix.expand(rows, [None], 1)
    many = matrix.expand(rows, ["system", "/opt/q/bin/qemu"], 2)
    return ([(j.row.name, j.spec, j.n) for j in one] ==
            [("a", None, 1), ("b", "backports", 1)] and
            [os.path.basename(j.log) for j in one] == ["a.log", "b.log"] and
            [(j.row.name, j.spec, j.n) for j in many][:5] ==
            [("a", "system", 1), ("a", "/opt/q/bin/qemu", 1),
             ("b", "system", 1), ("b", "/opt/q/bin/qemu", 1),
             ("a", "system", 2)] and
            os.path.basename(many[1].log) == "a.bin-qemu.1.log" and
            [k for k, _ in matrix.by_key(many)] ==
            [("system", 1), ("/opt/q/bin/qemu", 1), ("system", 2),
             ("/opt/q/bin/qemu", 2)] and
            not matrix.many_boots([None], 1) and
            matrix.many_boots([None], 2))


@case
def only_the_rows_environments_are_prepared():
    rows = matrix.parse("[a]\nenv = tcg\n[b]\nenv = xl\n"
                        "[c]\nenv = hyperv-nested\n", "t.ini")
    jobs = matrix.expand(rows[:1], ["backports"], 1)
    return (matrix.preparations(rows[:1], matrix.expand(rows[:1], [None], 1))
            == [] and
            [t for t, _ in matrix.preparations(rows, jobs)] ==
            [("fetch-xen",), ("xl-dom0",), ("kvm-l1",), ("fetch-qemu",)])


@case
def each_xen_version_is_prepared_once():
    rows = matrix.parse("[a]\nenv = xen\nxen = 4.20\n[b]\nenv = xl\n"
                        "[c]\nenv = xl\nxen = 4.20\n[d]\nenv = xen\n",
                        "t.ini")
    jobs = matrix.expand(rows, [None], 1)
    return ([t for t, _ in matrix.preparations(rows, jobs)] ==
            [("fetch-xen",), ("fetch-xen", "4.20"), ("xl-dom0",),
             ("xl-dom0", "--xen", "4.20")] and
            "--xen" not in rows[1].boot_cmd("l") and
            rows[0].boot_cmd("l")[-2:] == ["--xen", "4.20"])


@case
def each_l1_linux_is_prepared_once():
    rows = matrix.parse("[a]\nenv = kvm-nested\n[b]\nenv = hyperv-nested\n"
                        "l1_linux = 6.12\n[c]\nenv = kvm-nested\n"
                        "l1_linux = 6.12\n", "t.ini")
    jobs = matrix.expand(rows, [None], 1)
    bad = ("[a]\nenv = xl\nl1_linux = 6.12\n",
           "[a]\nenv = kvm-nested\nl1_linux = 5.10\n")
    for text in bad:
        try:
            matrix.parse(text, "t.ini")
        except matrix.MatrixError:
            continue
        return False
    return ([t for t, _ in matrix.preparations(rows, jobs)] ==
            [("kvm-l1",), ("kvm-l1", "--linux", "6.12")] and
            rows[1].boot_cmd("l")[-2:] == ["--l1-linux", "6.12"])


@case
def stress_rows_run_only_when_named():
    rows = matrix.parse("[a]\nenv = tcg\n[b]\nenv = tcg\n"
                        "groups = mutation stress\n", "t.ini")
    return ([r.name for r in matrix.selected(rows, False)] == ["a"] and
            [r.name for r in matrix.selected(rows, True)] == ["a", "b"])


@case
def a_xen_version_wants_a_xen_environment():
    bad = ("[a]\nenv = tcg\nxen = 4.20\n", "[a]\nenv = xen\nxen = 4.19\n",
           "[a]\nenv = xl\nxen = 4.20\npeer = linux\n")
    for text in bad:
        try:
            matrix.parse(text, "t.ini")
        except matrix.MatrixError:
            continue
        return False
    return True


@case
def result_lines_keep_their_words():
    j = matrix.expand([row("[k]\nenv = kvm\n")], ["backports"], 2)[1]
    err = "boot: qemu: 10.0.2 /usr/bin/qemu (x)\n" + PASSED
    name = matrix.job_name(j, err, 2)
    retry = "retry: the run's L0 was at fault (livelock); booting once more"
    return (name == "k [qemu 10.0.2 (backports)] #2" and
            matrix.retries("boot: " + retry + "\n" + PASSED) == [retry] and
            matrix.result_line("PASS", "a", 1.25, "", [retry]) ==
            "PASS a (1.2s, after a " + retry + ")" and
            matrix.result_line("SKIP", "a", 3, "no Xen") == "SKIP a: no Xen"
            and matrix.result_line("INCONCLUSIVE", "a", 2, "why") ==
            "INCONCLUSIVE a (2.0s): why; counted as skipped" and
            matrix.result_line("FAIL", "a", 2, "why") == "FAIL a: why"
            and matrix.result_line("FAIL", "a", 2, "why", [retry, retry]) ==
            "FAIL a: why (the last of 3 boots: 2 retried after a proven "
            "L0 fault)")


@case
def inconclusive_counts_as_skipped():
    counts = matrix.count(["PASS", "INCONCLUSIVE", "SKIP", "FAIL", "PASS"])
    return (counts == {"PASS": 2, "FAIL": 1, "SKIP": 2} and
            matrix.summary_line(counts) ==
            "matrix: 2 passed, 1 failed, 2 skipped")


@case
def the_mutation_table_is_in_environment_order():
    rows = matrix.parse("[xen-mutation]\nenv = xen\ngroups = mutation\n"
                        "[tcg-mutation]\nenv = tcg\ngroups = mutation\n"
                        "[kvm-mutation]\nenv = kvm\ngroups = mutation\n",
                        "t.ini")
    logs = {"tcg-mutation": os.path.join(HERE, "fixtures",
                                         "mutation-tcg.txt"),
            "xen-mutation": os.path.join(HERE, "fixtures",
                                         "mutation-xen.txt"),
            "kvm-mutation": "/nonexistent"}
    lines = matrix.mutation_lines(rows, {"kvm-mutation": "SKIP"}, logs)
    again = matrix.mutation_lines(rows[::-1], {"kvm-mutation": "SKIP"}, logs)
    skip = [l for l in lines if "skip-remote" in l]
    return (lines == again and len(skip) == 2 and "mutation: tcg" in skip[0]
            and "mutation: xen" in skip[1] and
            lines[-1].startswith("detector: 7 of 7 injected bug classes") and
            matrix.mutation_lines(rows[:0], {}, logs) == [])


# tests/matrix/: a file per environment (docs/testing.md#the-matrix-files).
FILES = {"tcg.ini": {"tcg"}, "kvm.ini": {"kvm"},
         "grub.ini": {"grub", "grub-xen"}, "xen.ini": {"xen"},
         "xl.ini": {"xl"}, "nested.ini": {"kvm-nested", "hyperv-nested"}}


def matrix_rows():
    """{file name: its rows} of the real matrix."""
    return {os.path.basename(p): matrix.load(p)
            for p in matrix.matrix_files()}


@case
def every_row_is_in_its_environments_file():
    files = matrix_rows()
    wrong = [(f, r.name, r.env) for f, rows in files.items()
             for r in rows if r.env not in FILES.get(f, ())]
    for w in wrong:
        print("# %s: [%s] env = %s" % w)
    names = [r.name for rows in files.values() for r in rows]
    covered = set().union(*FILES.values())
    return (not wrong and sorted(files) == sorted(FILES) and
            covered == set(matrix.ENVS) and
            len(matrix.load_all(matrix.matrix_files())) == len(names) > 80)


@case
def a_negative_control_follows_its_detector_rows():
    """In a file, an environment's negative detector control comes after
    its other detector rows, with only detector and fault rows between
    (the fault rows run the detector with the L0's hook failing)."""
    bad = []
    for f, rows in matrix_rows().items():
        for i, r in enumerate(rows):
            if not {"detector", "negative"} <= set(r.groups):
                continue
            mine = [j for j, o in enumerate(rows) if o.env == r.env and
                    "detector" in o.groups and "negative" not in o.groups]
            if not mine:
                continue
            between = rows[min(mine):i]
            if mine[-1] > i or any(not {"detector", "fault"} &
                                   set(o.groups) for o in between):
                bad.append((f, r.name))
    for b in bad:
        print("# %s: [%s] is not right after its detector rows" % b)
    return not bad


@case
def each_matrix_file_says_what_it_holds_and_links_the_keys():
    bad = []
    for path in matrix.matrix_files():
        with open(path) as f:
            head = f.read().split("\n")[:7]
        text = " ".join(head)
        if (head[0] != "# SPDX-License-Identifier: GPL-2.0-only" or
                not head[1].startswith("# make check's rows ") or
                "docs/testing.md#the-matrix-files" not in text):
            bad.append(os.path.basename(path))
    for b in bad:
        print("# tests/matrix/%s: no SPDX, purpose or legend link" % b)
    with open(os.path.join(matrix.ROOT, "docs", "testing.md")) as f:
        anchored = "\n## The matrix files\n" in f.read()
    return not bad and anchored


sys.exit(pytap.main())
