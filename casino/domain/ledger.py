"""Double-entry postings: every money movement is a set of postings that sums to zero.

Accounts are named ``player:<id>``, ``table:<id>`` and ``cage``, each per currency. A
positive amount is money into the account. The cage is where deposits come from and
withdrawals go; the table account holds stakes and pays winnings.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

CAGE = "cage"


def player_account(player_id: str) -> str:
    return f"player:{player_id}"


def table_account(table_id: str) -> str:
    return f"table:{table_id}"


@dataclass(frozen=True, slots=True)
class Posting:
    account: str
    amount: int

    def as_data(self) -> dict[str, object]:
        return {"account": self.account, "amount": self.amount}


def transfer(source: str, destination: str, amount: int) -> list[Posting]:
    """Move ``amount`` from one account to another: two postings that sum to zero."""
    if amount <= 0:
        raise ValueError(f"a transfer moves a positive amount, got {amount}")
    return [Posting(source, -amount), Posting(destination, amount)]


def balanced(postings: Iterable[Posting]) -> bool:
    return sum(p.amount for p in postings) == 0


def postings_data(postings: Iterable[Posting]) -> list[dict[str, object]]:
    items = list(postings)
    if not balanced(items):
        raise ValueError("postings must sum to zero")
    return [p.as_data() for p in items]
