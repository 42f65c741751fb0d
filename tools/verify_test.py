#!/usr/bin/env python3
"""Tests of tools/verify.py: python3 tools/verify_test.py (standard library only).

The golden bundles and pinned vectors come from the repository; signed
(envelope v2, scheme 2) matches are built here from the documents, with a
test-only Ed25519 signer (RFC 8032 §5.1.6) over the verifier's arithmetic.
"""

import base64
import copy
import glob
import hashlib
import hmac
import io
import json
import os
import random
import struct
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import verify as v  # noqa: E402

GOLDEN = sorted(glob.glob(os.path.join(ROOT, "testdata", "golden", "*", "*.bundle")))
with open(os.path.join(ROOT, "testdata", "vectors", "auth.json")) as _f:
    VECTORS = json.load(_f)


def h(s):
    return bytes.fromhex(s)


# -- a test-only signer ------------------------------------------------------

def _secret(seed):
    d = hashlib.sha512(seed).digest()
    a = int.from_bytes(d[:32], "little")
    a &= (1 << 254) - 8
    a |= 1 << 254
    return a, d[32:]


def public_key(seed):
    return v.ed_compress(v.ed_mul(_secret(seed)[0], v.ED_BASE))


def sign(seed, msg):
    a, prefix = _secret(seed)
    pub = public_key(seed)
    r = int.from_bytes(hashlib.sha512(prefix + msg).digest(), "little") % v.ED_L
    big_r = v.ed_compress(v.ed_mul(r, v.ED_BASE))
    k = int.from_bytes(hashlib.sha512(big_r + pub + msg).digest(), "little") % v.ED_L
    return big_r + ((r + k * a) % v.ED_L).to_bytes(32, "little")


# -- building and editing bundles --------------------------------------------

def record(body):
    return b"\x92" + v.pack(body) + v.pack(hashlib.sha256(body[7] + v.pack(body)).digest())


