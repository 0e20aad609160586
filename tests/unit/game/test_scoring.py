from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from casino.game.scoring import (
    CONNECTOR_BONUS,
    TILE_SCORES,
    hand_total,
    score_faces,
    score_hand,
    score_tiles,
    tile_score,
)
from casino.game.tiles import FACES, FACES_PER_SET, face_index, face_index_of_tile
from tests.unit.game.strategies import faces, seat_draws

# (hand, Connector, tile scores, total) from the spec's worked examples.
WORKED_EXAMPLES = [
    ([(5, 0), (4, 1), (6, 6)], (5, 0), (10, 0, 0), 10),
    ([(6, 6), (6, 6), (4, 3)], (6, 3), (15, 15, 10), 40),
    ([(5, 5), (1, 5), (2, 2)], (5, 0), (10, 0, 0), 10),
    ([(1, 4), (0, 3), (6, 6)], (2, 3), (0, 0, 0), 5),
    ([(5, 5), (0, 5), (0, 5)], (5, 5), (15, 10, 10), 35),
]


@pytest.mark.parametrize(("hand", "connector", "tile_scores", "total"), WORKED_EXAMPLES)
def test_worked_examples_of_the_spec(
    hand: list[tuple[int, int]],
    connector: tuple[int, int],
    tile_scores: tuple[int, ...],
    total: int,
) -> None:
    score = score_faces(hand, connector)
    assert score.tile_scores == tile_scores
    assert score.total == total


def test_a_tile_matching_two_ways_counts_the_best_value() -> None:
    assert tile_score((5, 1), (5, 1)) == 10  # on 1: 5+5 = 10; on 5: 1+1 = 2
    assert tile_score((1, 2), (1, 4)) == 0  # on 1: 2+4 = 6, which does not count
    assert tile_score((0, 5), (0, 5)) == 10  # on 0: 5+5; on 5: 0+0 = 0


@pytest.mark.parametrize(
    ("tile", "connector", "score"),
    [
        ((5, 5), (5, 0), 10),  # double in hand: 0 + 2*5
        ((5, 0), (5, 5), 10),  # double Connector: 0 + 2*5
        ((3, 3), (3, 4), 10),  # 4 + 6
        ((4, 4), (4, 2), 10),  # 2 + 8
        ((1, 1), (1, 3), 5),  # 3 + 2
        ((2, 2), (2, 1), 5),  # 1 + 4
        ((6, 6), (6, 3), 15),  # 3 + 12
        ((6, 6), (6, 1), 0),  # 13 does not count
        ((5, 5), (5, 5), 15),  # equal doubles: 3*5
        ((0, 0), (0, 0), 0),
        ((4, 4), (4, 4), 0),  # 12 does not count
        ((5, 5), (6, 6), 0),  # different doubles never match
        ((2, 3), (2, 3), 0),  # on 2: 3+3 = 6; on 3: 2+2 = 4: neither counts
    ],
)
def test_tile_scores_against_the_connector(
    tile: tuple[int, int], connector: tuple[int, int], score: int
) -> None:
    assert tile_score(tile, connector) == score


def test_the_bonus_is_for_a_3_2_connector_only() -> None:
    three_two = face_index((3, 2))
    assert CONNECTOR_BONUS[three_two] == 5
    assert sum(CONNECTOR_BONUS) == 5
    blank = face_index((0, 0))
    assert score_hand([three_two, blank, blank], face_index((6, 6))).total == 0


def test_the_tabulated_scores_are_the_rules() -> None:
    for c, connector in enumerate(FACES):
        for t, tile in enumerate(FACES):
            assert TILE_SCORES[c][t] == tile_score(tile, connector)


@given(seat_draws())
def test_totals_of_any_dealt_hand_are_multiples_of_five_from_0_to_40(
    draw: tuple[list[int], int],
) -> None:
    hand, connector = draw
    faces = [face_index_of_tile(t) for t in hand]
    total = hand_total(faces, face_index_of_tile(connector))
    assert total % 5 == 0
    assert 0 <= total <= 40
    assert total == score_tiles(hand, connector).total


@given(faces, faces)
def test_a_tile_sharing_no_half_with_the_connector_scores_zero(
    tile: tuple[int, int], connector: tuple[int, int]
) -> None:
    if not set(tile) & set(connector):
        assert tile_score(tile, connector) == 0
    assert tile_score(tile, connector) in (0, 5, 10, 15)


@given(faces, faces)
def test_swapping_the_halves_of_either_tile_changes_nothing(
    tile: tuple[int, int], connector: tuple[int, int]
) -> None:
    score = tile_score(tile, connector)
    assert tile_score(tile[::-1], connector) == score
    assert tile_score(tile, connector[::-1]) == score
    assert tile_score(tile[::-1], connector[::-1]) == score


@given(seat_draws(), st.permutations([0, 1, 2]))
def test_the_order_of_the_hand_tiles_does_not_change_the_total(
    draw: tuple[list[int], int], permutation: list[int]
) -> None:
    hand, connector = draw
    shuffled = [hand[i] for i in permutation]
    assert score_tiles(hand, connector).total == score_tiles(shuffled, connector).total


def test_forty_has_exactly_one_shape_a_shoe_can_deal() -> None:
    fours = [
        (a, b, c, k)
        for k in range(FACES_PER_SET)
        for a in range(FACES_PER_SET)
        for b in range(a, FACES_PER_SET)
        for c in range(b, FACES_PER_SET)
        if hand_total([a, b, c], k) == 40 and max(Counter([a, b, c, k]).values()) <= 2
    ]
    six_six, four_three, six_three = face_index((6, 6)), face_index((4, 3)), face_index((6, 3))
    assert fours == [(*sorted([six_six, six_six, four_three]), six_three)]


def test_a_hand_has_three_tiles() -> None:
    with pytest.raises(ValueError, match="3 tiles"):
        score_hand([0, 1], 2)
