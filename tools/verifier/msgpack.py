"""msgpack: a strict decoder for the canonical form of docs/events.md "Encoding", and its encoder."""

import struct

class MsgpackError(ValueError):
    """Bytes that are not one canonical msgpack value."""


class NotCanonical(MsgpackError):
    """A value written in a longer form than the canonical one."""


def unpack(data):
    """Decode exactly one canonical msgpack value; trailing bytes are an error."""
    value, end = unpack_at(data, 0)
    if end != len(data):
        raise MsgpackError("%d trailing bytes after the value" % (len(data) - end))
    return value


def unpack_at(data, pos, depth=0):
    """Decode the value starting at pos; return (value, position after it)."""
    if depth > 100:
        raise MsgpackError("nested more than 100 deep")
    t, pos = _take(data, pos, 1)
    t = t[0]
    if t <= 0x7F or t >= 0xE0:  # positive and negative fixint
        return (t if t <= 0x7F else t - 0x100), pos
    if t <= 0xBF:  # fixmap, fixarray, fixstr
        kind, n = ("map", t & 0x0F) if t <= 0x8F else ("array", t & 0x0F) if t <= 0x9F else ("str", t & 0x1F)
        return _READ[kind](data, pos, n, depth)
    if t in (0xC0, 0xC2, 0xC3):
        return {0xC0: None, 0xC2: False, 0xC3: True}[t], pos
    if t in _LENGTHS:
        kind, size, minimum = _LENGTHS[t]
        raw, pos = _take(data, pos, size)
        n = int.from_bytes(raw, "big")
        if n < minimum:
            raise NotCanonical("length %d in a longer form than needed (0x%02x)" % (n, t))
        return _READ[kind](data, pos, n, depth)
    if t in _NUMBERS:
        size, signed, canonical = _NUMBERS[t]
        raw, pos = _take(data, pos, size)
        n = int.from_bytes(raw, "big", signed=signed)
        if not canonical(n):
            raise NotCanonical("integer %d in a longer form than needed (0x%02x)" % (n, t))
        return n, pos
    if t == 0xCB:
        raw, pos = _take(data, pos, 8)
        return struct.unpack(">d", raw)[0], pos
    if t == 0xCA:
        raise NotCanonical("a float 32: matchrec writes float 64")
    raise MsgpackError("type byte 0x%02x is not used by matchrec" % t)


# type byte -> (kind, bytes of length, smallest length this form may hold)
_LENGTHS = {
    0xC4: ("bin", 1, 0), 0xC5: ("bin", 2, 1 << 8), 0xC6: ("bin", 4, 1 << 16),
    0xD9: ("str", 1, 32), 0xDA: ("str", 2, 1 << 8), 0xDB: ("str", 4, 1 << 16),
    0xDC: ("array", 2, 16), 0xDD: ("array", 4, 1 << 16), 0xDE: ("map", 2, 16), 0xDF: ("map", 4, 1 << 16),
}
# type byte -> (bytes, signed, is the value in its shortest form): non-negative
# integers are written unsigned, negative ones signed, each as short as it fits.
_NUMBERS = {
    0xCC: (1, False, lambda n: n >= 0x80), 0xCD: (2, False, lambda n: n >= 1 << 8),
    0xCE: (4, False, lambda n: n >= 1 << 16), 0xCF: (8, False, lambda n: n >= 1 << 32),
    0xD0: (1, True, lambda n: n < -32), 0xD1: (2, True, lambda n: n < -(1 << 7)),
    0xD2: (4, True, lambda n: n < -(1 << 15)), 0xD3: (8, True, lambda n: n < -(1 << 31)),
}


def _take(data, pos, n):
    if pos + n > len(data):
        raise MsgpackError("truncated: %d bytes needed at byte %d" % (n, pos))
    return data[pos:pos + n], pos + n


def _bin(data, pos, n, depth):
    raw, pos = _take(data, pos, n)
    return bytes(raw), pos


def _str(data, pos, n, depth):
    raw, pos = _take(data, pos, n)
    try:
        return bytes(raw).decode("utf-8"), pos
    except UnicodeDecodeError as e:
        raise MsgpackError("a string is not UTF-8: %s" % e) from None


def _array(data, pos, n, depth):
    out = []
    for _ in range(n):
        v, pos = unpack_at(data, pos, depth + 1)
        out.append(v)
    return out, pos


def _map(data, pos, n, depth):
    out = {}
    for _ in range(n):
        k, pos = unpack_at(data, pos, depth + 1)
        if type(k) is not str or k in out:
            raise MsgpackError("a map key is not a string, or twice")
        out[k], pos = unpack_at(data, pos, depth + 1)
    return out, pos


_READ = {"bin": _bin, "str": _str, "array": _array, "map": _map}


def pack(v):
    """Encode v canonically (docs/events.md "Encoding"); dicts keep their order.

    The verifier needs it only for the receipt body; the tests build records
    with it."""
    if v is None:
        return b"\xc0"
    if v is True or v is False:
        return b"\xc3" if v else b"\xc2"
    if isinstance(v, int):
        if -32 <= v <= 0x7F:
            return struct.pack(">b", v) if v < 0 else bytes([v])
        forms = ((0xCC, ">B"), (0xCD, ">H"), (0xCE, ">I"), (0xCF, ">Q")) if v > 0 else (
            (0xD0, ">b"), (0xD1, ">h"), (0xD2, ">i"), (0xD3, ">q"))
        for head, fmt in forms:
            try:
                return bytes([head]) + struct.pack(fmt, v)
            except struct.error:
                continue  # too big for this form: the next one
        raise MsgpackError("integer %d out of range" % v)
    if isinstance(v, float):
        return b"\xcb" + struct.pack(">d", v)
    if isinstance(v, str):
        b = v.encode("utf-8")
        return _head(len(b), 0xA0, 32, 0xD9, 0xDA, 0xDB) + b
    if isinstance(v, (bytes, bytearray)):
        return _head(len(v), None, 0, 0xC4, 0xC5, 0xC6) + bytes(v)
    if isinstance(v, (list, tuple)):
        return _head(len(v), 0x90, 16, None, 0xDC, 0xDD) + b"".join(pack(x) for x in v)
    if isinstance(v, dict):
        return _head(len(v), 0x80, 16, None, 0xDE, 0xDF) + b"".join(pack(k) + pack(x) for k, x in v.items())
    raise MsgpackError("cannot encode %r" % type(v))


def _head(n, fix, fixmax, h8, h16, h32):
    if fix is not None and n < fixmax:
        return bytes([fix | n])
    if h8 is not None and n < 1 << 8:
        return bytes([h8, n])
    if n < 1 << 16:
        return bytes([h16]) + struct.pack(">H", n)
    return bytes([h32]) + struct.pack(">I", n)
