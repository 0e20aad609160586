"""The across-shoe tests: exact expectations, honest shoes pass, broken shuffles fail."""

from __future__ import annotations

import random
from itertools import pairwise, permutations

import numpy as np
import pytest
from scipy import stats

from casino.audit.statistics import (
    EVENT_ORDER,
    MIN_SHOES,
    AcrossShoes,
    ConditionalCounts,
    StatisticalTest,
    Status,
    count_positions,
    doubles_count_probabilities,
    doubles_event_probabilities,
    pair_moments,
    pool_adjacent,
    position_by_tile,
    run_across_shoes,
    second_level,
    total_probabilities,
)
from casino.game.odds import FRESH_SHOE, doubles_event_ways, main_total_ways, shoe_of_tiles
from casino.game.scoring import POINT_TOTALS
from casino.game.tiles import DOUBLE_FACE_INDICES, SHOE_SIZE
from tests.unit.audit.builders import (
    Shuffler,
    honest,
    honest_shoes,
    modulo_biased,
    naive,
    off_by_one,
    orders,
    rigged_shoes,
)

SIGNIFICANCE = 0.001
HAND_TESTS = ("doubles_per_hand", "point_totals", "doubles_events")
SHOE_TESTS = (
    "position_by_tile",
    "adjacent_pairs",
    "second_level_position_by_tile",
    "second_level_adjacent_pairs",
)


def by_name(results: list[StatisticalTest]) -> dict[str, StatisticalTest]:
    return {r.name: r for r in results}


@pytest.fixture(scope="module")
def honest_results() -> dict[str, StatisticalTest]:
    return by_name(run_across_shoes(honest_shoes(5000), SIGNIFICANCE))


# --- exact expectations -------------------------------------------------------------------


def depleted_shoes(count: int) -> list[tuple[int, ...]]:
    rng = random.Random(3)
    shoes = [FRESH_SHOE]
    for _ in range(count):
        shoes.append(shoe_of_tiles(rng.sample(range(SHOE_SIZE), rng.randint(4, SHOE_SIZE))))
    return shoes


def test_total_and_event_odds_equal_the_game_cores_exact_counts() -> None:
    shoes = depleted_shoes(200)
    totals = total_probabilities(np.array(shoes, dtype=np.int64))
    events = doubles_event_probabilities(np.array(shoes, dtype=np.int64))
    for row, counts in enumerate(shoes):
        ways, draws = main_total_ways(counts)
        assert totals[row] == pytest.approx([ways[t] / draws for t in POINT_TOTALS], rel=1e-12)
        event_ways, event_draws = doubles_event_ways(counts)
        expected = [event_ways[e] / event_draws for e in EVENT_ORDER]
        assert events[row] == pytest.approx(expected, rel=1e-12)


def test_doubles_per_hand_is_hypergeometric() -> None:
    shoes = np.array(depleted_shoes(100), dtype=np.int64)
    doubles = shoes[:, list(DOUBLE_FACE_INDICES)].sum(axis=1)
    expected = stats.hypergeom.pmf(
        np.arange(5)[None, :], shoes.sum(axis=1)[:, None], doubles[:, None], 4
    )
    assert doubles_count_probabilities(shoes) == pytest.approx(expected, abs=1e-15)


def test_pair_moments_equal_enumeration_over_every_permutation() -> None:
    rng = np.random.default_rng(1)
    size, items = 4, 6
    category = rng.integers(0, size, size=(items, items))
    mean, covariance = pair_moments(category, size)
    counts = []
    for order in permutations(range(items)):
        count = np.zeros(size)
        for a, b in pairwise(order):
            count[category[a, b]] += 1
        counts.append(count)
    sample = np.array(counts)
    assert mean == pytest.approx(sample.mean(axis=0), abs=1e-12)
    assert covariance == pytest.approx(np.cov(sample.T, bias=True), abs=1e-12)


def test_position_statistic_has_the_permutation_mean() -> None:
    """Scaled by 55/56, the statistic's mean over honest samples is its degrees of freedom
    (unscaled it would sit 1.8% high: 0.7 sd of each sample)."""
    rng = np.random.default_rng(5)
    statistics = []
    for _ in range(200):
        shuffled = np.argsort(rng.random((300, SHOE_SIZE)), axis=1)
        result = position_by_tile(count_positions(shuffled), 300, SIGNIFICANCE)
        assert result.statistic is not None
        statistics.append(result.statistic)
    assert result.degrees_of_freedom == 55 * 55
    assert np.mean(statistics) / 3025 == pytest.approx(1.0, abs=0.006)


def test_pooling_merges_rare_neighbours_and_a_short_tail() -> None:
    assert pool_adjacent([50, 20, 3, 3, 1]) == [[0], [1], [2, 3, 4]]
    assert pool_adjacent([50, 20, 6, 1]) == [[0], [1], [2, 3]]
    assert pool_adjacent([2, 2, 2]) == [[0, 1, 2]]


# --- honest shoes pass; too few shoes is never a failure ------------------------------------


def test_honest_shoes_pass_every_test_on_the_finest_binnings(
    honest_results: dict[str, StatisticalTest],
) -> None:
    assert {r.status for r in honest_results.values()} == {Status.PASS}
    assert honest_results["position_by_tile"].binning == "56 positions x 56 tiles"
    assert honest_results["adjacent_pairs"].binning == "adjacent faces (28 x 28)"
    assert honest_results["adjacent_pairs"].degrees_of_freedom == 783
    assert honest_results["second_level_position_by_tile"].sample_size["batches"] == 20


