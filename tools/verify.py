#!/usr/bin/env python3
"""An independent verifier of matchrec bundles, written from the documents alone.

    python3 tools/verify.py BUNDLE [--json] [--receipts DIR --recorder-key HEX]

It implements docs/events.md, docs/bundle.md and docs/dice.md with the Python
standard library only (a strict msgpack decoder and RFC 8032 Ed25519
verification are included), so a judge need not trust matchrec's code to
trust a verdict. matchrec's own audit does more (it re-folds the match with
the edition's rules); what this verifier leaves to it is listed under
"not_checked" in every report.

Exit codes (docs/bundle.md): 0 CLEAN, 1 FAILED, 2 could not run, 3 UNRESOLVED.
"""

import argparse
import base64
import binascii
import hashlib
import hmac
import json
import os
import struct
import sys

# ---------------------------------------------------------------------------
# msgpack: a strict decoder for the canonical form of docs/events.md "Encoding"
# ---------------------------------------------------------------------------


class MsgpackError(ValueError):
    """Bytes that are not one canonical msgpack value."""


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
    if t <= 0x7F:
        return t, pos
    if t >= 0xE0:
        return t - 0x100, pos
    if t <= 0x8F:
        return _map(data, pos, t & 0x0F, depth)
    if t <= 0x9F:
        return _array(data, pos, t & 0x0F, depth)
    if t <= 0xBF:
        return _str(data, pos, t & 0x1F)
    if t == 0xC0:
        return None, pos
    if t in (0xC2, 0xC3):
        return t == 0xC3, pos
    if t in _LENGTHS:
        kind, size, minimum = _LENGTHS[t]
        raw, pos = _take(data, pos, size)
        n = int.from_bytes(raw, "big")
        if n < minimum:
            raise MsgpackError("length %d in a longer form than needed (0x%02x)" % (n, t))
        if kind == "bin":
            raw, pos = _take(data, pos, n)
            return bytes(raw), pos
        if kind == "str":
            return _str(data, pos, n)
        if kind == "array":
            return _array(data, pos, n, depth)
        return _map(data, pos, n, depth)
    if t in _UINTS:
        size, minimum = _UINTS[t]
        raw, pos = _take(data, pos, size)
        n = int.from_bytes(raw, "big")
        if n < minimum:
            raise MsgpackError("uint %d in a longer form than needed (0x%02x)" % (n, t))
        return n, pos
    if t in _INTS:
        size, maximum = _INTS[t]
        raw, pos = _take(data, pos, size)
        n = int.from_bytes(raw, "big", signed=True)
        if n >= maximum:
            raise MsgpackError("int %d in a longer form than needed (0x%02x)" % (n, t))
        return n, pos
    if t == 0xCB:
        raw, pos = _take(data, pos, 8)
        return struct.unpack(">d", raw)[0], pos
    raise MsgpackError("type byte 0x%02x is not used by matchrec" % t)


# type byte -> (kind, bytes of length, smallest length this form may hold)
_LENGTHS = {
    0xC4: ("bin", 1, 0), 0xC5: ("bin", 2, 1 << 8), 0xC6: ("bin", 4, 1 << 16),
    0xD9: ("str", 1, 32), 0xDA: ("str", 2, 1 << 8), 0xDB: ("str", 4, 1 << 16),
    0xDC: ("array", 2, 16), 0xDD: ("array", 4, 1 << 16),
    0xDE: ("map", 2, 16), 0xDF: ("map", 4, 1 << 16),
}
# uint forms -> (bytes, smallest value that needs this form); non-negative
# values are never written in the signed forms.
_UINTS = {0xCC: (1, 0x80), 0xCD: (2, 1 << 8), 0xCE: (4, 1 << 16), 0xCF: (8, 1 << 32)}
# int forms -> (bytes, values must be below this: what needs this form)
_INTS = {0xD0: (1, -32), 0xD1: (2, -(1 << 7)), 0xD2: (4, -(1 << 15)), 0xD3: (8, -(1 << 31))}


def _take(data, pos, n):
    if pos + n > len(data):
        raise MsgpackError("truncated: %d bytes needed at byte %d" % (n, pos))
    return data[pos:pos + n], pos + n


def _str(data, pos, n):
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
        if not isinstance(k, str):
            raise MsgpackError("a map key is not a string")
        if k in out:
            raise MsgpackError("map key %r twice" % k)
        out[k], pos = unpack_at(data, pos, depth + 1)
    return out, pos


def pack(v):
    """Encode v canonically (docs/events.md "Encoding"); dicts keep their order.

    The verifier needs it only for the receipt body; the tests build records
    with it."""
    if v is None:
        return b"\xc0"
    if v is True or v is False:
        return b"\xc3" if v else b"\xc2"
    if isinstance(v, int):
        if 0 <= v <= 0x7F or -32 <= v < 0:
            return struct.pack(">b" if v < 0 else ">B", v)
        for lo, hi, head, fmt in ((0, 1 << 8, 0xCC, ">B"), (0, 1 << 16, 0xCD, ">H"), (0, 1 << 32, 0xCE, ">I"),
                                  (0, 1 << 64, 0xCF, ">Q"), (-(1 << 7), 0, 0xD0, ">b"), (-(1 << 15), 0, 0xD1, ">h"),
                                  (-(1 << 31), 0, 0xD2, ">i"), (-(1 << 63), 0, 0xD3, ">q")):
            if lo <= v < hi:
                return bytes([head]) + struct.pack(fmt, v)
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


# ---------------------------------------------------------------------------
# Ed25519 verification: RFC 8032 §5.1.7, with the reference arithmetic of §6
# (pure Python integers: correct, not fast)
# ---------------------------------------------------------------------------

