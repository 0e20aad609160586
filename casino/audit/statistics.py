"""Statistical tests of the shuffle across shoes: pure functions of plain data.

The null hypothesis: every shoe is a uniformly random permutation of its 56 tiles, and
shoes are independent. Every test compares counts with their *exact* expectation under
it (nothing is estimated from the data being tested), and refers a statistic to a
chi-square distribution:

- Pearson's, where the covariance of the cells is known in closed form (positions by
  tiles);
- a Wald statistic ``d' V+ d`` where observations inside a shoe are dependent (adjacent
  pairs share a tile; a shoe's hands are drawn without replacement): ``d`` is observed
  minus expected counts and ``V`` their exact covariance, so the dependence is accounted
  for rather than ignored. With independent multinomial cells it *is* Pearson's.

A test only runs when every cell expects at least ``MIN_EXPECTED`` observations: a
coarser binning is chosen, or neighbouring categories pooled, and with too little data
the test reports ``insufficient_data``, never a failure. Each test is judged at the stated
significance on its own, so a clean run of all seven still fails by chance with
probability about ``7 x significance``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache
from itertools import product
from math import factorial
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from casino.audit import SIGNIFICANCE
from casino.game.doubles import MAIDEN_FACES, SEAT_TILES, DoublesEvent, doubles_event
from casino.game.odds import SCORE_CLASSES
from casino.game.scoring import CONNECTOR_BONUS, HAND_TILES, POINT_TOTALS, TILE_SCORES, hand_total
from casino.game.tiles import (
    DOUBLE_FACE_INDICES,
    FACES_PER_SET,
    IS_DOUBLE,
    SETS_PER_SHOE,
    SHOE_SIZE,
)

Ints = NDArray[np.int64]
Floats = NDArray[np.float64]

MIN_EXPECTED = 5.0  # the usual floor for a chi-square approximation of a cell
MIN_SHOES = 20  # fewer shoes: the normal approximation of their sum is not trusted
MIN_HANDS = 20
MIN_BATCHES = 10  # fewer first-level p-values say nothing about their uniformity
TARGET_BATCHES = 20
_EIGEN_FLOOR = 1e-10  # relative: eigenvalues below it are the covariance's exact zeros


class Status(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    INSUFFICIENT_DATA = "insufficient_data"


@dataclass(frozen=True)
class StatisticalTest:
    """One test's outcome: what was compared, how, and at which significance."""

    name: str
    method: str
    binning: str
    significance: float
    sample_size: Mapping[str, int]
    statistic: float | None = None
    degrees_of_freedom: int | None = None  # None for Kolmogorov-Smirnov
    p_value: float | None = None  # None: insufficient data
    note: str = ""

    @property
    def status(self) -> Status:
        if self.p_value is None:
            return Status.INSUFFICIENT_DATA
        return Status.FAIL if self.p_value < self.significance else Status.PASS

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status.value,
            "method": self.method,
            "binning": self.binning,
            "statistic": self.statistic,
            "degrees_of_freedom": self.degrees_of_freedom,
            "p_value": self.p_value,
            "significance": self.significance,
            "sample_size": dict(self.sample_size),
            "note": self.note,
        }


def chi_square_test(
    name: str,
    method: str,
    binning: str,
    significance: float,
    sample_size: Mapping[str, int],
    statistic: float,
    degrees_of_freedom: int,
) -> StatisticalTest:
    p_value = float(stats.chi2.sf(statistic, degrees_of_freedom))
    return StatisticalTest(
        name, method, binning, significance, sample_size, statistic, degrees_of_freedom, p_value
    )


def wald(deviation: Floats, covariance: Floats) -> tuple[float, int]:
    """``d' V+ d`` and the rank of ``V`` (the chi-square's degrees of freedom)."""
    values, vectors = np.linalg.eigh(covariance)
    keep = values > values.max() * _EIGEN_FLOOR
    projected = vectors[:, keep].T @ deviation
    return float(np.sum(projected**2 / values[keep])), int(keep.sum())


