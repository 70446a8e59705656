# SPDX-License-Identifier: GPL-2.0-only
# The Xen versions shimk boots on: where each comes from and where it lands.
#
# 4.17 is Debian 12's, from the machine's own apt lists; 4.20 is Debian
# 13's (trixie), through a private apt configuration (bootlib/aptsuite.py).
# The dom0 environment needs the hypervisor binary alone; xl also needs a
# dom0 built from the same suite (tools/xl-dom0), because Xen 4.20's domctl
# interface (XEN_DOMCTL_INTERFACE_VERSION 0x17, xen/include/public/
# domctl.h) is not 4.17's (0x15): Debian 12's xl cannot drive it.

import os

from bootlib.common import BUILD

DEFAULT = "4.17"


class Version:
    def __init__(self, name, suite, linux):
        self.name = name
        # None: the machine's own apt lists (Debian 12).
        self.suite = suite
        # The dom0 kernel's series in that suite (linux-image-<series>.*).
        self.linux = linux
        self.package = "xen-hypervisor-%s-amd64" % name
        self.utils = "xen-utils-%s" % name
        # 4.17 keeps the paths it has always had.
        sub = () if name == DEFAULT else (name,)
        self.dir = os.path.join(BUILD, "xen", *sub)
        self.binary = os.path.join(self.dir, "xen")
        self.dom0_dir = os.path.join(BUILD, "xl", *sub)

    def __repr__(self):
        return "Xen %s (%s)" % (self.name, self.suite or "the machine's")


VERSIONS = {
    "4.17": Version("4.17", None, "6.1"),
    "4.20": Version("4.20", "trixie", "6.12"),
}


def get(name):
    """The Version called name (None: the default); ValueError if none."""
    v = VERSIONS.get(name or DEFAULT)
    if v is None:
        raise ValueError("no Xen %s: shimk knows %s" % (
            name, ", ".join(sorted(VERSIONS))))
    return v
