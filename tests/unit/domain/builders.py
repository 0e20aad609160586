"""Builders of domain state for unit tests."""

from __future__ import annotations

from casino.domain.accounts import AccountState
from casino.domain.events import DomainEvent, RoundOpened, TableOpened
from casino.domain.rounds import RoundState, fold_round, open_round
from casino.domain.shoes import ShoeState, open_shoe
from casino.domain.tables import OpenTable, decide_open_table

SEED = bytes(range(32))


def table_command(**overrides: object) -> OpenTable:
    values: dict[str, object] = {
        "table_id": "T1", "name": "Table one", "currency": "EUR", "seats": 7,
        "main_paytable": 1, "doubles_paytable": 1, "main_min": 100, "main_max": 100_000,
        "doubles_min": 100, "doubles_max": 10_000, "cut_card": None,
    }  # fmt: skip
    values.update(overrides)
    return OpenTable(**values)  # type: ignore[arg-type]


def table_config(**overrides: object) -> TableOpened:
    event = decide_open_table(table_command(**overrides), None)[0]
    assert isinstance(event, TableOpened)
    return event


def shoe(client_seed: str = "table-7", nonce: int = 0) -> ShoeState:
    return ShoeState(opened=open_shoe("S1", "T1", SEED, client_seed, nonce))


def betting_round(*events: DomainEvent, **table: object) -> RoundState:
    opened: RoundOpened = open_round("R1", table_config(**table), 1, shoe())
    state = fold_round([opened, *events])
    assert state is not None
    return state


def funded(*players: str, balance: int = 1_000_000) -> dict[str, AccountState]:
    return {p: AccountState(p, "EUR", balance) for p in players}
