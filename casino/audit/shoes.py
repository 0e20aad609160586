"""Per-shoe verification: a closed shoe re-derived from its revealed seed.

A shoe passes when its revealed server seed hashes to the commitment recorded in its
``ShoeOpened``, that event precedes every wager of every round dealt from the shoe (and
each such round announced the same commitment), and re-deriving the shuffle reproduces
every dealt tile at its recorded position, dealt from position 0 upwards without gaps.

The re-derivation is the game core's own ``shuffle`` (which the spec's check vector pins):
an auditor outside the company would run the same published algorithm.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from casino.game.deal import MAX_SEATS, deal_round
from casino.game.doubles import SEAT_TILES
from casino.game.shoe import ALGORITHM, commitment_of, parse_server_seed, shuffle
from casino.game.tiles import SHOE_SIZE

MAX_TILES = SEAT_TILES * MAX_SEATS  # the most one round deals

# Why a shoe failed; each problem names one.
NOT_OPENED = "not_opened"
UNSUPPORTED_ALGORITHM = "unsupported_algorithm"
MALFORMED_SEED = "malformed_seed"
COMMITMENT_MISMATCH = "commitment_mismatch"
COMMITTED_AFTER_WAGER = "committed_after_wager"
ROUND_COMMITMENT_MISMATCH = "round_commitment_mismatch"
MALFORMED_DEAL = "malformed_deal"
DEAL_OUT_OF_SEQUENCE = "deal_out_of_sequence"
TILE_MISMATCH = "tile_mismatch"
TILES_DEALT_MISMATCH = "tiles_dealt_mismatch"


@dataclass(frozen=True)
class Deal:
    """One ``TilesDealt``: a round's tiles, from shoe position ``first_position`` on."""

    round_id: str
    first_position: int
    tiles: tuple[int, ...]


@dataclass(frozen=True)
class ClosedShoe:
    """What the log says of one closed shoe (``ShoeOpened``, ``TilesDealt``s in stream order,
    ``ShoeClosed``) and of the rounds dealt from it."""

    shoe_id: str
    opened_position: int | None  # log position of ShoeOpened; None: the stream has none
    algorithm: str
    commitment: str
    client_seed: str
    nonce: int
    server_seed: str  # hex, as revealed in ShoeClosed
    tiles_dealt: int  # as stated in ShoeClosed
    deals: tuple[Deal, ...] = ()
    first_wager_position: int | None = None  # earliest WagerPlaced of a round dealt from it
    round_commitments: tuple[tuple[str, str], ...] = ()  # (round id, commitment it announced)


@dataclass(frozen=True)
class Problem:
    reason: str
    position: int | None = None  # the first mismatching shoe position, where there is one
    expected: Any = None
    found: Any = None

    def as_json(self) -> dict[str, Any]:
        return {
            "reason": self.reason,
            "position": self.position,
            "expected": self.expected,
            "found": self.found,
        }


@dataclass(frozen=True)
class ShoeVerdict:
    shoe_id: str
    problems: tuple[Problem, ...] = ()
    order: tuple[int, ...] | None = field(default=None, repr=False)  # re-derived, if it could be

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def first_mismatch(self) -> int | None:
        positions = [p.position for p in self.problems if p.position is not None]
        return min(positions) if positions else None

    def as_json(self) -> dict[str, Any]:
        return {
            "shoe_id": self.shoe_id,
            "reasons": [p.reason for p in self.problems],
            "first_mismatch": self.first_mismatch,
            "problems": [p.as_json() for p in self.problems],
        }


def verify_shoe(shoe: ClosedShoe) -> ShoeVerdict:
    """Check one closed shoe; the verdict carries the re-derived order for the statistics."""
    if shoe.opened_position is None:
        return ShoeVerdict(shoe.shoe_id, (Problem(NOT_OPENED),))
    if shoe.algorithm != ALGORITHM:
        problem = Problem(UNSUPPORTED_ALGORITHM, None, ALGORITHM, shoe.algorithm)
        return ShoeVerdict(shoe.shoe_id, (problem,))
    try:
        seed = parse_server_seed(shoe.server_seed)
        order = shuffle(seed, shoe.client_seed, shoe.nonce)
    except ValueError as error:
        return ShoeVerdict(shoe.shoe_id, (Problem(MALFORMED_SEED, None, None, str(error)),))
    problems = _commitment_problems(shoe, commitment_of(seed))
    problems += _deal_problems(shoe, order)
    return ShoeVerdict(shoe.shoe_id, tuple(problems), order)


def _commitment_problems(shoe: ClosedShoe, revealed: str) -> list[Problem]:
    problems = []
    if revealed != shoe.commitment:
        problems.append(Problem(COMMITMENT_MISMATCH, None, shoe.commitment, revealed))
    first_wager = shoe.first_wager_position
    opened = shoe.opened_position
    if first_wager is not None and opened is not None and opened > first_wager:
        problems.append(
            Problem(
                COMMITTED_AFTER_WAGER,
                None,
                f"ShoeOpened before the first wager (log position {first_wager})",
                f"ShoeOpened at log position {opened}",
            )
        )
    problems += [
        Problem(ROUND_COMMITMENT_MISMATCH, None, shoe.commitment, f"{round_id}: {announced}")
        for round_id, announced in shoe.round_commitments
        if announced != shoe.commitment
    ]
    return problems


def _deal_problems(shoe: ClosedShoe, order: Sequence[int]) -> list[Problem]:
    """Deals must follow one another from position 0, each tile where the order puts it."""
    problems: list[Problem] = []
    next_position = dealt = 0
    out_of_sequence: Problem | None = None
    mismatch: Problem | None = None
    for deal in shoe.deals:
        if not deal.tiles or len(deal.tiles) % SEAT_TILES or len(deal.tiles) > MAX_TILES:
            found = f"round {deal.round_id}: {len(deal.tiles)} tiles"
            expected_size = f"4 tiles per seat, 1 to {MAX_SEATS} seats"
            problems.append(Problem(MALFORMED_DEAL, deal.first_position, expected_size, found))
        if deal.first_position != next_position and out_of_sequence is None:
            out_of_sequence = Problem(
                DEAL_OUT_OF_SEQUENCE, next_position, next_position, deal.first_position
            )
        for offset, tile in enumerate(deal.tiles):
            position = deal.first_position + offset
            expected = order[position] if 0 <= position < SHOE_SIZE else None
            if tile != expected and (mismatch is None or position < _at(mismatch)):
                mismatch = Problem(TILE_MISMATCH, position, expected, tile)
        next_position = deal.first_position + len(deal.tiles)
        dealt += len(deal.tiles)
    problems += [p for p in (out_of_sequence, mismatch) if p is not None]
    if shoe.tiles_dealt != dealt:
        problems.append(Problem(TILES_DEALT_MISMATCH, None, dealt, shoe.tiles_dealt))
    return problems


def _at(problem: Problem) -> int:
    return SHOE_SIZE if problem.position is None else problem.position


def seats_dealt(shoe: ClosedShoe) -> list[tuple[int, ...]]:
    """Every seat's four tiles (three hand tiles, then its Connector), in dealing order,
    regrouped from each round's tiles by the game core's round-robin deal."""
    seats: list[tuple[int, ...]] = []
    for deal in shoe.deals:
        playing = range(1, len(deal.tiles) // SEAT_TILES + 1)
        for seat in deal_round(deal.tiles, 0, list(playing)):
            seats.append((*seat.hand, seat.connector))
    return seats
