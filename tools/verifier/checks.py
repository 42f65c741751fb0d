"""The checks of docs/bundle.md "Verifying a bundle", in its order, and the report of "The report"."""

import hashlib
import json
import os

from .dice import DiceCheck
from .ed25519 import ed25519_verify, ed_decompress, signed_message
from .msgpack import pack
from .records import ZERO_HASH, CannotVerify, Event, RecordError, Statement, _uint, unhex
from .transparency import LogCheck, LogError, check_inclusion, leaf_hash, open_checkpoint, parse_entry, read_proof

STATEMENT_DOMAIN = b"matchrec-statement-v1"
RECEIPT_DOMAIN = b"matchrec-receipt-v1"

CHECKS = ("chain", "statements", "actors", "dice", "end", "witnesses", "refold", "log", "receipts")

# docs/events.md "Who may author each event". † rows need the board state.
SYSTEM_EVENTS = {"match.created", "branch.created", "dice.committed", "dice.revealed"}
JUDGE_EVENTS = {"dice.seed_excused", "dice.reveal_requested", "ruling.made"}
# docs/events.md: a join is its role's; a contribution its slot's (the recorder's, or the judge's substitute).
ROLE_EVENTS = {"match.joined", "dice.contributed"}
PLAYER_EVENTS = {"dice.seed_committed", "dice.seed_revealed", "dice.seed_contributed",
                 "match.end_proposed", "dice.confirmed", "dice.contested", "dispute.raised"}
PENDING_PLAYER_EVENTS = {"turn.started", "phase.started", "model.moved", "shooting.declared",
                         "dice.rolled", "hits.distributed", "casualties.chosen", "dice.requested",
                         "geometry.measured"}
EDITION_EVENTS = {
    "3e": {"hits.distributed", "casualties.chosen"},
    "6e": {"charge.declared", "combat.chosen", "strike.declared", "overwatch.declared",
           "overwatch.declined", "lookoutsir.declared", "lookoutsir.declined", "woundpools.ordered",
           "marker.placed", "marker.declined"},
    "11e": {"shooting.phase_step", "unit.advance_declared", "action.started", "attack.allocated",
            "reroll.chosen", "reroll.declined"},
}
CORE_EVENTS = SYSTEM_EVENTS | JUDGE_EVENTS | PLAYER_EVENTS | PENDING_PLAYER_EVENTS | ROLE_EVENTS | {"match.ended"}
# Envelope v1 recorded the recorder's follow-ups with the actor of the command that caused them.
V1_ANY_ACTOR = {"dice.committed", "dice.revealed"}
# docs/events.md "After the end": what may follow match.ended besides the reveals of the same append.
AFTER_END = {"dice.confirmed", "dice.contested", "dispute.raised", "ruling.made"}
# An open end proposal lapses with any event but these (events.md "match.end_proposed").
NOT_PLAY = AFTER_END | {"dice.seed_committed", "dice.seed_revealed", "dice.seed_excused", "dice.committed",
                        "dice.revealed", "dice.contributed"}

NOT_CHECKED = [
    "the pending player of the events marked † in docs/events.md (needs the rules' state: matchrec's re-fold)",
    "the re-fold: every declaration legal, every roll answering the step the rules asked for, state_hash",
    "each command re-decided from its statement (the events recorded are those the rules give)",
]


def witnessed(ev):
    """A record the opponent confirms or contests: a physical roll, or a measurement (docs/events.md)."""
    return (ev.type == "dice.rolled" and ev.get("source") == "manual") or ev.type == "geometry.measured"


def owner(ev):
    """Who made a witnessed record: the roller, or the player who measured."""
    return ev.get("roller") if ev.type == "dice.rolled" else ev.actor_id


