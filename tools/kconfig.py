#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
# Strict kconfiglib driver: any Kconfig warning or unknown symbol fails the build.
"""Usage:
  kconfig.py defconfig DEFCONFIG      write .config from a defconfig
  kconfig.py olddefconfig             update .config with new defaults
  kconfig.py savedefconfig OUT        write a minimal defconfig
  kconfig.py genconfig HEADER AUTOCONF DEPS
                                      .config -> config.h, auto.conf, deps
  kconfig.py menuconfig               interactive editor (curses)

The config file is $KCONFIG_CONFIG (default .config).  Debian's
python3-kconfiglib only warns, and exits 0, when a .config assigns an
undefined symbol or a value that does not take; a typo would then
silently build something else.  This wrapper turns every warning into
an error, as Zephyr's kconfig.py does.
"""
import os
import sys

try:
    import kconfiglib
except ImportError:
    sys.exit("kconfig: python3-kconfiglib is missing: run tools/deps.sh "
             "(or apt-get install python3-kconfiglib); note it must run "
             "under Debian's /usr/bin/python3")


def fail(msg):
    sys.exit("kconfig: error: " + msg)


def load_tree():
    kconf = kconfiglib.Kconfig("Kconfig", warn_to_stderr=False)
    if kconf.warnings:
        fail("Kconfig files:\n  " + "\n  ".join(kconf.warnings))
    return kconf


def load_strict(kconf, path):
    """Load path; fail on any warning or on values that did not take."""
    if not os.path.exists(path):
        fail(path + " does not exist (run 'make defconfig')")
    kconf.load_config(path, replace=True)
    if kconf.warnings:
        fail(path + ":\n  " + "\n  ".join(kconf.warnings))
    for sym in kconf.unique_defined_syms:
        if sym.user_value is None:
            continue
        want = sym.user_value
        if sym.orig_type in (kconfiglib.BOOL, kconfiglib.TRISTATE):
            want = kconfiglib.TRI_TO_STR[want]
        if str(want) != sym.str_value:
            fail("%s: CONFIG_%s=%s did not take (got %s): check its "
                 "'depends on'" % (path, sym.name, want, sym.str_value))


def main(argv):
    config = os.environ.get("KCONFIG_CONFIG", ".config")
    if len(argv) < 2:
        sys.exit(__doc__)
    cmd = argv[1]
    kconf = load_tree()

    if cmd == "defconfig" and len(argv) == 3:
        load_strict(kconf, argv[2])
        print(kconf.write_config(config, save_old=False))
    elif cmd == "olddefconfig":
        load_strict(kconf, config)
        print(kconf.write_config(config, save_old=False))
    elif cmd == "savedefconfig" and len(argv) == 3:
        load_strict(kconf, config)
        print(kconf.write_min_config(argv[2]))
    elif cmd == "genconfig" and len(argv) == 5:
        header, autoconf, deps = argv[2:5]
        load_strict(kconf, config)
        for path in (header, autoconf, deps):
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        kconf.write_autoconf(header)
        kconf.write_config(autoconf, save_old=False,
                           header="# Generated from %s: do not edit\n"
                                  % config)
        with open(deps, "w") as f:
            files = " ".join(kconf.kconfig_filenames)
            f.write("%s %s: %s\n" % (header, autoconf, files))
            for name in kconf.kconfig_filenames:
                f.write("%s:\n" % name)
    elif cmd == "menuconfig":
        import menuconfig
        os.environ["KCONFIG_CONFIG"] = config
        menuconfig.menuconfig(kconf)
        load_strict(load_tree(), config)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
