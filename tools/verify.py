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
            raise MsgpackError("length %d in a longer form than needed (0x%02x)" % (n, t))
        return _READ[kind](data, pos, n, depth)
    if t in _NUMBERS:
        size, signed, canonical = _NUMBERS[t]
        raw, pos = _take(data, pos, size)
        n = int.from_bytes(raw, "big", signed=signed)
        if not canonical(n):
            raise MsgpackError("integer %d in a longer form than needed (0x%02x)" % (n, t))
        return n, pos
    if t == 0xCB:
        raw, pos = _take(data, pos, 8)
        return struct.unpack(">d", raw)[0], pos
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
        if not (type(self.match) is str and type(self.type) is str and _uint(self.seq) and _uint(self.version)
                and type(self.time) is int and type(self.payload_bytes) is bytes):
            raise RecordError("match, seq, type, version, time or payload has the wrong type")
        if not (type(actor) is list and len(actor) == 2 and all(type(x) is str for x in actor)):
            raise RecordError("actor is not [kind, id]")
        self.actor_kind, self.actor_id = actor
        if not all(type(x) is bytes and len(x) == 32 for x in (self.prev_hash, self.hash)):
            raise RecordError("prev_hash or hash is not 32 bytes")
        if self.auth is not None and not (type(self.auth) is list and len(self.auth) in (1, 2)
                                          and all(type(x) is bytes for x in self.auth)):
            raise RecordError("auth is neither nil, [statement] nor [statement, signature]")
        try:
            self.payload = unpack(self.payload_bytes)
        except MsgpackError as e:
            raise RecordError("the payload is not msgpack: %s" % e) from None
        if type(self.payload) is not dict:
            raise RecordError("the payload is not a map")
        for field, want in PAYLOAD_TYPES.items():
            if field in self.payload and not want(self.payload[field]):
                raise RecordError("payload field %s has the wrong type" % field)
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


def _uint(v):
    return type(v) is int and v >= 0


# The types of the payload fields this verifier reads (docs/events.md tables).
PAYLOAD_TYPES = dict(
    {f: _uint for f in ("epoch", "scheme", "count", "roll", "upto", "event", "dispute", "at")},
    **{f: lambda v: type(v) is str for f in ("player", "roller", "source", "seed", "commit", "winner", "reason",
                                             "parent", "edition")},
    hash=lambda v: type(v) in (str, bytes), values=lambda v: type(v) is list and all(_uint(x) for x in v),
    keys=lambda v: type(v) is dict and all(type(x) is str for x in v.values()),
    players=lambda v: type(v) is list and all(type(x) is dict and type(x.get("id")) is str for x in v),
    reroll=lambda v: type(v) is dict and _uint(v.get("seq")) and type(v.get("indices")) is list
    and all(_uint(x) for x in v["indices"]))


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
        if not (type(self.match) is str and _uint(self.head_seq) and type(self.head_hash) is bytes
                and len(self.head_hash) == 32 and type(self.nonce) is bytes and len(self.nonce) == 16
                and type(self.role) is str and type(command) is bytes):
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
CORE_EVENTS = SYSTEM_EVENTS | JUDGE_EVENTS | PLAYER_EVENTS | PENDING_PLAYER_EVENTS | {"match.ended"}
# Envelope v1 recorded the recorder's follow-ups with the actor of the command that caused them
# (the judge's reveal, the reveal after a player's match.ended): testdata/golden/v1.
V1_ANY_ACTOR = {"dice.committed", "dice.revealed"}
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
    b = b if isinstance(b, dict) else {}
    keys, records, lineage = b.get("keys"), b.get("records"), b.get("lineage") or [{"match": b.get("match")}]
    reveals = b.setdefault("reveals", []) or []
    framing = [
        (b.get("format") == "matchrec-bundle", "format is not \"matchrec-bundle\""),
        (b.get("version") in (1, 2) and type(b.get("version")) is int, "version is not 1 or 2"),
        (type(b.get("match")) is str and b["match"], "it names no match"),
        (type(keys) is list and all(_uint(k) for k in keys), "keys is not an array of integers"),
        (type(records) is list and all(type(r) is str for r in records), "records is not an array of base64"),
        (type(reveals) is list and all(type(r) is str for r in reveals), "reveals is not an array of base64"),
        (type(keys) is list and type(records) is list and len(keys) == len(records), "not one key per record"),
        (type(lineage) is list and all(type(x) is dict and type(x.get("match")) is str for x in lineage)
         and lineage[-1]["match"] == b.get("match"), "lineage does not end with the bundle's match"),
    ]
    for ok, why in framing:
        if not ok:
            raise CannotVerify("bad_file", "not a matchrec bundle: " + why)
    uptos = [x.get("upto") for x in lineage[:-1]]
    if not all(_uint(u) and u >= 1 for u in uptos) or uptos != sorted(set(uptos)):
        raise CannotVerify("bad_file", "not a matchrec bundle: lineage's upto must rise from the root")
    b["lineage"], b["reveals"] = lineage, reveals
    return b