class Match:
    """A match recorded the v2 way: statements, signatures, scheme-2 dice."""

    def __init__(self, signed=True, match="friday", players=("alice", "bob")):
        self.match, self.players, self.signed = match, list(players), signed
        self.seeds = {r: bytes([i + 1]) * 32 for i, r in enumerate(["judge"] + ["player:" + p for p in players])}
        self.recorder_seed = bytes([9]) * 32
        self.K = bytes([0x42]) * 32
        self.player_seed = {p: bytes([0x10 + i]) * 32 for i, p in enumerate(players)}
        self.bodies, self.nonce, self.epoch, self.lineage = [], 0, 0, None
        created = {"edition": "3e", "players": [{"id": p} for p in players], "first_player": players[0]}
        if signed:
            created["keys"] = {r: public_key(s).hex() for r, s in sorted(self.seeds.items())}
        self.system("match.created", created)
        self.system("dice.committed", {"epoch": 0, "commit": hashlib.sha256(self.K).hexdigest(), "scheme": 2})

    def head(self):
        if not self.bodies:
            return 0, bytes(32)
        b = self.bodies[-1]
        return b[1], hashlib.sha256(b[7] + v.pack(b)).digest()

    def append(self, typ, actor, payload, auth):
        seq, prev = self.head()
        self.bodies.append([self.match, seq + 1, typ, 1, 1767225600000000000 + seq, actor,
                            v.pack(payload), prev, auth])
        return seq + 1

    def system(self, typ, payload):
        return self.append(typ, ["system", ""], payload, None)

    def statement(self, role, command, head=None, nonce=None):
        self.nonce += 1
        seq, hsh = head or self.head()
        st = v.pack([self.match, seq, hsh, nonce or struct.pack(">QQ", 7, self.nonce), role, v.pack(command)])
        if not self.signed:
            return [st]
        return [st, sign(self.seeds[role], v.signed_message(v.STATEMENT_DOMAIN, st))]

    def act(self, role, typ, payload, command=None, **kw):
        actor = ["judge", "judge"] if role == "judge" else ["player", role.split(":", 1)[1]]
        return self.append(typ, actor, payload, self.statement(role, command or {"type": typ}, **kw))

    def seeds_round(self, excuse=None):
        for p in self.players:
            if p != excuse:
                self.act("player:" + p, "dice.seed_committed",
                         {"epoch": self.epoch, "player": p, "commit": hashlib.sha256(self.player_seed[p]).hexdigest()})
        if excuse:
            self.act("judge", "dice.seed_excused", {"epoch": self.epoch, "player": excuse, "reason": "did not reveal"})
        for p in self.players:
            if p != excuse:
                self.act("player:" + p, "dice.seed_revealed",
                         {"epoch": self.epoch, "player": p, "seed": self.player_seed[p].hex()})

    def digital(self, player, count, excused=()):
        seq = self.head()[0] + 1
        own = [(p, b"" if p in excused else self.player_seed[p]) for p in self.players]
        values = [v.face(self.K, v.dice_message_v2(self.match, self.epoch, own, seq, i)) for i in range(count)]
        return self.act("player:" + player, "dice.rolled",
                        {"roller": player, "purpose": "hit", "count": count, "values": values, "source": "digital"})

    def end(self, winner="alice"):
        self.act("judge", "match.ended", {"winner": winner, "reason": "time"})
        self.system("dice.revealed", {"epoch": self.epoch, "seed": self.K.hex()})

    def reveal_requested(self):
        """The judge's mid-match reveal: the recorder reveals and opens the next epoch."""
        self.act("judge", "dice.reveal_requested", {"epoch": self.epoch}, {"type": "reveal"})
        self.system("dice.revealed", {"epoch": self.epoch, "seed": self.K.hex()})
        self.epoch, self.K = self.epoch + 1, hashlib.sha256(self.K).digest()
        self.player_seed = {p: hashlib.sha256(x).digest() for p, x in self.player_seed.items()}
        self.system("dice.committed", {"epoch": self.epoch, "commit": hashlib.sha256(self.K).hexdigest(), "scheme": 2})

    def branch(self, at, name):
        """A branch of this match forking at event at, opened by Alice's signed branch command."""
        b = copy.deepcopy(self)
        b.bodies, parent, b.lineage = b.bodies[:at], self.match, [{"match": self.match, "upto": at}, {"match": name}]
        keys = {r: public_key(x).hex() for r, x in sorted(b.seeds.items())} if b.signed else {}
        command = dict({"type": "branch", "at": at, "match": name, "name": name}, **({"keys": keys} if keys else {}))
        auth = b.statement("player:alice", command)
        auth[0] = v.pack([parent] + v.unpack(auth[0])[1:])  # the statement is for the parent
        if b.signed:
            auth[1] = sign(b.seeds["player:alice"], v.signed_message(v.STATEMENT_DOMAIN, auth[0]))
        b.match = name
        b.append("branch.created", ["system", ""], dict({"parent": parent, "at": at, "name": name},
                                                         **({"keys": keys} if keys else {})), auth)
        b.epoch, b.K = max(self.epoch_numbers(at)) + 1, b"\x43" * 32  # one more than the highest at the fork
        b.player_seed = {p: bytes([0x20 + i]) * 32 for i, p in enumerate(b.players)}
        b.system("dice.committed", {"epoch": b.epoch, "commit": hashlib.sha256(b.K).hexdigest(), "scheme": 2})
        return b

    def epoch_numbers(self, upto):
        return [v.unpack(x[6])["epoch"] for x in self.bodies[:upto] if x[2] == "dice.committed"]

    def bundle(self):
        return {"format": "matchrec-bundle", "version": 2, "match": self.match, "state_hash": "00" * 32,
                "keys": [b[1] for b in self.bodies],
                "records": [base64.b64encode(record(b)).decode() for b in self.bodies],
                "recorder": public_key(self.recorder_seed).hex(), **({"lineage": self.lineage} if self.lineage else {})}

    def receipt(self, seq, hsh=None, match=None, seed=None):
        seed = seed or self.recorder_seed
        b = self.bodies[seq - 1] if seq <= len(self.bodies) else None
        hsh = hsh or hashlib.sha256(b[7] + v.pack(b)).digest()
        body = v.pack([match or self.match, seq, hsh, public_key(seed)])
        return {"match": match or self.match, "seq": seq, "hash": hsh.hex(), "recorder": public_key(seed).hex(),
                "signature": sign(seed, v.signed_message(v.RECEIPT_DOMAIN, body)).hex()}


def played(**kw):
    """A signed match: seeds, a turn, a digital and a physical roll, a confirmation, the end."""
    m = Match(**kw)
    m.seeds_round()
    m.act("player:alice", "turn.started", {"turn": 1, "player": "alice"}, {"type": "next-turn"})
    m.digital("alice", 6)
    m.act("player:alice", "dice.rolled", {"roller": "alice", "purpose": "wound", "count": 2, "values": [3, 5],
                                          "source": "manual", "entered": "player:alice"}, {"type": "roll"})
    roll = m.head()
    m.act("player:bob", "dice.confirmed", {"roll": roll[0], "hash": roll[1].hex()}, {"type": "confirm"})
    m.end()
    return m


def bodies_of(bundle):
    return [v.unpack(base64.b64decode(r))[0] for r in bundle["records"]]


def rechain(bundle, bodies, start=1):
    """Rewrite records from position start on, recomputing every hash (a forger's edit)."""
    prev = v.unpack(base64.b64decode(bundle["records"][start - 2]))[1] if start > 1 else bytes(32)
    for i in range(start - 1, len(bodies)):
        bodies[i][7] = prev
        rec = record(bodies[i])
        bundle["records"][i] = base64.b64encode(rec).decode()
        prev = v.unpack(rec)[1]
    return bundle


