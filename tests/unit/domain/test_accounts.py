from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from casino.domain import accounts
from casino.domain.accounts import AccountState, fold_account
from casino.domain.errors import InvalidCommand, RuleViolation
from casino.domain.events import MoneyMoved


def test_deposit_and_withdraw_move_money_between_cage_and_player() -> None:
    empty = AccountState("P1", "EUR", 0)
    deposited = accounts.deposit(empty, 5_000, "cash-in 1")
    assert deposited.balance_after == 5_000
    assert deposited.postings == [
        {"account": "cage", "amount": -5_000},
        {"account": "player:P1", "amount": 5_000},
    ]
    state = fold_account("P1", "EUR", [deposited])
    withdrawn = accounts.withdraw(state, 2_000, "")
    assert withdrawn.balance_after == 3_000
    assert fold_account("P1", "EUR", [deposited, withdrawn]).balance == 3_000


def test_a_withdrawal_beyond_the_balance_is_refused() -> None:
    with pytest.raises(RuleViolation) as caught:
        accounts.withdraw(AccountState("P1", "EUR", 100), 101, "")
    assert (caught.value.code, caught.value.field) == ("insufficient_funds", "amount")


@pytest.mark.parametrize("amount", [0, -1, 10**13, True, 1.5])
def test_amounts_are_positive_integers_within_bounds(amount: object) -> None:
    with pytest.raises(InvalidCommand) as caught:
        accounts.deposit(AccountState("P1", "EUR", 0), amount, "")  # type: ignore[arg-type]
    assert caught.value.field == "amount"


@given(st.lists(st.tuples(st.booleans(), st.integers(1, 10**6)), max_size=30))
def test_every_movement_balances_and_the_balance_never_goes_negative(
    moves: list[tuple[bool, int]],
) -> None:
    state = AccountState("P1", "EUR", 0)
    history: list[MoneyMoved] = []
    for is_deposit, amount in moves:
        try:
            event: MoneyMoved = (
                accounts.deposit(state, amount, "")
                if is_deposit
                else accounts.withdraw(state, amount, "")
            )
        except RuleViolation:
            assert not is_deposit and amount > state.balance
            continue
        assert sum(p["amount"] for p in event.postings) == 0
        history.append(event)
        state = fold_account("P1", "EUR", history)
        assert state.balance >= 0
        player_postings = sum(
            p["amount"] for e in history for p in e.postings if p["account"] == "player:P1"
        )
        assert state.balance == player_postings