def _b64(s):
    return base64.b64decode(s, validate=True)


def sha256(b):
    """SHA-256 of b; None (no hex) hashes to nothing."""
    return None if b is None else hashlib.sha256(b).digest()


def hash_field(v):
    """A payload's hash: 64 hex digits (or 32 bytes)."""
    return (v if len(v) == 32 else None) if isinstance(v, bytes) else unhex(v, 32)


class Verifier:
    """Runs every check on one bundle; each problem names (seq, check, code)."""

    def __init__(self, bundle, receipts_dir=None, recorder_key=None):
        self.b, self.match, self.lineage = bundle, bundle["match"], bundle["lineage"]
        self.receipts_dir, self.recorder_key = receipts_dir, recorder_key
        self.problems, self.unresolved, self.manual = [], [], []
        self.events, self.by_seq = [], {}  # the decoded records in stored order; by their seq
        self.players, self.edition, self.epochs = [], "", {}
        self.unsigned = set()  # the matches whose participants hold tokens, not keys
        self.stats = {c: {} for c in CHECKS}
        self._verified = {}

    def fail(self, seq, check, code, message):
        self.problems.append({"seq": seq, "check": check, "code": code, "message": message})

    def recorder_of(self, seq):
        """The match the lineage says recorded event seq."""
        return next((x["match"] for x in self.lineage[:-1] if seq <= x["upto"]), self.lineage[-1]["match"])

    def run(self):
        self.check_chain()
        first = self.by_seq.get(1)
        if first is not None and first.type == "match.created":
            self.players = [p["id"] for p in first.get("players", [])]
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
                self.fail(i, "chain", "sequence", "position %d holds key %d: a record missing, repeated or moved"
                          % (i, key))
            try:
                ev = Event(_b64(rec))
            except (binascii.Error, ValueError) as e:
                self.fail(i, "chain", "undecodable", "the record under key %d does not decode: %s" % (key, e))
                prev = None
                continue
            if ev.seq != key:
                self.fail(i, "chain", "sequence", "the record under key %d is event %d" % (key, ev.seq))
            if ev.content_hash() != ev.hash:
                self.fail(i, "chain", "hash", "the content does not match its hash")
            if (i == 1 or prev is not None) and ev.prev_hash != (prev.hash if i > 1 else ZERO_HASH):
                self.fail(i, "chain", "link", "prev_hash does not link to the record before it")
            if ev.match != self.recorder_of(i):
                self.fail(i, "chain", "lineage", "recorded by %r, lineage says %r" % (ev.match, self.recorder_of(i)))
            self.events.append(ev)
            self.by_seq.setdefault(ev.seq, ev)
            prev = ev
        if not self.b["records"]:
            self.fail(1, "chain", "empty", "the bundle holds no events")
        for parent in self.lineage[:-1]:  # bundle.md "Lineage": a branch opens with branch.created
            ev = self.by_seq.get(parent["upto"] + 1)
            fork = ("branch.created", parent["match"], parent["upto"])
            if ev is not None and (ev.type, ev.get("parent"), ev.get("at")) != fork:
                self.fail(ev.seq, "chain", "lineage", "not the branch.created of a fork from %s at %d"
                          % (parent["match"], parent["upto"]))
        self.stats["chain"]["records"] = len(self.b["records"])

    # -- 3. signatures and statements ---------------------------------------

    def check_signatures(self):
        keys, nonces, prev, checked = {}, {}, None, 0
        for ev in self.events:
            signed = bool(keys)
            if ev.actor_kind not in ("player", "judge") and ev.type != "branch.created":
                if ev.auth is not None:
                    self.fail(ev.seq, "signatures", "unexpected_auth", "a recorder's event carries auth")
            elif ev.envelope == 1 or ev.auth is None:
                if signed or ev.envelope == 2:
                    self.fail(ev.seq, "signatures", "missing_signature" if signed else "missing_statement",
                              "a participant's event without a statement (envelope v%d)" % ev.envelope)
            else:
                checked += self.check_statement(ev, prev, keys, signed, nonces)
            if ev.type in ("match.created", "branch.created"):
                keys = self.created_keys(ev)
                if not keys:
                    self.unsigned.add(ev.match)
            prev = ev
        self.stats["signatures"].update(signed=not self.unsigned, signatures_checked=checked)

    def created_keys(self, ev):
        keys, roles = ev.get("keys") or {}, {"judge"} | {"player:" + p for p in self.players}
        if keys and (set(keys) != roles or any(ed_decompress(unhex(k, 32) or b"") is None for k in keys.values())):
            self.fail(ev.seq, "signatures", "bad_keys", "keys must give one Ed25519 public key (64 lowercase hex "
                      "digits) to each of %s" % ", ".join(sorted(roles)))
            return {}
        return keys

    def check_statement(self, ev, prev, keys, signed, nonces):
        """events.md "How statements bind events", rules 1-4; 1 when a signature was checked."""
        try:
            st = ev.statement = Statement(ev.auth[0])
        except RecordError as e:
            self.fail(ev.seq, "signatures", "bad_statement", str(e))
            return 0
        fail = lambda code, msg: self.fail(ev.seq, "signatures", code, msg)  # noqa: E731
        key, checked = unhex(keys.get(st.role), 32), 0
        if signed and len(ev.auth) < 2:
            fail("missing_signature", "no signature in a signed match")
        elif signed and (key is None or not self.verify_once(key, ev.auth[0], ev.auth[1])):
            fail("bad_signature", "the signature does not verify under %s's key" % st.role)
        else:
            checked = int(signed)
        if ev.type == "branch.created":
            if st.role not in {"judge"} | {"player:" + p for p in self.players} or st.command["type"] != "branch":
                fail("bad_statement", "not a branch command of a participant of the parent")
        elif st.role != ev.role:
            fail("wrong_role", "the statement is %s's, the actor is %s" % (st.role, ev.role))
        if prev is not None and prev.auth == ev.auth:
            return checked  # the same command continues
        want = ev.get("parent") if ev.type == "branch.created" else ev.match
        if st.match != want:
            fail("wrong_match", "the statement is for match %r, not %r" % (st.match, want))
        if st.head_seq != ev.seq - 1 or st.head_hash != ev.prev_hash:
            fail("stale_head", "decided at head %d (%s…), not at event %d" % (
                st.head_seq, st.head_hash.hex()[:12], ev.seq - 1))
        nonce = (st.match, st.role, st.nonce)
        if nonce in nonces:
            fail("nonce_reused", "%s reused the nonce of event %d's command" % (st.role, nonces[nonce]))
        nonces.setdefault(nonce, ev.seq)
        return checked

    def verify_once(self, key, message, signature):
        k = (key, message, signature)
        if k not in self._verified:
            self._verified[k] = ed25519_verify(key, signed_message(STATEMENT_DOMAIN, message), signature)
        return self._verified[k]

    # -- 4. who acted (the static rules; † rules are the re-fold's) --------

    def check_actors(self):
        proposal, forks = None, [x["upto"] + 1 for x in self.lineage[:-1]]
        for ev in self.events:
            t, who, p = ev.type, ev.actor_kind, ev.payload
            editions = [e for e, types in EDITION_EVENTS.items() if t in types]
            players_own = t in PLAYER_EVENTS or t in PENDING_PLAYER_EVENTS or editions
            bad = self.actor_invalid(ev)
            if not editions and t not in CORE_EVENTS:
                bad = "%r is no event type of docs/events.md" % t
            elif editions and self.edition not in editions:
                bad = "an event of edition %s in a match of edition %r" % (editions[0], self.edition)
            elif (ev.seq == 1) != (t == "match.created"):
                bad = "event 1, and only event 1, is match.created"
            elif t == "branch.created" and ev.seq not in forks:
                bad = "branch.created is only the first own event of a branch"
            elif t in SYSTEM_EVENTS and who != "system" and (ev.envelope == 2 or t not in V1_ANY_ACTOR):
                bad = "%s is the system's" % t
            elif (t in JUDGE_EVENTS and who != "judge") or (players_own and who != "player"):
                bad = "%s is the %s's" % (t, "judge" if t in JUDGE_EVENTS else "player")
            elif t == "dice.seed_contributed" and ev.envelope != 1:
                bad = "refused since envelope v2"
            elif (t == "dice.seed_committed" and p.get("player") != ev.actor_id) or (
                    t == "dice.rolled" and p.get("roller") != ev.actor_id):
                bad = "it names another player than its actor"
            elif t == "match.ended":
                bad = bad or self.end_not_allowed(ev, proposal)
            elif t in ("dice.confirmed", "dice.contested"):
                bad = bad or self.witness_invalid(ev)
            proposal = ev if t == "match.end_proposed" else proposal
            if bad:
                self.fail(ev.seq, "actors", "wrong_actor", "%s by %s: %s" % (t, ev.role, bad))

    def actor_invalid(self, ev):
        kind, ident = ev.actor_kind, ev.actor_id
        if (kind == "player" and ident in self.players) or (kind, ident) in (("judge", "judge"), ("system", "")):
            return None
        return "actor [%r, %r] is no participant of the match" % (kind, ident)

    def end_not_allowed(self, ev, proposal):
        if ev.actor_kind == "judge" or (ev.actor_kind == "player" and ev.envelope == 1):
            return None
        winner, reason = ev.get("winner", ""), ev.get("reason", "")
        if ev.actor_kind == "player" and winner and winner != ev.actor_id and winner in self.players:
            return None  # a concession
        if (ev.actor_kind == "player" and proposal is not None and proposal.actor_id != ev.actor_id
                and (proposal.get("winner", ""), proposal.get("reason", "")) == (winner, reason)):
            return None  # accepting the other player's proposal
        return "a player ends the match only by conceding or accepting the other player's proposal"

    def witness_invalid(self, ev):
        if ev.type == "dice.confirmed" and ev.get("upto"):
            ok = ev.get("upto") == ev.seq - 1 and hash_field(ev.get("hash")) == ev.prev_hash
            return None if ok else "a confirmation up to the head names seq - 1 and prev_hash"
        roll = self.by_seq.get(ev.get("roll"))
        if roll is None or roll.type != "dice.rolled" or roll.seq >= ev.seq:
            return "event %r is no earlier roll" % ev.get("roll")
        if roll.get("roller") == ev.actor_id:
            return "a player vouches only for the other player's rolls"
        if (ev.envelope == 2 or "hash" in ev.payload) and hash_field(ev.get("hash")) != roll.hash:
            return "the hash is not event %d's" % roll.seq
        return None

    # -- 5. dice (docs/dice.md) -------------------------------------------

    def check_dice(self):
        epochs, current, contributed, rolls = self.epochs, {}, [], []
        for ev in self.events:
            t, p, m = ev.type, ev.payload, ev.match
            fail = lambda code, msg: self.fail(ev.seq, "dice", code, msg)  # noqa: E731
            if t == "dice.committed":
                key, scheme = (m, p.get("epoch")), p.get("scheme", 1)
                bad_scheme = scheme not in (1, 2) or (ev.envelope == 2 and scheme != 2)  # "2 for every epoch now"
                if key in epochs or unhex(p.get("commit"), 32) is None or bad_scheme:
                    fail("bad_commit", "epoch %r of %s opened twice, with a bad commitment or scheme %r"
                         % (key[1], m, scheme))
                    continue
                epochs[key] = {"seq": ev.seq, "commit": unhex(p["commit"]), "scheme": scheme, "seed": None,
                               "commits": {}, "reveals": {}, "excused": set()}
                current[m] = key
            elif t == "dice.revealed" and not self.reveal(ev, ev.seq):
                fail("bad_reveal", "epoch %r of %s was never opened" % (p.get("epoch"), m))
            elif t in ("dice.seed_committed", "dice.seed_revealed", "dice.seed_excused"):
                self.player_seed(ev, epochs.get((m, p.get("epoch"))))
            elif t == "dice.reveal_requested":
                nxt = self.by_seq.get(ev.seq + 1)
                if current.get(m) != (m, p.get("epoch")) or nxt is None or (nxt.type, nxt.get("epoch")) != (
                        "dice.revealed", p.get("epoch")):
                    fail("reveal_missing", "the requested reveal of the open epoch %r does not follow" % p.get("epoch"))
            elif t == "dice.seed_contributed":
                contributed.append(p.get("seed", ""))
            elif t == "dice.rolled" and p.get("source") == "digital":
                ep = epochs.get(current.get(m))
                if ep is None:
                    fail("no_epoch", "a digital roll with no epoch open")
                    continue
                if ep["scheme"] == 2 and any(x not in ep["reveals"] and x not in ep["excused"] for x in self.players):
                    fail("seeds_pending", "a digital roll before every player's seed was revealed or excused")
                rolls.append((ev, current[m], list(contributed)))
            if t == "dice.rolled" and "reroll" in p:
                self.check_reroll(ev)
        for raw in self.b["reveals"]:
            self.ancestor_reveal(raw)
        pending = [ev.seq for ev, key, _ in rolls if epochs[key]["seed"] is None]
        for ev, key, seeds in rolls:
            values = ev.get("values", [])
            if epochs[key]["seed"] is not None and (ev.get("count") != len(values) or values != [
                    derive_die(epochs[key], key, seeds, self.players, ev.seq, i) for i in range(len(values))]):
                self.fail(ev.seq, "dice", "forged_die", "the digital dice %s are not those the seeds of epoch %d "
                          "of %s give" % (values, key[1], key[0]))
        self.stats["dice"].update(digital_rolls=len(rolls), checked_rolls=len(rolls) - len(pending),
                                  pending_reveal=pending)

    def reveal(self, ev, seq):
        """A dice.revealed applies to the epoch of the match that recorded it; named at seq."""
        key = (ev.match, ev.get("epoch"))
        ep, seed = self.epochs.get(key), unhex(ev.get("seed"))
        if ep is None:
            return False
        again, ep["revealed_at"] = "revealed_at" in ep, ev.seq
        if again or sha256(seed) != ep["commit"]:
            self.fail(seq, "dice", "bad_reveal", "the seed of epoch %r of %s revealed at %s event %d does not match "
                      "its commitment, or was revealed before" % (key[1], key[0], ev.match, ev.seq))
        else:
            ep["seed"] = seed
        return True

    def ancestor_reveal(self, raw):
        """bundle.md "Reveals for branches": an ancestor's reveal after its fork."""
        try:
            ev = Event(_b64(raw))
        except (binascii.Error, ValueError) as e:
            return self.fail(None, "dice", "bad_reveal", "an ancestor's reveal does not decode: %s" % e)
        forks = {x["match"]: x["upto"] for x in self.lineage[:-1]}
        if ev.type != "dice.revealed" or ev.seq <= forks.get(ev.match, ev.seq) or ev.content_hash() != ev.hash:
            return self.fail(None, "dice", "bad_reveal", "%s event %d is no ancestor's reveal after its fork"
                             % (ev.match, ev.seq))
        ep = self.epochs.get((ev.match, ev.get("epoch")))
        if ep is not None:  # otherwise the epoch opened after the fork: no event here used it
            self.reveal(ev, ep["seq"])

    def player_seed(self, ev, ep):
        t, player = ev.type, ev.get("player")
        if ep is None or ep["scheme"] != 2 or "revealed_at" in ep or player not in self.players:
            why = "for a player of an open scheme-2 epoch"
        elif t == "dice.seed_committed" and (
                player in ep["commits"] or ep["reveals"] or unhex(ev.get("commit"), 32) is None):
            why = "once per player, before any player revealed"
        elif t == "dice.seed_revealed" and (player in ep["reveals"] or player not in ep["commits"] or any(
                x not in ep["commits"] and x not in ep["excused"] for x in self.players)):
            why = "once, after every player committed or was excused"
        elif t == "dice.seed_revealed" and sha256(unhex(ev.get("seed"))) != ep["commits"][player]:
            why = "matching its commitment"
        elif t == "dice.seed_excused" and (player in ep["reveals"] or player in ep["excused"]):
            why = "for a player who has not revealed"
        else:
            if t == "dice.seed_committed":
                ep["commits"][player] = unhex(ev.get("commit"))
            elif t == "dice.seed_revealed":
                ep["reveals"][player] = unhex(ev.get("seed"))
            else:
                ep["excused"].add(player)
            return
        self.fail(ev.seq, "dice", "seed_order", "%s of %r is allowed only %s" % (t, player, why))

    def check_reroll(self, ev):
        rr = ev.get("reroll")
        base = self.by_seq.get(rr["seq"])
        n = len(base.get("values", [])) if base is not None and base.type == "dice.rolled" else -1
        if n < 0 or base.seq >= ev.seq or len(rr["indices"]) != ev.get("count") or any(i >= n for i in rr["indices"]):
            self.fail(ev.seq, "dice", "bad_reroll", "the re-roll does not name dice of an earlier roll")

    # -- 6. the end; 7. witnesses and disputes; 8. receipts -----------------

    def check_end(self):
        ended, revealing = {}, set()
        for ev in self.events:
            m = ev.match
            if m not in ended:
                if ev.type == "match.ended":
                    ended[m] = ev.seq
                    revealing.add(m)
            elif ev.type == "dice.revealed" and m in revealing:
                continue  # the reveals of the same append
            else:
                revealing.discard(m)
                if ev.type not in AFTER_END:
                    self.fail(ev.seq, "end", "after_end", "%s after the match ended at %d" % (ev.type, ended[m]))
        for m, seq in ended.items():
            still = sorted(n for (mm, n), ep in self.epochs.items() if mm == m and "revealed_at" not in ep)
            if still:
                self.fail(seq, "end", "unrevealed", "the match ended; its epochs %s were never revealed" % still)
        self.stats["end"]["ended"] = sorted(ended.values())

    def check_witnesses(self):
        ruled, settled = set(), set()
        for ev in self.events:
            if ev.type == "ruling.made":
                d = self.by_seq.get(ev.get("dispute"))
                if d is None or d.type != "dispute.raised" or d.seq >= ev.seq:
                    self.fail(ev.seq, "witnesses", "bad_ruling", "the ruling names no earlier dispute")
                    continue
                ruled.add(d.seq)
                settled.update({ev.get("event"), d.get("event")})
        status, manual = {}, [e for e in self.events if e.type == "dice.rolled" and e.get("source") == "manual"]
        for ev in self.events:
            if ev.type == "dice.confirmed":
                for r in manual:
                    if (r.seq == ev.get("roll") or r.seq <= ev.get("upto", 0)) and r.get("roller") != ev.actor_id:
                        status.setdefault(r.seq, "confirmed")
            elif ev.type == "dice.contested":
                status[ev.get("roll")] = "contested"
                if ev.get("roll") not in settled:
                    self.unresolved.append({"seq": ev.get("roll"), "why": "contested at %d, no ruling" % ev.seq})
            elif ev.type == "dispute.raised" and ev.seq not in ruled:
                self.unresolved.append({"seq": ev.seq, "why": "a dispute about event %r, no ruling" % ev.get("event")})
        self.manual = [{"seq": r.seq, "roller": r.get("roller"), "status": status.get(r.seq, "unconfirmed")}
                       for r in manual if status.get(r.seq) != "confirmed"]

    def check_receipts(self):
        if not os.path.isdir(self.receipts_dir):
            raise CannotVerify("bad_file", "no receipts directory %s" % self.receipts_dir)
        path, lines, n = os.path.join(self.receipts_dir, self.match + ".receipts"), [], 0
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
                assert type(match) is str and _uint(seq) and seq >= 1 and None not in (h, rec, sig)
            except (ValueError, KeyError, TypeError, AssertionError):
                self.fail(None, "receipts", "bad_receipt", "%s line %d is not a receipt" % (path, line_no))
                continue
            body, last, ev = pack([match, seq, h, rec]), len(self.b["records"]), self.by_seq.get(seq)
            if match != self.match or not ed25519_verify(rec, signed_message(RECEIPT_DOMAIN, body), sig):
                self.fail(seq, "receipts", "bad_receipt", "the receipt does not verify, or is for match %r" % match)
            elif rec != self.recorder_key:
                self.fail(seq, "receipts", "wrong_recorder", "signed by %s, not by the recorder's key" % rec.hex())
            elif seq > last:
                self.fail(seq, "receipts", "truncated", "receipted by the recorder; the log ends at %d (cut)" % last)
            elif ev is None or ev.hash != h:
                self.fail(seq, "receipts", "rewritten", "not the event the recorder receipted: rewritten at or below")
        self.stats["receipts"]["checked"] = n

    # -- the verdict ------------------------------------------------------

    def report(self):
        probs = self.problems
        chain = [p for p in probs if p["check"] == "chain"]
        # A broken chain explains what follows it; otherwise the lowest sequence wins.
        ranked = sorted((p for p in (chain or probs) if p["seq"] is not None),
                        key=lambda p: (p["seq"], CHECKS.index(p["check"])))
        first = ranked[0] if ranked else {"seq": 0, "check": ""}
        verdict = "FAILED" if probs else ("UNRESOLVED" if self.unresolved else "CLEAN")
        checks = {c: dict({"ok": not any(p["check"] == c for p in probs)}, **self.stats[c]) for c in CHECKS}
        checks["chain"]["first_broken"] = min((p["seq"] for p in chain), default=0)
        return dict({
            "match": self.match, "events": len(self.events), "ok": verdict == "CLEAN", "verdict": verdict,
            "unsigned": bool(self.unsigned), "first_bad_seq": first["seq"], "first_bad_check": first["check"],
            "problems": probs, "unresolved": self.unresolved, "manual_rolls": self.manual,
            "not_checked": NOT_CHECKED,
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
    for c in CHECKS if "checked" in rep["receipts"] else CHECKS[:-1]:
        out.write("[%s] %s\n" % ("ok  " if rep[c]["ok"] else "FAIL", c))
        out.writelines("       %s%s\n" % ("" if p["seq"] is None else "event %d: " % p["seq"], p["message"])
                       for p in rep["problems"] if p["check"] == c)
    if rep["dice"]["pending_reveal"]:
        out.write("       pending reveal: events %s\n" % rep["dice"]["pending_reveal"])
    for u in rep["unresolved"]:
        out.write("unresolved: event %s: %s\n" % (u["seq"], u["why"]))
    unconfirmed = [m["seq"] for m in rep["manual_rolls"] if m["status"] == "unconfirmed"]
    if unconfirmed:
        out.write("unconfirmed physical rolls (they stand unless disputed): events %s\n" % unconfirmed)
    out.write("not checked by this verifier (matchrec audit does):\n")
    out.writelines("  - %s\n" % n for n in rep["not_checked"])
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
    ap.add_argument("--recorder-key", metavar="HEX", help="the recorder's public key (64 hex digits), with --receipts")
    args = ap.parse_args(argv)
    recorder = unhex((args.recorder_key or "").lower(), 32)
    try:
        if args.receipts is not None and recorder is None:
            raise CannotVerify("bad_request", "--receipts needs --recorder-key HEX (64 hex digits)")
        with open(args.bundle, "rb") as f:
            bundle = read_bundle(f.read())
        rep = Verifier(bundle, args.receipts, recorder).run()
    except Exception as e:  # noqa: BLE001 -- no traceback reaches a user: exit 2 names the problem
        code = getattr(e, "code", "bad_file" if isinstance(e, OSError) else "internal")
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
