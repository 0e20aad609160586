"""Verification bundles for the checker's tests.

An honest round is decided by the domain itself (open, wagers, deal and settlement,
closing the shoe) from the spec's check-vector seed, chained by the log's own hash, and
assembled as the service assembles it. ``forge`` is the careful forger: after changing
events it re-chains every hash and rewrites the summary, so that only the check that
judges what was changed can notice.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from casino.audit.bundle.assemble import assemble_bundle
from casino.audit.bundle.format import BundleEvent, read_bundle
from casino.domain import accounts, rounds, shoes
from casino.domain.events import DomainEvent, RoundVoided, TableOpened, WagerPlaced, encode
from casino.eventstore.canonical import ZERO_HASH, event_hash
from casino.game.shoe import shuffle

Json = dict[str, Any]

SEED = bytes(range(32))  # the spec's check vector: commitment 630dcd29..., first tile 18
CLIENT_SEED = "table-7"
NONCE = 0
ROUND_ID, SHOE_ID, TABLE_ID = "R1", "S1", "T1"
TABLE = TableOpened(
    table_id=TABLE_ID, name="Test", currency="EUR", seats=7, main_paytable=1,
    doubles_paytable=1, main_min=100, main_max=100_000, doubles_min=100, doubles_max=10_000,
    cut_card=None,
)  # fmt: skip
# Six seats (alice on two): with the check-vector shoe seats 1 and 7 win their main
# wagers and seat 2 its Doubles wager (two doubles); the rest lose.
WAGERS = (
    (1, "alice", 1_000, 500), (2, "bob", 2_000, 100), (3, "carol", 300, 0),
    (4, "alice", 100, 0), (5, "dave", 500, 0), (7, "erin", 400, 200),
)  # fmt: skip
METADATA = {"actor": "table:dealer", "command": "test", "at": "2024-06-01T12:00:00+00:00"}


def honest_bundle(*, closed: bool = True, dealt: bool = True) -> Json:
    """The round of ``WAGERS``; ``dealt=False`` voids it before the deal."""
    shoe_opened = shoes.open_shoe(SHOE_ID, TABLE_ID, SEED, CLIENT_SEED, NONCE)
    shoe = shoes.ShoeState(shoe_opened)
    round_opened = rounds.open_round(ROUND_ID, TABLE, 1, shoe)
    wagers = [WagerPlaced(ROUND_ID, seat, player, main, doubles)
              for seat, player, main, doubles in WAGERS]  # fmt: skip
    round_events: list[DomainEvent] = [round_opened, *wagers]
    shoe_events: list[DomainEvent] = [shoe_opened]
    if dealt:
        state = rounds.fold_round(round_events)
        assert state is not None
        players = {w.player_id: accounts.fold_account(w.player_id, "EUR", []) for w in wagers}
        decision = rounds.decide_deal(state, shoe, shuffle(SEED, CLIENT_SEED, NONCE), players)
        round_events += decision.round_events
        shoe_events.append(decision.tiles_dealt)
        after = shoes.evolve_shoe(shoe, decision.tiles_dealt)
        assert after is not None
        shoe = after
    else:
        refunded = sum(main + doubles for _, _, main, doubles in WAGERS)
        round_events.append(RoundVoided(ROUND_ID, "table:dealer", "test", refunded))
    if closed:
        shoe_events.append(shoes.close_shoe(shoe, SEED))
    # Log positions as the service makes them: the shoe opens with the round, the deal's
    # round events come before its shoe events.
    positions = iter(range(100, 200))
    shoe_at = [next(positions)]
    round_at = [next(positions) for _ in round_events]
    shoe_at += [next(positions) for _ in shoe_events[1:]]
    bundle = assemble_bundle(
        ROUND_ID, f"round-{ROUND_ID}", _chained(f"round-{ROUND_ID}", round_events, round_at),
        SHOE_ID, f"shoe-{SHOE_ID}", _chained(f"shoe-{SHOE_ID}", shoe_events, shoe_at),
    )  # fmt: skip
    return bundle.as_json()


def _chained(
    stream_id: str, events: Sequence[DomainEvent], positions: Sequence[int]
) -> list[BundleEvent]:
    chained, previous = [], ZERO_HASH
    for version, (event, position) in enumerate(zip(events, positions, strict=True), start=1):
        data = encode(event)
        digest = event_hash(
            stream_id=stream_id, version=version, event_type=event.TYPE, schema_version=1,
            data=data, metadata=METADATA, previous_hash=previous,
        )  # fmt: skip
        chained.append(
            BundleEvent(stream_id, version, position, event.TYPE, 1, data, dict(METADATA),
                        "2024-06-01T12:00:00.000000+00:00", previous, digest)
        )  # fmt: skip
        previous = digest
    return chained


def event_of(document: Json, stream: str, event_type: str) -> Json:
    """The first event of ``event_type`` in the bundle's ``round`` or ``shoe`` stream."""
    return next(e for e in document[stream]["events"] if e["type"] == event_type)


def rechain(document: Json) -> Json:
    """Re-chain both streams from the genesis hash, versions in list order."""
    forged = copy.deepcopy(document)
    for stream in ("round", "shoe"):
        previous = ZERO_HASH
        for version, event in enumerate(forged[stream]["events"], start=1):
            event["version"], event["previous_hash"] = version, previous
            event["hash"] = previous = event_hash(
                stream_id=event["stream_id"], version=version, event_type=event["type"],
                schema_version=event["schema_version"], data=event["data"],
                metadata=event["metadata"], previous_hash=previous,
            )  # fmt: skip
    return forged


def forge(document: Json) -> Json:
    """Re-chain both streams and rewrite the summary from the events: all a forger
    without the server seed can fix."""
    bundle = read_bundle(rechain(document))
    return assemble_bundle(
        bundle.round.round_id, bundle.round.stream_id, bundle.round.events,
        bundle.shoe.shoe_id, bundle.shoe.stream_id, bundle.shoe.events, bundle.checkpoint,
    ).as_json()  # fmt: skip