ED_P = 2 ** 255 - 19
ED_L = 2 ** 252 + 27742317777372353535851937790883648493
ED_D = -121665 * pow(121666, ED_P - 2, ED_P) % ED_P
_SQRT_M1 = pow(2, (ED_P - 1) // 4, ED_P)


def _ed_add(p, q):
    # Extended homogeneous coordinates (X, Y, Z, T), x = X/Z, y = Y/Z, xy = T/Z.
    a = (p[1] - p[0]) * (q[1] - q[0]) % ED_P
    b = (p[1] + p[0]) * (q[1] + q[0]) % ED_P
    c = 2 * p[3] * q[3] * ED_D % ED_P
    d = 2 * p[2] * q[2] % ED_P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % ED_P, g * h % ED_P, f * g % ED_P, e * h % ED_P)


def ed_mul(s, p):
    q = (0, 1, 1, 0)  # the neutral element
    while s > 0:
        if s & 1:
            q = _ed_add(q, p)
        p = _ed_add(p, p)
        s >>= 1
    return q


def _ed_equal(p, q):
    return (p[0] * q[2] - q[0] * p[2]) % ED_P == 0 and (p[1] * q[2] - q[1] * p[2]) % ED_P == 0


def _ed_recover_x(y, sign):
    if y >= ED_P:  # RFC 8032 §5.1.3 step 1: a non-canonical y fails
        return None
    x2 = (y * y - 1) * pow(ED_D * y * y + 1, ED_P - 2, ED_P) % ED_P
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (ED_P + 3) // 8, ED_P)
    if (x * x - x2) % ED_P != 0:
        x = x * _SQRT_M1 % ED_P
    if (x * x - x2) % ED_P != 0:
        return None
    if (x & 1) != sign:
        x = ED_P - x
    return x


def ed_compress(p):
    zinv = pow(p[2], ED_P - 2, ED_P)
    x, y = p[0] * zinv % ED_P, p[1] * zinv % ED_P
    return (y | ((x & 1) << 255)).to_bytes(32, "little")


def ed_decompress(s):
    if len(s) != 32:
        return None
    y = int.from_bytes(s, "little")
    sign, y = y >> 255, y & ((1 << 255) - 1)
    x = _ed_recover_x(y, sign)
    return None if x is None else (x, y, 1, x * y % ED_P)


_BY = 4 * pow(5, ED_P - 2, ED_P) % ED_P
ED_BASE = (_ed_recover_x(_BY, 0), _BY, 1, _ed_recover_x(_BY, 0) * _BY % ED_P)


def ed25519_verify(public, message, signature):
    """True when signature is a valid Ed25519 signature of message by public."""
    if len(public) != 32 or len(signature) != 64:
        return False
    a = ed_decompress(public)
    r = ed_decompress(signature[:32])
    if a is None or r is None:
        return False
    s = int.from_bytes(signature[32:], "little")
    if s >= ED_L:
        return False
    k = int.from_bytes(hashlib.sha512(signature[:32] + public + message).digest(), "little") % ED_L
    # [S]B = R + [k]A, the check RFC 8032 §5.1.7 allows and Go's crypto/ed25519 makes.
    return _ed_equal(ed_mul(s, ED_BASE), _ed_add(r, ed_mul(k, a)))


STATEMENT_DOMAIN = b"matchrec-statement-v1"
RECEIPT_DOMAIN = b"matchrec-receipt-v1"


def signed_message(domain, message):
    """docs/events.md "Signatures": domain || 0x00 || message."""
    return domain + b"\x00" + message


# ---------------------------------------------------------------------------
# Records: docs/events.md "The record" and "Statements"
# ---------------------------------------------------------------------------

ZERO_HASH = bytes(32)


class RecordError(ValueError):
    """A stored record that does not have the shape docs/events.md gives."""


class Event:
    """One decoded record: the body's fields plus what the checks need."""

    def __init__(self, raw):
        if raw[:1] != b"\x92":
            raise RecordError("a record is an array of two, [body, hash]")
        try:
            body, end = unpack_at(raw, 1)
            self.hash, end2 = unpack_at(raw, end)
            if end2 != len(raw):
                raise MsgpackError("%d trailing bytes after the record" % (len(raw) - end2))
        except MsgpackError as e:
            raise RecordError("not msgpack: %s" % e) from None
        self.body = bytes(raw[1:end])  # hashed exactly as it appears in the record
        if not isinstance(body, list) or len(body) not in (8, 9):
            raise RecordError("the body is not an array of 8 (envelope v1) or 9 (v2) elements")
        self.envelope = 1 if len(body) == 8 else 2
        self.match, self.seq, self.type, self.version, self.time, actor, self.payload_bytes, self.prev_hash = body[:8]
        self.auth = body[8] if self.envelope == 2 else None
        _want(self.match, str, "match")
        _want(self.type, str, "type")
        for name, v in (("seq", self.seq), ("version", self.version)):
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise RecordError("%s is not an unsigned integer" % name)
        if not isinstance(self.time, int) or isinstance(self.time, bool):
            raise RecordError("time is not an integer")
        if not (isinstance(actor, list) and len(actor) == 2 and all(isinstance(x, str) for x in actor)):
            raise RecordError("actor is not [kind, id]")
        self.actor_kind, self.actor_id = actor
        _want(self.payload_bytes, bytes, "payload")
        for name, h in (("prev_hash", self.prev_hash), ("hash", self.hash)):
            if not isinstance(h, bytes) or len(h) != 32:
                raise RecordError("%s is not 32 bytes" % name)
        if self.auth is not None and not (
                isinstance(self.auth, list) and len(self.auth) in (1, 2)
                and all(isinstance(x, bytes) for x in self.auth)):
            raise RecordError("auth is neither nil, [statement] nor [statement, signature]")
        try:
            self.payload = unpack(self.payload_bytes)
        except MsgpackError as e:
            raise RecordError("the payload is not msgpack: %s" % e) from None
        if not isinstance(self.payload, dict):
            raise RecordError("the payload is not a map")
        self.statement = None  # decoded by the signature check

    @property
    def role(self):
        """The role of the actor (docs/events.md "Participants, roles and keys")."""
        if self.actor_kind == "player":
            return "player:" + self.actor_id
        return self.actor_kind

    def content_hash(self):
        return hashlib.sha256(self.prev_hash + self.body).digest()

    def get(self, field, default=None):
        return self.payload.get(field, default)


