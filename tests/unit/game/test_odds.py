from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import combinations
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from casino.game.doubles import DoublesEvent, doubles_event
from casino.game.odds import (
    FRESH_SHOE,
    BetOdds,
    doubles_event_ways,
    main_total_ways,
    odds_report,
    shoe_of_tiles,
    shoe_without_faces,
)
from casino.game.paytables import MAIN_PAYTABLES
from casino.game.scoring import hand_total
from casino.game.tiles import FACES_PER_SET, SHOE_SIZE, face_index


def brute_force_main(tiles: list[int]) -> Counter[int]:
    """Every (Connector, unordered hand) draw of physical tiles, scored one by one."""
    ways: Counter[int] = Counter()
    for connector in tiles:
        rest = [t for t in tiles if t != connector]
        for hand in combinations(rest, 3):
            ways[hand_total([t % FACES_PER_SET for t in hand], connector % FACES_PER_SET)] += 1
    return ways


def brute_force_doubles(tiles: list[int]) -> Counter[DoublesEvent]:
    return Counter(
        doubles_event([t % FACES_PER_SET for t in seat]) for seat in combinations(tiles, 4)
    )


def test_fresh_shoe_main_distribution_equals_scoring_every_draw() -> None:
    ways, draws = main_total_ways(FRESH_SHOE)
    expected = brute_force_main(list(range(SHOE_SIZE)))
    assert draws == 56 * 26_235 == sum(expected.values())
    assert {t: w for t, w in ways.items() if w} == dict(expected)


def test_fresh_shoe_doubles_distribution_equals_judging_every_draw() -> None:
    ways, draws = doubles_event_ways(FRESH_SHOE)
    expected = brute_force_doubles(list(range(SHOE_SIZE)))
    assert draws == sum(expected.values())
    assert ways == dict(expected)


@settings(max_examples=60, deadline=None)
@given(st.sets(st.integers(0, SHOE_SIZE - 1), min_size=4, max_size=18))
def test_depleted_shoe_odds_equal_brute_force(remaining: set[int]) -> None:
    counts = shoe_of_tiles(remaining)
    ways, draws = main_total_ways(counts)
    expected = brute_force_main(sorted(remaining))
    assert draws == sum(expected.values())
    assert {t: w for t, w in ways.items() if w} == dict(expected)
    doubles_ways, doubles_draws = doubles_event_ways(counts)
    expected_doubles = brute_force_doubles(sorted(remaining))
    assert doubles_draws == sum(expected_doubles.values())
    assert {e: w for e, w in doubles_ways.items() if w} == dict(expected_doubles)


def test_known_exact_probabilities_of_a_fresh_shoe() -> None:
    report = odds_report()
    main = report.main[1].probabilities
    # 40 needs a 6-3 Connector (2 tiles), both 6-6 and one of two 4-3: 4 of 56 * C(55, 3).
    assert main[40] == Fraction(4, 56 * 26_235) == Fraction(1, 367_290)
    doubles = report.doubles[1].probabilities
    assert doubles[DoublesEvent.MAIDEN] == Fraction(16, 367_290)
    assert doubles[DoublesEvent.DOUBLE_DOUBLES] == Fraction(21, 367_290)


def test_probabilities_sum_to_exactly_one_and_edges_are_exact() -> None:
    for counts in (FRESH_SHOE, shoe_without_faces([face_index((6, 6)), face_index((3, 2))])):
        report = odds_report(counts)
        all_odds: list[BetOdds[Any]] = [*report.main.values(), *report.doubles.values()]
        for odds in all_odds:
            assert sum(odds.probabilities.values()) == 1
            assert odds.house_edge == 1 - odds.rtp
            assert isinstance(odds.rtp, Fraction)
            assert 0 < odds.house_edge < Fraction(1, 5)
            assert odds.variance > 0


def test_rtp_is_the_probability_weighted_return() -> None:
    report = odds_report()
    for number, paytable in MAIN_PAYTABLES.items():
        odds = report.main[number]
        expected = sum(
            p * (paytable.odds_for(t) + 1)  # type: ignore[operator]
            for t, p in odds.probabilities.items()
            if paytable.odds_for(t) is not None
        )
        assert odds.rtp == expected


def test_paytables_rank_as_their_pays_say() -> None:
    report = odds_report()
    main = {n: o.house_edge for n, o in report.main.items()}
    assert main[5] < main[1] < main[4] < main[3] < main[2]
    doubles = {n: o.house_edge for n, o in report.doubles.items()}
    assert doubles[4] < doubles[1] < doubles[2] < doubles[3]


def test_removing_tiles_changes_the_odds() -> None:
    without_both_6_3 = shoe_without_faces([face_index((6, 3))] * 2)
    assert odds_report(without_both_6_3).main[1].probabilities[40] == 0
    assert sum(without_both_6_3) == 54


def test_a_face_cannot_be_removed_three_times() -> None:
    with pytest.raises(ValueError, match="more than 2 times"):
        shoe_without_faces([face_index((6, 6))] * 3)


def test_a_shoe_of_fewer_than_four_tiles_cannot_deal_a_seat() -> None:
    with pytest.raises(ValueError, match="needs 4 tiles"):
        main_total_ways(shoe_of_tiles([0, 1, 2]))
    with pytest.raises(ValueError, match="listed twice"):
        shoe_of_tiles([0, 0, 1, 2])