def edit_payload(bundle, seq, change, chain=True):
    b = copy.deepcopy(bundle)
    bodies = bodies_of(b)
    p = v.unpack(bodies[seq - 1][6])
    change(p)
    bodies[seq - 1][6] = v.pack(p)
    if chain:
        return rechain(b, bodies, seq)
    b["records"][seq - 1] = base64.b64encode(b"\x92" + v.pack(bodies[seq - 1]) + v.pack(
        v.unpack(base64.b64decode(b["records"][seq - 1]))[1])).decode()
    return b


def run(bundle, receipts=None, recorder=None):
    return v.Verifier(v.read_bundle(json.dumps(bundle).encode()), receipts, recorder).run()


def write_json(path, value):
    with open(path, "w") as f:
        json.dump(value, f)


def golden(name):
    with open(os.path.join(ROOT, "testdata", "golden", "v1", name + ".bundle"), "rb") as f:
        return json.load(f)


# -- tests -------------------------------------------------------------------

class MsgpackTest(unittest.TestCase):
    def test_values(self):
        for raw, want in [("00", 0), ("7f", 127), ("cc80", 128), ("cd0100", 256), ("ce00010000", 65536),
                          ("cf0000000100000000", 1 << 32), ("ff", -1), ("e0", -32), ("d0df", -33),
                          ("d1ff7f", -129), ("c0", None), ("c2", False), ("c3", True),
                          ("cb3ff8000000000000", 1.5), ("a3616263", "abc"), ("c40201ff", b"\x01\xff"),
                          ("92a1610c", ["a", 12]), ("81a16101", {"a": 1}), ("90", []), ("80", {})]:
            self.assertEqual(v.unpack(h(raw)), want, raw)
            self.assertEqual(v.pack(want).hex(), raw, raw)

    def test_long_forms(self):
        self.assertEqual(v.unpack(h("d920" + "61" * 32)), "a" * 32)
        self.assertEqual(v.unpack(h("dc0010" + "00" * 16)), [0] * 16)
        self.assertEqual(v.unpack(h("c5010" + "0" + "00" * 256)), bytes(256))

    def test_rejects(self):
        for raw in ["cc05",           # 5 as uint 8: fixint is shorter
                    "cd0080",         # 128 as uint 16
                    "d005",           # a non-negative value in a signed form
                    "d0f0",           # -16 as int 8: negative fixint is shorter
                    "d903616263",     # str 8 for a 3-byte string
                    "dc000100",       # array 16 of one element
                    "de000181a16101",  # map 16 of one entry
                    "ca3fc00000",     # float 32: matchrec writes float 64
                    "c1", "c7000000", "d40000",  # never used / ext types
                    "a2ff61",         # not UTF-8
                    "82a16101a16102",  # a key twice
                    "8101a0",         # a non-string key
                    "92a161",         # truncated
                    "0000"]:          # trailing bytes
            with self.assertRaises(v.MsgpackError, msg=raw):
                v.unpack(h(raw))

    def test_auth_vector_statement(self):
        st = v.Statement(h(VECTORS["statement"]))
        self.assertEqual((st.match, st.head_seq, st.head_hash, st.nonce, st.role, st.command),
                         ("m-0001", 5, b"\x11" * 32, b"\x22" * 16, "player:alice", {"type": "next-turn"}))
        self.assertEqual(v.pack({"type": "next-turn"}).hex(), VECTORS["command_msgpack"])


class Ed25519Test(unittest.TestCase):
    RFC8032 = [  # RFC 8032 §7.1, TEST 1, 2, 3: secret, public, message, signature
        ("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
         "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
         "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"),
        ("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
         "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
         "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"),
        ("c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
         "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
         "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"),
    ]

    def test_rfc8032_vectors(self):
        for secret, public, msg, sig in self.RFC8032:
            self.assertEqual(public_key(h(secret)).hex(), public)
            self.assertEqual(sign(h(secret), h(msg)).hex(), sig)
            self.assertTrue(v.ed25519_verify(h(public), h(msg), h(sig)))

    def test_rejects_forgeries(self):
        secret, public, msg, sig = self.RFC8032[2]
        pub, m, s = h(public), h(msg), bytearray(h(sig))
        self.assertFalse(v.ed25519_verify(pub, m + b"\x00", bytes(s)))
        self.assertFalse(v.ed25519_verify(h(self.RFC8032[1][1]), m, bytes(s)))
        for i in (0, 40):  # R and S
            t = bytearray(s)
            t[i] ^= 1
            self.assertFalse(v.ed25519_verify(pub, m, bytes(t)))
        big_s = (int.from_bytes(s[32:], "little") + v.ED_L).to_bytes(32, "little")  # S + L: same point, S >= L
        self.assertFalse(v.ed25519_verify(pub, m, bytes(s[:32]) + big_s))
        non_canonical_y = (v.ED_P + 1).to_bytes(32, "little")  # y = p + 1 >= p
        self.assertIsNone(v.ed_decompress(non_canonical_y))
        self.assertFalse(v.ed25519_verify(non_canonical_y, m, bytes(s)))
        self.assertFalse(v.ed25519_verify(pub, m, bytes(s[:63])))

    def test_pinned_signatures(self):
        self.assertEqual(public_key(h(VECTORS["key_seed"])).hex(), VECTORS["key_public"])
        self.assertEqual(public_key(h(VECTORS["recorder_seed"])).hex(), VECTORS["recorder_public"])
        msg = v.signed_message(v.STATEMENT_DOMAIN, h(VECTORS["statement"]))
        self.assertTrue(v.ed25519_verify(h(VECTORS["key_public"]), msg, h(VECTORS["statement_signature"])))
        undomained = h(VECTORS["statement"])  # the domain is part of what is signed
        self.assertFalse(v.ed25519_verify(h(VECTORS["key_public"]), undomained, h(VECTORS["statement_signature"])))
        body = v.pack(["m-0001", 6, b"\x33" * 32, h(VECTORS["recorder_public"])])
        self.assertEqual(body.hex(), VECTORS["receipt_body"])
        msg = v.signed_message(v.RECEIPT_DOMAIN, body)
        self.assertTrue(v.ed25519_verify(h(VECTORS["recorder_public"]), msg, h(VECTORS["receipt_signature"])))