def _want(v, typ, name):
    if not isinstance(v, typ):
        raise RecordError("%s is not a %s" % (name, typ.__name__))


class Statement:
    """docs/events.md "Statements": [match, head_seq, head_hash, nonce, role, command]."""

    def __init__(self, raw):
        try:
            v = unpack(raw)
        except MsgpackError as e:
            raise RecordError("the statement is not msgpack: %s" % e) from None
        if not (isinstance(v, list) and len(v) == 6):
            raise RecordError("the statement is not an array of 6")
        self.match, self.head_seq, self.head_hash, self.nonce, self.role, command = v
        ok = (isinstance(self.match, str) and isinstance(self.head_seq, int) and self.head_seq >= 0
              and isinstance(self.head_hash, bytes) and len(self.head_hash) == 32
              and isinstance(self.nonce, bytes) and len(self.nonce) == 16
              and isinstance(self.role, str) and isinstance(command, bytes))
        if not ok:
            raise RecordError("a statement field has the wrong type")
        try:
            self.command = unpack(command)
        except MsgpackError as e:
            raise RecordError("the statement's command is not msgpack: %s" % e) from None
        if not isinstance(self.command, dict) or not isinstance(self.command.get("type"), str):
            raise RecordError("the statement's command is not a map with a type")


def unhex(s, size=None):
    """Bytes of a lowercase hex string (None when it is not one)."""
    if not isinstance(s, str) or s != s.lower() or (size is not None and len(s) != 2 * size):
        return None
    try:
        return bytes.fromhex(s)
    except ValueError:
        return None


# ---------------------------------------------------------------------------
# Checks: docs/bundle.md "Verifying a bundle", in its order
# ---------------------------------------------------------------------------

CHECKS = ("chain", "signatures", "actors", "dice", "end", "witnesses", "receipts")

# docs/events.md "Who may author each event". † rows need the board state.
SYSTEM_EVENTS = {"match.created", "branch.created", "dice.committed", "dice.revealed"}
JUDGE_EVENTS = {"dice.seed_excused", "dice.reveal_requested", "ruling.made"}
PLAYER_EVENTS = {"dice.seed_committed", "dice.seed_revealed", "dice.seed_contributed",
                 "match.end_proposed", "dice.confirmed", "dice.contested", "dispute.raised"}
PENDING_PLAYER_EVENTS = {"turn.started", "phase.started", "model.moved", "shooting.declared",
                         "dice.rolled", "hits.distributed", "casualties.chosen"}
EDITION_EVENTS = {
    "6e": {"charge.declared", "combat.chosen", "strike.declared", "overwatch.declared",
           "overwatch.declined", "lookoutsir.declared", "lookoutsir.declined", "woundpools.ordered"},
    "11e": {"shooting.phase_step", "unit.advance_declared", "action.started", "attack.allocated",
            "reroll.chosen", "reroll.declined"},
}
# docs/events.md "After the end": what may follow match.ended (besides the reveals).
AFTER_END = {"dice.confirmed", "dice.contested", "dispute.raised", "ruling.made"}

NOT_CHECKED = [
    "the pending player of the events marked † in docs/events.md (needs the rules' state: matchrec's re-fold)",
    "the re-fold: every declaration legal, every roll answering the step the rules asked for, state_hash",
    "each command re-decided from its statement (the events recorded are those the rules give)",
    "keys_changed: the format of <dir>/<match>.keys is not documented",
]


class CannotVerify(Exception):
    """The verification could not run at all (exit 2)."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def read_bundle(data):
    """Framing (docs/bundle.md check 1): a bundle that fails here cannot be verified."""
    try:
        b = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise CannotVerify("bad_file", "not a matchrec bundle (not JSON: %s)" % e) from None
    if not isinstance(b, dict) or b.get("format") != "matchrec-bundle":
        raise CannotVerify("bad_file", "not a matchrec bundle (format %r)" % (b.get("format") if isinstance(b, dict) else None))
    if b.get("version") not in (1, 2) or isinstance(b.get("version"), bool):
        raise CannotVerify("bad_file", "bundle version %r is not 1 or 2" % b.get("version"))
    if not isinstance(b.get("match"), str) or not b["match"]:
        raise CannotVerify("bad_file", "the bundle names no match")
    keys, records = b.get("keys"), b.get("records")
    if not (isinstance(keys, list) and all(isinstance(k, int) and not isinstance(k, bool) for k in keys)):
        raise CannotVerify("bad_file", "keys is not an array of integers")
    if not (isinstance(records, list) and all(isinstance(r, str) for r in records)):
        raise CannotVerify("bad_file", "records is not an array of base64 strings")
    if len(keys) != len(records):
        raise CannotVerify("bad_file", "the bundle has %d keys for %d records" % (len(keys), len(records)))
    lineage = b.get("lineage") or [{"match": b["match"]}]
    ok = isinstance(lineage, list) and all(isinstance(x, dict) and isinstance(x.get("match"), str) for x in lineage)
    uptos = [x.get("upto") for x in lineage[:-1]] if ok else []
    ok = ok and all(isinstance(u, int) and u >= 1 for u in uptos) and uptos == sorted(set(uptos))
    if not ok or lineage[-1]["match"] != b["match"]:
        raise CannotVerify("bad_file", "lineage is not root-first {match, upto} ending with the bundle's match")
    b["lineage"] = lineage
    reveals = b.get("reveals") or []
    if not (isinstance(reveals, list) and all(isinstance(r, str) for r in reveals)):
        raise CannotVerify("bad_file", "reveals is not an array of base64 strings")
    b["reveals"] = reveals
    return b


def _b64(s):
    return base64.b64decode(s, validate=True)


def hash_field(v):
    """A payload's hash: 64 hex digits (or 32 bytes)."""
    if isinstance(v, bytes):
        return v if len(v) == 32 else None
    return unhex(v, 32)


