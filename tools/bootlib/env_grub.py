# SPDX-License-Identifier: GPL-2.0-only
# tools/boot --env grub: shimk through GRUB2's multiboot2, from an ISO image.

import hashlib
import json
import os
import subprocess
import sys

from bootlib.common import BUILD, ELF, ROOT, note
from bootlib.env_base import Env

ISO_CACHE = os.path.join(BUILD, "iso-cache")
XEN = os.path.join(BUILD, "xen", "xen")


def iso_for(kind, cmdline, xen_args, module=None, xen=XEN):
    """Return an ISO with these command lines baked in, built on demand.

    Keyed on everything that goes into the image, so a rebuilt kernel or a
    changed argument never reuses a stale image.
    """
    mkiso = os.path.join(ROOT, "tools", "mkiso")
    inputs = [ELF, mkiso] + ([xen] if kind == "grub-xen" else [])
    stamp = [[f, os.stat(f).st_mtime_ns, os.stat(f).st_size] for f in inputs]
    # The initrd is made afresh for each run: its contents are the key.
    mod_key = None
    if module:
        with open(module, "rb") as f:
            mod_key = hashlib.sha1(f.read()).hexdigest()
    key = hashlib.sha1(json.dumps(
        [kind, stamp, cmdline, xen_args, mod_key]).encode()).hexdigest()
    iso = os.path.join(ISO_CACHE, key + ".iso")
    newest = max(s[1] for s in stamp)
    if os.path.isfile(iso) and os.stat(iso).st_mtime_ns >= newest:
        return iso

    os.makedirs(ISO_CACHE, exist_ok=True)
    # Images made from an older kernel can never be hit again.
    elf_mtime = os.stat(ELF).st_mtime_ns
    for name in os.listdir(ISO_CACHE):
        path = os.path.join(ISO_CACHE, name)
        try:
            if name.endswith(".iso") and os.stat(path).st_mtime_ns < elf_mtime:
                os.unlink(path)
        except OSError:
            pass  # a concurrent run got there first

    cmd = [mkiso, "--out", iso, "--kernel", ELF, "--cmdline", cmdline]
    if kind == "grub-xen":
        cmd += ["--xen", xen, "--xen-cmdline", xen_args]
    if module:
        cmd += ["--module", module]
    r = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=300)
    if r.returncode != 0:
        sys.stderr.write(r.stdout.decode("utf-8", "replace"))
        note("tools/mkiso failed (exit %d)" % r.returncode)
        sys.exit(2)
    return iso


class GrubEnv(Env):
    name = "grub"

    def boot_args(self, tmp):
        return ["-cdrom", iso_for("grub", self.a.append, "",
                                  self.initrd_file)]
