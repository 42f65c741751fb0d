"""Records, statements and bundles: docs/events.md "The record" and "Statements", docs/bundle.md "The bundle"."""

import base64
import binascii
import hashlib
import json

from .msgpack import MsgpackError, NotCanonical, unpack, unpack_at
from .transparency import LogError, read_proof

ZERO_HASH = bytes(32)
MAX_STATEMENT = 64 << 10  # events.md: a statement is at most 64 KiB


class CannotVerify(Exception):
    """The verification could not run at all (exit 2)."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


class RecordError(ValueError):
    """A stored record that does not have the shape docs/events.md gives."""

    def __init__(self, message, code="undecodable"):
        super().__init__(message)
        self.code = code


def _uint(v, bits=64):
    return type(v) is int and 0 <= v < 1 << bits


def _int64(v):
    return type(v) is int and -(1 << 63) <= v < 1 << 63


def _msgpack(what, raw, whole=True):
    """Decode raw strictly; a RecordError names what it was and whether it was only not canonical."""
    try:
        return unpack(raw) if whole else unpack_at(raw, 0)
    except NotCanonical as e:
        raise RecordError("%s is not canonical msgpack: %s" % (what, e), "non_canonical") from None
    except MsgpackError as e:
        raise RecordError("%s is not msgpack: %s" % (what, e)) from None


class Event:
    """One decoded record: the body's fields plus what the checks need."""

    def __init__(self, raw):
        if raw[:1] != b"\x92":
            raise RecordError("a record is an array of two, [body, hash]")
        body, end = _msgpack("the record", raw[1:], whole=False)
        self.hash, end2 = _msgpack("the record", raw[1 + end:], whole=False)
        if 1 + end + end2 != len(raw):
            raise RecordError("%d bytes after the record" % (len(raw) - 1 - end - end2))
        self.body = bytes(raw[1:1 + end])  # hashed exactly as it appears in the record
        if not isinstance(body, list) or len(body) not in (8, 9):
            raise RecordError("the body is not an array of 8 (envelope v1) or 9 (v2) elements")
        self.envelope = 1 if len(body) == 8 else 2
        self.match, self.seq, self.type, self.version, self.time, actor, self.payload_bytes, self.prev_hash = body[:8]
        self.auth = body[8] if self.envelope == 2 else None
        if not (type(self.match) is str and type(self.type) is str and _uint(self.seq) and _uint(self.version, 16)
                and _int64(self.time) and type(self.payload_bytes) is bytes):
            raise RecordError("match, seq, type, version, time or payload has the wrong type")
        if not (type(actor) is list and len(actor) == 2 and all(type(x) is str for x in actor)):
            raise RecordError("actor is not [kind, id]")
        self.actor_kind, self.actor_id = actor
        if not all(type(x) is bytes and len(x) == 32 for x in (self.prev_hash, self.hash)):
            raise RecordError("prev_hash or hash is not 32 bytes")
        if self.auth is not None and not (type(self.auth) is list and len(self.auth) in (1, 2)
                                          and all(type(x) is bytes for x in self.auth) and self.auth[0]
                                          and (len(self.auth) == 1 or len(self.auth[1]) == 64)):
            raise RecordError("auth is neither nil, [statement] nor [statement, signature of 64 bytes]")
        self.payload = _msgpack("the payload", self.payload_bytes)
        if type(self.payload) is not dict:
            raise RecordError("the payload is not a map")
        for field, want in PAYLOAD_TYPES.items():
            if field in self.payload and not want(self.payload[field]):
                raise RecordError("payload field %s has the wrong type" % field)

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


def _str(v):
    return type(v) is str


# The types of the payload fields this verifier reads (docs/events.md tables).
PAYLOAD_TYPES = dict(
    {f: _uint for f in ("epoch", "scheme", "count", "roll", "upto", "event", "dispute", "at")},
    **{f: _str for f in ("player", "roller", "source", "seed", "commit", "winner", "reason", "parent", "edition",
                         "hash", "name", "decision", "note")},
    values=lambda v: type(v) is list and all(_uint(x) for x in v),
    keys=lambda v: type(v) is dict and all(type(x) is str for x in v.values()),
    players=lambda v: type(v) is list and all(type(x) is dict and type(x.get("id")) is str for x in v),
    reroll=lambda v: type(v) is dict and _uint(v.get("seq")) and type(v.get("indices")) is list
    and all(_uint(x) for x in v["indices"]))