def pool_adjacent(expected: Sequence[float], minimum: float = MIN_EXPECTED) -> list[list[int]]:
    """Group neighbouring categories (in the given order, commonest first) until each group
    expects at least ``minimum``; a short tail joins the last group."""
    groups: list[list[int]] = []
    current: list[int] = []
    total = 0.0
    for index, value in enumerate(expected):
        current.append(index)
        total += value
        if total >= minimum:
            groups.append(current)
            current, total = [], 0.0
    if current:
        if groups:
            groups[-1].extend(current)
        else:
            groups.append(current)
    return groups


def _insufficient(
    name: str, method: str, significance: float, sample_size: Mapping[str, int], note: str
) -> StatisticalTest:
    return StatisticalTest(name, method, "-", significance, sample_size, note=note)


# --- positions by tiles -----------------------------------------------------------------

TILE_FACES: Ints = np.arange(SHOE_SIZE, dtype=np.int64) % FACES_PER_SET
TILE_IS_DOUBLE: Ints = np.array([IS_DOUBLE[f] for f in TILE_FACES], dtype=np.int64)
_PEARSON = "Pearson chi-square x 55/56 (permutation covariance)"
# Groupings of the tile columns, finest first. Row (position) and column sums are fixed
# in every shoe, so each table has (56 - 1) x (columns - 1) degrees of freedom.
_POSITION_BINNINGS: tuple[tuple[str, Ints], ...] = (
    ("56 positions x 56 tiles", np.arange(SHOE_SIZE, dtype=np.int64)),
    ("56 positions x 28 faces", TILE_FACES),
    ("56 positions x double or not", TILE_IS_DOUBLE),
)


def count_positions(orders: Ints) -> Ints:
    """``counts[p, t]``: how many of the shoes (rows of ``orders``) hold tile t at p."""
    cells = np.arange(SHOE_SIZE, dtype=np.int64) * SHOE_SIZE + orders
    return np.bincount(cells.ravel(), minlength=SHOE_SIZE**2).reshape(SHOE_SIZE, SHOE_SIZE)


def position_by_tile(counts: Ints, shoes: int, significance: float) -> StatisticalTest:
    """Chi-square of positions by tiles (or faces, or double-or-not: the finest binning
    whose cells all expect at least five).

    For one uniform permutation, Cov(P[i,j], P[k,l]) = (d_ik - 1/N)(d_jl - 1/N)/(N - 1),
    and after grouping columns this is still N/(N - 1) times the covariance Pearson's
    statistic assumes, on exactly (rows - 1)(columns - 1) dimensions: scaling by
    (N - 1)/N makes it exactly chi-square in the limit (55/56: not a rounding matter
    with 3,025 degrees of freedom, where the unscaled mean sits 0.7 sd too high).
    """
    name = "position_by_tile"
    sample = {"shoes": shoes}
    for binning, groups in _POSITION_BINNINGS:
        sizes = np.bincount(groups)
        if shoes < MIN_SHOES or shoes * sizes.min() / SHOE_SIZE < MIN_EXPECTED:
            continue
        onehot = (groups[:, None] == np.arange(sizes.size)).astype(np.int64)
        observed = counts @ onehot
        expected = shoes * sizes / SHOE_SIZE
        pearson = float(np.sum((observed - expected) ** 2 / expected))
        degrees = (SHOE_SIZE - 1) * (sizes.size - 1)
        scaled = pearson * (SHOE_SIZE - 1) / SHOE_SIZE
        return chi_square_test(name, _PEARSON, binning, significance, sample, scaled, degrees)
    return _insufficient(
        name, _PEARSON, significance, sample, f"needs at least {MIN_SHOES} shoes, has {shoes}"
    )


# --- adjacent pairs -----------------------------------------------------------------------