def test_every_result_states_its_figures(honest_results: dict[str, StatisticalTest]) -> None:
    for result in honest_results.values():
        shown = result.as_json()
        assert shown["significance"] == SIGNIFICANCE
        assert shown["p_value"] is not None and 0 <= shown["p_value"] <= 1
        assert shown["statistic"] is not None and shown["sample_size"]
    hands = honest_results["point_totals"].sample_size["hands"]
    assert hands > 30_000  # every seat of every round, later rounds of cut-card shoes too


def test_few_shoes_are_insufficient_data_never_a_failure() -> None:
    one_round = run_across_shoes(honest_shoes(1), SIGNIFICANCE)
    assert {r.status for r in one_round} == {Status.INSUFFICIENT_DATA}
    assert all(r.p_value is None and r.note for r in one_round)
    results = by_name(run_across_shoes(honest_shoes(MIN_SHOES - 1), SIGNIFICANCE))
    for name in SHOE_TESTS:
        assert results[name].status is Status.INSUFFICIENT_DATA
    for name in HAND_TESTS:  # over a hundred hands: enough for the hand tests
        assert results[name].status is Status.PASS


def test_coarser_binnings_for_fewer_shoes() -> None:
    results = by_name(run_across_shoes(honest_shoes(100), SIGNIFICANCE))
    assert results["position_by_tile"].binning == "56 positions x double or not"
    assert results["adjacent_pairs"].binning == "adjacent double-or-not pattern (2 x 2)"
    assert results["position_by_tile"].status is Status.PASS
    assert results["second_level_adjacent_pairs"].status is Status.INSUFFICIENT_DATA


def test_streaming_in_batches_counts_what_one_pass_counts() -> None:
    shoes = honest_shoes(130)
    accumulator = AcrossShoes(batch_shoes=25)
    for order, seats in shoes:
        accumulator.add_shoe(order, seats)
    results = by_name(accumulator.results(SIGNIFICANCE))
    direct = position_by_tile(
        count_positions(np.array([o for o, _ in shoes], dtype=np.int64)), 130, SIGNIFICANCE
    )
    assert results["position_by_tile"] == direct
    assert results["second_level_position_by_tile"].sample_size["batches"] == 5  # 130 // 25


# --- negative controls: broken shuffles are flagged ---------------------------------------


@pytest.mark.parametrize(
    ("shuffler", "shoes"),
    [(off_by_one, 1000), (naive, 500), (modulo_biased, 5000)],
    ids=["off-by-one Fisher-Yates", "swap with any of 56", "8-bit modulo bias"],
)
def test_a_biased_shuffle_fails_position_by_tile(shuffler: Shuffler, shoes: int) -> None:
    results = by_name(run_across_shoes((o, []) for o in orders(shuffler, shoes, "bias")))
    assert results["position_by_tile"].status is Status.FAIL
    assert results["position_by_tile"].p_value < 1e-5  # type: ignore[operator]


def test_the_naive_shuffle_also_fails_adjacent_pairs_and_the_second_level() -> None:
    results = by_name(run_across_shoes((o, []) for o in orders(naive, 1000, "naive")))
    assert results["adjacent_pairs"].status is Status.FAIL
    assert results["second_level_adjacent_pairs"].status is Status.FAIL


def test_the_same_words_through_the_honest_shuffle_pass() -> None:
    results = by_name(run_across_shoes((o, []) for o in orders(honest, 5000, "bias")))
    assert {results[name].status for name in SHOE_TESTS} == {Status.PASS}
    assert {results[name].status for name in HAND_TESTS} == {Status.INSUFFICIENT_DATA}


def test_a_dealer_favouring_double_connectors_fails_the_hand_tests() -> None:
    results = by_name(run_across_shoes(rigged_shoes(2000, rate=0.25), SIGNIFICANCE))
    assert results["doubles_per_hand"].status is Status.FAIL
    assert results["doubles_events"].status is Status.FAIL


def test_second_level_flags_p_values_that_are_not_uniform() -> None:
    uniform = [(i + 0.5) / 40 for i in range(40)]
    assert second_level("s", uniform, 100, SIGNIFICANCE).status is Status.PASS
    clustered = [0.4 + i / 400 for i in range(40)]
    assert second_level("s", clustered, 100, SIGNIFICANCE).status is Status.FAIL
    assert second_level("s", uniform[:5], 100, SIGNIFICANCE).status is Status.INSUFFICIENT_DATA


def test_conditional_counts_need_two_categories_expecting_five() -> None:
    counts = ConditionalCounts(("a", "b"))
    outcomes = np.array([0] * 54 + [1] * 6, dtype=np.int64)
    counts.add(outcomes, np.tile([0.9, 0.1], (60, 1)))
    assert counts.test("t", SIGNIFICANCE, 1).status is Status.PASS
    sparse = ConditionalCounts(("a", "b"))
    sparse.add(np.zeros(30, dtype=np.int64), np.tile([0.99, 0.01], (30, 1)))
    assert sparse.test("t", SIGNIFICANCE, 1).status is Status.INSUFFICIENT_DATA
