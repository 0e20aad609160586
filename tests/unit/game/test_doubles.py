from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given

from casino.game.doubles import DoublesEvent, doubles_event
from casino.game.tiles import FACES_PER_SET, IS_DOUBLE, face_index, face_index_of_tile
from tests.unit.game.strategies import seat_draws


def faces(*texts: tuple[int, int]) -> list[int]:
    return [face_index(f) for f in texts]


@pytest.mark.parametrize(
    ("tiles", "event"),
    [
        (faces((6, 6), (5, 5), (4, 4), (3, 3)), DoublesEvent.MAIDEN),
        (faces((3, 3), (6, 6), (4, 4), (5, 5)), DoublesEvent.MAIDEN),  # any order, Connector too
        (faces((2, 2), (2, 2), (5, 5), (5, 5)), DoublesEvent.DOUBLE_DOUBLES),
        (faces((6, 6), (6, 6), (3, 3), (3, 3)), DoublesEvent.DOUBLE_DOUBLES),
        (faces((2, 2), (2, 2), (5, 5), (6, 6)), DoublesEvent.FOUR_DOUBLES),
        (faces((0, 0), (1, 1), (2, 2), (3, 3)), DoublesEvent.FOUR_DOUBLES),
        (faces((6, 6), (5, 5), (4, 4), (2, 2)), DoublesEvent.FOUR_DOUBLES),
        (faces((6, 6), (5, 5), (4, 4), (3, 4)), DoublesEvent.THREE_DOUBLES),
        (faces((1, 1), (1, 1), (4, 4), (0, 4)), DoublesEvent.THREE_DOUBLES),
        (faces((1, 1), (1, 1), (0, 4), (0, 5)), DoublesEvent.TWO_DOUBLES),
        (faces((1, 1), (2, 3), (0, 4), (0, 5)), DoublesEvent.LOSE),
        (faces((1, 2), (2, 3), (0, 4), (0, 5)), DoublesEvent.LOSE),
    ],
)
def test_doubles_events(tiles: list[int], event: DoublesEvent) -> None:
    assert doubles_event(tiles) is event


@given(seat_draws())
def test_every_hand_falls_in_exactly_one_event_matching_its_doubles(
    draw: tuple[list[int], int],
) -> None:
    hand, connector = draw
    seat = [face_index_of_tile(t) for t in [*hand, connector]]
    event = doubles_event(seat)
    doubles = sum(IS_DOUBLE[f] for f in seat)
    expected_by_count = {
        0: DoublesEvent.LOSE,
        1: DoublesEvent.LOSE,
        2: DoublesEvent.TWO_DOUBLES,
        3: DoublesEvent.THREE_DOUBLES,
    }
    if doubles < 4:
        assert event is expected_by_count[doubles]
    else:
        assert event in (
            DoublesEvent.MAIDEN,
            DoublesEvent.DOUBLE_DOUBLES,
            DoublesEvent.FOUR_DOUBLES,
        )


def test_the_events_partition_every_four_tile_hand_of_a_shoe() -> None:
    tally: Counter[DoublesEvent] = Counter()
    for seat in combinations(range(56), 4):
        tally[doubles_event([t % FACES_PER_SET for t in seat])] += 1
    assert sum(tally.values()) == 367_290  # C(56, 4): each hand counted once
    assert tally[DoublesEvent.MAIDEN] == 2**4
    assert tally[DoublesEvent.DOUBLE_DOUBLES] == 21  # C(7, 2) pairs of doubles, one way each
    assert set(tally) == set(DoublesEvent)


def test_the_event_is_judged_on_four_tiles() -> None:
    with pytest.raises(ValueError, match="4 tiles"):
        doubles_event([0, 0, 0])
