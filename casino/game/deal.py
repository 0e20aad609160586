"""Dealing a round from a shoe, and when a shoe must be replaced (spec: "A round", "Shoe")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from casino.game.doubles import SEAT_TILES
from casino.game.scoring import HAND_TILES
from casino.game.tiles import SHOE_SIZE

MAX_SEATS = 7


@dataclass(frozen=True, slots=True)
class DealtSeat:
    """One playing seat's tiles: ``positions`` are shoe positions of hand tiles then Connector."""

    seat: int
    hand: tuple[int, int, int]
    connector: int
    positions: tuple[int, int, int, int]


def tiles_for_round(playing_seats: int) -> int:
    return SEAT_TILES * playing_seats


def deal_round(order: Sequence[int], next_position: int, seats: Sequence[int]) -> list[DealtSeat]:
    """Deal ``4k`` tiles round-robin to ``k`` playing seats, starting at ``next_position``.

    Pass one gives each seat (ascending) its first hand tile, passes two and three the
    next, pass four its Connector.
    """
    playing = sorted(seats)
    if not playing:
        raise ValueError("no seat is playing: a round is dealt only to seats with a main wager")
    if len(set(playing)) != len(playing):
        raise ValueError("a seat is listed twice")
    if any(not 1 <= seat <= MAX_SEATS for seat in playing):
        raise ValueError(f"seats are numbered 1..{MAX_SEATS}")
    needed = tiles_for_round(len(playing))
    if next_position < 0 or next_position + needed > len(order):
        raise ValueError(
            f"the shoe cannot deal {needed} tiles from position {next_position} "
            f"({len(order) - next_position} left)"
        )
    k = len(playing)
    dealt = []
    for index, seat in enumerate(playing):
        positions = tuple(next_position + index + k * rank for rank in range(SEAT_TILES))
        tiles = [order[p] for p in positions]
        dealt.append(
            DealtSeat(
                seat=seat,
                hand=(tiles[0], tiles[1], tiles[2]),
                connector=tiles[HAND_TILES],
                positions=(positions[0], positions[1], positions[2], positions[3]),
            )
        )
    return dealt


def shoe_can_serve(tiles_dealt: int, table_seats: int, cut_card: int | None) -> bool:
    """Whether a live shoe may deal the next round at a table.

    It must still hold a full table's worth (``4 x seats``) of tiles, and the table's
    policy must allow it: with no cut card a new shoe is shuffled for every round, so a
    shoe that has dealt anything is done; with a cut card, a shoe is replaced once that
    many tiles have been dealt from it.
    """
    if tiles_dealt == 0:
        return tiles_for_round(table_seats) <= SHOE_SIZE
    if cut_card is None or tiles_dealt >= cut_card:
        return False
    return SHOE_SIZE - tiles_dealt >= tiles_for_round(table_seats)