def pair_moments(category: Ints, size: int) -> tuple[Floats, Floats]:
    """Exact mean and covariance, over uniform permutations of ``N`` items, of how many of
    the ``N - 1`` adjacent positions hold an ordered pair in each category
    (``category[x, y]``: the category of item x followed by item y; the diagonal is unused).

    E[Y Y'] sums over pairs of adjacent positions: the same one, two sharing an item
    (x, y then y, z: ``chains``) and two disjoint ones (``apart``), each counted by
    inclusion-exclusion from row and column sums.
    """
    n = category.shape[0]
    pairs = n - 1
    x, y = np.nonzero(~np.eye(n, dtype=bool))
    c = category[x, y]
    leaving = np.zeros((n, size))  # leaving[x, c]: pairs (x, .) in c
    entering = np.zeros((n, size))  # entering[y, c]: pairs (., y) in c
    np.add.at(leaving, (x, c), 1.0)
    np.add.at(entering, (y, c), 1.0)
    totals = leaving.sum(axis=0)
    reverse = np.bincount(c * size + category[y, x], minlength=size * size).reshape(size, size)
    chains = entering.T @ leaving - reverse
    apart = (
        np.outer(totals, totals)
        - (leaving + entering).T @ (leaving + entering)
        + np.diag(totals)
        + reverse
    )
    f2 = n * (n - 1)
    f3 = f2 * (n - 2)
    f4 = f3 * (n - 3)
    mean = pairs * totals / f2
    second = (
        np.diag(mean)
        + (pairs - 1) * (chains + chains.T) / f3
        + (pairs - 1) * (pairs - 2) * apart / f4
    )
    return mean, second - np.outer(mean, mean)


@dataclass(frozen=True)
class PairBinning:
    """A way to classify adjacent pairs, with the exact per-shoe moments of its counts."""

    name: str
    category: Ints  # (56, 56)
    mean: Floats
    eigenvalues: Floats  # of the per-shoe covariance, its exact zeros dropped
    eigenvectors: Floats

    @classmethod
    def of(cls, name: str, category: Ints, size: int) -> PairBinning:
        mean, covariance = pair_moments(category, size)
        values, vectors = np.linalg.eigh(covariance)
        keep = values > values.max() * _EIGEN_FLOOR
        return cls(name, category, mean, values[keep], vectors[:, keep])

    def count(self, orders: Ints) -> Ints:
        codes = self.category[orders[:, :-1], orders[:, 1:]]
        return np.bincount(codes.ravel(), minlength=self.mean.size)


@cache
def pair_binnings() -> tuple[PairBinning, ...]:
    """Finest first: ordered pairs of faces, then the double-or-not pattern."""
    faces = TILE_FACES[:, None] * FACES_PER_SET + TILE_FACES[None, :]
    doubles = TILE_IS_DOUBLE[:, None] * 2 + TILE_IS_DOUBLE[None, :]
    return (
        PairBinning.of("adjacent faces (28 x 28)", faces, FACES_PER_SET**2),
        PairBinning.of("adjacent double-or-not pattern (2 x 2)", doubles, 4),
    )


def pair_binning_for(shoes: int) -> PairBinning | None:
    if shoes < MIN_SHOES:
        return None
    for binning in pair_binnings():
        if shoes * binning.mean.min() >= MIN_EXPECTED:
            return binning
    return None


def adjacent_pairs(counts: Mapping[str, Ints], shoes: int, significance: float) -> StatisticalTest:
    """Wald chi-square of adjacent pairs within shoes against their exact permutation
    moments; ``counts`` by binning name (see ``pair_binnings``)."""
    name, method = "adjacent_pairs", "Wald chi-square, exact permutation covariance"
    sample = {"shoes": shoes, "pairs": shoes * (SHOE_SIZE - 1)}
    binning = pair_binning_for(shoes)
    if binning is None:
        note = f"needs at least {MIN_SHOES} shoes, has {shoes}"
        return _insufficient(name, method, significance, sample, note)
    deviation = counts[binning.name] - shoes * binning.mean
    projected = binning.eigenvectors.T @ deviation
    statistic = float(np.sum(projected**2 / (shoes * binning.eigenvalues)))
    degrees = binning.eigenvalues.size
    return chi_square_test(name, method, binning.name, significance, sample, statistic, degrees)


