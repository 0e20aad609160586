from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from casino.game.deal import deal_round, shoe_can_serve

ORDER = tuple(range(100, 156))  # stand-in tile ids that show positions plainly


def test_tiles_go_round_robin_in_ascending_seat_order_connector_last() -> None:
    dealt = deal_round(ORDER, 0, [5, 2, 7])
    assert [d.seat for d in dealt] == [2, 5, 7]
    # k = 3: pass one gives positions 0,1,2; pass two 3,4,5; pass three 6,7,8; Connectors 9,10,11.
    assert dealt[0].positions == (0, 3, 6, 9)
    assert dealt[1].positions == (1, 4, 7, 10)
    assert dealt[2].positions == (2, 5, 8, 11)
    assert dealt[0].hand == (100, 103, 106)
    assert dealt[0].connector == 109


def test_dealing_continues_from_the_shoe_position_never_skipping() -> None:
    dealt = deal_round(ORDER, 12, [1])
    assert dealt[0].positions == (12, 13, 14, 15)
    assert dealt[0].hand == (112, 113, 114)
    assert dealt[0].connector == 115


@given(st.sets(st.integers(1, 7), min_size=1), st.integers(0, 28))
def test_a_round_uses_exactly_the_next_4k_positions(seats: set[int], start: int) -> None:
    dealt = deal_round(ORDER, start, sorted(seats))
    positions = sorted(p for d in dealt for p in d.positions)
    assert positions == list(range(start, start + 4 * len(seats)))


def test_a_deal_needs_seats_and_tiles() -> None:
    with pytest.raises(ValueError, match="no seat"):
        deal_round(ORDER, 0, [])
    with pytest.raises(ValueError, match="cannot deal 8 tiles"):
        deal_round(ORDER, 50, [1, 2])
    with pytest.raises(ValueError, match=r"1\.\.7"):
        deal_round(ORDER, 0, [8])
    with pytest.raises(ValueError, match="twice"):
        deal_round(ORDER, 0, [3, 3])


def test_default_policy_shuffles_a_new_shoe_every_round() -> None:
    assert shoe_can_serve(tiles_dealt=0, table_seats=7, cut_card=None)
    assert not shoe_can_serve(tiles_dealt=4, table_seats=1, cut_card=None)


def test_a_cut_card_keeps_the_shoe_until_it_is_reached_or_a_full_table_cannot_be_dealt() -> None:
    assert shoe_can_serve(tiles_dealt=20, table_seats=3, cut_card=40)
    assert not shoe_can_serve(tiles_dealt=40, table_seats=3, cut_card=40)
    # 56 - 32 = 24 tiles left: not enough for 7 seats (28) even before the cut card.
    assert not shoe_can_serve(tiles_dealt=32, table_seats=7, cut_card=52)
    assert shoe_can_serve(tiles_dealt=32, table_seats=6, cut_card=52)
