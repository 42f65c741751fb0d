"""An independent verifier of matchrec bundles, written from docs/events.md, docs/bundle.md and docs/dice.md alone.

Python 3 standard library only: a strict msgpack decoder (msgpack.py), RFC 8032
Ed25519 verification (ed25519.py), records and bundles (records.py), the dice
(dice.py) and the checks and report (checks.py). tools/verify.py is its command.
"""
