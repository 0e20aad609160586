"""The verification bundle of one round, and its offline check.

A bundle is a self-contained JSON document: the round's stream and its shoe's stream,
every event exactly as its hash covers it, plus the shoe's commitment, client seed,
nonce and algorithm, its server seed once the shoe is closed, the round's dealt tiles
and the latest log checkpoint after the round. ``format`` defines its shape and
``assemble`` derives its summary from the events; ``checks.verify_bundle`` checks one
from the bundle alone: every hash and link of both chains from version 1 (``chain``),
the commitment and the re-derived shoe (``casino.audit.shoes``), the round's deal
(``deal``) and its settlement (``settlement``), each a named check (``report``).

Everything here is pure: the game core and the event log's canonical hash, no I/O, so
an auditor's copy of the checker needs nothing of the service's database.
"""
