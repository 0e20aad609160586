"""The ``round_deal`` check: the round's ``HandsDealt`` is the game's deal of its tiles.

The seats that wagered are dealt round-robin (``casino.game.deal.deal_round``) from the
round's ``TilesDealt`` in the shoe, and, once the seed is revealed, from the re-derived
shoe itself: every hand tile, Connector and shoe position must be where ``HandsDealt``
puts it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from casino.audit.bundle.facts import BundleFacts
from casino.audit.bundle.report import Status
from casino.game.deal import deal_round, tiles_for_round

Seat = tuple[int, tuple[int, ...], int, tuple[int, ...]]  # seat, hand, Connector, positions


def round_deal(facts: BundleFacts) -> tuple[Status, str]:
    hands, deals = facts.of_round("HandsDealt"), facts.round_deals
    if not hands and not deals:
        return Status.SKIPPED, f"nothing was dealt: the round is {facts.round_status}"
    if len(hands) != 1 or len(deals) != 1:
        return Status.FAIL, (
            f"{len(hands)} HandsDealt in the round and {len(deals)} TilesDealt for it in the "
            "shoe: one of each is due"
        )
    dealt, deal = hands[0].data, deals[0].data
    if dealt["shoe_id"] != facts.shoe_id:
        return Status.FAIL, f"HandsDealt names shoe {dealt['shoe_id']!r}, not {facts.shoe_id!r}"
    seats = sorted(w.data["seat"] for w in facts.of_round("WagerPlaced"))
    first, tiles = deal["first_position"], list(deal["tiles"])
    if len(tiles) != tiles_for_round(len(seats)):
        return Status.FAIL, (
            f"TilesDealt holds {len(tiles)} tiles for {len(seats)} seats with a wager "
            f"({tiles_for_round(len(seats))} are due)"
        )
    recorded = [_recorded(seat) for seat in dealt["seats"]]
    from_tiles = [
        (s.seat, s.hand, s.connector, tuple(first + p for p in s.positions))
        for s in deal_round(tiles, 0, seats)
    ]
    difference = _first_difference(recorded, from_tiles)
    if difference:
        return Status.FAIL, f"HandsDealt differs from the round's TilesDealt: {difference}"
    order = facts.order
    if order is None:
        return Status.PASS, (
            f"{len(seats)} seats' hand tiles, Connectors and positions {first}-"
            f"{first + len(tiles) - 1} are the round's TilesDealt, dealt round-robin (not "
            "yet compared with the shoe itself: its seed is not revealed)"
        )
    from_shoe = [
        (s.seat, s.hand, s.connector, s.positions) for s in deal_round(order, first, seats)
    ]
    difference = _first_difference(recorded, from_shoe)
    if difference:
        return Status.FAIL, f"HandsDealt differs from the re-derived shoe: {difference}"
    return Status.PASS, (
        f"{len(seats)} seats' hand tiles, Connectors and positions {first}-"
        f"{first + len(tiles) - 1} are the re-derived shoe's, dealt round-robin, as in the "
        "round's TilesDealt"
    )


def _recorded(seat: dict[str, Any]) -> Seat:
    return (seat["seat"], tuple(seat["hand"]), seat["connector"], tuple(seat["positions"]))


def _first_difference(recorded: Sequence[Seat], expected: Sequence[Seat]) -> str | None:
    if len(recorded) != len(expected):
        return f"{len(recorded)} seats recorded, {len(expected)} seats wagered"
    for found, due in zip(recorded, expected, strict=True):
        if found != due:
            return (
                f"seat {found[0]} has hand {list(found[1])}, Connector {found[2]} at "
                f"positions {list(found[3])}; the deal gives seat {due[0]} hand "
                f"{list(due[1])}, Connector {due[2]} at positions {list(due[3])}"
            )
    return None
