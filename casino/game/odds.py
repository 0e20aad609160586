"""Exact odds by enumeration, for a fresh shoe or one with tiles gone.

A seat's four tiles are a uniformly random draw from what is left in the shoe: the
Connector is any remaining tile and the hand any three of the rest. Nothing here
samples: every probability is a ratio of exact counts.

Main bet: given the Connector face, every other face scores 0, 5, 10 or 15 against it
(``TILE_SCORES``), so the hand's total depends only on how many of its three tiles fall
in each score class. Counting draws per class (a product of binomials) over the 20 ways
to split three tiles among four classes gives the exact distribution in 28 x 20 steps.

Doubles bet: only which tiles are doubles matters, and the hand is an unordered 4-subset.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from math import comb, prod
from typing import Generic

from casino.game.doubles import MAIDEN_FACES, SEAT_TILES, DoublesEvent
from casino.game.paytables import (
    DOUBLES_PAYTABLES,
    MAIN_PAYTABLES,
    BetKind,
    Outcome,
    Paytable,
)
from casino.game.scoring import CONNECTOR_BONUS, HAND_TILES, POINT_TOTALS, TILE_SCORES
from casino.game.tiles import (
    DOUBLE_FACE_INDICES,
    FACES_PER_SET,
    SETS_PER_SHOE,
    face_index_of_tile,
    face_text,
)

ShoeCounts = tuple[int, ...]  # how many tiles of each face (by face index) remain

FRESH_SHOE: ShoeCounts = (SETS_PER_SHOE,) * FACES_PER_SET
SCORE_CLASSES = (0, 5, 10, 15)

# For each Connector face: the faces in each score class, in SCORE_CLASSES order.
_FACES_BY_CLASS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(
        tuple(face for face in range(FACES_PER_SET) if TILE_SCORES[connector][face] == points)
        for points in SCORE_CLASSES
    )
    for connector in range(FACES_PER_SET)
)
# Every way to split the three hand tiles among the score classes, with its points.
_SPLITS: tuple[tuple[tuple[int, ...], int], ...] = tuple(
    (split, sum(k * points for k, points in zip(split, SCORE_CLASSES, strict=True)))
    for split in (
        (k0, k5, k10, HAND_TILES - k0 - k5 - k10)
        for k0 in range(HAND_TILES + 1)
        for k5 in range(HAND_TILES + 1 - k0)
        for k10 in range(HAND_TILES + 1 - k0 - k5)
    )
)
_DOUBLE_PAIRS = tuple(combinations(DOUBLE_FACE_INDICES, 2))


def shoe_without_faces(removed_faces: Iterable[int]) -> ShoeCounts:
    """A fresh shoe less one tile of each listed face index (a face may repeat)."""
    counts = list(FRESH_SHOE)
    for face in removed_faces:
        if counts[face] == 0:
            raise ValueError(
                f"face {face_text(face)} removed more than {SETS_PER_SHOE} times: "
                f"a shoe holds only {SETS_PER_SHOE}"
            )
        counts[face] -= 1
    return tuple(counts)


def shoe_of_tiles(remaining_tile_ids: Iterable[int]) -> ShoeCounts:
    """The face counts of the physical tiles still in a shoe."""
    counts = [0] * FACES_PER_SET
    seen: set[int] = set()
    for tile in remaining_tile_ids:
        if tile in seen:
            raise ValueError(f"tile {tile} listed twice")
        seen.add(tile)
        counts[face_index_of_tile(tile)] += 1
    return tuple(counts)


def _check_drawable(counts: ShoeCounts) -> int:
    if len(counts) != FACES_PER_SET or any(not 0 <= c <= SETS_PER_SHOE for c in counts):
        raise ValueError(f"a shoe has 0..{SETS_PER_SHOE} tiles of each of {FACES_PER_SET} faces")
    tiles = sum(counts)
    if tiles < SEAT_TILES:
        raise ValueError(f"a seat needs {SEAT_TILES} tiles; the shoe has {tiles}")
    return tiles


def main_total_ways(counts: ShoeCounts = FRESH_SHOE) -> tuple[dict[int, int], int]:
    """Ordered draws (Connector, then a 3-tile hand) giving each total, and all draws."""
    tiles = _check_drawable(counts)
    ways = dict.fromkeys(POINT_TOTALS, 0)
    for connector, connector_count in enumerate(counts):
        if connector_count == 0:
            continue
        remaining = list(counts)
        remaining[connector] -= 1
        sizes = [sum(remaining[f] for f in faces) for faces in _FACES_BY_CLASS[connector]]
        bonus = CONNECTOR_BONUS[connector]
        for split, points in _SPLITS:
            hands = prod(comb(size, k) for size, k in zip(sizes, split, strict=True))
            if hands:
                ways[bonus + points] += connector_count * hands
    return ways, tiles * comb(tiles - 1, HAND_TILES)


def doubles_event_ways(counts: ShoeCounts = FRESH_SHOE) -> tuple[dict[DoublesEvent, int], int]:
    """Unordered 4-tile draws giving each Doubles event, and all draws."""
    tiles = _check_drawable(counts)
    doubles = sum(counts[f] for f in DOUBLE_FACE_INDICES)
    others = tiles - doubles
    with_doubles = [comb(doubles, j) * comb(others, SEAT_TILES - j) for j in range(5)]
    maiden = prod(counts[f] for f in MAIDEN_FACES)
    double_doubles = sum(comb(counts[a], 2) * comb(counts[b], 2) for a, b in _DOUBLE_PAIRS)
    ways = {
        DoublesEvent.MAIDEN: maiden,
        DoublesEvent.DOUBLE_DOUBLES: double_doubles,
        DoublesEvent.FOUR_DOUBLES: with_doubles[4] - maiden - double_doubles,
        DoublesEvent.THREE_DOUBLES: with_doubles[3],
        DoublesEvent.TWO_DOUBLES: with_doubles[2],
        DoublesEvent.LOSE: with_doubles[1] + with_doubles[0],
    }
    return ways, comb(tiles, SEAT_TILES)


@dataclass(frozen=True)
class BetOdds(Generic[Outcome]):
    """Exact figures of one paytable, per unit staked."""

    kind: BetKind
    paytable: int
    probabilities: Mapping[Outcome, Fraction]
    rtp: Fraction  # expected amount returned (stake included) per unit staked
    house_edge: Fraction  # 1 - rtp
    variance: Fraction  # variance of the player's net result per unit staked


def bet_odds(
    paytable: Paytable[Outcome], ways: Mapping[Outcome, int], draws: int
) -> BetOdds[Outcome]:
    returned = 0
    returned_squared = 0
    for outcome, count in ways.items():
        odds = paytable.odds_for(outcome)
        if odds is not None:
            returned += count * (odds + 1)
            returned_squared += count * (odds + 1) ** 2
    rtp = Fraction(returned, draws)
    return BetOdds(
        kind=paytable.kind,
        paytable=paytable.number,
        probabilities={outcome: Fraction(count, draws) for outcome, count in ways.items()},
        rtp=rtp,
        house_edge=1 - rtp,
        variance=Fraction(returned_squared, draws) - rtp * rtp,
    )


@dataclass(frozen=True)
class OddsReport:
    """Exact odds of every paytable for the next hand dealt from a shoe."""

    tiles_in_shoe: int
    main: Mapping[int, BetOdds[int]]
    doubles: Mapping[int, BetOdds[DoublesEvent]]

    def as_json(self) -> dict[str, dict[str, dict[str, object]]]:
        """The documented ``casino odds --json`` shape, probabilities as floats."""
        return {
            "main": {
                str(n): {
                    "rtp": float(o.rtp),
                    "house_edge": float(o.house_edge),
                    "totals": {str(t): float(p) for t, p in o.probabilities.items()},
                }
                for n, o in self.main.items()
            },
            "doubles": {
                str(n): {
                    "rtp": float(o.rtp),
                    "house_edge": float(o.house_edge),
                    "events": {str(e): float(p) for e, p in o.probabilities.items()},
                }
                for n, o in self.doubles.items()
            },
        }


def odds_report(counts: ShoeCounts = FRESH_SHOE) -> OddsReport:
    main_ways, main_draws = main_total_ways(counts)
    doubles_ways, doubles_draws = doubles_event_ways(counts)
    return OddsReport(
        tiles_in_shoe=sum(counts),
        main={n: bet_odds(p, main_ways, main_draws) for n, p in MAIN_PAYTABLES.items()},
        doubles={n: bet_odds(p, doubles_ways, doubles_draws) for n, p in DOUBLES_PAYTABLES.items()},
    )
