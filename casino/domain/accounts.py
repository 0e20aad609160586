"""Player accounts: a balance (credit meter) per currency, moved only by postings."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypeVar

from casino.domain import validation
from casino.domain.errors import RuleViolation
from casino.domain.events import (
    DomainEvent,
    FundsDeposited,
    FundsWithdrawn,
    MoneyMoved,
    PayoutCredited,
    SettlementCorrected,
    StakeDebited,
    StakeRefunded,
)
from casino.domain.ledger import (
    CAGE,
    Posting,
    player_account,
    postings_data,
    table_account,
    transfer,
)


@dataclass(frozen=True)
class AccountState:
    player_id: str
    currency: str
    balance: int = 0

    def after(self, change: int) -> int:
        return self.balance + change


def fold_account(player_id: str, currency: str, events: Iterable[DomainEvent]) -> AccountState:
    balance = 0
    for event in events:
        if isinstance(event, MoneyMoved):
            balance = event.balance_after
    return AccountState(player_id, currency, balance)


Credit = TypeVar("Credit", PayoutCredited, StakeRefunded)
MAX_BALANCE = 2**53 - 1  # every amount in the log stays an exact JSON number


def _within_limit(account: AccountState, change: int, field: str) -> int:
    balance = account.after(change)
    if balance > MAX_BALANCE:
        raise RuleViolation(
            "balance_limit", f"a balance may not exceed {MAX_BALANCE} minor units", field
        )
    return balance


def _insufficient(account: AccountState, needed: int, field: str) -> RuleViolation:
    return RuleViolation(
        "insufficient_funds",
        f"player {account.player_id} has {account.balance} {account.currency}; {needed} needed",
        field,
    )


def deposit(account: AccountState, amount: int, reference: str) -> FundsDeposited:
    validation.amount(amount, "amount")
    validation.text(reference, "reference", required=False)
    player = player_account(account.player_id)
    return FundsDeposited(
        player_id=account.player_id,
        currency=account.currency,
        amount=amount,
        balance_after=_within_limit(account, amount, "amount"),
        postings=postings_data(transfer(CAGE, player, amount)),
        reference=reference,
    )


def withdraw(account: AccountState, amount: int, reference: str) -> FundsWithdrawn:
    validation.amount(amount, "amount")
    validation.text(reference, "reference", required=False)
    if amount > account.balance:
        raise _insufficient(account, amount, "amount")
    player = player_account(account.player_id)
    return FundsWithdrawn(
        player_id=account.player_id,
        currency=account.currency,
        amount=amount,
        balance_after=account.after(-amount),
        postings=postings_data(transfer(player, CAGE, amount)),
        reference=reference,
    )


def debit_stake(
    account: AccountState, table_id: str, round_id: str, seats: list[int], amount: int, field: str
) -> StakeDebited:
    if amount > account.balance:
        raise _insufficient(account, amount, field)
    postings = transfer(player_account(account.player_id), table_account(table_id), amount)
    return StakeDebited(
        player_id=account.player_id,
        currency=account.currency,
        amount=amount,
        balance_after=account.after(-amount),
        postings=postings_data(postings),
        round_id=round_id,
        seats=seats,
    )


def credit_payout(
    account: AccountState, table_id: str, round_id: str, seats: list[int], amount: int
) -> PayoutCredited:
    return _from_table(PayoutCredited, account, table_id, round_id, seats, amount)


def refund_stake(
    account: AccountState, table_id: str, round_id: str, seats: list[int], amount: int
) -> StakeRefunded:
    return _from_table(StakeRefunded, account, table_id, round_id, seats, amount)


def _from_table(
    kind: type[Credit],
    account: AccountState,
    table_id: str,
    round_id: str,
    seats: list[int],
    amount: int,
) -> Credit:
    """Money from the table's account to the player's, for some seats of a round."""
    postings = transfer(table_account(table_id), player_account(account.player_id), amount)
    return kind(
        player_id=account.player_id,
        currency=account.currency,
        amount=amount,
        balance_after=_within_limit(account, amount, "round_id"),
        postings=postings_data(postings),
        round_id=round_id,
        seats=seats,
    )


def correct_settlement(
    account: AccountState, table_id: str, round_id: str, refunded: int, reclaimed: int
) -> SettlementCorrected:
    """Reverse a settlement for one player: stakes back, payouts taken back."""
    player, table = player_account(account.player_id), table_account(table_id)
    postings: list[Posting] = []
    if refunded:
        postings += transfer(table, player, refunded)
    if reclaimed:
        postings += transfer(player, table, reclaimed)
    change = refunded - reclaimed
    if account.after(change) < 0:
        raise RuleViolation(
            "insufficient_funds",
            f"reversing takes {reclaimed - refunded} {account.currency} back from player "
            f"{account.player_id}, who has {account.balance}",
            "round_id",
        )
    return SettlementCorrected(
        player_id=account.player_id,
        currency=account.currency,
        amount=change,
        balance_after=account.after(change),
        postings=postings_data(postings),
        round_id=round_id,
        refunded=refunded,
        reclaimed=reclaimed,
    )