class Verifier:
    """Runs every check on one bundle; problems name (seq, check, code)."""

    def __init__(self, bundle, receipts_dir=None, recorder_key=None):
        self.b = bundle
        self.match = bundle["match"]
        self.lineage = bundle["lineage"]
        self.receipts_dir, self.recorder_key = receipts_dir, recorder_key
        self.problems = []
        self.unresolved = []  # (seq, what): sound, but not settled
        self.events = []  # the decoded records in stored order
        self.by_seq = {}
        self.players, self.edition = [], ""
        self.unsigned = set()  # matches whose participants hold tokens, not keys
        self.stats = {c: {} for c in CHECKS}
        self._verified = {}

    def fail(self, seq, check, code, message):
        self.problems.append({"seq": seq, "check": check, "code": code, "message": message})

    def recorder_of(self, seq):
        """The match the lineage says recorded event seq."""
        for el in self.lineage[:-1]:
            if seq <= el["upto"]:
                return el["match"]
        return self.lineage[-1]["match"]

    def run(self):
        self.check_chain()
        first = self.by_seq.get(1)
        if first is not None and first.type == "match.created":
            self.players = [p.get("id") for p in first.get("players") or [] if isinstance(p, dict)]
            self.edition = first.get("edition", "")
        self.check_signatures()
        self.check_actors()
        self.check_dice()
        self.check_end()
        self.check_witnesses()
        if self.receipts_dir is not None:
            self.check_receipts()
        return self.report()

    # -- 2. chain ----------------------------------------------------------

    def check_chain(self):
        prev = None
        for i, (key, rec) in enumerate(zip(self.b["keys"], self.b["records"]), 1):
            if key != i:
                self.fail(i, "chain", "sequence", "position %d holds the record stored under key %d "
                          "(a record missing, repeated or moved)" % (i, key))
            try:
                ev = Event(_b64(rec))
            except (binascii.Error, ValueError) as e:
                self.fail(i, "chain", "undecodable", "the record stored under key %d does not decode: %s" % (key, e))
                prev = None
                continue
            if ev.seq != key:
                self.fail(i, "chain", "sequence", "the record stored under key %d is event %d" % (key, ev.seq))
            if ev.content_hash() != ev.hash:
                self.fail(i, "chain", "hash", "event %d: its content does not match its hash" % ev.seq)
            want = ZERO_HASH if i == 1 else (prev.hash if prev is not None else None)
            if want is not None and ev.prev_hash != want:
                self.fail(i, "chain", "link", "event %d: prev_hash does not link to event %d" % (ev.seq, i - 1))
            if ev.match != self.recorder_of(i):
                self.fail(i, "chain", "lineage", "event %d was recorded by %r but the lineage names %r"
                          % (i, ev.match, self.recorder_of(i)))
            self.events.append(ev)
            self.by_seq.setdefault(ev.seq, ev)
            prev = ev
        if not self.b["records"]:
            self.fail(1, "chain", "empty", "the bundle holds no events")
        # bundle.md "Lineage": each branch starts with branch.created, forking at upto.
        for parent, child in zip(self.lineage, self.lineage[1:]):
            ev = self.by_seq.get(parent["upto"] + 1)
            if ev is not None and not (ev.type == "branch.created" and ev.get("parent") == parent["match"]
                                       and ev.get("at") == parent["upto"]):
                self.fail(ev.seq, "chain", "lineage", "event %d should be %s's branch.created from %s at %d"
                          % (ev.seq, child["match"], parent["match"], parent["upto"]))
        self.stats["chain"]["records"] = len(self.b["records"])

    # -- 3. signatures and statements ---------------------------------------

    def check_signatures(self):
        keys, nonces, prev, signed_events = {}, {}, None, 0
        for ev in self.events:
            signed = bool(keys)
            participant = ev.actor_kind in ("player", "judge") or ev.type == "branch.created"
            if not participant:
                if ev.auth is not None:
                    self.fail(ev.seq, "signatures", "unexpected_auth", "event %d: a recorder's event carries auth" % ev.seq)
            elif ev.envelope == 1:
                if signed:
                    self.fail(ev.seq, "signatures", "missing_signature",
                              "event %d: an envelope v1 event (no statement) in a signed match" % ev.seq)
            elif ev.auth is None:
                self.fail(ev.seq, "signatures", "missing_signature" if signed else "missing_statement",
                          "event %d: a participant's event without a statement" % ev.seq)
            else:
                signed_events += self.check_statement(ev, prev, keys, signed, nonces)
            if ev.type in ("match.created", "branch.created"):
                keys = self.created_keys(ev)
                if not keys:
                    self.unsigned.add(ev.match)
            prev = ev
        self.stats["signatures"].update(signed=not self.unsigned, signatures_checked=signed_events)

    def created_keys(self, ev):
        keys = ev.get("keys") or {}
        roles = {"judge"} | {"player:%s" % p for p in self.players}
        if keys and (not isinstance(keys, dict) or set(keys) != roles or any(
                ed_decompress(unhex(k, 32) or b"") is None for k in keys.values())):
            self.fail(ev.seq, "signatures", "bad_keys", "event %d: keys must give one Ed25519 public key "
                      "(64 lowercase hex digits) to each of %s" % (ev.seq, ", ".join(sorted(roles))))
            return {}
        return keys

    def check_statement(self, ev, prev, keys, signed, nonces):
        """events.md "How statements bind events", rules 1-4; returns 1 if a signature was checked."""
        try:
            st = ev.statement = Statement(ev.auth[0])
        except RecordError as e:
            self.fail(ev.seq, "signatures", "bad_statement", "event %d: %s" % (ev.seq, e))
            return 0
        checked = 0
        if signed:
            key = unhex(keys.get(st.role), 32)
            if len(ev.auth) < 2:
                self.fail(ev.seq, "signatures", "missing_signature", "event %d: no signature in a signed match" % ev.seq)
            elif key is None or not self.verify_once(key, ev.auth[0], ev.auth[1]):
                self.fail(ev.seq, "signatures", "bad_signature",
                          "event %d: the signature does not verify under %s's key" % (ev.seq, st.role))
            else:
                checked = 1
        if ev.type == "branch.created":
            if st.role not in {"judge"} | {"player:%s" % p for p in self.players}:
                self.fail(ev.seq, "signatures", "wrong_role", "event %d: %r is no participant of the parent" % (ev.seq, st.role))
            if st.command.get("type") != "branch":
                self.fail(ev.seq, "signatures", "bad_statement", "event %d: the statement is not a branch command" % ev.seq)
        elif st.role != ev.role:
            self.fail(ev.seq, "signatures", "wrong_role",
                      "event %d: the statement is %s's, the actor is %s" % (ev.seq, st.role, ev.role))
        if prev is not None and prev.auth == ev.auth:
            return checked  # the same command continues
        want = ev.get("parent") if ev.type == "branch.created" else ev.match
        if st.match != want:
            self.fail(ev.seq, "signatures", "wrong_match",
                      "event %d: the statement is for match %r, not %r" % (ev.seq, st.match, want))
        if st.head_seq != ev.seq - 1 or st.head_hash != ev.prev_hash:
            self.fail(ev.seq, "signatures", "stale_head", "event %d: the statement was decided at head %d %s, "
                      "not at event %d" % (ev.seq, st.head_seq, st.head_hash.hex()[:12], ev.seq - 1))
        nonce = (st.match, st.role, st.nonce)
        if nonce in nonces:
            self.fail(ev.seq, "signatures", "nonce_reused", "event %d: %s reused the nonce of event %d's command"
                      % (ev.seq, st.role, nonces[nonce]))
        nonces.setdefault(nonce, ev.seq)
        return checked

    def verify_once(self, key, message, signature):
        k = (key, message, signature)
        if k not in self._verified:
            self._verified[k] = ed25519_verify(key, signed_message(STATEMENT_DOMAIN, message), signature)
        return self._verified[k]

    # -- 4. who acted (the static rules; † rules are the re-fold's) --------

    def check_actors(self):
        proposal = None  # the last match.end_proposed: the one a player may accept
        for ev in self.events:
            t, who = ev.type, ev.actor_kind
            bad = self.actor_invalid(ev)
            editions = [e for e, types in EDITION_EVENTS.items() if t in types]
            known = t in SYSTEM_EVENTS | JUDGE_EVENTS | PLAYER_EVENTS | PENDING_PLAYER_EVENTS | {"match.ended"}
            if not known and not editions:
                bad = "%r is no event type of docs/events.md" % t
            elif editions and self.edition not in editions:
                bad = "%s is an event of edition %s, the match is %r" % (t, editions[0], self.edition)
            elif t == "match.created" and (ev.seq != 1 or who != "system"):
                bad = "match.created is the system's, event 1 only"
            elif ev.seq == 1 and t != "match.created":
                bad = "event 1 must be match.created"
            elif t == "branch.created" and (who != "system" or ev.seq - 1 not in [x["upto"] for x in self.lineage[:-1]]):
                bad = "branch.created is the system's, the first own event of a branch"
            elif t in ("dice.committed", "dice.revealed") and who != "system" and ev.envelope == 2:
                bad = "%s is the system's" % t
            elif t in JUDGE_EVENTS and who != "judge":
                bad = "only the judge records %s" % t
            elif (t in PLAYER_EVENTS or t in PENDING_PLAYER_EVENTS or editions) and who != "player":
                bad = "%s is a player's" % t
            elif t == "dice.seed_contributed" and ev.envelope != 1:
                bad = "dice.seed_contributed is refused since envelope v2"
            elif t in ("dice.seed_committed", "dice.rolled") and ev.get("player" if t != "dice.rolled" else "roller") != ev.actor_id:
                bad = "%s names another player than its actor" % t
            elif t == "match.ended":
                bad = bad or self.end_not_allowed(ev, proposal)
            elif t in ("dice.confirmed", "dice.contested"):
                bad = bad or self.witness_invalid(ev)
            if t == "match.end_proposed":
                proposal = ev
            if bad:
                self.fail(ev.seq, "actors", "wrong_actor", "event %d (%s by %s): %s" % (ev.seq, t, ev.role, bad))

    def actor_invalid(self, ev):
        kind, ident = ev.actor_kind, ev.actor_id
        if (kind == "player" and ident in self.players) or (kind, ident) in (("judge", "judge"), ("system", "")):
            return None
        return "actor [%r, %r] is no participant of the match" % (kind, ident)

    def end_not_allowed(self, ev, proposal):
        if ev.actor_kind == "judge" or (ev.actor_kind == "player" and ev.envelope == 1):
            return None
        if ev.actor_kind != "player":
            return "match.ended is the judge's or a player's"
        winner, reason = ev.get("winner", ""), ev.get("reason", "")
        if winner and winner != ev.actor_id and winner in self.players:
            return None  # a concession
        if (proposal is not None and proposal.actor_id != ev.actor_id
                and proposal.get("winner", "") == winner and proposal.get("reason", "") == reason):
            return None  # accepting the other player's proposal
        return "a player ends the match only by conceding or accepting the other player's proposal"

    def witness_invalid(self, ev):
        if ev.type == "dice.confirmed" and ev.get("upto"):
            if ev.get("upto") != ev.seq - 1 or hash_field(ev.get("hash")) != ev.prev_hash:
                return "a confirmation up to the head names seq - 1 and prev_hash"
            return None
        roll = self.by_seq.get(ev.get("roll"))
        if roll is None or roll.type != "dice.rolled" or roll.seq >= ev.seq:
            return "event %r is no earlier roll" % ev.get("roll")
        if roll.get("roller") == ev.actor_id:
            return "a player vouches only for the other player's rolls"
        if (ev.envelope == 2 or "hash" in ev.payload) and hash_field(ev.get("hash")) != roll.hash:
            return "the hash does not match event %d" % roll.seq
        return None

    # -- 5. dice (docs/dice.md) -------------------------------------------

    def check_dice(self):
        epochs, current, contributed, rolls = {}, {}, [], []
        for ev in self.events:
            t, p, m = ev.type, ev.payload, ev.match
            if t == "dice.committed":
                key, scheme = (m, p.get("epoch")), p.get("scheme", 1)
                if key in epochs or unhex(p.get("commit"), 32) is None or scheme not in (1, 2) or (
                        ev.envelope == 2 and scheme != 2):
                    self.fail(ev.seq, "dice", "bad_commit", "event %d: epoch %r of %s opened twice, with a bad "
                              "commitment, or with scheme %r" % (ev.seq, p.get("epoch"), m, scheme))
                    continue
                epochs[key] = {"seq": ev.seq, "commit": unhex(p["commit"]), "scheme": scheme, "seed": None,
                               "commits": {}, "reveals": {}, "excused": set()}
                current[m] = key
            elif t == "dice.revealed" and not self.reveal(ev, epochs, ev.seq):
                self.fail(ev.seq, "dice", "bad_reveal", "event %d: epoch %r of %s was never opened" % (ev.seq, p.get("epoch"), m))
            elif t in ("dice.seed_committed", "dice.seed_revealed", "dice.seed_excused"):
                self.player_seed(ev, epochs.get((m, p.get("epoch"))))
            elif t == "dice.reveal_requested":
                nxt = self.by_seq.get(ev.seq + 1)
                if current.get(m) != (m, p.get("epoch")) or nxt is None or nxt.type != "dice.revealed" or nxt.get("epoch") != p.get("epoch"):
                    self.fail(ev.seq, "dice", "reveal_missing", "event %d: the requested reveal of epoch %r "
                              "does not follow at once" % (ev.seq, p.get("epoch")))
            elif t == "dice.seed_contributed":
                contributed.append(p.get("seed", ""))
            elif t == "dice.rolled" and p.get("source") == "digital":
                ep = epochs.get(current.get(m))
                if ep is None:
                    self.fail(ev.seq, "dice", "no_epoch", "event %d: a digital roll with no epoch open" % ev.seq)
                    continue
                if ep["scheme"] == 2 and any(x not in ep["reveals"] and x not in ep["excused"] for x in self.players):
                    self.fail(ev.seq, "dice", "seeds_pending", "event %d: a digital roll before every player's "
                              "seed was revealed or excused" % ev.seq)
                rolls.append((ev, current[m], list(contributed)))
            if t == "dice.rolled" and "reroll" in p:
                self.check_reroll(ev)
        for raw in self.b["reveals"]:
            self.ancestor_reveal(raw, epochs)
        pending, checked = [], 0
        for ev, key, seeds in rolls:
            ep = epochs[key]
            if ep["seed"] is None:
                pending.append(ev.seq)
                continue
            want = [derive_die(ep, key, seeds, self.players, ev.seq, i) for i in range(ev.get("count", 0))]
            checked += 1
            if ev.get("values") != want:
                self.fail(ev.seq, "dice", "forged_die", "event %d: the digital dice %s are not the %s the seeds "
                          "of epoch %d of %s give" % (ev.seq, ev.get("values"), want, key[1], key[0]))
        self.stats["dice"].update(digital_rolls=len(rolls), checked_rolls=checked, pending_reveal=pending)
        self.epochs = epochs

    def reveal(self, ev, epochs, seq):
        """A dice.revealed applies to the epoch of the match that recorded it."""
        key = (ev.match, ev.get("epoch"))
        ep, seed = epochs.get(key), unhex(ev.get("seed"))
        if ep is None:
            return False
        revealed_before, ep["revealed_at"] = "revealed_at" in ep, ev.seq
        if revealed_before or seed is None or hashlib.sha256(seed).digest() != ep["commit"]:
            self.fail(seq, "dice", "bad_reveal", "event %d: the revealed seed of epoch %r of %s does not match "
                      "its commitment (or was revealed twice)" % (ev.seq, key[1], key[0]))
        else:
            ep["seed"] = seed
        return True

    def ancestor_reveal(self, raw, epochs):
        """bundle.md "Reveals for branches": an ancestor's reveal after its fork."""
        try:
            ev = Event(_b64(raw))
        except (binascii.Error, ValueError) as e:
            self.fail(None, "dice", "bad_reveal", "an ancestor's reveal does not decode: %s" % e)
            return
        forks = {x["match"]: x["upto"] for x in self.lineage[:-1]}
        if ev.type != "dice.revealed" or ev.match not in forks or ev.seq <= forks[ev.match] or ev.content_hash() != ev.hash:
            self.fail(None, "dice", "bad_reveal", "the reveal of %s event %d is no ancestor's dice.revealed after "
                      "its fork" % (ev.match, ev.seq))
            return
        ep = epochs.get((ev.match, ev.get("epoch")))
        if ep is not None:  # otherwise the epoch opened after the fork: none of ours used it
            self.reveal(ev, epochs, ep["seq"])

    def player_seed(self, ev, ep):
        t, player, seq = ev.type, ev.get("player"), ev.seq
        if ep is None or ep["scheme"] != 2 or "revealed_at" in ep or player not in self.players:
            why = "for a player of an open scheme-2 epoch"
        elif t == "dice.seed_committed" and (player in ep["commits"] or ep["reveals"] or unhex(ev.get("commit"), 32) is None):
            why = "once per player, before any player revealed"
        elif t == "dice.seed_revealed" and (player in ep["reveals"] or player not in ep["commits"] or any(
                x not in ep["commits"] and x not in ep["excused"] for x in self.players)):
            why = "once, after every player committed or was excused"
        elif t == "dice.seed_revealed" and hashlib.sha256(unhex(ev.get("seed")) or b"-").digest() != ep["commits"][player]:
            why = "matching its commitment"
        elif t == "dice.seed_excused" and (player in ep["reveals"] or player in ep["excused"]):
            why = "only for a player who has not revealed"
        else:
            if t == "dice.seed_committed":
                ep["commits"][player] = unhex(ev.get("commit"))
            elif t == "dice.seed_revealed":
                ep["reveals"][player] = unhex(ev.get("seed"))
            else:
                ep["excused"].add(player)
            return
        self.fail(seq, "dice", "seed_order", "event %d: %s of %r is allowed only %s" % (seq, t, player, why))

    def check_reroll(self, ev):
        rr = ev.get("reroll")
        base = self.by_seq.get(rr.get("seq")) if isinstance(rr, dict) else None
        n = len(base.get("values") or []) if base is not None and base.type == "dice.rolled" else -1
        idx = rr.get("indices") if isinstance(rr, dict) else None
        if n < 0 or base.seq >= ev.seq or not isinstance(idx, list) or len(idx) != ev.get("count") or any(
                not isinstance(i, int) or not 0 <= i < n for i in idx):
            self.fail(ev.seq, "dice", "bad_reroll", "event %d: the re-roll does not name dice of an earlier roll" % ev.seq)

    # -- 6. the end; 7. witnesses and disputes; 8. receipts -----------------

    def check_end(self):
        ended, revealing = {}, set()
        for ev in self.events:
            m = ev.match
            if m not in ended:
                if ev.type == "match.ended":
                    ended[m] = ev.seq
                    revealing.add(m)
                continue
            if ev.type == "dice.revealed" and m in revealing:
                continue  # the reveals of the same append
            revealing.discard(m)
            if ev.type not in AFTER_END:
                self.fail(ev.seq, "end", "after_end", "event %d: %s after the match ended (event %d)" % (ev.seq, ev.type, ended[m]))
        for m, seq in ended.items():
            still = sorted(n for (mm, n), ep in self.epochs.items() if mm == m and "revealed_at" not in ep)
            if still:
                self.fail(seq, "end", "unrevealed", "event %d: the match ended but its epochs %s were never revealed" % (seq, still))
        self.stats["end"]["ended"] = sorted(ended.values())

    def check_witnesses(self):
        ruled, settled = set(), set()
        for ev in self.events:
            if ev.type == "ruling.made":
                d = self.by_seq.get(ev.get("dispute"))
                if d is None or d.type != "dispute.raised" or d.seq >= ev.seq:
                    self.fail(ev.seq, "witnesses", "bad_ruling", "event %d: the ruling names no earlier dispute" % ev.seq)
                    continue
                ruled.add(d.seq)
                settled.update({ev.get("event"), d.get("event")})
        status, manual = {}, [e for e in self.events if e.type == "dice.rolled" and e.get("source") == "manual"]
        for ev in self.events:
            if ev.type == "dice.confirmed":
                upto = ev.get("upto") or 0
                for r in manual:
                    if (r.seq == ev.get("roll") or r.seq <= upto) and r.get("roller") != ev.actor_id:
                        status.setdefault(r.seq, "confirmed")
            elif ev.type == "dice.contested":
                status[ev.get("roll")] = "contested"
                if ev.get("roll") not in settled:
                    self.unresolved.append({"seq": ev.get("roll"), "why": "contested at event %d, no ruling" % ev.seq})
            elif ev.type == "dispute.raised" and ev.seq not in ruled:
                self.unresolved.append({"seq": ev.seq, "why": "a dispute about event %r with no ruling" % ev.get("event")})
        self.manual = [{"seq": r.seq, "roller": r.get("roller"), "status": status.get(r.seq, "unconfirmed")}
                       for r in manual if status.get(r.seq) != "confirmed"]

    def check_receipts(self):
        if not os.path.isdir(self.receipts_dir):
            raise CannotVerify("bad_file", "no receipts directory %s" % self.receipts_dir)
        path, n = os.path.join(self.receipts_dir, self.match + ".receipts"), 0
        lines = []
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                lines = f.read().splitlines()
        for line_no, line in enumerate(lines, 1):
            if not line.strip():
                continue
            n += 1
            try:
                r = json.loads(line)
                match, seq = r["match"], r["seq"]
                h, rec, sig = unhex(r["hash"], 32), unhex(r["recorder"], 32), unhex(r["signature"], 64)
                assert isinstance(match, str) and isinstance(seq, int) and seq >= 1 and None not in (h, rec, sig)
            except (ValueError, KeyError, TypeError, AssertionError):
                self.fail(None, "receipts", "bad_receipt", "%s line %d is not a receipt" % (path, line_no))
                continue
            ev = self.by_seq.get(seq)
            if match != self.match or not ed25519_verify(rec, signed_message(RECEIPT_DOMAIN, pack([match, seq, h, rec])), sig):
                self.fail(seq, "receipts", "bad_receipt", "the receipt for event %d of %r does not verify "
                          "or is for another match" % (seq, match))
            elif rec != self.recorder_key:
                self.fail(seq, "receipts", "wrong_recorder", "the receipt for event %d is signed by %s, not the "
                          "recorder's key" % (seq, rec.hex()))
            elif seq > len(self.b["records"]):
                self.fail(seq, "receipts", "truncated", "the recorder receipted event %d; the log ends at %d (cut)"
                          % (seq, len(self.b["records"])))
            elif ev is None or ev.hash != h:
                self.fail(seq, "receipts", "rewritten", "event %d is not the event the recorder receipted "
                          "(the log was rewritten at or below %d)" % (seq, seq))
        self.stats["receipts"]["checked"] = n

    # -- the verdict ------------------------------------------------------

    def report(self):
        probs = self.problems
        chain = [p for p in probs if p["check"] == "chain"]
        # A broken chain explains what follows it; otherwise the lowest sequence wins.
        ranked = sorted((p for p in (chain or probs) if p["seq"] is not None),
                        key=lambda p: (p["seq"], CHECKS.index(p["check"])))
        first = ranked[0] if ranked else None
        verdict = "FAILED" if probs else ("UNRESOLVED" if self.unresolved else "CLEAN")
        checks = {c: dict({"ok": not any(p["check"] == c for p in probs)}, **self.stats[c]) for c in CHECKS}
        checks["chain"]["first_broken"] = min((p["seq"] for p in chain), default=0)
        return dict({
            "match": self.match, "events": len(self.events), "ok": verdict == "CLEAN", "verdict": verdict,
            "unsigned": bool(self.unsigned), "first_bad_seq": first["seq"] if first else 0,
            "first_bad_check": first["check"] if first else "", "problems": probs,
            "unresolved": self.unresolved, "manual_rolls": self.manual, "not_checked": NOT_CHECKED,
        }, **checks)


