#!/usr/bin/env python3
"""Tests of tools/verify.py's scheme 3 (docs/dice.md): the VRF, the vectors, the v3 goldens tampered.

    python3 tools/verify_scheme3_test.py    (standard library only; make test runs it)
"""

import io
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from verify_test import ROOT, bodies_of, edit_payload, h, rechain, run, v  # noqa: E402


class VectorsTest(unittest.TestCase):
    def test_scheme3_vectors(self):  # docs/dice.md "Test vectors", scheme 3
        from verifier import dice as vd, vrf
        pk = vrf.key_from_seed(vd.VRF_KEY_DOMAIN, b"\x42" * 32)
        self.assertEqual(pk.hex(), "0e291f63a386753e00ae969f48979ed6ba8d06b8949aa90094ae7660d96a931f")
        alpha = vd.alpha_v3("m-0001", 0, 7, b"\x11" * 32, "player:alice")
        proof = h("84e2ad31cd0324a53d7bec986b82689b09e2b14117e87428e411c3bd7bd86b44a69e1b1a51b8f9eb7b7d6e045c64318e"
                  "efa9633b3a1a2c02ead8856e1efc4a4f9b98910153ba77bdaf9ff40ceca9b70b")
        self.assertEqual(vrf.verify(pk, proof, alpha).hex(),
                         "ce9964a5676791df9ea08f4d99098251c4a85218fbc7553397f1e68f35c06e5be88f09600166ebc17150945f6c88ddc0"
                         "a575fe25d57e15383c96db694156f4cd")
        key = vd.dice_key_v3("m-0001", 0, 7, [("recorder", b"\x01" * 64), ("player:alice", b"\x02" * 64),
                                             ("player:bob", b"\x03" * 64)])
        self.assertEqual(key.hex(), "fad80d494fd26016e942bb1003f1cca4141da52cc2fa049f15c25863031f018a")
        self.assertEqual([v.face(key, vd.dice_message_v3(7, i)) for i in range(10)], [5, 6, 5, 4, 1, 6, 4, 2, 3, 1])
        for bad in (proof[:79], proof[:50] + bytes([proof[50] ^ 1]) + proof[51:]):
            self.assertIsNone(vrf.verify(pk, bad, alpha))
        self.assertIsNone(vrf.verify(pk, proof, vd.alpha_v3("m-0001", 0, 8, b"\x11" * 32, "player:alice")))

    def test_c2sp_vrf_r255_vector(self):  # c2sp.org/vrf-r255: the suite's own vector
        from verifier import vrf
        pk = h("54136cd90d99fbd1d4e855d9556efea87ba0337f2a6ce22028d0f5726fcb854e")
        pi = h("0a97d961262fb549b4175c5117860f42ae44a123f93c476c439eddd1c0cff9265c805525233e2284dbed45e593b8eea3"
               "1d5ca9734d72bcbba9738d5237f955f3b2422351149d1312503b6441a47c940c")
        self.assertEqual(vrf.verify(pk, pi, b"c2sp.org/vrf-r255").hex(),
                         "dd653f0879b48c3ef69e13551239bec4cbcc1c18fe8894de2e9e1c790e18273603bf1c6c25d7a797aeff3c43fd32b9"
                         "74d3fcbd4bcce916007097922a3ea3a794")
        self.assertIsNone(vrf.decode(b"\xff" * 32))  # not canonical



class SchemeThreeTest(unittest.TestCase):
    """The v3 goldens (Go-recorded scheme 3 matches), tampered as a forger would."""

    def bundle(self, name):
        with open(os.path.join(ROOT, "testdata", "golden", "v3", name + ".bundle"), "rb") as f:
            return json.load(f)

    def test_clean_and_one_holder(self):
        rep = run(self.bundle("joined"))
        self.assertEqual((rep["verdict"], rep["signed"], "one_holder" in rep), ("CLEAN", True, False), rep["problems"])
        self.assertGreater(rep["checks"]["dice"]["checked_rolls"], 1)
        rep = run(self.bundle("one-holder"))
        self.assertEqual((rep["verdict"], rep["one_holder"]), ("CLEAN", ["judge", "player:alice", "player:bob"]))
        out = io.StringIO()
        v.print_text(rep, out)
        self.assertIn("one holder signed for judge, player:alice, player:bob", out.getvalue())

    def edited(self, seq, change):
        b = self.bundle("joined")
        return edit_payload(b, seq, change)

    def seq_of(self, typ, nth=0, **fields):
        evs = [x for x in bodies_of(self.bundle("joined")) if x[2] == typ and all(v.unpack(x[6]).get(k) == w for k, w in fields.items())]
        return evs[nth][1]

    def test_a_contribution_that_does_not_verify(self):
        seq = self.seq_of("dice.contributed", role="player:bob")
        rep = run(self.edited(seq, lambda p: p.update(proof=p["proof"][:-2] + ("00" if p["proof"][-2:] != "00" else "01"))))
        self.assertIn(("dice", "bad_vrf"), [(x["check"], x["code"]) for x in rep["problems"] if x["seq"] == seq])

    def test_a_changed_die(self):
        seq = self.seq_of("dice.rolled", source="digital")
        rep = run(self.edited(seq, lambda p: p.update(values=[(x % 6) + 1 for x in p["values"]])))
        self.assertIn(("dice", "forged_die"), [(x["check"], x["code"]) for x in rep["problems"] if x["seq"] == seq])

    def test_a_contribution_for_another_roll(self):
        seq = self.seq_of("dice.contributed", role="player:bob")
        rep = run(self.edited(seq, lambda p: p.update(roll=p["roll"] - 1)))
        self.assertIn(("dice", "wrong_roll"), [(x["check"], x["code"]) for x in rep["problems"] if x["seq"] == seq])

    def test_a_join_without_its_code(self):
        seq = self.seq_of("match.joined", role="player:bob")
        b = self.bundle("joined")
        bodies = bodies_of(b)
        first = v.unpack(bodies[0][6])
        first["joins"]["player:bob"] = "00" * 32
        bodies[0][6] = v.pack(first)
        rep = run(rechain(b, bodies, 1))
        self.assertIn(("statements", "bad_join"), [(x["check"], x["code"]) for x in rep["problems"] if x["seq"] == seq])



if __name__ == "__main__":
    unittest.main()
