# SPDX-License-Identifier: GPL-2.0-only
# Which QEMU runs a boot (tools/boot --qemu): the per-environment defaults.
#
# The outer QEMU is the L0's emulator wherever an L0 runs in TCG (Xen, the
# nested L1): its SVM and APIC emulation decide faults shimk cannot cause
# (docs/fault-attribution.md#the-outer-qemus-svm-emulation). Two are known
# by name, any other is given by its path:
#   system     the machine's qemu-system-x86_64 ($QEMU when set): Debian
#              12's 7.2
#   backports  Debian's 10.0 from bookworm-backports, unpacked under
#              build/qemu/bookworm-backports/ by tools/fetch-qemu, run with
#              its own firmware (-L) and modules (QEMU_MODULE_DIR)

import os
import re
import shutil
import subprocess

from bootlib import common
from bootlib.common import BUILD, ROOT

KEYWORDS = ("system", "backports")
BACKPORTS_SUITE = "bookworm-backports"
FETCHED_DIR = os.path.join(BUILD, "qemu")

# The QEMU each environment runs when --qemu is not given: one table, set
# from measurements (docs/qemu.md, "Second measurement"): 10.0.2 had no
# lower L0 fault rate than the system's 7.2 under any L0, so "system".
DEFAULT = {
    "tcg": "system",
    "kvm": "system",
    "grub": "system",
    "xen": "system",
    "grub-xen": "system",
    "xl": "system",
    "kvm-nested": "system",
    "hyperv-nested": "system",
}

# TCG emulates x2APIC from QEMU 9.0 (upstream b5ee0468e9d2 "apic: add
# support for x2APIC mode", with b2101358e591 and 774204cf9874); earlier
# TCG drops the CPUID bit with a warning, so "+x2apic" silently runs xAPIC.
TCG_X2APIC_SINCE = (9, 0)

VERSION_RE = re.compile(r"QEMU emulator version (\d+)\.(\d+)(?:\.(\d+))?")


class Unusable(Exception):
    """The chosen QEMU cannot run: (status for tools/boot, why)."""

    def __init__(self, status, why):
        super().__init__(why)
        self.status = status
        self.why = why


def parse_version(text):
    """((major, minor, micro), first line) from `qemu --version`'s output,
    or (None, first line) when it names no version."""
    lines = text.strip().splitlines()
    first = lines[0].strip() if lines else ""
    m = VERSION_RE.search(first)
    if not m:
        return None, first
    return tuple(int(x or 0) for x in m.groups()), first


def version_text(version):
    return ".".join(str(x) for x in version) if version else "?"


def choice_for(env_name, given):
    """The --qemu value for env_name: the one given, else its default."""
    return given or DEFAULT[env_name]


def is_default(env_name, spec):
    return spec == DEFAULT[env_name]


def tcg_x2apic_missing(version, accel, cpu_model):
    """Why cpu_model cannot have x2APIC under this QEMU, or None.

    Only an explicit "+x2apic" (or x2apic=on) asks for it; "max" just
    takes what TCG offers, which is the point of running both QEMUs.
    """
    if accel != "tcg" or version is None or version >= TCG_X2APIC_SINCE:
        return None
    words = [w.strip().lower() for w in (cpu_model or "").split(",")]
    if "+x2apic" not in words and "x2apic=on" not in words:
        return None
    return ("-cpu %s asks for x2APIC, which QEMU %s's TCG does not emulate "
            "(TCG has it from %d.%d): use --qemu backports"
            % (cpu_model, version_text(version), *TCG_X2APIC_SINCE))