# ---------------------------------------------------------------------------
# Dice derivation: docs/dice.md "Scheme 2", "Scheme 1"
# ---------------------------------------------------------------------------

def _lp(b):
    return struct.pack(">I", len(b)) + b


def dice_message_v1(match, seeds, seq, i):
    return (_lp(b"matchrec-dice-v1") + _lp(match.encode()) + struct.pack(">I", len(seeds))
            + b"".join(_lp(s.encode()) for s in seeds) + struct.pack(">QI", seq, i))


def dice_message_v2(match, epoch, players, seq, i):
    """players: [(id, seed bytes, b"" when excused)] in match.created's order."""
    return (_lp(b"matchrec-dice-v2") + _lp(match.encode()) + struct.pack(">II", epoch, len(players))
            + b"".join(_lp(p.encode()) + _lp(s) for p, s in players) + struct.pack(">QI", seq, i))


def face(key, msg):
    """The first digest byte below 252, mod 6, plus 1; a new counter if none is."""
    counter = 0
    while True:
        for b in hmac.new(key, msg + struct.pack(">I", counter), hashlib.sha256).digest():
            if b < 252:
                return b % 6 + 1
        counter += 1


def derive_die(ep, key, seeds, players, seq, i):
    if ep["scheme"] == 1:
        return face(ep["seed"], dice_message_v1(key[0], seeds, seq, i))
    own = [(p, b"" if p in ep["excused"] else ep["reveals"].get(p, b"")) for p in players]
    return face(ep["seed"], dice_message_v2(key[0], key[1], own, seq, i))