# --- hands, each against its exact distribution given what was dealt before -----------------
#
# Only a shoe's first hand is a draw from a fresh shoe; later seats of the round and every
# round after it (cut-card shoes) are dealt from what is left. Rather than keep only the
# first hands, each hand is compared with its exact odds given every tile dealt before it
# in its shoe (earlier rounds, and earlier seats of its own round, whose positions
# interleave with its own). That is exact: given the tiles at any set of positions, a
# uniform permutation puts a uniform arrangement of the other tiles everywhere else, so
# the hand is a uniform draw from what is left. Every hand counts, and the hands of one
# shoe are not treated as independent (see ConditionalCounts).

DOUBLES_COUNTS = tuple(range(SEAT_TILES + 1))  # 0..4 doubles among a seat's four tiles
EVENT_ORDER = (  # commonest first, so pooling merges the rare tail
    DoublesEvent.LOSE,
    DoublesEvent.TWO_DOUBLES,
    DoublesEvent.THREE_DOUBLES,
    DoublesEvent.FOUR_DOUBLES,
    DoublesEvent.DOUBLE_DOUBLES,
    DoublesEvent.MAIDEN,
)
_EVENT_INDEX = {event: index for index, event in enumerate(EVENT_ORDER)}
_TOTAL_INDEX = {total: index for index, total in enumerate(POINT_TOTALS)}
_DOUBLES: Ints = np.array(DOUBLE_FACE_INDICES, dtype=np.int64)
_MAIDEN: Ints = np.array(sorted(MAIDEN_FACES), dtype=np.int64)
_IS_DOUBLE_FACE: Ints = np.array(IS_DOUBLE, dtype=np.int64)
# _CLASS_OF[c, f, k]: 1 when a hand tile of face f scores SCORE_CLASSES[k] against Connector c.
_CLASS_OF: Ints = np.array(
    [[[TILE_SCORES[c][f] == s for s in SCORE_CLASSES] for f in range(FACES_PER_SET)]
     for c in range(FACES_PER_SET)],
    dtype=np.int64,
)  # fmt: skip
_CLASS_BY_FACE: Ints = _CLASS_OF.transpose(1, 0, 2).reshape(FACES_PER_SET, -1)  # f x (c, k)
_OWN_CLASS: Ints = np.einsum("cck->ck", _CLASS_OF)  # the Connector's own tile leaves its class


def _split_totals(split: tuple[int, ...]) -> Ints:
    """For hand tiles split among the score classes: per Connector face, the total made
    (one-hot over POINT_TOTALS; all zero for a total over 40, which no hand can make)."""
    points = sum(k * s for k, s in zip(split, SCORE_CLASSES, strict=True))
    onehot = np.zeros((FACES_PER_SET, len(POINT_TOTALS)), dtype=np.int64)
    for connector in range(FACES_PER_SET):
        index = _TOTAL_INDEX.get(CONNECTOR_BONUS[connector] + points)
        if index is not None:
            onehot[connector, index] = 1
    return onehot


_SPLITS: tuple[tuple[tuple[int, ...], Ints], ...] = tuple(
    (split, _split_totals(split))
    for split in product(range(HAND_TILES + 1), repeat=len(SCORE_CLASSES))
    if sum(split) == HAND_TILES
)


def choose(n: Ints, k: int) -> Ints:
    """Binomial coefficients C(n, k) elementwise, exactly, for n >= 0."""
    out = np.ones_like(n)
    for i in range(k):
        out = out * (n - i)
    return out // factorial(k)


