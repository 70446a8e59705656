# SPDX-License-Identifier: GPL-2.0-only
# Packages from another Debian suite through a private apt configuration.
#
# The machine's own apt sources name one suite (bookworm here); QEMU 10 and
# Linux 6.12 come from bookworm-backports, Xen 4.20 from trixie. Nothing is
# installed and the machine's apt state is never touched: build/apt/<suite>/
# holds a sources list with one entry (the machine's own Debian mirror and
# keyring, this suite), its own package lists and cache, and an apt.conf
# that points apt there (`apt-get -c build/apt/<suite>/apt.conf ...`).
# Its lists are fetched once and reused; `apt-get download` then takes
# packages from that suite alone.
#
# The sources parsing follows sources.list(5): one-line entries
# ("deb [opt=val ...] URI SUITE COMPONENT...") in sources.list and
# sources.list.d/*.list, and deb822 stanzas in sources.list.d/*.sources.

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import time

from bootlib.common import BUILD, ROOT

APT_ETC = "/etc/apt"
# Bounds on apt's network work: a mirror that does not answer in this long
# counts as unreachable.
UPDATE_TIMEOUT_S = 300
DOWNLOAD_TIMEOUT_S = 600
# Waiting for another process that updates the same suite's lists.
LOCK_WAIT_S = 900
# Written into the lists folder after an update that succeeded: the hash of
# the sources it was made from, so that a changed mirror refetches.
STAMP = ".shimk-updated"


class Skip(Exception):
    """The packages cannot be obtained here (no apt, no network, no such
    suite): the environment is missing (tools/boot exits 77)."""


class Fail(Exception):
    """Anything else that went wrong."""


class Source:
    """One entry of an apt sources file (either form)."""

    def __init__(self, types, uris, suites, components, options, origin):
        self.types = types
        self.uris = uris
        self.suites = suites
        self.components = components
        # Lower-case option names; values as written (Signed-By may be a
        # path, several, or a whole ASCII-armoured key of several lines).
        self.options = options
        self.origin = origin

    @property
    def signed_by(self):
        return self.options.get("signed-by")

    @property
    def enabled(self):
        return self.options.get("enabled", "yes").strip().lower() != "no"

    def __repr__(self):
        return "Source(%s %s %s %s @%s)" % (self.types, self.uris,
                                            self.suites, self.components,
                                            self.origin)


def parse_one_line(text, name="sources.list"):
    """The entries of a one-line-style file (sources.list, *.list)."""
    out = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.match(r"^(\S+)\s*(?:\[([^\]]*)\])?\s*(.*)$", line)
        if not m or m.group(1) not in ("deb", "deb-src"):
            raise Fail("%s:%d: not an apt source line: %s" % (name, n, raw))
        options = {}
        for opt in (m.group(2) or "").split():
            key, sep, val = opt.partition("=")
            if not sep:
                raise Fail("%s:%d: option '%s' has no value" % (name, n, opt))
            # arch+=, arch-= modify a default; only the name matters here.
            options[key.rstrip("+-").lower()] = val
        # A CD-ROM's URI holds its label in brackets, blanks included.
        words = re.findall(r"cdrom:\[[^\]]*\]\S*|\S+", m.group(3))
        if len(words) < 2:
            raise Fail("%s:%d: wants a URI and a suite: %s" % (name, n, raw))
        out.append(Source([m.group(1)], [words[0]], [words[1]], words[2:],
                          options, "%s:%d" % (name, n)))
    return out


def parse_deb822(text, name="debian.sources"):
    """The stanzas of a deb822-style file (*.sources)."""
    out = []
    fields, first, key = {}, None, None

    def flush():
        if not fields:
            return
        origin = "%s:%d" % (name, first)
        for need in ("types", "uris", "suites"):
            if not fields.get(need, "").split():
                raise Fail("%s: stanza without %s" % (origin, need.title()))
        opts = {k: v for k, v in fields.items()
                if k not in ("types", "uris", "suites", "components")}
        out.append(Source(fields["types"].split(), fields["uris"].split(),
                          fields["suites"].split(),
                          fields.get("components", "").split(), opts,
                          origin))

    for n, raw in enumerate(text.splitlines(), 1):
        if raw.startswith("#"):
            continue
        if not raw.strip():
            flush()
            fields, first, key = {}, None, None
            continue
        if raw[0] in " \t":
            if key is None:
                raise Fail("%s:%d: continuation line outside a field"
                           % (name, n))
            # " ." stands for an empty line inside a value (deb822(5)).
            cont = raw.strip()
            fields[key] += "\n" + ("" if cont == "." else cont)
            continue
        k, sep, v = raw.partition(":")
        if not sep or not k.strip() or " " in k.strip():
            raise Fail("%s:%d: not a 'Field: value' line: %s" % (name, n, raw))
        key = k.strip().lower()
        fields[key] = v.strip()
        if first is None:
            first = n
    flush()
    return out


