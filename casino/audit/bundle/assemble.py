"""A bundle assembled from the events of a round's stream and its shoe's.

Every summary field is derived from the events here, in one place, so the service and
the checker (which re-derives them to prove the summary) cannot disagree. The server
seed comes only from ``ShoeClosed``: while the shoe is live it is in no event, so it
cannot reach a bundle (invariant 7).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from casino.audit.bundle.format import (
    Bundle,
    BundleCheckpoint,
    BundleEvent,
    BundleRound,
    BundleShoe,
    DealtSeat,
    DealtTile,
)


def assemble_bundle(
    round_id: str,
    round_stream_id: str,
    round_events: Sequence[BundleEvent],
    shoe_id: str,
    shoe_stream_id: str,
    shoe_events: Sequence[BundleEvent],
    checkpoint: BundleCheckpoint | None = None,
) -> Bundle:
    opened = next((e.data for e in shoe_events if e.type == "ShoeOpened"), {})
    closed = next((e.data for e in shoe_events if e.type == "ShoeClosed"), None)
    round_opened = next((e.data for e in round_events if e.type == "RoundOpened"), {})
    hands = next((e.data for e in round_events if e.type == "HandsDealt"), None)
    return Bundle(
        round=BundleRound(
            round_id, round_opened.get("table_id", ""), round_stream_id, tuple(round_events)
        ),
        shoe=BundleShoe(
            shoe_id=shoe_id,
            stream_id=shoe_stream_id,
            algorithm=opened.get("algorithm", ""),
            commitment=opened.get("commitment", ""),
            client_seed=opened.get("client_seed", ""),
            nonce=opened.get("nonce", 0),
            status="live" if closed is None else "closed",
            server_seed=None if closed is None else closed["server_seed"],
            tiles_dealt=sum(len(e.data["tiles"]) for e in shoe_events if e.type == "TilesDealt"),
            events=tuple(shoe_events),
        ),
        dealt=() if hands is None else dealt_seats(hands["seats"]),
        checkpoint=checkpoint,
    )


def dealt_seats(hands_dealt_seats: Sequence[Mapping[str, Any]]) -> tuple[DealtSeat, ...]:
    """The ``dealt`` summary of a ``HandsDealt``'s ``seats`` ({seat, hand, connector,
    positions}: the three hand tiles, then the Connector)."""
    return tuple(
        DealtSeat(
            seat=seat["seat"],
            tiles=tuple(
                DealtTile.at(tile, position)
                for tile, position in zip(seat["hand"], seat["positions"][:3], strict=True)
            ),
            connector=DealtTile.at(seat["connector"], seat["positions"][3]),
        )
        for seat in hands_dealt_seats
    )