def total_probabilities(remaining: Ints) -> Floats:
    """P(point total) for a seat dealt from each row's shoe (face counts), in POINT_TOTALS
    order: ``casino.game.odds.main_total_ways`` computed for many shoes at once."""
    rows = remaining.shape[0]
    sizes = (remaining @ _CLASS_BY_FACE).reshape(rows, FACES_PER_SET, -1) - _OWN_CLASS[None]
    # Where the Connector face is gone its row weight is 0, so a size of -1 is harmless.
    chosen = [choose(sizes, j) for j in range(HAND_TILES + 1)]
    ways = np.zeros((rows, len(POINT_TOTALS)), dtype=np.int64)
    for split, totals in _SPLITS:
        hands = remaining.copy()
        for k, j in enumerate(split):
            hands *= chosen[j][:, :, k]
        ways += hands @ totals
    tiles: Ints = remaining.sum(axis=1)
    probabilities: Floats = ways / (tiles * choose(tiles - 1, HAND_TILES))[:, None]
    return probabilities


def doubles_event_probabilities(remaining: Ints) -> Floats:
    """P(Doubles event) per row's shoe, in EVENT_ORDER: ``doubles_event_ways`` at once."""
    doubles = remaining[:, _DOUBLES]
    drawn = doubles.sum(axis=1)
    tiles = remaining.sum(axis=1)
    others = tiles - drawn
    maiden = remaining[:, _MAIDEN].prod(axis=1)
    pairs = choose(doubles, 2)
    double_doubles = (pairs.sum(axis=1) ** 2 - (pairs**2).sum(axis=1)) // 2
    four = choose(drawn, 4) - maiden - double_doubles
    three = choose(drawn, 3) * others
    two = choose(drawn, 2) * choose(others, 2)
    draws = choose(tiles, 4)
    lose = draws - four - maiden - double_doubles - three - two
    return np.stack([lose, two, three, four, double_doubles, maiden], axis=1) / draws[:, None]


def doubles_count_probabilities(remaining: Ints) -> Floats:
    """Hypergeometric P(j doubles among a seat's four tiles), j = 0..4, per row's shoe."""
    drawn = remaining[:, _DOUBLES].sum(axis=1)
    tiles = remaining.sum(axis=1)
    ways = [choose(drawn, j) * choose(tiles - drawn, SEAT_TILES - j) for j in DOUBLES_COUNTS]
    return np.stack(ways, axis=1) / choose(tiles, SEAT_TILES)[:, None]


@dataclass
class ConditionalCounts:
    """Categorical outcomes, each with exact probabilities of its own (given the past).

    ``observed - expected`` is a martingale across hands; its predictable covariance
    ``V = sum(diag(p) - p p')`` makes ``d' V+ d`` asymptotically chi-square with rank(V)
    degrees of freedom, however the probabilities vary from hand to hand.
    """

    categories: tuple[str, ...]
    observed: Ints = field(init=False)
    expected: Floats = field(init=False)
    covariance: Floats = field(init=False)
    hands: int = 0

    def __post_init__(self) -> None:
        size = len(self.categories)
        self.observed = np.zeros(size, dtype=np.int64)
        self.expected = np.zeros(size)
        self.covariance = np.zeros((size, size))

    def add(self, outcomes: Ints, probabilities: Floats) -> None:
        self.observed += np.bincount(outcomes, minlength=len(self.categories))
        column_sums = probabilities.sum(axis=0)
        self.expected += column_sums
        self.covariance += np.diag(column_sums) - probabilities.T @ probabilities
        self.hands += outcomes.size

    def test(self, name: str, significance: float, shoes: int) -> StatisticalTest:
        method = "Wald chi-square, exact odds given the tiles dealt before each hand"
        sample = {"hands": self.hands, "shoes": shoes}
        groups = pool_adjacent(self.expected.tolist())
        if self.hands < MIN_HANDS or len(groups) < 2:
            note = f"needs {MIN_HANDS} hands and two categories expecting {MIN_EXPECTED:g} each"
            return _insufficient(name, method, significance, sample, note)
        pooling = np.zeros((len(groups), len(self.categories)))
        for row, group in enumerate(groups):
            pooling[row, group] = 1.0
        binning = " | ".join("+".join(self.categories[i] for i in group) for group in groups)
        statistic, degrees = wald(
            pooling @ (self.observed - self.expected), pooling @ self.covariance @ pooling.T
        )
        return chi_square_test(name, method, binning, significance, sample, statistic, degrees)


