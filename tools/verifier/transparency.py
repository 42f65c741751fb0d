"""The transparency log of heads: docs/transparency.md, written from it and the RFCs it names.

Checkpoints are C2SP signed notes (an Ed25519 signature over the note text, keyed by name and key hash) of
C2SP tlog-checkpoint bodies; the tree is RFC 6962's (SHA-256, 0x00 leaf and 0x01 node prefixes); inclusion
and consistency proofs are checked with the algorithms of RFC 9162 §2.1.3.2 and §2.1.4.2.
"""

import base64
import binascii
import hashlib
import json

from .ed25519 import ed25519_verify
from .msgpack import MsgpackError, unpack

ORIGIN_PREFIX = "matchrec/"
MAX_CHECKPOINT = 16 << 10
MAX_PROOF = 128
KIND_CREATED, KIND_ENDED = "created", "ended"


class LogError(ValueError):
    """A checkpoint, entry or proof that does not verify; code is the report's."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def leaf_hash(entry):
    return hashlib.sha256(b"\x00" + entry).digest()


def node_hash(left, right):
    return hashlib.sha256(b"\x01" + left + right).digest()


def key_hash(name, public):
    """signed-note: the first 4 bytes of SHA-256(name || "\\n" || 0x01 || key), big-endian."""
    return hashlib.sha256(name.encode() + b"\n" + b"\x01" + public).digest()[:4]


def open_checkpoint(note, public):
    """Verify a signed checkpoint of the log of the recorder whose key is public: (size, root hash)."""
    if type(note) is not str or len(note.encode()) > MAX_CHECKPOINT:
        raise LogError("bad_checkpoint", "not a checkpoint")
    text, sep, sigs = note.partition("\n\n")
    origin = ORIGIN_PREFIX + public.hex()
    if not sep or not sigs.endswith("\n"):
        raise LogError("bad_checkpoint", "not a signed note")
    text += "\n"
    signed = False
    for line in sigs[:-1].split("\n"):
        if not line.startswith("\u2014 "):
            raise LogError("bad_checkpoint", "a signature line that does not start with an em dash")
        name, _, b64 = line[2:].partition(" ")
        try:
            sig = base64.b64decode(b64, validate=True)
        except (binascii.Error, ValueError):
            raise LogError("bad_checkpoint", "a signature that is not base64") from None
        if name == origin and sig[:4] == key_hash(origin, public):
            if len(sig) != 68 or not ed25519_verify(public, text.encode(), sig[4:]):
                raise LogError("bad_checkpoint", "the recorder's signature of the checkpoint does not verify")
            signed = True
    if not signed:
        raise LogError("bad_checkpoint", "not signed by %s" % origin)
    lines = text.split("\n")
    if len(lines) != 4 or lines[0] != origin:
        raise LogError("bad_checkpoint", "the checkpoint's origin is not the recorder's log %s" % origin)
    size = lines[1]
    if not size.isdigit() or str(int(size)) != size:
        raise LogError("bad_checkpoint", "the tree size is not a number")
    try:
        root = base64.b64decode(lines[2], validate=True)
    except (binascii.Error, ValueError):
        root = b""
    if len(root) != 32:
        raise LogError("bad_checkpoint", "the root hash is not 32 bytes of base64")
    return int(size), root


def parse_entry(entry):
    """[1, match, seq, hash (32), signed, kind, prev], canonical msgpack."""
    try:
        e = unpack(entry)
    except MsgpackError as err:
        raise LogError("bad_proof", "an entry that is not canonical msgpack: %s" % err) from None
    if not (type(e) is list and len(e) == 7 and e[0] == 1 and type(e[1]) is str and type(e[2]) is int and e[2] >= 0
            and type(e[3]) is bytes and len(e[3]) == 32 and type(e[4]) is bool and type(e[5]) is str
            and type(e[6]) is int and e[6] >= -1):
        raise LogError("bad_proof", "an entry that is not [1, match, seq, hash, signed, kind, prev]")
    return {"match": e[1], "seq": e[2], "hash": e[3], "signed": e[4], "kind": e[5], "prev": e[6]}


def _lsb(n):
    return n & 1


def check_inclusion(index, size, leaf, proof, root):
    """RFC 9162 §2.1.3.2."""
    if not 0 <= index < size or len(proof) > MAX_PROOF:
        return False
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            return False
        if _lsb(fn) or fn == sn:
            r = node_hash(p, r)
            while not _lsb(fn) and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and r == root


def check_consistency(first, first_hash, second, second_hash, proof):
    """RFC 9162 §2.1.4.2; equal sizes need equal roots, and any tree extends the empty one."""
    if first == second:
        return first_hash == second_hash and not proof
    if first == 0:
        return True
    if first > second or not proof or len(proof) > MAX_PROOF:
        return False
    if first & (first - 1) == 0:
        proof = [first_hash] + list(proof)
    fn, sn = first - 1, second - 1
    while _lsb(fn):
        fn, sn = fn >> 1, sn >> 1
    fr = sr = proof[0]
    for c in proof[1:]:
        if sn == 0:
            return False
        if _lsb(fn) or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            while not _lsb(fn) and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and fr == first_hash and sr == second_hash


def _hashes(v):
    if type(v) is not list:
        raise LogError("bad_proof", "a proof that is not an array of hashes")
    out = []
    for h in v:
        try:
            b = base64.b64decode(h, validate=True) if type(h) is str else b""
        except (binascii.Error, ValueError):
            b = b""
        if len(b) != 32:
            raise LogError("bad_proof", "a proof hash that is not 32 bytes of base64")
        out.append(b)
    return out


def read_proof(v):
    """A proof as JSON has it: {checkpoint, entries: [{index, entry, proof}], consistency: [{from, proof}]}."""
    if type(v) is not dict or not set(v) <= {"checkpoint", "entries", "consistency"} or type(v.get("checkpoint")) is not str:
        raise LogError("bad_checkpoint", "not a log proof")
    entries = []
    for x in v.get("entries") or []:
        try:
            assert type(x) is dict and set(x) <= {"index", "entry", "proof"} and type(x.get("index")) is int
            entry = base64.b64decode(x["entry"], validate=True)
        except (AssertionError, KeyError, TypeError, binascii.Error, ValueError):
            raise LogError("bad_proof", "an inclusion proof that is not {index, entry, proof}") from None
        entries.append({"index": x["index"], "entry": entry, "proof": _hashes(x.get("proof") or [])})
    cons = {}
    for x in v.get("consistency") or []:
        if type(x) is not dict or type(x.get("from")) is not int:
            raise LogError("bad_proof", "a consistency proof that is not {from, proof}")
        cons[x["from"]] = _hashes(x.get("proof") or [])
    return {"checkpoint": v["checkpoint"], "entries": entries, "consistency": cons}


def read_held(data):
    """`--checkpoint FILE`: the JSON of `matchrec prove --json`, or a signed checkpoint as it is."""
    text = data.decode("utf-8", errors="replace")
    if text.strip().startswith("{"):
        try:
            return read_proof(json.loads(text))
        except ValueError as e:
            raise LogError("bad_checkpoint", "your checkpoint: %s" % e) from None
    return {"checkpoint": text, "entries": [], "consistency": {}}


class LogCheck:
    """docs/transparency.md "Verifying a bundle against the log", as matchrec's check log."""

    def __init__(self, match, events, key, fail):
        self.match, self.key, self.fail = match, key, fail
        self.by_seq = {ev.seq: ev.hash for ev in events}
        self.last = max(self.by_seq, default=0)
        self.signed, self.created_at = False, 0
        for ev in events:
            if ev.match == match and ev.type in ("match.created", "branch.created"):
                self.signed, self.created_at = bool(ev.payload.get("keys")), ev.seq
                break
        self.entries, self.newest = 0, 0

    def proof(self, p, what):
        try:
            size, root = open_checkpoint(p["checkpoint"], self.key)
        except LogError as e:
            self.fail(0, e.code, "%s: %s" % (what, e))
            return None
        for inc in p["entries"]:
            try:
                e = parse_entry(inc["entry"])
            except LogError as err:
                self.fail(0, err.code, "%s: %s" % (what, err))
                continue
            if not check_inclusion(inc["index"], size, leaf_hash(inc["entry"]), inc["proof"], root):
                self.fail(0, "bad_proof", "%s: entry %d is not in the tree of size %d" % (what, inc["index"], size))
                continue
            self.entries += 1
            if e["match"] != self.match:
                self.fail(0, "foreign_entry", "%s proves an entry of match %s" % (what, e["match"]))
                continue
            self.newest = max(self.newest, e["seq"])
            if e["seq"] > self.last:
                self.fail(self.last + 1, "truncated", "the log holds event %d; the bundle ends at event %d"
                          % (e["seq"], self.last))
            elif self.by_seq.get(e["seq"]) != e["hash"]:
                self.fail(e["seq"], "rewritten", "the log's entry says another hash for event %d" % e["seq"])
            if e["signed"] != self.signed and self.created_at:
                self.fail(self.created_at, "downgrade", "the log recorded the match as %s"
                          % ("signed" if e["signed"] else "unsigned"))
        return size, root

    def run(self, own, held):
        out = {"size": 0, "entries": 0}
        mine = theirs = None
        if own is not None:
            mine = self.proof(own, "the bundle's checkpoint")
            if mine is not None:
                out["size"] = mine[0]
                if self.newest < self.last:
                    self.fail(self.newest + 1, "not_logged", "the bundle goes on past the log's newest entry")
        if held is not None:
            theirs = self.proof(held, "your checkpoint")
            if theirs is not None:
                out["held"] = theirs[0]
                if mine is not None:
                    self.relate(mine, theirs, own, held)
        out["entries"] = self.entries
        return out

    def relate(self, mine, theirs, own, held):
        (old, new, new_p) = (theirs, mine, own) if mine[0] > theirs[0] else (mine, theirs, held)
        proof = []
        if old[0] != new[0]:
            if old[0] not in new_p["consistency"]:
                self.fail(0, "log_unproven", "no consistency proof from %d entries to %d" % (old[0], new[0]))
                return
            proof = new_p["consistency"][old[0]]
        if not check_consistency(old[0], old[1], new[0], new[1], proof):
            self.fail(0, "log_fork", "the trees of %d and %d entries are two histories" % (old[0], new[0]))
