"""Dice: docs/dice.md — the derivation of schemes 1 and 2, and check 5 of docs/bundle.md."""

import hashlib
import hmac
import struct

from . import vrf
from .records import Event, RecordError, sha256, unhex

VRF_KEY_DOMAIN = b"matchrec-vrf-key-v1"


def _lp(b):
    return struct.pack(">I", len(b)) + b


def dice_message_v1(match, seeds, seq, i):
    return (_lp(b"matchrec-dice-v1") + _lp(match.encode()) + struct.pack(">I", len(seeds))
            + b"".join(_lp(s.encode()) for s in seeds) + struct.pack(">QI", seq, i))


def dice_message_v2(match, epoch, players, seq, i):
    """players: [(id, seed bytes, b"" when excused)] in match.created's order."""
    return (_lp(b"matchrec-dice-v2") + _lp(match.encode()) + struct.pack(">II", epoch, len(players))
            + b"".join(_lp(p.encode()) + _lp(s) for p, s in players) + struct.pack(">QI", seq, i))


def alpha_v3(match, epoch, roll, roll_hash, slot):
    """dice.md "Scheme 3": a slot's VRF input for the roll requested as event roll (hash roll_hash)."""
    return (_lp(b"matchrec-dice-v3") + _lp(match.encode()) + struct.pack(">IQ", epoch, roll) + roll_hash
            + _lp(slot.encode()))


def dice_key_v3(match, epoch, roll, outputs):
    """dice.md "Scheme 3": the HMAC key of a roll, from every slot's VRF output in slot order."""
    b = _lp(b"matchrec-dice-v3") + _lp(match.encode()) + struct.pack(">IQI", epoch, roll, len(outputs))
    return hashlib.sha256(b + b"".join(_lp(s.encode()) + _lp(o) for s, o in outputs)).digest()


def dice_message_v3(roll, i):
    return _lp(b"matchrec-dice-v3") + struct.pack(">QI", roll, i)


def commit_matches(scheme, seed, commit):
    """A revealed epoch seed against its commitment: SHA-256 (schemes 1, 2), the VRF key it derives (3)."""
    if seed is None:
        return False
    if scheme >= 3:
        return len(seed) == 32 and vrf.key_from_seed(VRF_KEY_DOMAIN, seed) == commit
    return sha256(seed) == commit


def face(key, msg):
    """The first digest byte below 252, mod 6, plus 1; a new counter if none is."""
    counter = 0
    while True:
        for b in hmac.new(key, msg + struct.pack(">I", counter), hashlib.sha256).digest():
            if b < 252:
                return b % 6 + 1
        counter += 1


def derive_die(ep, key, seeds, players, seq, i):
    """Die i of the digital roll recorded as event seq in epoch key = (match, number)."""
    if ep["scheme"] == 1:
        return face(ep["seed"], dice_message_v1(key[0], seeds, seq, i))
    own = [(p, b"" if p in ep["excused"] else ep["reveals"].get(p, b"")) for p in players]
    return face(ep["seed"], dice_message_v2(key[0], key[1], own, seq, i))