# ---------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------

EXIT = {"CLEAN": 0, "FAILED": 1, "UNRESOLVED": 3}


def print_text(rep, out):
    out.write("independent verification (tools/verify.py) of match %s: %d events\n\n" % (rep["match"], rep["events"]))
    by_check = {}
    for p in rep["problems"]:
        by_check.setdefault(p["check"], []).append(p)
    for c in CHECKS:
        if c == "receipts" and "checked" not in rep[c]:
            continue
        out.write("[%s] %s\n" % ("ok  " if rep[c]["ok"] else "FAIL", c))
        for p in by_check.get(c, []):
            out.write("       %s\n" % p["message"])
    if rep["dice"]["pending_reveal"]:
        out.write("       pending reveal: events %s\n" % rep["dice"]["pending_reveal"])
    for u in rep["unresolved"]:
        out.write("unresolved: event %s: %s\n" % (u["seq"], u["why"]))
    unconfirmed = [m["seq"] for m in rep["manual_rolls"] if m["status"] == "unconfirmed"]
    if unconfirmed:
        out.write("unconfirmed physical rolls (they stand unless disputed): events %s\n" % unconfirmed)
    out.write("not checked by this verifier (matchrec audit does):\n")
    for n in rep["not_checked"]:
        out.write("  - %s\n" % n)
    v = rep["verdict"]
    if v == "FAILED" and rep["first_bad_seq"]:
        v += " at event %d (%s)" % (rep["first_bad_seq"], rep["first_bad_check"])
    elif v == "CLEAN" and rep["unsigned"]:
        v += " (unsigned: the operator is trusted)"
    out.write("\nverdict: %s\n" % v)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="verify.py", description=__doc__.split("\n\n")[0],
                                 epilog="Exit status: 0 CLEAN, 1 FAILED, 2 could not run, 3 UNRESOLVED.")
    ap.add_argument("bundle", help="a bundle written by 'matchrec export MATCH --bundle FILE'")
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    ap.add_argument("--receipts", metavar="DIR", help="check the receipts in DIR/<match>.receipts against the log")
    ap.add_argument("--recorder-key", metavar="HEX", help="the recorder's public key (64 hex digits); needed with --receipts")
    args = ap.parse_args(argv)
    try:
        if args.receipts is not None and unhex(args.recorder_key, 32) is None:
            raise CannotVerify("bad_request", "--receipts needs --recorder-key HEX (64 lowercase hex digits)")
        with open(args.bundle, "rb") as f:
            bundle = read_bundle(f.read())
        rep = Verifier(bundle, args.receipts, unhex(args.recorder_key, 32)).run()
    except (OSError, CannotVerify) as e:
        code = getattr(e, "code", "bad_file")
        if args.json:
            sys.stderr.write(json.dumps({"error": {"code": code, "message": str(e)}}) + "\n")
        else:
            sys.stderr.write("error: %s: %s\n" % (code, e))
        return 2
    if args.json:
        json.dump(rep, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print_text(rep, sys.stdout)
    return EXIT[rep["verdict"]]


if __name__ == "__main__":
    sys.exit(main())