class VectorsTest(unittest.TestCase):
    def test_v2_record(self):
        ev = v.Event(h(VECTORS["event_v2_record"]))
        self.assertEqual((ev.envelope, ev.match, ev.seq, ev.type, ev.role),
                         (2, "m-0001", 6, "turn.started", "player:alice"))
        self.assertEqual(ev.content_hash().hex(), VECTORS["event_v2_hash"])
        self.assertEqual(ev.hash.hex(), VECTORS["event_v2_hash"])
        self.assertEqual(ev.auth, [h(VECTORS["statement"]), h(VECTORS["statement_signature"])])
        self.assertEqual(ev.payload, {"turn": 1, "player": "alice"})

    def test_dice_vectors(self):  # docs/dice.md "Test vectors"
        K = b"\x42" * 32
        self.assertEqual(hashlib.sha256(K).hexdigest(),
                         "425ed4e4a36b30ea21b90e21c712c649e8214c29b7eaf68089d1039c6e55384c")
        ep1 = {"scheme": 1, "seed": K}
        self.assertEqual([v.derive_die(ep1, ("m-0001", 0), ["alice-seed", "bob-seed"], [], 7, i) for i in range(10)],
                         [2, 3, 2, 1, 1, 3, 6, 6, 4, 6])
        ep2 = {"scheme": 2, "seed": K, "reveals": {"alice": b"\x01" * 32, "bob": b"\x02" * 32}, "excused": set()}
        self.assertEqual([v.derive_die(ep2, ("m-0001", 0), [], ["alice", "bob"], 7, i) for i in range(10)],
                         [5, 2, 4, 5, 1, 5, 4, 1, 2, 3])
        ep2["excused"] = {"bob"}
        self.assertEqual([v.derive_die(ep2, ("m-0001", 0), [], ["alice", "bob"], 7, i) for i in range(10)],
                         [3, 6, 4, 6, 5, 6, 6, 1, 1, 2])
        self.assertEqual(hashlib.sha256(b"\x01" * 32).hexdigest(),
                         "72cd6e8422c407fb6d098690f1130b7ded7ec2f7f5e1d30bd9d521f015363793")
        player_seed = hmac.new(b"secret", v._lp(b"matchrec-player-seed-v1") + v._lp(b"m-0001") + bytes(4)
                               + v._lp(b"alice"), hashlib.sha256).hexdigest()  # dice.md: the CLI's player seed
        self.assertEqual(player_seed, "209f12d75d94ee990295870e1569a361574de57d3b30bb4e017503fd90c31f73")
        self.assertEqual((v.dice_message_v1("m", ["s"], 1, 2) + struct.pack(">I", 3)).hex(),
                         "000000106d617463687265632d646963652d7631000000016d000000010000000173"
                         "00000000000000010000000200000003")
        self.assertEqual((v.dice_message_v2("m", 1, [("a", b"\xab")], 1, 2) + struct.pack(">I", 3)).hex(),
                         "000000106d617463687265632d646963652d7632000000016d000000010000000100000001"
                         "6100000001ab00000000000000010000000200000003")

    def test_face_skips_bytes_from_252(self):
        K = b"\x42" * 32
        for i in range(2000):  # a die whose first digest byte is 252..255 (1 in 64)
            msg = v.dice_message_v2("m", 0, [], 1, i)
            d = hmac.new(K, msg + bytes(4), hashlib.sha256).digest()
            if d[0] >= 252:
                break
        self.assertGreaterEqual(d[0], 252)
        self.assertEqual(v.face(K, msg), next(b for b in d if b < 252) % 6 + 1)