def host_sources(etc=APT_ETC):
    """Every entry of the machine's apt sources, in apt's reading order:
    sources.list, then sources.list.d/*.list and *.sources by name (apt
    ignores other names, such as *.disabled)."""
    out = []
    main = os.path.join(etc, "sources.list")
    if os.path.isfile(main):
        with open(main, encoding="utf-8", errors="replace") as f:
            out += parse_one_line(f.read(), main)
    parts = os.path.join(etc, "sources.list.d")
    names = sorted(os.listdir(parts)) if os.path.isdir(parts) else []
    for n in names:
        path = os.path.join(parts, n)
        if not os.path.isfile(path):
            continue
        if n.endswith(".list"):
            parse = parse_one_line
        elif n.endswith(".sources"):
            parse = parse_deb822
        else:
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            out += parse(f.read(), path)
    return out


def host_codename(os_release="/etc/os-release"):
    """VERSION_CODENAME of the machine, or None."""
    try:
        with open(os_release, encoding="utf-8") as f:
            for line in f:
                k, _, v = line.strip().partition("=")
                if k == "VERSION_CODENAME":
                    return v.strip('"\'') or None
    except OSError:
        pass
    return None


def debian_mirror(sources, codename):
    """(URI, Signed-By or None, origin) of the machine's Debian archive.

    The first enabled binary ("deb") entry that serves the release itself
    (codename, not its -updates or -security suites) with component main:
    the same archive serves every other suite of the distribution. Local
    and CD-ROM media hold one release only and are passed over.
    """
    for s in sources:
        if not s.enabled or "deb" not in s.types:
            continue
        if codename not in s.suites or "main" not in s.components:
            continue
        for uri in s.uris:
            if uri.startswith(("cdrom:", "file:", "copy:")):
                continue
            return uri, s.signed_by, s.origin
    return None


def sources_stanza(uri, suite, signed_by, components=("main",)):
    """The private deb822 entry (a multi-line key stays multi-line)."""
    lines = ["Types: deb", "URIs: %s" % uri, "Suites: %s" % suite,
             "Components: %s" % " ".join(components)]
    if signed_by:
        value = signed_by.split("\n")
        lines.append("Signed-By: %s" % value[0])
        lines += [" " + (v if v else ".") for v in value[1:]]
    return "\n".join(lines) + "\n"


SUITE_RE = re.compile(r"^[a-z][a-z0-9.-]*$")


