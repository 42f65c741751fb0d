#!/usr/bin/env python3
"""An independent verifier of matchrec bundles, written from the documents alone.

    python3 tools/verify.py BUNDLE [--json] [--receipts DIR] [--recorder-key HEX] [--checkpoint FILE]

It implements docs/events.md, docs/bundle.md and docs/dice.md with the Python
standard library only (tools/verifier/: a strict msgpack decoder and RFC 8032
Ed25519 verification are included; tools/verifier/transparency.py checks the
transparency log's checkpoints and RFC 6962 proofs, docs/transparency.md), so a judge need not trust matchrec's code
to trust a verdict. matchrec's own audit does more (it re-folds the match with
the edition's rules); what this verifier leaves to it is listed under
"not_checked" in every report. --json prints the report of docs/bundle.md
("The report"), the shape `matchrec verify --json` prints too.

Exit codes (docs/bundle.md): 0 CLEAN, 1 FAILED, 2 could not run, 3 UNRESOLVED.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from verifier.checks import (CHECKS, RECEIPT_DOMAIN, STATEMENT_DOMAIN, Verifier)  # noqa: E402,F401
from verifier.dice import _lp, derive_die, dice_message_v1, dice_message_v2, face  # noqa: E402,F401
from verifier.ed25519 import (ED_BASE, ED_L, ED_P, ed25519_verify, ed_compress, ed_decompress,  # noqa: E402,F401
                              ed_mul, signed_message)
from verifier.msgpack import MsgpackError, NotCanonical, pack, unpack  # noqa: E402,F401
from verifier.records import CannotVerify, Event, RecordError, Statement, read_bundle, unhex  # noqa: E402,F401
from verifier.transparency import LogError, read_held  # noqa: E402

EXIT = {"CLEAN": 0, "FAILED": 1, "UNRESOLVED": 3}
TITLES = {"chain": "hash chain and sequence", "statements": "statements and signatures", "actors": "who acted",
          "dice": "digital dice", "end": "the end", "witnesses": "witnesses, disputes and rulings",
          "log": "the transparency log", "receipts": "receipts"}


def print_text(rep, out):
    out.write("independent verification (tools/verify.py) of match %s: %d events\n\n" % (rep["match"], rep["events"]))
    for c in (c for c in CHECKS if c in rep["checks"]):
        out.write("[%s] %s\n" % ("ok  " if rep["checks"][c]["ok"] else "FAIL", TITLES[c]))
        out.writelines("       %s%s: %s\n" % ("event %d: " % p["seq"] if p["seq"] else "", p["code"], p["message"])
                       for p in rep["problems"] if p["check"] == c)
    if rep["pending_reveal"]:
        out.write("       pending reveal (seed still secret): events %s\n" % rep["pending_reveal"])
    for u in rep["unresolved"]:
        out.write("unresolved: event %d: %s\n" % (u["seq"], u["message"]))
    unconfirmed = [m["seq"] for m in rep["manual_rolls"] if m["status"] == "unconfirmed"]
    if unconfirmed:
        out.write("unconfirmed physical rolls (they stand unless disputed): events %s\n" % unconfirmed)
    out.write("not checked by this verifier (matchrec audit does):\n")
    out.writelines("  - %s\n" % n for n in rep["not_checked"])
    v = rep["verdict"]
    if v == "FAILED":
        v += " at event %d (%s)" % (rep["first_bad_seq"], rep["first_bad_check"]) if rep["first_bad_seq"] else \
            " (%s)" % rep["first_bad_check"]
    elif v == "CLEAN" and not rep["signed"]:
        v += " (unsigned: the operator is trusted)"
    if rep.get("one_holder"):  # bundle.md "The report": play --sign, one key for several roles
        v += (" — one holder signed for %s (one key): the signatures do not tell which of them decided, and that "
              "holder could foresee the digital dice" % ", ".join(rep["one_holder"]))
    out.write("\nverdict: %s\n" % v)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="verify.py", description=__doc__.split("\n\n")[0],
                                 epilog="Exit status: 0 CLEAN, 1 FAILED, 2 could not run, 3 UNRESOLVED.")
    ap.add_argument("bundle", help="a bundle written by 'matchrec export MATCH --bundle FILE'")
    ap.add_argument("--json", action="store_true", help="print the report as JSON (docs/bundle.md, \"The report\")")
    ap.add_argument("--receipts", metavar="DIR", help="check DIR/<match>.receipts and DIR/<match>.keys against the log")
    ap.add_argument("--recorder-key", metavar="HEX", help="the recorder's public key (64 hex digits): the key receipts "
                    "and the log's checkpoints must be signed with (default: the one DIR/<match>.keys remembers, else "
                    "the one the first receipt names; for the log, else the one the bundle names)")
    ap.add_argument("--checkpoint", metavar="FILE", help="a checkpoint you hold (or the JSON of 'matchrec prove --json'): "
                    "the bundle must be the match that log holds (docs/transparency.md)")
    args = ap.parse_args(argv)
    try:
        recorder = None
        if args.recorder_key is not None:
            recorder = unhex(args.recorder_key.lower(), 32)
            if recorder is None:
                raise CannotVerify("bad_request", "--recorder-key HEX takes 64 hex digits")
        held = None
        if args.checkpoint is not None:
            with open(args.checkpoint, "rb") as f:
                try:
                    held = read_held(f.read())
                except LogError as e:
                    raise CannotVerify("bad_file", "%s: %s" % (args.checkpoint, e)) from None
        with open(args.bundle, "rb") as f:
            bundle = read_bundle(f.read())
        rep = Verifier(bundle, args.receipts, recorder, held).run()
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