class Verifier:
    """Runs every check on one bundle; each problem names (seq, check, code)."""

    def __init__(self, bundle, receipts_dir=None, recorder_key=None, held=None):
        self.b, self.match, self.lineage = bundle, bundle["match"], bundle["lineage"]
        self.receipts_dir, self.recorder_key, self.held = receipts_dir, recorder_key, held
        self.problems, self.unresolved, self.manual, self.disputes = [], [], [], []
        # The decoded records in stored order, and by their seq: all of them, and the sound ones before the
        # first record the chain check fails on, which the other checks read (bundle.md "Verifying a bundle").
        self.all_events, self.all_by_seq, self.events, self.by_seq, self.whole = [], {}, [], {}, True
        self.players, self.edition, self.created = [], "", []  # created: [(seq, keys)]
        self.checks = {c: {} for c in CHECKS if c not in ("refold", "log", "receipts")}
        self.pending = []
        self._verified = {}

    def fail(self, seq, check, code, message):
        self.problems.append({"seq": seq or 0, "check": check, "code": code, "message": message})

    def recorder_of(self, pos):
        """The match the lineage says recorded the event at position pos."""
        return next((x["match"] for x in self.lineage[:-1] if pos <= x["upto"]), self.lineage[-1]["match"])

    def run(self):
        self.check_chain()
        first = self.by_seq.get(1)
        if first is not None and first.type == "match.created":
            self.players = [p["id"] for p in first.get("players", [])]
            self.edition = first.get("edition", "")
        self.check_statements()
        self.check_actors()
        fail = lambda seq, code, msg: self.fail(seq, "dice", code, msg)  # noqa: E731
        self.checks["dice"], self.pending = DiceCheck(self.events, self.whole, self.players, self.lineage, fail).run(
            self.b["reveals"])
        self.check_end()
        self.check_witnesses()
        if self.b.get("log") is not None or self.held is not None:
            self.check_log()
        if self.receipts_dir is not None:
            self.check_receipts()
        return self.report()

    # -- the transparency log (docs/transparency.md) -----------------------

    def check_log(self):
        fail = lambda seq, code, msg: self.fail(seq, "log", code, msg)  # noqa: E731
        key, from_bundle = self.recorder_key, False
        if key is None and self.receipts_dir is not None:
            key = (read_keys_file(os.path.join(self.receipts_dir, self.match + ".keys"), self.match) or {}).get("recorder")
        if key is None:
            key, from_bundle = unhex(self.b.get("recorder", "").lower(), 32), True
        out = {"size": 0, "entries": 0}
        if key is None:
            fail(0, "bad_checkpoint", "no recorder key to check the log's checkpoints with")
        else:
            out = LogCheck(self.match, self.all_events, key, fail).run(self.b.get("log_proof"), self.held)
        if from_bundle:
            out["key_from_bundle"] = True
        self.checks["log"] = out

    # -- 2. chain ----------------------------------------------------------

    def check_chain(self):
        fail = lambda pos, code, msg: self.fail(pos, "chain", code, msg)  # noqa: E731
        if not self.b["records"]:
            fail(0, "empty", "the log holds no events")
        prev, v2 = None, 0
        for i, (key, raw) in enumerate(zip(self.b["keys"], self.b["records"]), 1):
            if key != i:
                fail(i, "sequence", "position %d holds key %d: a record missing, repeated or moved" % (i, key))
            try:
                ev = Event(raw)
            except RecordError as e:
                fail(i, e.code, "the record under key %d: %s" % (key, e))
                prev = None
                continue
            if ev.seq != key:
                fail(i, "sequence", "the record under key %d is event %d (events swapped or moved)" % (key, ev.seq))
            if ev.content_hash() != ev.hash:
                fail(i, "hash", "its content does not match its hash (edited after it was recorded)")
            if (i == 1 or prev is not None) and ev.prev_hash != (prev.hash if prev else ZERO_HASH):
                fail(i, "link", "its prev_hash is not the hash of the record before it")
            if ev.match != self.recorder_of(i):
                fail(i, "lineage", "recorded by match %s, but the lineage says %s" % (ev.match, self.recorder_of(i)))
            if ev.envelope == 2 and not v2:
                v2 = i
            elif ev.envelope == 1 and v2:
                fail(i, "downgrade", "an envelope v1 record after the v2 record at position %d" % v2)
            self.all_events.append((i, ev))
            self.all_by_seq.setdefault(ev.seq, ev)
            prev = ev
        for parent in self.lineage[:-1]:  # bundle.md "Lineage": a fork opens with its branch.created
            ev = self.all_by_seq.get(parent["upto"] + 1)
            if ev is not None and (ev.type, ev.get("parent"), ev.get("at")) != ("branch.created", parent["match"],
                                                                                parent["upto"]):
                fail(ev.seq, "lineage", "not the branch.created of a fork from %s at event %d"
                     % (parent["match"], parent["upto"]))
        self.checks["chain"]["records"] = len(self.b["records"])
        broken = [p["seq"] for p in self.problems if p["check"] == "chain" and p["seq"]]
        sound = min(broken) if broken else len(self.b["records"]) + 1
        self.whole = not broken
        self.events = [ev for i, ev in self.all_events if i < sound]
        for ev in self.events:
            self.by_seq.setdefault(ev.seq, ev)
        self.all_events = [ev for _, ev in self.all_events]

    # -- 3. statements and signatures -----------------------------------------

    def check_statements(self):
        keys, nonces, prev, counts = None, {}, None, {"statements": 0, "signatures": 0}
        self.cur = None  # the auth of the command whose events are being read
        requests = {}  # the statements of open dice requests (scheme 3): the roll completing one carries it again
        for ev in self.events:
            signed = keys is not None
            fail = lambda code, msg: self.fail(ev.seq, "statements", code, msg)  # noqa: E731
            if (ev.type == "dice.rolled" and ev.auth is not None and ev.auth[0] in requests
                    and not (prev is not None and prev.auth == ev.auth)):
                requests.pop(ev.auth[0])
                self.check_completion(ev, keys, signed, counts, fail)
            elif self.cur is not None and ev.auth == self.cur and prev is not None and prev.auth == ev.auth:
                if ev.type != "branch.created" and self.cur_role != ev.role:
                    fail("wrong_role", "the statement is %s's, the event %s's" % (self.cur_role, ev.role))
            else:
                self.cur = None
                if ev.actor_kind == "system" and ev.type != "branch.created":
                    if ev.auth is not None:
                        fail("unexpected_auth", "the recorder's own %s carries a statement" % ev.type)
                elif ev.envelope == 1:
                    if signed:
                        fail("missing_signature", "a signed match's %s without a statement (envelope v1)" % ev.type)
                elif ev.auth is None:
                    fail("missing_signature" if signed else "missing_statement",
                         "%s without the statement of its command" % ev.type)
                else:
                    join_key = unhex(ev.get("key"), 32) if ev.type == "match.joined" else None
                    self.check_statement(ev, keys, signed, nonces, counts, fail, join_key)
                    if ev.type == "dice.requested" and ev.auth is not None:
                        requests[ev.auth[0]] = ev.seq
            if ev.type in ("match.created", "branch.created"):
                keys = self.created_keys(ev)
                self.created.append((ev.seq, keys))
            elif ev.type == "match.joined" and keys is not None and self.created and ev.get("role") not in keys:
                # events.md "Joins": the join's key is its role's from the next event on.
                if ed_decompress(unhex(ev.get("key"), 32) or b"") is None:
                    self.fail(ev.seq, "statements", "bad_keys", "%s joins with no valid Ed25519 key" % ev.get("role"))
                else:
                    keys = dict(keys, **{ev.get("role"): ev.get("key")})
                    self.created[-1] = (self.created[-1][0], keys)
            prev = ev
        self.signed = bool(self.created) and all(k is not None for _, k in self.created)
        roles = {}
        for role, k in (self.created[-1][1] or {}).items() if self.signed else ():
            roles.setdefault(k, []).append(role)
        self.one_holder = sorted(r for rs in roles.values() if len(rs) > 1 for r in rs)
        self.checks["statements"].update(counts)

    def check_completion(self, ev, keys, signed, counts, fail):
        """events.md "Joins and contributed dice": the roll completing a request carries the request's statement."""
        try:
            st = Statement(ev.auth[0])
        except RecordError as e:
            return fail("bad_statement", str(e))
        if signed:
            key = unhex((keys or {}).get(st.role), 32)
            if len(ev.auth) < 2 or key is None or not self.verify_once(key, ev.auth[0], ev.auth[1]):
                return fail("bad_signature", "the roll of a dice request is not signed by the key of %s" % st.role)
            counts["signatures"] += 1
        if st.role != ev.role:
            fail("wrong_role", "the statement is %s's, the event %s's" % (st.role, ev.role))
        self.cur, self.cur_role = ev.auth, st.role

    def created_keys(self, ev):
        """The keys a match.created or branch.created names: one valid key per role, or none (unsigned)."""
        keys, roles = ev.get("keys") or {}, {"judge"} | {"player:" + p for p in self.players}
        if ev.type == "match.created" and ev.get("joins"):
            return {}  # signed: its participants join with keys of their own (match.joined)
        if keys and (set(keys) != roles or any(ed_decompress(unhex(k, 32) or b"") is None for k in keys.values())):
            self.fail(ev.seq, "statements", "bad_keys", "keys must give one Ed25519 public key (64 lowercase hex "
                      "digits, the canonical encoding of a point of the curve) to each of %s" % ", ".join(sorted(roles)))
            return None
        return keys or None

    def check_statement(self, ev, keys, signed, nonces, counts, fail, join_key=None):
        """events.md "How statements bind events", rules 1-4, for the first event of a command."""
        try:
            st = Statement(ev.auth[0])
        except RecordError as e:
            return fail("bad_statement", str(e))
        counts["statements"] += 1
        if signed:
            key = join_key or unhex(keys.get(st.role), 32)  # a join is signed by the key it registers
            if len(ev.auth) < 2:
                return fail("missing_signature", "%s's statement is not signed" % st.role)
            if key is None or not self.verify_once(key, ev.auth[0], ev.auth[1]):
                return fail("bad_signature", "the statement is not signed by the key of %s" % st.role)
            counts["signatures"] += 1
        want = ev.match
        if ev.type == "branch.created":
            want = ev.get("parent")
        elif st.role != ev.role:
            fail("wrong_role", "the statement is %s's, the event %s's" % (st.role, ev.role))
        if st.match != want:
            fail("wrong_match", "the statement is for match %s, not %s" % (st.match, want))
        if st.head_seq != ev.seq - 1 or st.head_hash != ev.prev_hash:
            fail("stale_head", "the statement was made at event %d (%s…), but its command follows event %d"
                 % (st.head_seq, st.head_hash.hex()[:12], ev.seq - 1))
        if ev.type == "match.joined":  # events.md "Joins": the statement carries the code match.created hashed
            first = self.by_seq.get(1)
            want = (first.get("joins") or {}).get(st.role) if first is not None else None
            code = st.command.get("code", "")
            if (want is None or hashlib.sha256(code.encode() if isinstance(code, str) else b"").hexdigest() != want
                    or st.role != ev.get("role") or st.command.get("key") != ev.get("key")):
                fail("bad_join", "the join of %s does not carry its role's join code and key" % ev.get("role"))
        nonce = (st.match, st.role, st.nonce)
        if nonce in nonces:
            fail("nonce_reused", "the statement of event %d is used again (role %s)" % (nonces[nonce], st.role))
        else:
            nonces[nonce] = ev.seq
        if ev.type == "branch.created":
            c = st.command
            roles = {"judge"} | {"player:" + p for p in self.players}
            if st.role not in roles:
                fail("bad_statement", "the branch was asked for by %r, not a participant of %s" % (st.role, want))
            if (c.get("type"), c.get("at"), c.get("match", ""), c.get("name", ""), c.get("keys") or {}) != (
                    "branch", ev.get("at"), ev.match, ev.get("name", ""), ev.get("keys") or {}) or ev.get("at") != ev.seq - 1:
                fail("bad_statement", "branch.created is not what its statement asks for")
            return
        self.cur, self.cur_role = ev.auth, st.role

    def verify_once(self, key, message, signature):
        k = (key, message, signature)
        if k not in self._verified:
            self._verified[k] = ed25519_verify(key, signed_message(STATEMENT_DOMAIN, message), signature)
        return self._verified[k]

    # -- 4. who acted (the static rules; † rules are the re-fold's) --------

    def check_actors(self):
        proposal, forks, ended = None, [x["upto"] + 1 for x in self.lineage[:-1]], False
        for ev in self.events:
            t, who, p = ev.type, ev.actor_kind, ev.payload
            editions = [e for e, types in EDITION_EVENTS.items() if t in types]
            bad = self.actor_invalid(ev)
            if ended and t not in AFTER_END and t != "dice.revealed":
                bad = "%s after the end of the match: only the recorder's reveals, witnesses, disputes and rulings" % t
            elif t not in CORE_EVENTS and not editions:
                bad = "%r is no event type of docs/events.md" % t
            elif editions and self.edition not in editions:
                bad = "an event of edition %s in a match of edition %r" % (editions[0], self.edition)
            elif (ev.seq == 1) != (t == "match.created"):
                bad = "event 1, and only event 1, is match.created"
            elif t == "branch.created" and ev.seq not in forks:
                bad = "branch.created is only the first own event of a branch"
            elif t in SYSTEM_EVENTS and who != "system" and (ev.envelope == 2 or t not in V1_ANY_ACTOR):
                bad = "%s is the system's" % t
            elif (t in JUDGE_EVENTS and who != "judge") or (
                    (t in PLAYER_EVENTS or t in PENDING_PLAYER_EVENTS or editions) and who != "player"):
                bad = "%s is the %s's" % (t, "judge" if t in JUDGE_EVENTS else "player")
            elif t == "dice.seed_contributed" and ev.envelope != 1:
                bad = "free dice seeds are scheme 1's, recorded in envelope v1 only"
            elif (t in ("dice.seed_committed", "dice.seed_revealed") and p.get("player") != ev.actor_id) or (
                    t in ("dice.rolled", "dice.requested") and p.get("roller") != ev.actor_id):
                bad = "it names another player than its actor"
            elif t == "match.joined" and p.get("role") != ev.role:
                bad = "a join is its role's"
            elif t == "dice.contributed" and (ev.role, who) != (
                    ("system", "system") if p.get("role") == "recorder" else
                    ("judge", "judge") if p.get("by") else (p.get("role"), ev.actor_kind)):
                bad = "a contribution is its slot's: the recorder's, the role's, or the judge's substitute"
            elif t == "match.ended":
                bad = bad or self.end_not_allowed(ev, proposal)
            elif t in ("dice.confirmed", "dice.contested") and not (t == "dice.confirmed" and p.get("upto")):
                roll = self.by_seq.get(p.get("roll"))
                if roll is not None and witnessed(roll) and roll.seq < ev.seq and owner(roll) == ev.actor_id:
                    bad = "a player vouches only for the other player's rolls and measurements"
            if t == "match.end_proposed":
                proposal = ev
            elif t not in NOT_PLAY:
                proposal = None
            ended = ended or t == "match.ended"
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
            return None  # accepting the other player's open proposal
        return "a player ends the match only by conceding or accepting the other player's open proposal"

    # -- 6. the end -----------------------------------------------------------

    def check_end(self):
        ended, revealing = None, False
        for ev in self.events:
            if ended is None:
                if ev.type == "match.ended":
                    ended, revealing = ev, True
            elif revealing and ev.type == "dice.revealed" and ev.match == ended.match:
                continue  # the recorder's reveals of the same append
            else:
                revealing = False
                if ev.type not in AFTER_END:
                    self.fail(ev.seq, "end", "after_end", "%s after the match ended at event %d" % (ev.type, ended.seq))
        self.checks["end"]["ended"] = ended.seq if ended else 0
        if ended is None or not self.whole:
            return  # a prefix before a break of the chain: the reveals may lie beyond it
        own = [ev for ev in self.events if ev.match == ended.match]
        opened = {ev.get("epoch") for ev in own if ev.type == "dice.committed"}
        still = sorted(opened - {ev.get("epoch") for ev in own if ev.type == "dice.revealed"})
        if still:
            self.fail(ended.seq, "end", "unrevealed", "the match ended, but its epochs %s were never revealed" % still)

    # -- 7. witnesses and disputes ------------------------------------------

    def check_witnesses(self):
        manual, disputes = {}, {}  # seq -> the status of a physical roll; of a dispute
        for ev in self.events:
            t, p = ev.type, ev.payload
            fail = lambda msg: self.fail(ev.seq, "witnesses", "bad_witness", "%s: %s" % (t, msg))  # noqa: E731
            if witnessed(ev):  # a physical roll, or a measurement taken at the table
                manual[ev.seq] = {"seq": ev.seq, "roller": owner(ev), "status": "unconfirmed", "hash": ev.hash}
            elif t == "dice.confirmed" and p.get("upto"):
                h = p.get("hash", "")
                if p["upto"] != ev.seq - 1 or (h and h != ev.prev_hash.hex()) or (not h and ev.envelope == 2):
                    fail("a confirmation up to the head names seq - 1 and its hash (prev_hash)")
                for m in manual.values():
                    if m["status"] == "unconfirmed" and m["roller"] != ev.actor_id:
                        m.update(status="confirmed", by=ev.seq)
            elif t in ("dice.confirmed", "dice.contested"):
                m, h = manual.get(p.get("roll")), p.get("hash", "")
                if m is None:
                    if ev.envelope == 2:
                        fail("event %r is no earlier physical roll" % p.get("roll"))
                    continue  # envelope v1 read a witness of something else as nothing
                if (not h and ev.envelope == 2) or (h and h != m["hash"].hex()):
                    fail("the hash is not event %d's" % m["seq"])
                    continue
                if t == "dice.confirmed":
                    m.update(status="confirmed", by=ev.seq)
                    m.pop("reason", None)
                else:
                    m.update(status="contested", by=ev.seq, reason=p.get("reason", ""))
            elif t == "dispute.raised":
                disputes[ev.seq] = {"seq": ev.seq, "by": ev.actor_id, "event": p.get("event"), "reason": p.get("reason", "")}
            elif t == "ruling.made":
                d = disputes.get(p.get("dispute"))
                if d is None or "ruling" in d or d["event"] != p.get("event"):
                    fail("it rules on event %r, which is no open dispute of event %r" % (p.get("dispute"), p.get("event")))
                    continue
                d.update(ruling=ev.seq, decision=p.get("decision", ""))
                if p.get("note"):
                    d["note"] = p["note"]
        # A contest is settled by a ruling on a dispute of the roll made
        # after it (docs/bundle.md): one made before it settles nothing.
        rulings = {}
        for d in disputes.values():
            if "ruling" in d:
                rulings.setdefault(d["event"], []).append(d["ruling"])
        for m in manual.values():
            del m["hash"]
            if m["status"] == "confirmed":
                continue
            self.manual.append(m)
            if m["status"] == "contested" and not any(r > m["by"] for r in rulings.get(m["seq"], [])):
                since = " since" if m["seq"] in rulings else ""
                self.unresolved.append({"seq": m["seq"], "code": "contested", "message":
                                        "contested at event %d, and no ruling on a dispute of it%s" % (m["by"], since)})
        for d in disputes.values():
            self.disputes.append(d)
            if "ruling" not in d:
                self.unresolved.append({"seq": d["seq"], "code": "open_dispute",
                                        "message": "a dispute of event %r with no ruling" % d["event"]})

    # -- 8. receipts ------------------------------------------------------------

    def check_receipts(self):
        """bundle.md "Checking receipts", with the receipts directory's two files."""
        path, keys_path = (os.path.join(self.receipts_dir, self.match + ext) for ext in (".receipts", ".keys"))
        known = read_keys_file(keys_path, self.match)
        recorder = self.recorder_key or (known or {}).get("recorder")
        receipts = read_receipts(path)
        if not receipts and known is None and self.recorder_key is None:
            return  # nothing kept of this match: nothing to check
        fail = lambda seq, code, msg: self.fail(seq, "receipts", code, msg)  # noqa: E731
        last = max((ev.seq for ev in self.all_events), default=0)
        for r in receipts:
            body = pack([r["match"], r["seq"], r["hash"], r["recorder"]])
            ev = self.all_by_seq.get(r["seq"])
            if r["match"] != self.match:
                fail(r["seq"], "bad_receipt", "a receipt for match %s among match %s's" % (r["match"], self.match))
                continue
            if not receipt_verifies(r, body):
                fail(r["seq"], "bad_receipt", "the receipt for event %d is not signed by the key it names" % r["seq"])
                continue
            recorder = recorder or r["recorder"]
            if r["recorder"] != recorder:
                fail(r["seq"], "wrong_recorder", "signed by %s, not by the recorder's key" % r["recorder"].hex())
            elif r["seq"] > last:
                fail(r["seq"], "truncated", "receipted by the recorder; the log ends at event %d (cut)" % last)
            elif ev is None or ev.hash != r["hash"]:
                fail(r["seq"], "rewritten", "not the event the recorder receipted: rewritten at or below it")
        if known is not None and self.created and known["keys"] != (self.created[-1][1] or {}):
            fail(self.created[-1][0], "keys_changed", "the participants' keys are not those remembered when the "
                 "match was first seen")
        self.checks["receipts"] = {"checked": len(receipts)}

    # -- the report (bundle.md "The report") --------------------------------

    def report(self):
        self.problems.sort(key=lambda p: CHECKS.index(p["check"]))
        first = {"seq": 0, "check": ""}
        for p in self.problems:
            if not first["check"] or (p["seq"] and (not first["seq"] or p["seq"] < first["seq"])):
                first = p
        verdict = "FAILED" if self.problems else ("UNRESOLVED" if self.unresolved else "CLEAN")
        checks = {c: dict({"ok": not any(p["check"] == c for p in self.problems)}, **v) for c, v in self.checks.items()}
        rep = {
            "match": self.match, "events": len(self.b["records"]), "verdict": verdict, "ok": verdict == "CLEAN",
            "signed": self.signed, "first_bad_seq": first["seq"], "first_bad_check": first["check"],
            "problems": self.problems, "unresolved": self.unresolved, "manual_rolls": self.manual,
            "disputes": self.disputes, "pending_reveal": self.pending, "checks": checks, "not_checked": NOT_CHECKED,
        }
        if self.one_holder:
            rep["one_holder"] = self.one_holder  # bundle.md "The report": roles one key signed for
        return rep


