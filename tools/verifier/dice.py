"""Dice: docs/dice.md — the derivation of schemes 1 and 2, and check 5 of docs/bundle.md."""

import hashlib
import hmac
import struct

from .records import Event, RecordError, sha256, unhex


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
        return {"digital_rolls": len(self.rolls) + self.skipped, "checked_rolls": checked,
                "mismatches": self.mismatches}, pending

    def event(self, i, ev):
        t, p, m = ev.type, ev.payload, ev.match
        fail = lambda code, msg: self.fail(ev.seq, code, msg)  # noqa: E731
        if t == "dice.committed":
            key, scheme = (m, p.get("epoch")), p.get("scheme", 1) or 1
            want = 2 if ev.envelope == 2 else 1  # dice.md: every epoch opened since envelope v2 is scheme 2
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
        elif sha256(seed) != ep["commit"]:
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