class Statement:
    """docs/events.md "Statements": [match, head_seq, head_hash, nonce, role, command]."""

    def __init__(self, raw):
        if len(raw) > MAX_STATEMENT:
            raise RecordError("a statement of %d bytes (at most %d)" % (len(raw), MAX_STATEMENT))
        v = _msgpack("the statement", raw)
        if not (isinstance(v, list) and len(v) == 6):
            raise RecordError("the statement is not an array of 6")
        self.match, self.head_seq, self.head_hash, self.nonce, self.role, command = v
        if not (type(self.match) is str and _uint(self.head_seq) and type(self.head_hash) is bytes
                and len(self.head_hash) == 32 and type(self.nonce) is bytes and len(self.nonce) == 16
                and type(self.role) is str and type(command) is bytes):
            raise RecordError("a statement field has the wrong type")
        self.command = _msgpack("the statement's command", command)
        if not isinstance(self.command, dict) or not self.command.get("type") or type(self.command["type"]) is not str:
            raise RecordError("the statement's command is not a map with a type")


def unhex(s, size=None):
    """Bytes of a lowercase hex string (None when it is not one)."""
    if not isinstance(s, str) or s != s.lower() or (size is not None and len(s) != 2 * size):
        return None
    try:
        return bytes.fromhex(s)
    except ValueError:
        return None


def sha256(b):
    """SHA-256 of b; None (no hex) hashes to nothing."""
    return None if b is None else hashlib.sha256(b).digest()


# docs/bundle.md "The bundle": its fields, and those of a lineage element.
BUNDLE_FIELDS = {"format", "version", "match", "state_hash", "state_version", "keys", "records", "lineage",
                 "reveals", "recorder", "log"}


def _b64(s):
    return base64.b64decode(s, validate=True)


def read_bundle(data):
    """Framing (docs/bundle.md check 1): a bundle that fails here cannot be verified."""
    try:
        b = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise CannotVerify("bad_file", "not a matchrec bundle (not JSON: %s)" % e) from None
    b = b if isinstance(b, dict) else {}
    keys, records, lineage = b.get("keys"), b.get("records"), b.get("lineage") or [{"match": b.get("match")}]
    reveals = b.get("reveals") or []
    state = b.get("state_hash") or ""
    framing = [
        (b.get("format") == "matchrec-bundle", "format is not \"matchrec-bundle\""),
        (set(b) <= BUNDLE_FIELDS, "fields it does not have: %s" % sorted(set(b) - BUNDLE_FIELDS)),
        (b.get("version") in (1, 2, 3) and type(b.get("version")) is int, "version is not 1, 2 or 3"),
        (type(b.get("match")) is str and b["match"], "it names no match"),
        (type(state) is str and (state == "" or unhex(state.lower(), 32) is not None), "state_hash is not 64 hex digits"),
        (type(b.get("state_version", 0)) is int, "state_version is not an integer"),
        (type(b.get("recorder", "")) is str, "recorder is not a string"),
        (type(keys) is list and all(_uint(k) for k in keys), "keys is not an array of integers"),
        (type(records) is list and all(type(r) is str for r in records), "records is not an array of base64"),
        (type(reveals) is list and all(type(r) is str for r in reveals), "reveals is not an array of base64"),
        (type(keys) is list and type(records) is list and len(keys) == len(records), "not one key per record"),
        (type(lineage) is list and all(type(x) is dict and type(x.get("match")) is str and set(x) <= {"match", "upto"}
                                       for x in lineage)
         and lineage[-1]["match"] == b.get("match") and "upto" not in lineage[-1],
         "lineage does not end with the bundle's match"),
    ]
    for ok, why in framing:
        if not ok:
            raise CannotVerify("bad_file", "not a matchrec bundle: " + why)
    uptos = [x.get("upto") for x in lineage[:-1]]
    if not all(_uint(u) and u >= 1 for u in uptos) or uptos != sorted(set(uptos)):
        raise CannotVerify("bad_file", "not a matchrec bundle: lineage's upto must rise from the root")
    try:
        b["records"], b["reveals"] = [_b64(r) for r in records], [_b64(r) for r in reveals]
    except (binascii.Error, ValueError) as e:
        raise CannotVerify("bad_file", "not a matchrec bundle: a record is not base64 (%s)" % e) from None
    b["lineage"] = lineage
    if b.get("log") is not None:
        try:
            b["log_proof"] = read_proof(b["log"])
        except LogError as e:
            raise CannotVerify("bad_file", "not a matchrec bundle: its log proof: %s" % e) from None
    return b