class Suite:
    """The private apt configuration of one suite under build/apt/<suite>/.

    log: a function taking one line, for what is done. Every failure to
    reach the suite raises Skip with the reason; nothing is refetched
    while the lists are there and were made from the same mirror.
    """

    def __init__(self, suite, log, etc=APT_ETC, base=None):
        if not SUITE_RE.match(suite):
            raise Fail("'%s' is not a Debian suite name" % suite)
        self.suite = suite
        self.log = log
        self.dir = os.path.join(base or os.path.join(BUILD, "apt"), suite)
        if '"' in self.dir or "\n" in self.dir:
            raise Fail("%s: apt.conf cannot quote this path" % self.dir)
        self.conf = os.path.join(self.dir, "apt.conf")
        self.lists = os.path.join(self.dir, "lists")
        self.etc = etc
        # As root apt drops to _apt, who cannot write into build/.
        self.sandbox = (["-o", "APT::Sandbox::User=root"]
                        if os.getuid() == 0 else [])
        for tool in ("apt-get", "apt-cache", "dpkg-deb"):
            if not shutil.which(tool):
                raise Skip("%s not found: cannot fetch Debian's packages"
                           % tool)

    def setup(self):
        """Write the private configuration; returns its sources text."""
        codename = host_codename() or self.suite.split("-")[0]
        try:
            sources = host_sources(self.etc)
        except (OSError, Fail) as e:
            raise Skip("cannot read the machine's apt sources: %s" % e)
        found = debian_mirror(sources, codename)
        if not found:
            raise Skip("no entry of %s/sources.list{,.d} serves %s main: no "
                       "Debian mirror to take %s from"
                       % (self.etc, codename, self.suite))
        uri, signed_by, origin = found
        text = sources_stanza(uri, self.suite, signed_by)
        parts = os.path.join(self.dir, "sources.list.d")
        for d in (parts, os.path.join(self.lists, "partial"),
                  os.path.join(self.dir, "cache", "archives", "partial")):
            os.makedirs(d, exist_ok=True)
        # The folder is private: only this entry may be read from it.
        for n in os.listdir(parts):
            if n != "shimk.sources":
                os.unlink(os.path.join(parts, n))
        write_if_changed(os.path.join(parts, "shimk.sources"), text)
        write_if_changed(os.path.join(self.dir, "sources.list"),
                         "# %s: the entry is sources.list.d/shimk.sources, "
                         "from %s\n" % (self.suite, origin))
        write_if_changed(self.conf, "".join(
            '%s "%s";\n' % kv for kv in (
                ("Dir::Etc::SourceList",
                 os.path.join(self.dir, "sources.list")),
                ("Dir::Etc::SourceParts", parts),
                ("Dir::State::Lists", self.lists),
                ("Dir::Cache", os.path.join(self.dir, "cache")))))
        self.origin = origin
        return text

    def options(self):
        """apt-get/apt-cache arguments that use this suite alone."""
        return ["-c", self.conf] + self.sandbox

    def updated(self, text):
        try:
            with open(os.path.join(self.lists, STAMP)) as f:
                return f.read().strip() == digest(text)
        except OSError:
            return False

    def ensure(self):
        """The lists, fetched only when missing or made from another
        mirror."""
        text = self.setup()
        if self.updated(text):
            return
        with locked(os.path.join(self.dir, ".lock")):
            # Another process may have updated them while we waited.
            if not self.updated(text):
                self._update(text)

    def update(self, text=None):
        """apt-get update of the private lists (any user may)."""
        text = text or self.setup()
        with locked(os.path.join(self.dir, ".lock")):
            self._update(text)

    def _update(self, text):
        stamp = os.path.join(self.lists, STAMP)
        if os.path.exists(stamp):
            os.unlink(stamp)
        self.log("apt-get update of %s only (private lists in %s)"
                 % (self.suite, os.path.relpath(self.dir, ROOT)))
        # --error-on=any: an unreachable mirror is otherwise only a warning
        # and exit 0 (apt 2.1.16 and later).
        try:
            r = subprocess.run(["timeout", str(UPDATE_TIMEOUT_S), "apt-get"] +
                               self.options() + ["-q", "--error-on=any",
                                                 "update"],
                               stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT)
        except OSError as e:
            raise Skip("apt-get update: %s" % e)
        out = r.stdout.decode("utf-8", "replace").splitlines()
        said = [l for l in out if l.startswith(("E:", "W:", "Err:"))]
        if r.returncode or not self.has_index():
            why = ("timed out after %d s" % UPDATE_TIMEOUT_S
                   if r.returncode == 124 else
                   " / ".join(said[-3:]) or "exit %d" % r.returncode)
            raise Skip("%s cannot be reached: apt-get update failed (%s)"
                       % (self.suite, why))
        with open(stamp, "w") as f:
            f.write(digest(text) + "\n")

    def has_index(self):
        """Whether a Packages index of this suite came."""
        key = "_dists_%s_" % self.suite
        return any(key in n and "_Packages" in n
                   for n in os.listdir(self.lists))

    def version(self, pkg):
        """The suite's version of pkg, or None."""
        r = subprocess.run(["apt-cache"] + self.options() +
                           ["show", "--no-all-versions",
                            "%s/%s" % (pkg, self.suite)],
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL)
        for line in r.stdout.decode().splitlines():
            if line.startswith("Version: "):
                return line[len("Version: "):].strip()
        return None

    def download(self, pkgs, dest):
        """apt-get download of pkgs from this suite into dest.

        Lists older than the archive name files it no longer has: one
        private update, then once more.
        """
        self.ensure()
        names = ["%s/%s" % (p, self.suite) for p in pkgs]
        cmd = (["timeout", str(DOWNLOAD_TIMEOUT_S), "apt-get"] +
               self.options() + ["-q", "download"] + names)
        for attempt in (0, 1):
            r = subprocess.run(cmd, cwd=dest, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT)
            if r.returncode == 0:
                return
            said = [l for l in r.stdout.decode("utf-8", "replace")
                    .splitlines() if l.startswith(("E:", "W:", "Err:"))]
            why = " / ".join(said[-2:]) or "exit %d" % r.returncode
            if attempt == 0:
                self.log("apt-get download %s failed (%s); updating the "
                         "lists once" % (" ".join(names), why))
                self.update()
        raise Skip("apt-get download %s failed: %s" % (" ".join(names), why))


def digest(text):
    return hashlib.sha256(text.encode()).hexdigest()


def write_if_changed(path, text):
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    except OSError:
        pass
    tmp = "%s.%d.tmp" % (path, os.getpid())
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


class locked:
    """An exclusive flock on path, waited for at most LOCK_WAIT_S."""

    def __init__(self, path, wait=LOCK_WAIT_S):
        self.path = path
        self.wait = wait

    def __enter__(self):
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        self.f = open(self.path, "w")
        end = time.monotonic() + self.wait
        while True:
            try:
                fcntl.flock(self.f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return self
            except BlockingIOError:
                if time.monotonic() > end:
                    self.f.close()
                    raise Fail("timed out after %d s waiting for the lock "
                               "%s" % (self.wait, self.path))
                time.sleep(1)

    def __exit__(self, *exc):
        self.f.close()
