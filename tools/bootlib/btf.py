# SPDX-License-Identifier: GPL-2.0-only
# Member offsets of kernel structures from BTF (a vmlinux's and a module's).
#
# tools/kvm-l1 needs the byte offsets of a few members of kvm_amd's
# structures (struct vcpu_svm's VMCB pointer, the VMCB's save area) to
# read L2's state at a triple fault through a kprobe. They depend on the
# kernel build, and Debian's kernel carries its own type information:
# BTF, in the ELF section .BTF of vmlinux and of each module. A module's
# BTF is "split" BTF: its type ids and string offsets continue those of
# vmlinux's. Format: the kernel's Documentation/bpf/btf.rst (struct
# btf_header, struct btf_type and the per-kind data after it).

import struct

BTF_MAGIC = 0xeb9f
# btf.rst, "2.2 Type encoding": BTF_KIND_*.
KIND_INT = 1
KIND_PTR = 2
KIND_ARRAY = 3
KIND_STRUCT = 4
KIND_UNION = 5
KIND_ENUM = 6
KIND_FWD = 7
KIND_TYPEDEF = 8
KIND_VOLATILE = 9
KIND_CONST = 10
KIND_RESTRICT = 11
KIND_FUNC = 12
KIND_FUNC_PROTO = 13
KIND_VAR = 14
KIND_DATASEC = 15
KIND_FLOAT = 16
KIND_DECL_TAG = 17
KIND_TYPE_TAG = 18
KIND_ENUM64 = 19
# Bytes after struct btf_type: fixed, or per vlen item.
_FIXED = {KIND_INT: 4, KIND_ARRAY: 12, KIND_VAR: 4, KIND_DECL_TAG: 4}
_PER_ITEM = {KIND_STRUCT: 12, KIND_UNION: 12, KIND_ENUM: 8,
             KIND_FUNC_PROTO: 8, KIND_DATASEC: 12, KIND_ENUM64: 12}
# Kinds that only qualify or rename another type.
_ALIASES = (KIND_TYPEDEF, KIND_VOLATILE, KIND_CONST, KIND_RESTRICT,
            KIND_TYPE_TAG)


class BtfError(Exception):
    pass


class _Type:
    __slots__ = ("name", "kind", "size_or_type", "members", "kflag")


def elf_section(data, name):
    """The bytes of an ELF64 section by name, or None."""
    if data[:4] != b"\x7fELF" or data[4] != 2:
        raise BtfError("not an ELF64 file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    secs = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
            for i in range(shnum)]
    strs = secs[shstrndx][4]
    want = name.encode()
    for sname, _, _, _, off, size in secs:
        end = data.index(b"\0", strs + sname)
        if data[strs + sname:end] == want:
            return data[off:off + size]
    return None


