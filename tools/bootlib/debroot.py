# SPDX-License-Identifier: GPL-2.0-only
# Build an initramfs tree from Debian's packages, nothing installed on the host.
#
# Shared by the environments whose L0 or dom0 is a Linux of Debian's own
# (tools/xl-dom0, tools/kvm-l1): `apt-get download` + `dpkg-deb -x`, then the
# pieces that need real parsing (ELF dynamic sections, module .modinfo, the
# bzImage header). Every failure raises Skip (the package cannot be obtained:
# the rows that need it SKIP) or Fail (anything else).

import gzip
import lzma
import os
import shutil
import struct
import subprocess
import zlib

# Skip (the packages cannot be obtained here: no apt, no network, no such
# suite) and Fail (anything else) live with the suite logic.
from bootlib.aptsuite import Fail, Skip, Suite  # noqa: F401


LIBDIRS = ("lib/x86_64-linux-gnu", "usr/lib/x86_64-linux-gnu", "lib64")


class Apt:
    """apt-get download into one folder, refreshing the lists once.

    suite: take every package from that Debian suite (trixie,
    bookworm-backports) through its private apt configuration under
    build/apt/ (bootlib/aptsuite.py) instead of the machine's own lists.
    A backports suite holds only the backported packages, so a library
    closure over one fails (Skip) unless the suite carries them.
    """

    def __init__(self, debs, log, suite=None):
        self.debs = debs
        self.log = log
        self.updated = False
        self.suite = Suite(suite, log) if suite else None
        # As root apt drops to _apt, who cannot write into build/.
        self.sandbox = (["-o", "APT::Sandbox::User=root"]
                        if os.getuid() == 0 else [])
        for tool in ("apt-get", "apt-cache", "dpkg-deb"):
            if not shutil.which(tool):
                raise Skip("%s not found: cannot fetch Debian's packages"
                           % tool)

    def refresh(self, why):
        """After an apt failure: apt-get update, once, as root only (any
        user for a suite's private lists)."""
        if self.updated:
            raise Skip("%s, even after apt-get update" % why)
        if self.suite:
            self.log("%s; updating %s's lists once" % (why, self.suite.suite))
            self.updated = True
            self.suite.update()
            return
        if os.getuid() != 0:
            raise Skip("%s (not root, so no apt-get update; try: sudo "
                       "apt-get update)" % why)
        self.log("%s; running apt-get update once" % why)
        self.updated = True
        r = subprocess.run(["timeout", "600", "apt-get", "update"],
                           stdin=subprocess.DEVNULL)
        if r.returncode:
            raise Skip("%s, and apt-get update failed (no network or no "
                       "Debian mirror?)" % why)

    def download(self, pkgs):
        if self.suite:
            self.suite.download(pkgs, self.debs)
            return
        cmd = (["timeout", "600", "apt-get"] + self.sandbox +
               ["-q", "download"] + list(pkgs))
        for attempt in (0, 1):
            r = subprocess.run(cmd, cwd=self.debs, stdin=subprocess.DEVNULL)
            if r.returncode == 0:
                return
            if attempt == 0:
                self.refresh("apt-get download %s failed" % " ".join(pkgs))
        raise Skip("apt-get download %s failed" % " ".join(pkgs))

    def depends(self, pkg):
        """The candidate's Depends line ("" for none), or None when apt
        knows no pkg."""
        opts, name = [], pkg
        if self.suite:
            self.suite.ensure()
            opts = self.suite.options()
            name = "%s/%s" % (pkg, self.suite.suite)
        for attempt in (0, 1):
            r = subprocess.run(["apt-cache"] + opts +
                               ["show", "--no-all-versions", name],
                               stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
            lines = r.stdout.decode().splitlines()
            for line in lines:
                if line.startswith("Depends: "):
                    return line[len("Depends: "):]
            if any(line.startswith("Package: ") for line in lines):
                return ""       # known, and depends on nothing
            if attempt == 0:
                self.refresh("apt-cache knows no %s" % pkg)
        return None

    def deb_of(self, pkg):
        for name in os.listdir(self.debs):
            if name.startswith(pkg + "_") and name.endswith(".deb"):
                return os.path.join(self.debs, name)
        raise Fail("no .deb for %s after downloading it" % pkg)


def deb_field(deb, field):
    r = subprocess.run(["dpkg-deb", "-f", deb, field],
                       stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    return r.stdout.decode().strip()


def first_alternatives(depends):
    """Package names of a Depends line: first alternative, no versions."""
    out = []
    for part in depends.split(","):
        name = part.split("|")[0].strip().split(" ")[0].split("(")[0]
        name = name.split(":")[0]
        if name:
            out.append(name)
    return out


def linux_image_package(apt, series="6.1"):
    """The concrete linux-image-<series>.*-amd64 that linux-image-amd64
    names in apt's suite (6.1 in Debian 12, 6.12 in trixie and
    bookworm-backports)."""
    deps = apt.depends("linux-image-amd64")
    if deps is None:
        raise Skip("apt-cache knows no linux-image-amd64")
    for name in first_alternatives(deps):
        if (name.startswith("linux-image-%s." % series)
                and name.endswith("-amd64")):
            return name
    raise Skip("linux-image-amd64 depends on no linux-image-%s.*-amd64 "
               "(%s)" % (series, deps))


def library_closure(apt, roots, rounds=20):
    """Download the lib* (and zlib1g) Depends closure of the roots.

    Which files are really needed is decided later from DT_NEEDED; this
    only makes sure every library package is at hand.
    """
    have = set(n.split("_")[0] for n in os.listdir(apt.debs)
               if n.endswith(".deb"))
    pending = list(roots)
    for _ in range(rounds):
        want = []
        for pkg in pending:
            deb = apt.deb_of(pkg)
            text = ", ".join(x for x in (deb_field(deb, "Pre-Depends"),
                                         deb_field(deb, "Depends")) if x)
            for d in first_alternatives(text):
                if ((d.startswith("lib") or d == "zlib1g")
                        and d not in have and d not in want):
                    want.append(d)
        if not want:
            return
        apt.download(want)
        have.update(want)
        pending = want
    raise Fail("library closure still growing after %d rounds: %s"
               % (rounds, " ".join(pending)))


def unpack_all(debs, dest):
    for name in sorted(os.listdir(debs)):
        if name.endswith(".deb"):
            r = subprocess.run(["dpkg-deb", "-x", os.path.join(debs, name),
                                dest], stdin=subprocess.DEVNULL)
            if r.returncode:
                raise Fail("dpkg-deb -x %s failed" % name)


def elf_dynamic(path):
    """(DT_NEEDED, DT_RUNPATH + DT_RPATH) of a little-endian ELF64 file."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise Fail("%s is not a little-endian ELF64 file" % path)
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    loads, dyn = [], None
    for i in range(phnum):
        p_type, _, p_offset, p_vaddr, _, p_filesz = struct.unpack_from(
            "<IIQQQQ", data, phoff + i * phentsize)
        if p_type == 1:
            loads.append((p_vaddr, p_offset, p_filesz))
        elif p_type == 2:
            dyn = (p_offset, p_filesz)
    if dyn is None:
        return [], []          # static

    def off(vaddr):
        for v, o, n in loads:
            if v <= vaddr < v + n:
                return vaddr - v + o
        raise Fail("%s: address %#x is in no PT_LOAD segment"
                   % (path, vaddr))

    entries, strtab = [], None
    for i in range(dyn[1] // 16):
        tag, val = struct.unpack_from("<qQ", data, dyn[0] + i * 16)
        if tag == 0:
            break
        if tag == 5:
            strtab = off(val)
        entries.append((tag, val))

    def string(o):
        return data[strtab + o:data.index(b"\0", strtab + o)].decode()

    needed = [string(v) for t, v in entries if t == 1]
    paths = []
    for t, v in entries:
        if t in (15, 29):      # DT_RPATH, DT_RUNPATH
            paths += string(v).split(":")
    return needed, paths


def copy_programs(pkgs, root, progs, dlopened=()):
    """Copy progs and the shared objects they need from pkgs into root.

    Returns the sorted library names. Libraries go to
    lib/x86_64-linux-gnu with the interpreter linked from lib64.
    """
    resolved = {}
    queue = [(p, os.path.join(pkgs, p)) for p in progs]
    queue += [(name, None) for name in dlopened]
    while queue:
        name, path = queue.pop(0)
        if path is None:
            if name in resolved:
                continue
            for d in LIBDIRS:
                if os.path.exists(os.path.join(pkgs, d, name)):
                    path = os.path.join(pkgs, d, name)
                    break
            else:
                raise Fail("no package provides %s (add its package: the "
                           "closure over the Depends missed it)" % name)
            resolved[name] = path
        needed, _ = elf_dynamic(path)
        for n in needed:
            if n not in resolved:
                queue.append((n, None))
    top = os.path.realpath(pkgs) + os.sep
    for name, path in sorted(resolved.items()):
        real = os.path.realpath(path)
        if not real.startswith(top):
            raise Fail("%s resolves outside the unpacked packages: %s"
                       % (name, real))
        dest = os.path.join(root, "lib/x86_64-linux-gnu", name)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copy2(real, dest)
    for p in progs:
        dest = os.path.join(root, p)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copy2(os.path.join(pkgs, p), dest)
    if "ld-linux-x86-64.so.2" not in resolved:
        raise Fail("no ld-linux-x86-64.so.2 among the needed libraries")
    os.makedirs(os.path.join(root, "lib64"), exist_ok=True)
    link = os.path.join(root, "lib64/ld-linux-x86-64.so.2")
    if not os.path.lexists(link):
        os.symlink("../lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", link)
    return sorted(resolved)


def modinfo_depends(path):
    data = module_bytes(path)
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    secs = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
            for i in range(shnum)]
    strs = secs[shstrndx][4]
    for name, _, _, _, o, n in secs:
        sname = data[strs + name:data.index(b"\0", strs + name)]
        if sname == b".modinfo":
            for kv in data[o:o + n].split(b"\0"):
                if kv.startswith(b"depends="):
                    return [m for m in kv[8:].decode().split(",") if m]
            return []
    raise Fail("%s has no .modinfo section" % path)


def usr_merged(pkgs, path):
    """pkgs/path, or pkgs/usr/path where the packages are usr-merged
    (Debian 13 ships /lib, /bin and /sbin under /usr)."""
    for top in ("", "usr"):
        full = os.path.join(pkgs, top, path)
        if os.path.exists(full):
            return full
    return os.path.join(pkgs, path)


# Module file endings Debian has shipped: plain (Debian 12) and xz
# (Debian 13, CONFIG_MODULE_COMPRESS_XZ), which busybox's insmod cannot
# read, so they are unpacked here.
MODULE_ENDINGS = (".ko", ".ko.xz")


def module_bytes(path):
    if path.endswith(".xz"):
        try:
            return lzma.decompress(open(path, "rb").read())
        except lzma.LZMAError as e:
            raise Fail("%s: cannot unpack: %s" % (path, e))
    with open(path, "rb") as f:
        return f.read()


def copy_modules(pkgs, kver, root, modules):
    """Copy modules, dependencies first, into root/lib/modules as plain
    .ko files.

    Writes lib/modules/load-order (one file name per line, for insmod) and
    returns the module names in that order. A module the kernel has built
    in (modules.builtin: virtio_pci in Debian 13's 6.12) needs no file.
    """
    kmod = usr_merged(pkgs, os.path.join("lib/modules", kver))
    builtin = set()
    try:
        with open(os.path.join(kmod, "modules.builtin")) as f:
            for line in f:
                n = os.path.basename(line.strip())
                if n.endswith(".ko"):
                    builtin.add(n[:-3].replace("-", "_"))
    except OSError:
        pass
    files = {}
    for d, _, names in os.walk(os.path.join(kmod, "kernel")):
        for n in names:
            for end in MODULE_ENDINGS:
                if n.endswith(end):
                    key = n[:-len(end)].replace("-", "_")
                    files[key] = os.path.join(d, n)
    order = []

    def add(mod, chain):
        key = mod.replace("-", "_")
        if key in chain:
            raise Fail("module dependency loop: %s"
                       % " -> ".join(chain + [key]))
        if key in order or (key in builtin and key not in files):
            return
        if key not in files:
            raise Fail("module %s not found under %s" % (mod, kmod))
        for dep in modinfo_depends(files[key]):
            add(dep, chain + [key])
        order.append(key)

    for m in modules:
        add(m, [])
    os.makedirs(os.path.join(root, "lib/modules"), exist_ok=True)
    with open(os.path.join(root, "lib/modules/load-order"), "w") as f:
        for key in order:
            name = os.path.basename(files[key])
            name = name[:name.index(".ko")] + ".ko"
            with open(os.path.join(root, "lib/modules", name), "wb") as m:
                m.write(module_bytes(files[key]))
            f.write(name + "\n")
    return order


# Debian 13's kernels compress their payload with zstd (RFC 8878), which
# Python's library lacks: the zstd program unpacks it (tools/deps.sh).
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def unzstd(data):
    """(bytes, None) or (None, why not). Linux appends the unpacked size,
    4 bytes, after the frame (zstd22_with_size in arch/x86/boot/
    compressed/Makefile): cut off before zstd reads it."""
    if not shutil.which("zstd"):
        return None, ("payload is zstd and the zstd program is missing "
                      "(tools/deps.sh installs it)")
    r = subprocess.run(["zstd", "-q", "-d", "-c"], input=data[:-4],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode:
        return None, "zstd -d failed: %s" % r.stderr.decode(
            "utf-8", "replace").strip()
    return r.stdout, None


def vmlinux_of(bz_path):
    """(ELF vmlinux bytes, None) from a bzImage, or (None, why not).

    The payload's place is in the boot protocol header (payload_offset and
    payload_length, protocol 2.08+), relative to the protected-mode code
    after the setup sectors (Documentation/arch/x86/boot.rst).
    """
    with open(bz_path, "rb") as f:
        img = f.read()
    if (img[0x202:0x206] != b"HdrS" or
            struct.unpack_from("<H", img, 0x206)[0] < 0x208):
        return None, "no boot protocol 2.08 header"
    setup = img[0x1f1] or 4
    poff, plen = struct.unpack_from("<II", img, 0x248)
    start = (setup + 1) * 512 + poff
    payload = img[start:start + plen]
    try:
        if payload[:6] == b"\xfd7zXZ\x00":
            elf = lzma.LZMADecompressor(
                format=lzma.FORMAT_XZ).decompress(payload)
        elif payload[:2] == b"\x1f\x8b":
            elf = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(payload)
        elif payload[:4] == ZSTD_MAGIC:
            elf, why = unzstd(payload)
            if elf is None:
                return None, why
        else:
            return None, ("payload compressed with an unsupported method "
                          "(magic %s)" % payload[:6].hex())
    except (lzma.LZMAError, zlib.error) as e:
        return None, "payload does not decompress: %s" % e
    if (elf[:4] != b"\x7fELF" or elf[4] != 2 or
            struct.unpack_from("<H", elf, 0x12)[0] != 62):
        return None, "payload is not an x86-64 ELF64 image"
    return elf, None


def write_gzip(path, data, level=6):
    with gzip.open(path, "wb", compresslevel=level) as f:
        f.write(data)
