#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# tools/bootlib/aptsuite.py: the machine's apt sources read into a mirror (TAP).

import os
import sys
import tempfile

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
sys.path.insert(0, HERE)
from bootlib import aptsuite  # noqa: E402
from pytap import case  # noqa: E402
import pytap  # noqa: E402

KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"

# This machine's /etc/apt/sources.list.d/debian.sources, as Debian's
# container images write it: comments inside stanzas, two stanzas.
DEB822 = """\
Types: deb
# http://snapshot.debian.org/archive/debian/20250520T000000Z
URIs: http://mirror.example/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: %s

Types: deb
# http://snapshot.debian.org/archive/debian-security/20250520T000000Z
URIs: http://mirror.example/debian-security
Suites: bookworm-security
Components: main
Signed-By: %s
""" % (KEYRING, KEYRING)

ONE_LINE = """\
# deb cdrom:[Debian GNU/Linux 12]/ bookworm main
deb-src http://src.example/debian bookworm main
deb cdrom:[Debian GNU/Linux 12]/ bookworm main contrib
deb [arch=amd64 signed-by=/etc/apt/keyrings/a.gpg] \
http://a.example/debian bookworm main non-free  # trailing
deb http://b.example/debian bookworm-updates main
"""


@case
def deb822_reads_every_stanza_and_skips_comments():
    s = aptsuite.parse_deb822(DEB822, "debian.sources")
    return (len(s) == 2 and s[0].uris == ["http://mirror.example/debian"]
            and s[0].suites == ["bookworm", "bookworm-updates"] and
            s[0].components == ["main"] and s[0].signed_by == KEYRING and
            s[1].suites == ["bookworm-security"] and
            s[0].origin == "debian.sources:1")


@case
def deb822_keys_are_case_blind_and_enabled_no_counts():
    text = ("types: deb\nuris: http://x.example/d\nsuites: bookworm\n"
            "components: main\nEnabled: no\n")
    s = aptsuite.parse_deb822(text)
    return (len(s) == 1 and not s[0].enabled and
            aptsuite.debian_mirror(s, "bookworm") is None)


@case
def deb822_keeps_an_inline_key_of_several_lines():
    text = ("Types: deb\nURIs: http://x.example/d\nSuites: bookworm\n"
            "Components: main\nSigned-By:\n -----BEGIN PGP PUBLIC KEY "
            "BLOCK-----\n .\n mQINBGP\n -----END PGP PUBLIC KEY "
            "BLOCK-----\n")
    s = aptsuite.parse_deb822(text)
    key = s[0].signed_by
    stanza = aptsuite.sources_stanza("http://x.example/d",
                                     "bookworm-backports", key)
    return (key.split("\n") == ["", "-----BEGIN PGP PUBLIC KEY BLOCK-----",
                                "", "mQINBGP",
                                "-----END PGP PUBLIC KEY BLOCK-----"] and
            " .\n mQINBGP\n" in stanza and
            aptsuite.parse_deb822(stanza)[0].signed_by == key)


@case
def deb822_stanza_without_uris_is_an_error():
    try:
        aptsuite.parse_deb822("Types: deb\nSuites: bookworm\n", "x.sources")
    except aptsuite.Fail as e:
        return "x.sources:1" in str(e) and "Uris" in str(e)
    return False


@case
def one_line_options_comments_and_types():
    s = aptsuite.parse_one_line(ONE_LINE, "sources.list")
    return (len(s) == 4 and s[0].types == ["deb-src"] and
            s[1].uris == ["cdrom:[Debian GNU/Linux 12]/"] and
            s[1].suites == ["bookworm"] and
            s[2].options == {"arch": "amd64",
                             "signed-by": "/etc/apt/keyrings/a.gpg"} and
            s[2].components == ["main", "non-free"] and
            s[2].origin == "sources.list:4" and
            s[3].suites == ["bookworm-updates"])


@case
def one_line_rejects_garbage_with_its_line():
    try:
        aptsuite.parse_one_line("deb\nfoo bar baz\n", "l.list")
    except aptsuite.Fail as e:
        return "l.list:1" in str(e)
    return False


@case
def mirror_is_the_release_entry_with_main_and_its_keyring():
    s = aptsuite.parse_one_line(ONE_LINE, "sources.list")
    uri, key, origin = aptsuite.debian_mirror(s, "bookworm")
    # Not the deb-src line, not the CD-ROM, not -updates.
    return (uri == "http://a.example/debian" and
            key == "/etc/apt/keyrings/a.gpg" and origin == "sources.list:4")


@case
def mirror_from_deb822_skips_security_and_updates():
    s = aptsuite.parse_deb822(DEB822)
    uri, key, _ = aptsuite.debian_mirror(s, "bookworm")
    return uri == "http://mirror.example/debian" and key == KEYRING


@case
def no_mirror_for_another_release_or_without_main():
    s = aptsuite.parse_one_line("deb http://x.example/d bookworm contrib\n")
    return (aptsuite.debian_mirror(s, "bookworm") is None and
            aptsuite.debian_mirror(aptsuite.parse_deb822(DEB822),
                                   "trixie") is None)


@case
def host_sources_reads_apts_files_in_order_and_ignores_others():
    with tempfile.TemporaryDirectory() as etc:
        d = os.path.join(etc, "sources.list.d")
        os.makedirs(d)
        with open(os.path.join(etc, "sources.list"), "w") as f:
            f.write("# nothing here\n")
        with open(os.path.join(d, "b.list"), "w") as f:
            f.write("deb http://second.example/d bookworm main\n")
        with open(os.path.join(d, "a.sources"), "w") as f:
            f.write(DEB822)
        with open(os.path.join(d, "z.list.disabled-by-farm"), "w") as f:
            f.write("deb http://never.example/d bookworm main\n")
        s = aptsuite.host_sources(etc)
        uri, _, origin = aptsuite.debian_mirror(s, "bookworm")
    return (len(s) == 3 and uri == "http://mirror.example/debian" and
            origin.endswith("a.sources:1") and
            s[2].uris == ["http://second.example/d"])


@case
def private_config_names_the_suite_and_its_own_folders():
    with tempfile.TemporaryDirectory() as tmp:
        etc = os.path.join(tmp, "etc")
        os.makedirs(os.path.join(etc, "sources.list.d"))
        with open(os.path.join(etc, "sources.list.d", "d.sources"),
                  "w") as f:
            f.write(DEB822)
        base = os.path.join(tmp, "apt")
        os.makedirs(os.path.join(base, "trixie", "sources.list.d"))
        stray = os.path.join(base, "trixie", "sources.list.d", "old.sources")
        with open(stray, "w") as f:
            f.write("Types: deb\n")
        suite = aptsuite.Suite("trixie", lambda m: None, etc=etc, base=base)
        text = suite.setup()
        with open(suite.conf) as f:
            conf = f.read()
    return ("Suites: trixie\n" in text and
            "URIs: http://mirror.example/debian\n" in text and
            "Signed-By: %s\n" % KEYRING in text and
            not os.path.exists(stray) and
            'Dir::State::Lists "%s/trixie/lists";' % base in conf and
            'Dir::Cache "%s/trixie/cache";' % base in conf and
            'Dir::Etc::SourceParts "%s/trixie/sources.list.d";' % base
            in conf and suite.options()[:2] == ["-c", suite.conf])


@case
def a_suite_name_must_look_like_one():
    try:
        aptsuite.Suite("../etc", lambda m: None)
    except aptsuite.Fail:
        return True
    return False


if __name__ == "__main__":
    sys.exit(pytap.main())
