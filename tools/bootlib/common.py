# SPDX-License-Identifier: GPL-2.0-only
# What every environment of tools/boot shares: paths, shimk's lines, helpers.

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__))))
BUILD = os.path.join(ROOT, "build")
ELF = os.path.join(BUILD, "shimk.elf")
# QEMU runs in ROOT and gets relative names: -initrd splits its module
# string at the first blank, and Xen takes the first word as the file name.
ELF_REL = os.path.join("build", "shimk.elf")

# After shimk reports a panic it exits by itself; this bounds the wait.
PANIC_GRACE_S = 5.0
# Bound on waiting for QEMU to go once its output has ended.
EXIT_WAIT_S = 10.0

# shimk's own console lines (docs/design.md#console-protocol).
SUMMARY_RE = re.compile(r"^shimk: boot hv=")
KTEST_END_RE = re.compile(
    r"^KTEST: END (\d+) passed, (\d+) failed, (\d+) skipped")
SHIMK_PANIC_RE = re.compile(r"^shimk: PANIC on CPU")
NOT_OK_RE = re.compile(r"^not ok \d+")
# tlbbench's verdict on a run it fails (kernel/tlbbench/run.c): a test
# failure on the console, as a "not ok" line is.
BENCH_FAIL_RE = re.compile(r"^shimk: warning: tlbbench: .*: these figures "
                           r"are (invalid|incomplete)$")
# A program of run= that failed (kernel/task/run-programs.c): a test failure too.
RUN_FAIL_RE = re.compile(r"^shimk: warning: run: \S+( \d+)?: failed: ")
# shimk's own line before it leaves through a hypervisor call (xl's domU).
SHIMK_EXIT_RE = re.compile(r"^shimk: exit (\d+)$")


def note(msg):
    sys.stderr.write("boot: %s\n" % msg)
    sys.stderr.flush()


def kvm_usable():
    """Return (usable, reason) for the host's own /dev/kvm."""
    # The paravirtual kvm_pvm module also provides /dev/kvm, but runs only
    # guests written for PVM: an ordinary guest's ring-3 tasks die on
    # their first SYSCALL, and its shadow paging hides stale TLB entries,
    # so even the detector's negative control passes. No verdict from it
    # can be trusted (docs/kvm-nested.md).
    if os.path.isdir("/sys/module/kvm_pvm"):
        return False, ("/dev/kvm is the paravirtual kvm_pvm module, which "
                       "runs only PVM guests and hides stale TLB entries: "
                       "not a KVM a test can trust")
    try:
        fd = os.open("/dev/kvm", os.O_RDWR | os.O_CLOEXEC)
    except OSError as e:
        return False, "/dev/kvm not usable: %s" % e.strerror
    os.close(fd)
    return True, ""


def newc(entries):
    """A cpio archive in the kernel's initramfs format (newc).

    entries: (name, mode, data) with data None for a directory, or
    (name, mode, None, (major, minor)) for a device node: an archive
    entry needs no mknod, so no root, to hold /dev/console.
    """
    out = bytearray()

    def pad():
        out.extend(b"\0" * (-len(out) % 4))

    for ino, entry in enumerate(entries + [("TRAILER!!!", 0, b"")], 1):
        name, mode, data = entry[:3]
        rdev = entry[3] if len(entry) > 3 else (0, 0)
        data = data or b""
        nlink = 2 if (mode & 0o170000) == 0o040000 else 1
        fields = (ino, mode, 0, 0, nlink, 0, len(data), 0, 0, rdev[0],
                  rdev[1], len(name) + 1, 0)
        out += b"070701" + b"".join(b"%08X" % f for f in fields)
        out += name.encode() + b"\0"
        pad()
        out += data
        pad()
    return bytes(out)


def initrd_with(base, extra, path, more=()):
    """Write base (a cached initramfs), then extra, then more to path.

    The kernel unpacks every archive in the image, so the cached part never
    has to be rebuilt for a new kernel or command line. Archives after the
    first start 4-byte aligned; the kernel skips the zeros. more: files
    (further cached archives, such as the Linux peer's) appended the same
    way.
    """
    with open(path, "wb") as f:
        for part in [base, extra] + list(more):
            if isinstance(part, (bytes, bytearray)):
                data = part
            else:
                with open(part, "rb") as src:
                    data = src.read()
            f.write(b"\0" * (-f.tell() % 4))
            f.write(data)
    return path


def run_builder(tool, prefix, what, limit, args=()):
    """Run a cache builder (tools/xl-dom0, tools/kvm-l1) with args.

    Exits 77 when it says its packages cannot be obtained, 2 on any other
    failure; returns when its outputs are there.
    """
    try:
        r = subprocess.run([os.path.join(ROOT, "tools", tool)] + list(args),
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=limit)
    except subprocess.TimeoutExpired:
        note("tools/%s did not finish in %d s" % (tool, limit))
        sys.exit(2)
    text = r.stdout.decode("utf-8", "replace")
    lines = text.splitlines()
    for line in lines if r.returncode else lines[-3:]:
        note(line)
    if r.returncode == 77:
        why = [l[len(prefix):] for l in lines if l.startswith(prefix)]
        note("%s not available: %s" % (
            what, why[-1] if why else "tools/%s exited 77" % tool))
        sys.exit(77)
    if r.returncode != 0:
        note("tools/%s failed (exit %d): no %s" % (tool, r.returncode, what))
        sys.exit(2)

def symbolizer(elf):
    """rip -> "symbol+off" from the ELF's symbol table, or None."""
    try:
        r = subprocess.run(["nm", "-n", elf], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    syms = []
    for line in r.stdout.decode().splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTwW":
            syms.append((int(parts[0], 16), parts[2]))

    def lookup(rip):
        best = None
        for addr, name in syms:
            if addr > rip:
                break
            best = (addr, name)
        return "%s+%#x" % (best[1], rip - best[0]) if best else None
    return lookup
