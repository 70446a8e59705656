#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# tools/bootlib/qemu.py: --qemu's defaults, versions and x2APIC rule (TAP).

import os
import sys

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
sys.path.insert(0, HERE)
from bootlib import qemu  # noqa: E402
from bootlib.envs import ENVS  # noqa: E402
from pytap import case  # noqa: E402
import pytap  # noqa: E402

V72 = ("QEMU emulator version 7.2.22 (Debian 1:7.2+dfsg-7+deb12u18+b3)\n"
       "Copyright (c) 2003-2022 Fabrice Bellard and the QEMU Project "
       "developers\n")
V10 = "QEMU emulator version 10.0.2 (Debian 1:10.0.2+ds-2+deb13u1~bpo12+1)\n"


@case
def every_environment_has_a_default_and_only_those():
    return (set(qemu.DEFAULT) == set(ENVS) and
            all(v in qemu.KEYWORDS for v in qemu.DEFAULT.values()))


@case
def given_choice_wins_over_the_default():
    return (qemu.choice_for("xl", None) == qemu.DEFAULT["xl"] and
            qemu.choice_for("xl", "backports") == "backports" and
            qemu.is_default("tcg", qemu.DEFAULT["tcg"]) and
            not qemu.is_default("tcg", "/opt/qemu/bin/qemu-system-x86_64"))


@case
def versions_read_from_version_output():
    v7, l7 = qemu.parse_version(V72)
    v10, _ = qemu.parse_version(V10)
    v9, _ = qemu.parse_version("QEMU emulator version 9.2\n")
    return (v7 == (7, 2, 22) and l7.startswith("QEMU emulator version 7")
            and "\n" not in l7 and v10 == (10, 0, 2) and v9 == (9, 2, 0) and
            qemu.version_text(v10) == "10.0.2")


@case
def no_version_is_none_with_the_line():
    v, line = qemu.parse_version("qemu-system-x86_64: bad option\n")
    return v is None and line == "qemu-system-x86_64: bad option" and \
        qemu.version_text(None) == "?"


@case
def x2apic_asked_of_an_old_tcg_is_refused():
    why = qemu.tcg_x2apic_missing((7, 2, 22), "tcg", "max,+x2apic")
    return (why is not None and "7.2.22" in why and "9.0" in why and
            "--qemu backports" in why and
            qemu.tcg_x2apic_missing((7, 2, 22), "tcg",
                                    "max,x2apic=on,-smap") is not None)


@case
def x2apic_fine_where_tcg_has_it_or_not_asked_or_not_tcg():
    return (qemu.tcg_x2apic_missing((10, 0, 2), "tcg", "max,+x2apic")
            is None and
            qemu.tcg_x2apic_missing((9, 0, 0), "tcg", "max,+x2apic")
            is None and
            qemu.tcg_x2apic_missing((7, 2, 22), "tcg", "max") is None and
            qemu.tcg_x2apic_missing((7, 2, 22), "tcg", "max,-x2apic")
            is None and
            qemu.tcg_x2apic_missing((7, 2, 22), "kvm", "host,+x2apic")
            is None)


@case
def fetched_qemu_runs_with_its_own_data_and_modules():
    lay = qemu.fetched_layout()
    root = lay["root"]
    return (lay["binary"] == os.path.join(root, "usr/bin/qemu-system-x86_64")
            and lay["data"][0].endswith("usr/share/qemu") and
            lay["data"][1].endswith("usr/share/seabios") and
            lay["modules"].startswith(root) and
            "bookworm-backports" in root)


@case
def nested_outer_cpu_is_l1s_not_l2s():
    class A:
        cpu = "max,+x2apic"
        mem = None
        timeout = None
        gdb = False
        append = ""
        peer = None
        peer_timeout = None
        peer_append = ""
        smp = 2
        host_cpus = None
        silence = None
    nested = ENVS["kvm-nested"](A())
    tcg = ENVS["tcg"](A())
    return nested.outer_cpu() == "max" and tcg.outer_cpu() == "max,+x2apic"


@case
def resolve_refuses_a_bare_unknown_name():
    try:
        qemu.resolve("qemu10", fetch=False)
    except qemu.Unusable as e:
        return e.status == 2 and "neither system nor backports" in e.why
    return False


if __name__ == "__main__":
    sys.exit(pytap.main())