def fetched_layout(suite=BACKPORTS_SUITE):
    """Where tools/fetch-qemu unpacks a suite's QEMU, and how it runs."""
    top = os.path.join(FETCHED_DIR, suite)
    root = os.path.join(top, "root")
    return {
        "dir": top,
        "root": root,
        "binary": os.path.join(root, "usr", "bin", "qemu-system-x86_64"),
        # Its own option ROMs and keymaps, then its SeaBIOS: Debian's QEMU
        # looks in the host's /usr/share/seabios otherwise, whose 1.16.2 is
        # older than 10.0's Depends (seabios >> 1.16.3-1~). -L is searched
        # in the order given (QEMU's -L documentation).
        "data": [os.path.join(root, "usr", "share", "qemu"),
                 os.path.join(root, "usr", "share", "seabios")],
        # Not the host's 7.2 modules (audio, USB, display), which a 10.0
        # binary refuses anyway.
        "modules": os.path.join(root, "usr", "lib", "x86_64-linux-gnu",
                                "qemu"),
        "stamp": os.path.join(top, "stamp"),
    }


class Qemu:
    """One resolved QEMU: binary, extra arguments, environment, version."""

    def __init__(self, spec, binary, args=(), env=None):
        self.spec = spec
        self.binary = binary
        self.args = list(args)
        self.env = dict(env or {})
        self.version = None
        self.version_line = ""

    def probe(self):
        """Run `--version`; raises Unusable when it does not answer."""
        try:
            r = subprocess.run([self.binary, "--version"],
                               stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=30,
                               env=self.process_env())
        except (OSError, subprocess.TimeoutExpired) as e:
            raise Unusable(2, "%s --version: %s" % (self.binary, e))
        text = r.stdout.decode("utf-8", "replace")
        self.version, self.version_line = parse_version(text)
        if r.returncode or self.version is None:
            raise Unusable(2, "%s --version failed (exit %d): %s"
                           % (self.binary, r.returncode,
                              " / ".join(text.strip().splitlines()[-3:])))
        return self

    def process_env(self):
        if not self.env:
            return None
        return dict(os.environ, **self.env)

    def where(self):
        """The binary, relative to the tree when it is in it."""
        rel = os.path.relpath(self.binary, ROOT)
        return self.binary if rel.startswith("..") else rel

    def short(self):
        """'10.0.2 (backports)' for verdict and result lines."""
        return "%s (%s)" % (version_text(self.version), self.spec)

    def describe(self):
        """The whole story for the log: binary, version, extras."""
        extra = " ".join(self.args + ["%s=%s" % kv
                                      for kv in sorted(self.env.items())])
        return "%s: %s (%s)%s" % (self.binary, self.version_line, self.spec,
                                  " with " + extra if extra else "")


def resolve(spec, fetch=True):
    """The Qemu for a --qemu value; raises Unusable.

    fetch: run tools/fetch-qemu for "backports" (it does nothing when the
    unpacked copy is current; exits 77 when the suite cannot be reached).
    """
    if spec == "system":
        name = os.environ.get("QEMU", "qemu-system-x86_64")
        path = shutil.which(name)
        if not path:
            raise Unusable(2, "%s not found: install qemu-system-x86 "
                           "(tools/deps.sh)" % name)
        return Qemu(spec, path).probe()
    if spec == "backports":
        lay = fetched_layout()
        if fetch:
            fetch_backports()
        if not os.access(lay["binary"], os.X_OK):
            raise Unusable(2, "%s missing after tools/fetch-qemu"
                           % os.path.relpath(lay["binary"], ROOT))
        args = []
        for d in lay["data"]:
            args += ["-L", d]
        return Qemu(spec, lay["binary"], args,
                    {"QEMU_MODULE_DIR": lay["modules"]}).probe()
    if "/" not in spec:
        raise Unusable(2, "--qemu %s: neither %s nor a path to a QEMU binary"
                       % (spec, " nor ".join(KEYWORDS)))
    path = os.path.abspath(spec)
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise Unusable(2, "--qemu %s: no executable file there" % spec)
    # A QEMU of its own tree finds its data relative to its binary.
    return Qemu(spec, path).probe()


def fetch_backports():
    """tools/fetch-qemu: exits 77 (suite unreachable) or 2 on failure."""
    common.run_builder("fetch-qemu", "fetch-qemu: ",
                       "QEMU from %s" % BACKPORTS_SUITE, 1200)