class DiceCheck:
    """Check 5 of docs/bundle.md, from the events alone; problems go to fail(seq, code, message)."""

    def __init__(self, events, whole, players, lineage, fail):
        """whole: events are the whole log, not the sound records before a break of the chain."""
        self.events, self.whole, self.players, self.lineage, self.fail = events, whole, players, lineage, fail
        self.epochs, self.current, self.contributed, self.rolls, self.by_seq = {}, {}, [], [], {}
        self.joins, self.vrf, self.requests, self.open = False, {}, {}, None  # scheme 3
        self.mismatches, self.skipped = [], 0  # skipped: digital rolls with no epoch to check them in

    def run(self, reveals):
        for i, ev in enumerate(self.events):
            self.event(i, ev)
        for raw in reveals:
            self.ancestor_reveal(raw)
        pending = [ev.seq for ev, ep, _ in self.rolls if ep["seed"] is None]
        checked = 0
        for ev, ep, seeds in self.rolls:
            if ep["seed"] is not None:
                checked += 1
                self.derive(ev, ep, seeds)
        drawn = getattr(self, "checked3", 0)
        return {"digital_rolls": len(self.rolls) + self.skipped + drawn, "checked_rolls": checked + drawn,
                "mismatches": self.mismatches}, pending

    def event(self, i, ev):
        t, p, m = ev.type, ev.payload, ev.match
        fail = lambda code, msg: self.fail(ev.seq, code, msg)  # noqa: E731
        if t == "match.created":
            self.joins = bool(p.get("joins"))
        elif t == "match.joined" and p.get("vrf"):
            self.vrf[p.get("role")] = p.get("vrf")
        elif t == "dice.requested":
            self.request(ev)
        elif t == "dice.contributed":
            self.contribution(ev)
        if t == "dice.committed":
            key, scheme = (m, p.get("epoch")), p.get("scheme", 1) or 1
            want = 2 if ev.envelope == 2 else 1  # dice.md: every epoch opened since envelope v2 is scheme 2
            if ev.envelope == 2 and self.joins and m == self.events[0].match:
                want = 3  # a join-code match's own epochs are scheme 3's
            if key in self.epochs or unhex(p.get("commit"), 32) is None or scheme != want:
                fail("bad_commit", "epoch %r of %s opened twice, with a commitment that is not 64 hex digits, or in "
                     "scheme %r (envelope v%d opens scheme %d)" % (key[1], m, scheme, ev.envelope, want))
                return
            self.epochs[key] = {"seq": ev.seq, "commit": unhex(p["commit"]), "scheme": scheme, "seed": None,
                                "claimed": False, "commits": {}, "reveals": {}, "excused": set()}
            self.current[m] = key
        elif t == "dice.revealed":
            ep = self.epochs.get((m, p.get("epoch")))
            if ep is None:
                fail("bad_reveal", "the seed of epoch %r of %s is revealed, but that epoch was never opened"
                     % (p.get("epoch"), m))
            else:
                self.reveal(ep, (m, p.get("epoch")), p.get("seed"), ev.seq)
        elif t in ("dice.seed_committed", "dice.seed_revealed", "dice.seed_excused"):
            self.player_seed(ev, self.epochs.get((m, p.get("epoch"))))
        elif t == "dice.reveal_requested" and ev.envelope == 2 and (self.whole or i + 2 < len(self.events)):
            after = self.events[i + 1:i + 3]
            follows = [(x.match, x.type, x.get("epoch")) for x in after]
            if self.current.get(m) != (m, p.get("epoch")) or follows != [
                    (m, "dice.revealed", p.get("epoch")), (m, "dice.committed", (p.get("epoch") or 0) + 1)]:
                fail("reveal_missing", "the recorder's reveal of the open epoch %r and the opening of the next do "
                     "not follow the judge's request at once" % p.get("epoch"))
        elif t == "dice.seed_contributed":
            self.contributed.append(p.get("seed", ""))
        elif t == "dice.rolled":
            self.by_seq[ev.seq] = ev
            if "reroll" in p:
                self.reroll(ev)
            if p.get("source") == "digital":
                self.digital(ev)

    def reveal(self, ep, key, seed_hex, seq):
        """A dice.revealed of epoch key; a problem is named at seq."""
        again, ep["claimed"] = ep["claimed"], True
        seed = unhex(seed_hex)
        if again:
            self.fail(seq, "bad_reveal", "the seed of epoch %r of %s is revealed a second time" % (key[1], key[0]))
        elif not commit_matches(ep["scheme"], seed, ep["commit"]):
            self.fail(seq, "bad_reveal", "the revealed seed of epoch %r of %s does not match its commitment"
                      % (key[1], key[0]))
        else:
            ep["seed"] = seed

    def ancestor_reveal(self, raw):
        """bundle.md "Reveals for branches": an ancestor's reveal after its fork, named at the commitment."""
        forks = {x["match"]: x["upto"] for x in self.lineage[:-1]}
        try:
            ev = Event(raw)
        except RecordError as e:
            return self.fail(0, "bad_reveal", "an ancestor's reveal in the bundle does not decode: %s" % e)
        if (ev.type != "dice.revealed" or ev.match not in forks or ev.seq <= forks[ev.match]
                or ev.content_hash() != ev.hash):
            return self.fail(0, "bad_reveal", "an ancestor's reveal in the bundle is no dice.revealed its ancestor "
                             "recorded after the fork (%s event %d)" % (ev.match, ev.seq))
        key = (ev.match, ev.get("epoch"))
        ep = self.epochs.get(key)
        if ep is not None:  # otherwise the epoch opened after the fork: no event here used it
            self.reveal(ep, key, ev.get("seed"), ep["seq"])

    def player_seed(self, ev, ep):
        """dice.md "Scheme 2", steps 2-3, and the judge's excuse."""
        t, player = ev.type, ev.get("player")
        if ep is None or ep["scheme"] != 2 or ep["claimed"] or player not in self.players:
            why = "for a player of an open scheme-2 epoch"
        elif t == "dice.seed_committed" and (
                player in ep["commits"] or player in ep["excused"] or ep["reveals"]
                or unhex(ev.get("commit"), 32) is None):
            why = "once per player, before any player revealed"
        elif t == "dice.seed_revealed" and (player in ep["reveals"] or player in ep["excused"]
                                            or any(x not in ep["commits"] and x not in ep["excused"]
                                                   for x in self.players)):
            why = "once, after every player committed or was excused, and never after the judge excused it"
        elif t == "dice.seed_revealed" and (unhex(ev.get("seed"), 32) is None
                                            or sha256(unhex(ev.get("seed"))) != ep["commits"].get(player)):
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
        self.fail(ev.seq, "seed_order", "%s of %r is allowed only %s" % (t, player, why))

    def reroll(self, ev):
        """dice.md "Re-rolls": one distinct index per die, into an earlier roll's values."""
        rr = ev.get("reroll")
        base = self.by_seq.get(rr["seq"])
        idx = rr["indices"]
        n = len(base.get("values", [])) if base is not None else -1
        if (base is None or base.seq >= ev.seq or len(idx) != ev.get("count") or len(set(idx)) != len(idx)
                or any(i >= n for i in idx)):
            self.fail(ev.seq, "bad_reroll", "the re-roll does not name %r distinct dice of an earlier roll (event %r)"
                      % (ev.get("count"), rr["seq"]))

    def digital(self, ev):
        key = self.current.get(ev.match)
        ep = self.epochs.get(key)
        if ep is None:
            self.skipped += 1
            return self.fail(ev.seq, "no_epoch", "a digital roll, but %s has opened no dice epoch" % ev.match)
        if ep["claimed"]:
            self.skipped += 1
            return self.fail(ev.seq, "revealed_epoch", "a digital roll in epoch %r, whose seed is already revealed"
                             % key[1])
        if ep["scheme"] == 3:
            return self.drawn(ev, ep, key)
        if ep["scheme"] == 2 and any(x not in ep["reveals"] and x not in ep["excused"] for x in self.players):
            self.fail(ev.seq, "seeds_pending", "a digital roll before every player's seed of epoch %r was revealed "
                      "or excused" % key[1])
        ep["key"] = key
        self.rolls.append((ev, ep, list(self.contributed)))

    def derive(self, ev, ep, seeds):
        values, key = ev.get("values", []), ep["key"]
        want = [derive_die(ep, key, seeds, self.players, ev.seq, i) for i in range(len(values))]
        bad = [{"seq": ev.seq, "index": i, "recorded": v, "derived": w}
               for i, (v, w) in enumerate(zip(values, want)) if v != w]
        if bad or ev.get("count") != len(values):
            self.mismatches.extend(bad)
            self.fail(ev.seq, "forged_die", "the digital dice %s (%d of %r) are not those the seeds of epoch %r of %s "
                      "give (%s)" % (values, len(values), ev.get("count"), key[1], key[0], want))

    # -- scheme 3 -------------------------------------------------------------

    def request(self, ev):
        """dice.md "Scheme 3": a roll asked for in the open scheme 3 epoch; its slots."""
        key = self.current.get(ev.match)
        ep = self.epochs.get(key)
        if ep is None or ep["scheme"] != 3 or ep["claimed"] or self.open is not None:
            return self.fail(ev.seq, "request_order", "a dice request outside an open scheme 3 epoch, or while another "
                             "waits")
        slots = ["recorder"] + ["player:" + x for x in self.players] + (["judge"] if "judge" in self.vrf else [])
        self.open = self.requests[ev.seq] = {"seq": ev.seq, "hash": ev.hash, "key": key, "ep": ep, "slots": slots,
                                             "outputs": {}}

    def contribution(self, ev):
        """A slot's VRF proof, verified under the epoch's key (the recorder), the substitute's, or the join's."""
        r, slot = self.requests.get(ev.get("roll")), ev.get("role")
        if r is None or r is not self.open or slot not in r["slots"] or slot in r["outputs"]:
            return self.fail(ev.seq, "wrong_roll", "a contribution of %r to event %r, which is no open request it has "
                             "a part in, or a second one" % (slot, ev.get("roll")))
        if slot == "recorder":
            key = r["ep"]["commit"]
        elif ev.get("by"):
            key = unhex(ev.get("key"), 32)
        else:
            key = unhex(self.vrf.get(slot), 32)
        proof = unhex(ev.get("proof"), 80)
        beta = None
        if key is not None and proof is not None:
            beta = vrf.verify(key, proof, alpha_v3(r["key"][0], r["key"][1], r["seq"], r["hash"], slot))
        if beta is None:
            return self.fail(ev.seq, "bad_vrf", "%s's contribution to the roll requested at event %d does not verify"
                             % (slot, r["seq"]))
        r["outputs"][slot] = beta

    def drawn(self, ev, ep, key):
        """A scheme 3 roll: it completes the open request, every slot contributed, the dice are the outputs'."""
        r, self.open = self.open, None
        if r is None or r["ep"] is not ep:
            self.skipped += 1
            return self.fail(ev.seq, "no_request", "a scheme 3 digital roll that completes no dice request")
        missing = [x for x in r["slots"] if x not in r["outputs"]]
        if missing:
            self.skipped += 1
            return self.fail(ev.seq, "contribution_missing", "the digital roll requested at event %d is drawn without "
                             "%s's contribution" % (r["seq"], missing[0]))
        k = dice_key_v3(key[0], key[1], r["seq"], [(x, r["outputs"][x]) for x in r["slots"]])
        values = ev.get("values", [])
        want = [face(k, dice_message_v3(r["seq"], i)) for i in range(len(values))]
        self.checked3 = getattr(self, "checked3", 0) + 1
        bad = [{"seq": ev.seq, "index": i, "recorded": v, "derived": w}
               for i, (v, w) in enumerate(zip(values, want)) if v != w]
        if bad or ev.get("count") != len(values):
            self.mismatches.extend(bad)
            self.fail(ev.seq, "forged_die", "the digital dice %s (%d of %r) are not those the contributions to the "
                      "roll requested at event %d give (%s)" % (values, len(values), ev.get("count"), r["seq"], want))