class GoldenTest(unittest.TestCase):
    def test_golden_bundles_verify_as_expected(self):
        self.assertTrue(GOLDEN)
        for path in GOLDEN:
            with self.subTest(path=os.path.relpath(path, ROOT)):
                with open(path, "rb") as f:
                    rep = v.Verifier(v.read_bundle(f.read())).run()
                with open(os.path.join(os.path.dirname(path), "expected.json")) as f:
                    want = json.load(f)[os.path.basename(path)]
                self.assertEqual((rep["verdict"], rep["signed"], rep["events"]),
                                 (want["verdict"], want["signed"], want["events"]), rep["problems"])
                if want["verdict"] == "FAILED":
                    self.assertEqual(rep["first_bad_seq"], want["first_bad_seq"], rep["problems"])
                else:
                    self.assertEqual(rep["problems"], [])

    def test_digital_dice_are_checked(self):
        rep = run(golden("legacy-parent"))  # scheme 1, a mid-match reveal and a second epoch
        self.assertEqual((rep["checks"]["dice"]["digital_rolls"], rep["checks"]["dice"]["checked_rolls"]), (3, 3))
        rep = run(golden("legacy-branch"))  # the branch's epoch 1 is not the parent's epoch 1
        self.assertEqual((rep["verdict"], rep["checks"]["dice"]["checked_rolls"]), ("CLEAN", 3))

    def tampered(self, bundle, check, seq, code=None):
        rep = run(bundle)
        self.assertEqual(rep["verdict"], "FAILED", rep["problems"])
        self.assertEqual((rep["first_bad_seq"], rep["first_bad_check"]), (seq, check), rep["problems"])
        if code:
            self.assertIn(code, [p["code"] for p in rep["problems"] if p["seq"] == seq])
        return rep

    def test_flip_a_byte(self):
        for name in ("legacy-3e", "legacy-6e", "legacy-11e", "legacy-parent", "legacy-branch"):
            b = golden(name)
            raw = bytearray(base64.b64decode(b["records"][4]))
            raw[-40] ^= 0x01
            b["records"][4] = base64.b64encode(bytes(raw)).decode()
            self.tampered(b, "chain", 5, "hash")

    def test_delete_swap_duplicate(self):
        b = golden("legacy-3e")
        d = copy.deepcopy(b)
        del d["records"][9], d["keys"][9]
        self.tampered(d, "chain", 10, "sequence")
        d = copy.deepcopy(b)
        d["records"][9], d["records"][10] = d["records"][10], d["records"][9]
        d["keys"][9], d["keys"][10] = d["keys"][10], d["keys"][9]
        self.tampered(d, "chain", 10, "sequence")
        d = copy.deepcopy(b)
        d["records"][9], d["records"][10] = d["records"][10], d["records"][9]  # keys left in order
        self.tampered(d, "chain", 10, "sequence")
        d = copy.deepcopy(b)
        d["records"].insert(10, d["records"][9])
        d["keys"].insert(10, 10)
        self.tampered(d, "chain", 11, "sequence")

    def test_forged_digital_die(self):
        b = golden("legacy-parent")
        forge = lambda p: p.update(values=[6] + p["values"][1:])  # noqa: E731
        self.tampered(edit_payload(b, 7, forge, chain=False), "chain", 7, "hash")
        self.tampered(edit_payload(b, 7, forge), "dice", 7, "forged_die")

    def test_forged_reveal_and_commitment(self):
        b = golden("legacy-3e")
        self.tampered(edit_payload(b, 45, lambda p: p.update(seed="00" * 32)), "dice", 45, "bad_reveal")
        self.tampered(edit_payload(b, 2, lambda p: p.update(commit="11" * 32)), "dice", 45, "bad_reveal")

    def test_renumbered_chain(self):
        b = golden("legacy-3e")  # event 10 cut out, the rest renumbered and re-chained
        bodies = bodies_of(b)
        del bodies[9], b["records"][9], b["keys"][-1]
        for body in bodies[9:]:
            body[1] -= 1
        rep = self.tampered(rechain(b, bodies, 10), "dice", 42, "forged_die")  # the digital roll moved from 43
        self.assertEqual(rep["checks"]["dice"]["checked_rolls"], 1)

    def test_cut_after_the_end(self):
        b = golden("legacy-3e")
        del b["records"][-1], b["keys"][-1]
        self.tampered(b, "end", 44, "unrevealed")

    def test_continued_after_the_end(self):
        b = golden("legacy-3e")
        bodies = bodies_of(b)
        more = copy.deepcopy(bodies[39])  # alice's turn.started
        more[1] = 46
        bodies.append(more)
        b["records"].append("")
        b["keys"].append(46)
        self.tampered(rechain(b, bodies, 46), "actors", 46, "after_end")  # an actor no event after the end may have, too

    def test_ancestor_reveal_forged(self):
        b = golden("legacy-branch")
        ev = bodies_of({"records": b["reveals"]})[0]  # the parent's epoch 0, revealed after the fork
        p = v.unpack(ev[6])
        p["seed"] = "00" * 32
        ev[6] = v.pack(p)
        b["reveals"][0] = base64.b64encode(record(ev)).decode()
        self.tampered(b, "dice", 2, "bad_reveal")  # named at the commitment it contradicts

    def test_lineage_lies(self):
        b = golden("legacy-branch")
        b["lineage"][0]["upto"] = 5
        self.tampered(b, "chain", 6, "lineage")