# --- the accumulator: every test, fed a shoe at a time --------------------------------------

_CHUNK = 2048  # shoes or hands counted at once by numpy
FRESH_COUNTS = (SETS_PER_SHOE,) * FACES_PER_SET


def batch_shoes_for(shoes: int) -> int:
    """Shoes per batch of the second-level tests: about TARGET_BATCHES batches, each
    large enough for its first-level tests."""
    return max(MIN_SHOES, shoes // TARGET_BATCHES)


def second_level(
    name: str, p_values: Sequence[float], batch_shoes: int, significance: float
) -> StatisticalTest:
    method = "Kolmogorov-Smirnov of first-level p-values against U(0, 1)"
    sample = {"batches": len(p_values), "batch_shoes": batch_shoes}
    if len(p_values) < MIN_BATCHES:
        note = f"needs {MIN_BATCHES} batches of {batch_shoes} shoes, has {len(p_values)}"
        return _insufficient(name, method, significance, sample, note)
    result = stats.kstest(np.asarray(p_values), "uniform")
    binning = f"{len(p_values)} batches of {batch_shoes} shoes"
    return StatisticalTest(
        name, method, binning, significance, sample, float(result.statistic), None,
        float(result.pvalue),
    )  # fmt: skip


class AcrossShoes:
    """Counts for every across-shoe test, fed one shoe at a time.

    Memory does not grow with the number of shoes: shoes and hands are buffered only up to
    a chunk, and a batch of the second-level tests keeps its counts until it is full.
    """

    def __init__(self, batch_shoes: int) -> None:
        if batch_shoes < MIN_SHOES:
            raise ValueError(f"a batch needs at least {MIN_SHOES} shoes, got {batch_shoes}")
        self.batch_shoes = batch_shoes
        self.shoes = 0
        self._positions = np.zeros((SHOE_SIZE, SHOE_SIZE), dtype=np.int64)
        self._pairs = {b.name: np.zeros(b.mean.size, dtype=np.int64) for b in pair_binnings()}
        batch_binning = pair_binning_for(batch_shoes)
        if batch_binning is None:  # pragma: no cover - MIN_SHOES shoes always suffice
            raise ValueError(f"no adjacent-pair binning fits batches of {batch_shoes} shoes")
        self._batch_binning = batch_binning
        self._batch_positions = np.zeros_like(self._positions)
        self._batch_pairs = np.zeros_like(self._pairs[batch_binning.name])
        self._batch_filled = 0
        self._position_p: list[float] = []
        self._pair_p: list[float] = []
        self._orders: list[Sequence[int]] = []
        self._remaining: list[Sequence[int]] = []
        self._seats: list[Sequence[int]] = []  # each hand's four face indices
        self.doubles = ConditionalCounts(tuple(str(j) for j in DOUBLES_COUNTS))
        self.totals = ConditionalCounts(tuple(str(t) for t in POINT_TOTALS))
        self.events = ConditionalCounts(tuple(e.value for e in EVENT_ORDER))

    def add_shoe(self, order: Sequence[int], hands: Iterable[Sequence[int]] = ()) -> None:
        """A shoe's full 56-tile order and its seats' tiles (three hand tiles, then the
        Connector), in the order they were dealt."""
        self._orders.append(order)
        if len(self._orders) >= min(_CHUNK, self.batch_shoes - self._batch_filled):
            self._count_orders()
        remaining = list(FRESH_COUNTS)
        for tiles in hands:
            faces = [tile % FACES_PER_SET for tile in tiles]
            self._remaining.append(tuple(remaining))
            self._seats.append(faces)
            for face in faces:
                remaining[face] -= 1
        if len(self._seats) >= _CHUNK:
            self._count_hands()

    def _count_orders(self) -> None:
        if not self._orders:
            return
        orders = np.asarray(self._orders, dtype=np.int64)
        self._orders.clear()
        self.shoes += orders.shape[0]
        positions = count_positions(orders)
        self._positions += positions
        self._batch_positions += positions
        for binning in pair_binnings():
            pairs = binning.count(orders)
            self._pairs[binning.name] += pairs
            if binning is self._batch_binning:
                self._batch_pairs += pairs
        self._batch_filled += orders.shape[0]
        if self._batch_filled == self.batch_shoes:
            self._close_batch()

    def _close_batch(self) -> None:
        """The batch's first-level p-values, for the second-level tests (the verdicts at
        SIGNIFICANCE are not kept)."""
        size = self.batch_shoes
        position = position_by_tile(self._batch_positions, size, SIGNIFICANCE)
        if position.p_value is not None:
            self._position_p.append(position.p_value)
        pair = adjacent_pairs({self._batch_binning.name: self._batch_pairs}, size, SIGNIFICANCE)
        if pair.p_value is not None:
            self._pair_p.append(pair.p_value)
        self._batch_positions[:] = 0
        self._batch_pairs[:] = 0
        self._batch_filled = 0

    def _count_hands(self) -> None:
        if not self._seats:
            return
        remaining = np.asarray(self._remaining, dtype=np.int64)
        seats = np.asarray(self._seats, dtype=np.int64)
        self._remaining.clear()
        self._seats.clear()
        # Observed outcomes come from the game core's own rules, one hand at a time.
        totals = [_TOTAL_INDEX[hand_total(s[:HAND_TILES], s[HAND_TILES])] for s in seats.tolist()]
        events = [_EVENT_INDEX[doubles_event(s)] for s in seats.tolist()]
        self.doubles.add(_IS_DOUBLE_FACE[seats].sum(axis=1), doubles_count_probabilities(remaining))
        self.totals.add(np.asarray(totals, dtype=np.int64), total_probabilities(remaining))
        self.events.add(np.asarray(events, dtype=np.int64), doubles_event_probabilities(remaining))

    def results(self, significance: float = SIGNIFICANCE) -> list[StatisticalTest]:
        self._count_orders()
        self._count_hands()
        shoes = self.shoes
        return [
            position_by_tile(self._positions, shoes, significance),
            adjacent_pairs(self._pairs, shoes, significance),
            self.doubles.test("doubles_per_hand", significance, shoes),
            self.totals.test("point_totals", significance, shoes),
            self.events.test("doubles_events", significance, shoes),
            second_level(
                "second_level_position_by_tile", self._position_p, self.batch_shoes, significance
            ),
            second_level(
                "second_level_adjacent_pairs", self._pair_p, self.batch_shoes, significance
            ),
        ]


def run_across_shoes(
    shoes: Iterable[tuple[Sequence[int], Iterable[Sequence[int]]]],
    significance: float = SIGNIFICANCE,
    batch_shoes: int | None = None,
) -> list[StatisticalTest]:
    """Every across-shoe test over ``(order, hands)`` pairs held in memory."""
    held = list(shoes)
    accumulator = AcrossShoes(batch_shoes or batch_shoes_for(len(held)))
    for order, hands in held:
        accumulator.add_shoe(order, hands)
    return accumulator.results(significance)
