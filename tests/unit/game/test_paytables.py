from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from casino.game.doubles import DoublesEvent
from casino.game.paytables import (
    DOUBLES_PAYTABLES,
    MAIN_PAYTABLES,
    doubles_paytable,
    main_paytable,
    settle,
)


def test_main_paytables_are_the_spec_table() -> None:
    columns = {
        1: [None, 2, 3, 8, 12, 25, 50, 200, 500],
        2: [None, 2, 3, 8, 12, 20, 50, 200, 500],
        3: [None, 2, 3, 8, 12, 25, 50, 100, 250],
        4: [None, 2, 3, 8, 12, 25, 50, 100, 299],
        5: [None, 2, 3, 8, 12, 25, 50, 200, 1000],
    }
    for number, pays in columns.items():
        assert [MAIN_PAYTABLES[number].odds_for(t) for t in range(0, 45, 5)] == pays


def test_doubles_paytables_are_the_spec_table() -> None:
    order = [
        DoublesEvent.MAIDEN,
        DoublesEvent.DOUBLE_DOUBLES,
        DoublesEvent.FOUR_DOUBLES,
        DoublesEvent.THREE_DOUBLES,
        DoublesEvent.TWO_DOUBLES,
        DoublesEvent.LOSE,
    ]
    columns = {
        1: [300, 100, 20, 4, 2, None],
        2: [299, 100, 20, 4, 2, None],
        3: [250, 75, 20, 4, 2, None],
        4: [300, 100, 20, 5, 2, None],
    }
    for number, pays in columns.items():
        assert [DOUBLES_PAYTABLES[number].odds_for(e) for e in order] == pays


def test_x_to_1_returns_the_stake_plus_x_times_it() -> None:
    win = settle(1_000, 8)
    assert (win.payout, win.net, win.won) == (9_000, 8_000, True)
    loss = settle(1_000, None)
    assert (loss.payout, loss.net, loss.won) == (0, -1_000, False)
    assert settle(7, 1000).payout == 7_007


@given(st.integers(min_value=1, max_value=10**12), st.sampled_from([None, 2, 3, 8, 299, 1000]))
def test_settlement_is_exact_integer_arithmetic(stake: int, odds: int | None) -> None:
    result = settle(stake, odds)
    assert isinstance(result.payout, int)
    assert result.payout == (0 if odds is None else stake + odds * stake)
    assert result.net == result.payout - stake


@pytest.mark.parametrize("stake", [0, -5, 1.5, True, "10"])
def test_a_stake_is_a_positive_integer(stake: object) -> None:
    with pytest.raises(ValueError, match="positive integer"):
        settle(stake, 2)  # type: ignore[arg-type]


def test_unknown_paytables_are_refused() -> None:
    assert main_paytable(5).number == 5
    assert doubles_paytable(4).number == 4
    with pytest.raises(ValueError, match="1-5"):
        main_paytable(6)
    with pytest.raises(ValueError, match="1-4"):
        doubles_paytable(5)