class NoCrashTest(unittest.TestCase):
    def test_any_byte_changed_fails_naming_its_record(self):
        rnd = random.Random(12)
        bundles = [golden(n) for n in ("legacy-3e", "legacy-branch")] + [played().bundle()]
        for _ in range(200):
            b = copy.deepcopy(rnd.choice(bundles))
            i = rnd.randrange(len(b["records"]))
            raw = bytearray(base64.b64decode(b["records"][i]))
            if rnd.random() < 0.2:
                raw = raw[:rnd.randrange(len(raw))]
            else:
                raw[rnd.randrange(len(raw))] ^= 1 << rnd.randrange(8)
            b["records"][i] = base64.b64encode(bytes(raw)).decode()
            rep = run(b)
            self.assertEqual((rep["verdict"], rep["first_bad_seq"], rep["first_bad_check"]), ("FAILED", i + 1, "chain"))

    def test_malformed_bundles_cannot_be_verified(self):
        good = golden("legacy-branch")
        for field, value in [("format", None), ("version", 4), ("version", True), ("log", "x"), ("match", 7), ("keys", "1"),
                             ("keys", [1.5] * 13), ("records", [1] * 13), ("records", good["records"][:2]),
                             ("lineage", "x"), ("lineage", [{"match": "legacy-parent", "upto": 0},
                                                            {"match": "legacy-branch"}]),
                             ("lineage", [{"match": "a"}]), ("reveals", [None])]:
            b = dict(good, **{field: value})
            with self.assertRaises(v.CannotVerify, msg="%s=%r" % (field, value)):
                v.read_bundle(json.dumps(b).encode())
        for raw in (b"", b"[]", b"\xff", b"null"):
            with self.assertRaises(v.CannotVerify):
                v.read_bundle(raw)


class SignedMatchTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.m = played()
        cls.b = cls.m.bundle()

    def test_clean_and_signed(self):
        rep = run(self.b)
        self.assertEqual((rep["verdict"], rep["problems"], rep["signed"]), ("CLEAN", [], True))
        self.assertEqual(rep["checks"]["statements"]["signatures"], 9)
        self.assertEqual((rep["checks"]["dice"]["checked_rolls"], rep["manual_rolls"]), (1, []))

    def test_token_match_is_unsigned(self):
        rep = run(played(signed=False).bundle())
        self.assertEqual((rep["verdict"], rep["signed"]), ("CLEAN", False))

    def failed(self, bundle, check, seq, code, receipts=None, recorder=None):
        rep = run(bundle, receipts, recorder)
        self.assertEqual(rep["verdict"], "FAILED")
        self.assertEqual((rep["first_bad_seq"], rep["first_bad_check"]), (seq, check), rep["problems"])
        self.assertIn(code, [p["code"] for p in rep["problems"] if p["seq"] == seq], rep["problems"])

    def test_forged_die_rechained_contradicts_the_next_statement(self):
        b = edit_payload(self.b, 8, lambda p: p.update(values=[6] * 6))
        rep = run(b)  # every statement after the edit names a head that is gone
        self.assertEqual({(p["seq"], p["code"]) for p in rep["problems"]},
                         {(8, "forged_die"), (9, "stale_head"), (10, "stale_head"), (11, "stale_head"),
                          (10, "bad_witness")})  # the confirmation's hash, too
        self.assertEqual((rep["first_bad_seq"], rep["first_bad_check"]), (8, "dice"))

    def test_physical_die_changed_keeping_its_outcome(self):
        b = edit_payload(self.b, 9, lambda p: p.update(values=[4, 5]))  # no digital check can see it
        self.failed(b, "statements", 10, "stale_head")

    def test_signature_missing_or_bad(self):
        bodies = bodies_of(self.b)
        bodies[6][8] = bodies[6][8][:1]
        self.failed(rechain(copy.deepcopy(self.b), bodies, 7), "statements", 7, "missing_signature")
        bodies = bodies_of(self.b)
        sig = bytearray(bodies[6][8][1])
        sig[5] ^= 1
        bodies[6][8][1] = bytes(sig)
        self.failed(rechain(copy.deepcopy(self.b), bodies, 7), "statements", 7, "bad_signature")
        bodies = bodies_of(self.b)
        bodies[6] = bodies[6][:8]  # downgraded to envelope v1 (events.md: never after a v2 record)
        self.failed(rechain(copy.deepcopy(self.b), bodies, 7), "chain", 7, "downgrade")

    def test_actor_changed(self):
        bodies = bodies_of(self.b)
        bodies[6][5] = ["player", "bob"]  # Bob starts Alice's turn with Alice's statement
        self.failed(rechain(copy.deepcopy(self.b), bodies, 7), "statements", 7, "wrong_role")

    def test_roller_confirms_her_own_roll(self):
        m = Match()
        m.seeds_round()
        m.act("player:alice", "dice.rolled", {"roller": "alice", "purpose": "hit", "count": 1, "values": [3],
                                              "source": "manual"}, {"type": "roll"})
        roll = m.head()
        m.act("player:alice", "dice.confirmed", {"roll": roll[0], "hash": roll[1].hex()}, {"type": "confirm"})
        self.failed(m.bundle(), "actors", 8, "wrong_actor")

    def test_statements_bind_head_and_nonce(self):
        m = Match()
        m.seeds_round()
        m.act("player:alice", "turn.started", {"turn": 1, "player": "alice"}, head=(3, bytes(32)))
        self.failed(m.bundle(), "statements", 7, "stale_head")
        m = Match()
        m.seeds_round()
        m.act("player:alice", "turn.started", {"turn": 1, "player": "alice"}, nonce=struct.pack(">QQ", 7, 1))
        self.failed(m.bundle(), "statements", 7, "nonce_reused")

    def test_seeds_in_order(self):
        m = Match()
        seed = m.player_seed["alice"]
        m.act("player:alice", "dice.seed_committed",
              {"epoch": 0, "player": "alice", "commit": hashlib.sha256(seed).hexdigest()})
        m.act("player:alice", "dice.seed_revealed", {"epoch": 0, "player": "alice", "seed": seed.hex()})
        self.failed(m.bundle(), "dice", 4, "seed_order")  # before bob committed
        m = Match()
        m.seeds_round()
        m.bodies = m.bodies[:-1]  # bob never reveals
        m.digital("alice", 3)
        self.failed(m.bundle(), "dice", 6, "seeds_pending")

    def test_excused_seed_counts_as_empty(self):
        m = Match()
        m.seeds_round(excuse="bob")
        m.digital("alice", 8, excused=("bob",))
        m.end()
        rep = run(m.bundle())
        self.assertEqual((rep["verdict"], rep["checks"]["dice"]["checked_rolls"]), ("CLEAN", 1), rep["problems"])

    def test_player_cannot_end_for_herself(self):
        m = Match()
        m.act("player:alice", "match.ended", {"winner": "alice", "reason": "I won"})
        m.system("dice.revealed", {"epoch": 0, "seed": m.K.hex()})
        self.failed(m.bundle(), "actors", 3, "wrong_actor")
        m = Match()  # a concession, then an accepted proposal
        m.act("player:bob", "match.end_proposed", {"winner": "alice", "reason": "time"})
        m.act("player:alice", "match.ended", {"winner": "alice", "reason": "time"})
        m.system("dice.revealed", {"epoch": 0, "seed": m.K.hex()})
        self.assertEqual(run(m.bundle())["verdict"], "CLEAN")

    def test_branch_epochs_never_collide(self):
        parent = Match()
        parent.seeds_round()
        roll = parent.digital("alice", 4)  # rolled before the fork, in the parent's epoch 0
        br = parent.branch(roll, "what-if")
        br.seeds_round()
        br.digital("bob", 5)  # the branch's own epoch 1
        br.end()
        parent.reveal_requested()  # after the fork: reveals epoch 0, opens the parent's own epoch 1
        parent.seeds_round()
        parent.digital("bob", 3)
        parent.end()
        b = br.bundle()
        b["reveals"] = [base64.b64encode(record(x)).decode() for x in parent.bodies[roll:]
                        if x[2] == "dice.revealed"]
        self.assertEqual(len(b["reveals"]), 2)  # the parent's epochs 0 and 1; the branch's own is 1 too
        rep = run(b)
        self.assertEqual((rep["verdict"], rep["signed"], rep["problems"]), ("CLEAN", True, []))
        self.assertEqual((rep["checks"]["dice"]["checked_rolls"], rep["checks"]["statements"]["signatures"]), (2, 12))
        self.assertEqual(run(parent.bundle())["verdict"], "CLEAN")
        # without the parent's reveals the inherited roll cannot be checked yet
        rep = run(dict(b, reveals=[]))
        self.assertEqual((rep["verdict"], rep["pending_reveal"]), ("CLEAN", [roll]))
        # the branch's statement must be for the parent, at the fork
        bodies = bodies_of(b)
        st = v.unpack(bodies[roll][8][0])
        bodies[roll][8] = [v.pack(["what-if"] + st[1:]), bodies[roll][8][1]]
        self.failed(rechain(copy.deepcopy(b), bodies, roll + 1), "statements", roll + 1, "bad_signature")

    def test_disputes_unresolved_until_ruled(self):
        m = played()
        m.act("player:bob", "dispute.raised", {"event": 9, "reason": "I saw a 5"})
        rep = run(m.bundle())
        self.assertEqual((rep["verdict"], rep["unresolved"][0]["seq"]), ("UNRESOLVED", 13))
        m.act("judge", "ruling.made", {"dispute": 13, "event": 9, "decision": "uphold"})
        self.assertEqual(run(m.bundle())["verdict"], "CLEAN")

    def test_receipts(self):
        m, rk = self.m, public_key(self.m.recorder_seed)
        with tempfile.TemporaryDirectory() as d:
            def check(receipts, *want):
                with open(os.path.join(d, "friday.receipts"), "w") as f:
                    f.write("".join(json.dumps(r) + "\n" for r in receipts))
                rep = run(self.b, d, rk)
                self.assertEqual([(p["seq"], p["code"]) for p in rep["problems"]], list(want))
                return rep
            rep = check([m.receipt(5), m.receipt(12)])
            self.assertEqual((rep["verdict"], rep["checks"]["receipts"]["checked"]), ("CLEAN", 2))
            check([m.receipt(12, hsh=b"\x01" * 32)], (12, "rewritten"))
            check([m.receipt(13, hsh=b"\x01" * 32)], (13, "truncated"))
            check([m.receipt(5, seed=b"\x05" * 32)], (5, "wrong_recorder"))
            check([m.receipt(5, match="other")], (5, "bad_receipt"))
            bad = m.receipt(5)
            bad["seq"] = 6
            check([bad], (6, "bad_receipt"))
            # the match cut after event 8 and ended otherwise: sound in itself, contradicted by receipts
            cut = Match()
            cut.bodies = copy.deepcopy(m.bodies[:8])
            cut.end()
            with open(os.path.join(d, "friday.receipts"), "w") as f:
                f.write(json.dumps(m.receipt(9)) + "\n" + json.dumps(m.receipt(12)) + "\n")
            self.assertEqual(run(cut.bundle())["verdict"], "CLEAN")
            rep = run(cut.bundle(), d, rk)
            self.assertEqual([(p["seq"], p["code"]) for p in rep["problems"]], [(9, "rewritten"), (12, "truncated")])