class Btf:
    """The types of one BTF blob, after those of its base, if any."""

    def __init__(self, blob, base=None):
        if len(blob) < 24:
            raise BtfError("BTF blob of %d bytes is too short" % len(blob))
        magic, _, _, hdr_len, type_off, type_len, str_off, str_len = \
            struct.unpack_from("<HBBIIIII", blob, 0)
        if magic != BTF_MAGIC:
            raise BtfError("bad BTF magic %#x" % magic)
        self.base = base
        types = blob[hdr_len + type_off:hdr_len + type_off + type_len]
        self.strings = blob[hdr_len + str_off:hdr_len + str_off + str_len]
        if len(types) != type_len or len(self.strings) != str_len:
            raise BtfError("BTF sections run past the blob")
        # Type id 0 is void; a split blob's ids follow its base's.
        self.first_id = base.next_id if base else 1
        self.str_base = base.str_end if base else 0
        self.str_end = self.str_base + str_len
        self.types = []
        self.by_name = {}
        pos = 0
        while pos < len(types):
            if pos + 12 > len(types):
                raise BtfError("truncated btf_type at %d" % pos)
            name_off, info, size_or_type = struct.unpack_from(
                "<III", types, pos)
            pos += 12
            t = _Type()
            t.kind = (info >> 24) & 0x1f
            vlen = info & 0xffff
            t.kflag = info >> 31
            t.name = self.string(name_off)
            t.size_or_type = size_or_type
            t.members = []
            if t.kind in _PER_ITEM:
                if t.kind in (KIND_STRUCT, KIND_UNION):
                    for i in range(vlen):
                        m_name, m_type, m_off = struct.unpack_from(
                            "<III", types, pos + 12 * i)
                        # kind_flag: bitfield size in the top 8 bits.
                        bits = m_off & 0xffffff if t.kflag else m_off
                        t.members.append((self.string(m_name), m_type, bits))
                pos += _PER_ITEM[t.kind] * vlen
            elif t.kind in _FIXED:
                pos += _FIXED[t.kind]
            elif t.kind > KIND_ENUM64 or t.kind == 0:
                raise BtfError("unknown BTF kind %d at %d" % (t.kind, pos))
            tid = self.first_id + len(self.types)
            self.types.append(t)
            if t.name and t.kind in (KIND_STRUCT, KIND_UNION):
                self.by_name.setdefault(t.name, tid)
        self.next_id = self.first_id + len(self.types)

    def string(self, off):
        if off < self.str_base:
            return self.base.string(off)
        off -= self.str_base
        if off >= len(self.strings):
            raise BtfError("string offset %d out of range" % off)
        return self.strings[off:self.strings.index(b"\0", off)].decode()

    def type(self, tid):
        if tid < self.first_id:
            if self.base is None:
                raise BtfError("type id %d is not in this BTF" % tid)
            return self.base.type(tid)
        if tid >= self.next_id:
            raise BtfError("type id %d out of range" % tid)
        return self.types[tid - self.first_id]

    def struct_id(self, name):
        """The id of a complete struct or union named name."""
        for btf in (self, self.base):
            if btf is None:
                continue
            tid = btf.by_name.get(name)
            if tid is not None:
                return tid
        raise BtfError("no struct %s in the BTF" % name)

    def resolve(self, tid):
        """Through typedefs and qualifiers to the type itself."""
        t = self.type(tid)
        while t.kind in _ALIASES:
            tid = t.size_or_type
            t = self.type(tid)
        return tid, t

    def _member(self, tid, name):
        """(byte offset, type id) of name in struct tid, looking into
        anonymous structs and unions."""
        _, t = self.resolve(tid)
        if t.kind not in (KIND_STRUCT, KIND_UNION):
            raise BtfError("%s: not a struct or union" % (t.name or tid))
        for m_name, m_type, bits in t.members:
            if m_name == name:
                if bits % 8:
                    raise BtfError("%s is a bitfield" % name)
                return bits // 8, m_type
        for m_name, m_type, bits in t.members:
            if not m_name:
                _, mt = self.resolve(m_type)
                if mt.kind in (KIND_STRUCT, KIND_UNION):
                    try:
                        off, typ = self._member(m_type, name)
                    except BtfError:
                        continue
                    return bits // 8 + off, typ
        raise BtfError("struct %s has no member %s" % (t.name, name))

    def offsetof(self, struct_name, path):
        """Byte offset of a member path ("save.gdtr.base") in a struct."""
        tid = self.struct_id(struct_name)
        off = 0
        for name in path.split("."):
            o, tid = self._member(tid, name)
            off += o
        return off


def from_elfs(vmlinux, module=None):
    """Btf of a vmlinux image's .BTF, with a module's split BTF on top."""
    sec = elf_section(vmlinux, ".BTF")
    if sec is None:
        raise BtfError("vmlinux has no .BTF section")
    btf = Btf(sec)
    if module is None:
        return btf
    msec = elf_section(module, ".BTF")
    if msec is None:
        raise BtfError("the module has no .BTF section")
    return Btf(msec, btf)
