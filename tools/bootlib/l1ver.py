# SPDX-License-Identifier: GPL-2.0-only
# The Linux versions of the nested environments' L1 (the KVM shimk runs on).
#
# 6.1 is Debian 12's, from the machine's own apt lists; 6.12 is Debian 13's
# kernel as bookworm-backports builds it for Debian 12, through a private
# apt configuration (bootlib/aptsuite.py). Only the kernel and its modules
# change: L1's QEMU, busybox and libraries stay Debian 12's. What the newer
# KVM does differently (the Hyper-V list flush honoured entry by entry,
# hv-tlbflush-ext offered): docs/kvm-nested.md, "The L1 Linux".

import os

from bootlib.common import BUILD

DEFAULT = "6.1"


class Version:
    def __init__(self, name, suite, hv_extra):
        self.name = name
        # None: the machine's own apt lists (Debian 12).
        self.suite = suite
        # More Hyper-V enlightenments L2's QEMU asks this KVM for under
        # hyperv-nested (QEMU's docs/system/i386/hyperv.rst).
        self.hv_extra = hv_extra
        # 6.1 keeps the paths it has always had.
        sub = () if name == DEFAULT else (name,)
        self.dir = os.path.join(BUILD, "kvm-nested", *sub)
        self.kernel = os.path.join(self.dir, "vmlinux")
        self.initramfs = os.path.join(self.dir, "initramfs.cpio")

    def __repr__(self):
        return "Linux %s (%s)" % (self.name, self.suite or "the machine's")


VERSIONS = {
    "6.1": Version("6.1", None, ()),
    # hv-tlbflush-ext: HV_FEATURE_EXT_GVA_RANGES_FLUSH, which QEMU offers
    # only where KVM reports it (6.2 and later).
    "6.12": Version("6.12", "bookworm-backports", ("hv-tlbflush-ext",)),
}


def get(name):
    """The Version called name (None: the default); ValueError if none."""
    v = VERSIONS.get(name or DEFAULT)
    if v is None:
        raise ValueError("no L1 Linux %s: shimk knows %s" % (
            name, ", ".join(sorted(VERSIONS))))
    return v
