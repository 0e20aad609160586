"""Paytables as data, and the settlement of a wager in integer minor units.

Pays are "X to 1": a winning stake is returned plus X times the stake; a loss forfeits
the stake.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Generic, TypeVar

from casino.game.doubles import DoublesEvent
from casino.game.scoring import POINT_TOTALS

Outcome = TypeVar("Outcome", int, DoublesEvent)


class BetKind(StrEnum):
    MAIN = "main"
    DOUBLES = "doubles"


@dataclass(frozen=True)
class Paytable(Generic[Outcome]):
    """One paytable: for each outcome, X of "X to 1", or None for a loss."""

    kind: BetKind
    number: int
    pays: MappingProxyType[Outcome, int | None]

    def odds_for(self, outcome: Outcome) -> int | None:
        return self.pays[outcome]


def _main(number: int, twenty_five: int, thirty_five: int, forty: int) -> Paytable[int]:
    pays = dict(
        zip(POINT_TOTALS, (None, 2, 3, 8, 12, twenty_five, 50, thirty_five, forty), strict=True)
    )
    return Paytable(BetKind.MAIN, number, MappingProxyType(pays))


def _doubles(number: int, maiden: int, double_doubles: int, three: int) -> Paytable[DoublesEvent]:
    pays: dict[DoublesEvent, int | None] = {
        DoublesEvent.MAIDEN: maiden,
        DoublesEvent.DOUBLE_DOUBLES: double_doubles,
        DoublesEvent.FOUR_DOUBLES: 20,
        DoublesEvent.THREE_DOUBLES: three,
        DoublesEvent.TWO_DOUBLES: 2,
        DoublesEvent.LOSE: None,
    }
    return Paytable(BetKind.DOUBLES, number, MappingProxyType(pays))


MAIN_PAYTABLES: MappingProxyType[int, Paytable[int]] = MappingProxyType(
    {
        1: _main(1, 25, 200, 500),
        2: _main(2, 20, 200, 500),
        3: _main(3, 25, 100, 250),
        4: _main(4, 25, 100, 299),
        5: _main(5, 25, 200, 1000),
    }
)
DOUBLES_PAYTABLES: MappingProxyType[int, Paytable[DoublesEvent]] = MappingProxyType(
    {
        1: _doubles(1, 300, 100, 4),
        2: _doubles(2, 299, 100, 4),
        3: _doubles(3, 250, 75, 4),
        4: _doubles(4, 300, 100, 5),
    }
)


def main_paytable(number: int) -> Paytable[int]:
    try:
        return MAIN_PAYTABLES[number]
    except KeyError:
        raise ValueError(f"main paytable must be one of 1-{len(MAIN_PAYTABLES)}") from None


def doubles_paytable(number: int) -> Paytable[DoublesEvent]:
    try:
        return DOUBLES_PAYTABLES[number]
    except KeyError:
        raise ValueError(f"Doubles paytable must be one of 1-{len(DOUBLES_PAYTABLES)}") from None


@dataclass(frozen=True, slots=True)
class Settlement:
    """What a settled wager pays: ``payout`` is returned to the player (stake included)."""

    stake: int
    odds_to_one: int | None
    payout: int

    @property
    def won(self) -> bool:
        return self.payout > 0

    @property
    def net(self) -> int:
        """The player's gain (negative on a loss)."""
        return self.payout - self.stake


def settle(stake: int, odds_to_one: int | None) -> Settlement:
    """Settle a stake in minor units at "X to 1" (None: a loss)."""
    if isinstance(stake, bool) or not isinstance(stake, int) or stake <= 0:
        raise ValueError(f"a stake is a positive integer in minor units, got {stake!r}")
    payout = 0 if odds_to_one is None else stake * (1 + odds_to_one)
    return Settlement(stake=stake, odds_to_one=odds_to_one, payout=payout)
