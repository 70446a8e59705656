#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Install the Debian packages that shimk's build and tests need, if missing.
#
# Runs before every `make run` and `make check`, so the all-present case is a
# single dpkg-query and no output.
set -eu

# zstd unpacks Debian 13's Linux for the Xen 4.20 dom0 (tools/xl-dom0).
# qemu-system-data (pvh.bin, the PVH option ROM) and seabios (bios-256k.bin)
# are hard dependencies of qemu-system-x86 today; they are listed anyway
# because --no-install-recommends must never leave a QEMU that cannot boot.
PKGS=(build-essential python3 python3-kconfiglib
      qemu-system-x86 qemu-system-data seabios
      grub-pc-bin grub-common xorriso mtools
      libcmocka-dev libxen-dev cpio gzip ca-certificates gdb
      clang libclang-rt-14-dev spin frama-c-base zstd)

if ! command -v dpkg-query >/dev/null; then
    echo "deps.sh: warning: no dpkg-query, so not a Debian-like system;" \
         "make sure the equivalents of these are installed:" >&2
    echo "    ${PKGS[*]}" >&2
    exit 0
fi

# Building an x86-64 kernel elsewhere needs Debian's cross toolchain
# (CROSS_COMPILE=x86_64-linux-gnu-).
if [ "$(dpkg --print-architecture)" != amd64 ]; then
    PKGS+=(gcc-x86-64-linux-gnu binutils-x86-64-linux-gnu)
fi

# One query for all; packages dpkg has never heard of print nothing on
# stdout, which counts as missing too.
installed=" $(dpkg-query -W -f='${Package} ${Status}\n' "${PKGS[@]}" \
                2>/dev/null |
              awk '$2 == "install" && $4 == "installed" { printf "%s ", $1 }')"
missing=
for p in "${PKGS[@]}"; do
    case "$installed" in
    *" $p "*) ;;
    *) missing="$missing $p" ;;
    esac
done
missing=${missing# }
[ -n "$missing" ] || exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "deps.sh: missing packages: $missing" >&2
    echo "deps.sh: as root, run:" >&2
    echo "    sudo apt-get install -y --no-install-recommends $missing" >&2
    exit 1
fi

updated=0
update()
{
    echo "deps.sh: apt-get update" >&2
    timeout 600 apt-get update >&2 || {
        echo "deps.sh: apt-get update failed" >&2
        exit 1
    }
    updated=1
}

install()
{
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive timeout 1800 \
        apt-get install -y --no-install-recommends $missing >&2
}

# Empty package lists (a fresh container) cannot install anything.
if ! ls /var/lib/apt/lists/*_Packages* >/dev/null 2>&1; then
    update
fi
echo "deps.sh: installing: $missing" >&2
if ! install; then
    # Stale lists point at files the mirror no longer has; refresh once.
    [ "$updated" -eq 0 ] || {
        echo "deps.sh: apt-get install failed: $missing" >&2
        exit 1
    }
    update
    install || {
        echo "deps.sh: apt-get install failed after apt-get update:" \
             "$missing" >&2
        exit 1
    }
fi

# The boot paths need the PVH option ROM (-kernel) and SeaBIOS; Debian's
# QEMU finds SeaBIOS's image in /usr/share/seabios.
for f in /usr/share/qemu/pvh.bin /usr/share/seabios/bios-256k.bin; do
    [ -e "$f" ] || {
        echo "deps.sh: $f missing after install: QEMU cannot boot shimk" >&2
        exit 1
    }
done
qemu-system-x86_64 --version >/dev/null || {
    echo "deps.sh: qemu-system-x86_64 does not run after install" >&2
    exit 1
}
echo "deps.sh: installed: $missing" >&2