class CLITest(unittest.TestCase):
    def cli(self, *args):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            rc = v.main(list(args))
        return rc, out.getvalue(), err.getvalue()

    def test_exit_codes_and_json(self):
        rc, out, _ = self.cli("--json", GOLDEN[0])
        rep = json.loads(out)
        self.assertEqual((rc, rep["verdict"], rep["ok"], rep["first_bad_seq"]), (0, "CLEAN", True, 0))
        rc, out, _ = self.cli(GOLDEN[0])
        self.assertIn("verdict: CLEAN (unsigned: the operator is trusted)", out)
        with tempfile.TemporaryDirectory() as d:
            b = golden("legacy-3e")
            del b["records"][-1], b["keys"][-1]
            path = os.path.join(d, "cut.bundle")
            write_json(path, b)
            rc, out, _ = self.cli(path)
            self.assertEqual(rc, 1)
            self.assertIn("verdict: FAILED at event 44 (end)", out)
            m = played()
            m.act("player:bob", "dispute.raised", {"event": 9, "reason": "no"})
            write_json(path, m.bundle())
            self.assertEqual(self.cli(path)[0], 3)
            write_json(path, {"format": "something else"})
            rc, _, err = self.cli("--json", path)
            self.assertEqual((rc, json.loads(err)["error"]["code"]), (2, "bad_file"))
            self.assertEqual(self.cli(os.path.join(d, "missing"))[0], 2)
            # a receipts directory that kept nothing of the match (or none at all): nothing to check, as in matchrec
            for receipts in (d, os.path.join(d, "missing")):
                rc, out, _ = self.cli("--json", "--receipts", receipts, GOLDEN[0])
                self.assertEqual((rc, "receipts" in json.loads(out)["checks"]), (0, False))
            with open(os.path.join(d, "%s.receipts" % golden("legacy-3e")["match"]), "w") as f:
                f.write("not a receipt\n")
            self.assertEqual(self.cli("--receipts", d, os.path.join(ROOT, "testdata/golden/v1/legacy-3e.bundle"))[0], 2)

    def test_runs_as_a_program(self):
        p = subprocess.run([sys.executable, os.path.join(HERE, "verify.py"), "--json", GOLDEN[0]],
                           capture_output=True, text=True)
        self.assertEqual((p.returncode, json.loads(p.stdout)["verdict"]), (0, "CLEAN"), p.stderr)


if __name__ == "__main__":
    unittest.main()