def receipt_verifies(r, body):
    """A receipt of version 1 is the recorder's signature of its body; one with a log proof is a checkpoint
    signed by the key it names and the inclusion proof of exactly its head's entry (docs/transparency.md)."""
    if r["log"] is None:
        return ed25519_verify(r["recorder"], signed_message(RECEIPT_DOMAIN, body), r["signature"])
    try:
        p = read_proof(r["log"])
        size, root = open_checkpoint(p["checkpoint"], r["recorder"])
        if len(p["entries"]) != 1:
            return False
        inc = p["entries"][0]
        e = parse_entry(inc["entry"])
    except LogError:
        return False
    return (check_inclusion(inc["index"], size, leaf_hash(inc["entry"]), inc["proof"], root)
            and (e["match"], e["seq"], e["hash"]) == (r["match"], r["seq"], r["hash"]))


def read_keys_file(path, match):
    """<dir>/<match>.keys (bundle.md "The receipts directory"): what was first seen of the match, or None."""
    if not os.path.exists(path):
        return None
    try:
        with open(path, encoding="utf-8") as f:
            k = json.load(f)
        keys, recorder = k.get("keys") or {}, k.get("recorder", "")
        assert k.get("match") == match and type(keys) is dict and all(type(v) is str for v in keys.values())
        assert type(recorder) is str and (recorder == "" or unhex(recorder, 32) is not None)
    except (OSError, ValueError, AttributeError, AssertionError) as e:
        raise CannotVerify("bad_file", "%s is not the keys file of match %s (%s)" % (path, match, e)) from None
    return {"keys": keys, "recorder": unhex(recorder, 32) if recorder else None}


def read_receipts(path):
    """<dir>/<match>.receipts: one receipt a line (JSON); a line that is none makes the file unusable."""
    if not os.path.exists(path):
        return []
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f.read().splitlines(), 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
                h, rec = unhex(r["hash"].lower(), 32), unhex(r["recorder"].lower(), 32)
                log = r.get("log")
                # A log receipt carries a checkpoint and a proof instead of a signature of its own.
                sig = unhex(r.get("signature", "").lower(), 64) if log is None or r.get("signature") else b""
                assert type(r["match"]) is str and _uint(r["seq"]) and None not in (h, rec, sig)
                assert log is None or type(log) is dict
            except (ValueError, KeyError, TypeError, AttributeError, AssertionError):
                raise CannotVerify("bad_file", "%s line %d is not a receipt" % (path, n)) from None
            out.append({"match": r["match"], "seq": r["seq"], "hash": h, "recorder": rec, "signature": sig, "log": log})
    return out
