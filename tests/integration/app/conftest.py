"""The application on the real Postgres of tests/integration/conftest.py."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from psycopg import Connection
from psycopg_pool import ConnectionPool

from casino.app.actors import Actor, Role
from casino.app.service import Casino
from casino.db.connection import create_pool
from casino.domain.rounds import SeatWager
from casino.domain.tables import OpenTable
from casino.eventstore.postgres import PostgresEventStore

ADMIN = Actor(Role.ADMIN, "test-admin")


@pytest.fixture
def casino(event_store: PostgresEventStore, pool: ConnectionPool[Connection[object]]) -> Casino:
    return Casino(event_store, pool.connection)


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def new_table(casino: Casino) -> Callable[..., str]:
    def make(**overrides: object) -> str:
        values: dict[str, object] = {
            "table_id": unique("T"), "name": "Test table", "currency": "EUR", "seats": 7,
            "main_paytable": 1, "doubles_paytable": 1, "main_min": 100, "main_max": 100_000,
            "doubles_min": 100, "doubles_max": 10_000, "cut_card": None,
        }  # fmt: skip
        values.update(overrides)
        casino.open_table(OpenTable(**values), ADMIN)  # type: ignore[arg-type]
        return str(values["table_id"])

    return make


@pytest.fixture
def funded_player(casino: Casino) -> Callable[..., str]:
    def make(amount: int = 1_000_000, currency: str = "EUR") -> str:
        player = unique("P")
        casino.move_funds(player, currency, amount, "test", True, ADMIN)
        return player

    return make


@pytest.fixture
def fresh_casino(
    fresh_database_url: str,
) -> Iterator[tuple[Casino, ConnectionPool[Connection[Any]]]]:
    """A casino on a database of this test's own, for tests about the whole log."""
    fresh_pool = create_pool(fresh_database_url, min_size=1, max_size=8, name="fresh")
    yield Casino(PostgresEventStore(fresh_pool), fresh_pool.connection), fresh_pool
    fresh_pool.close()


def play_rounds(casino: Casino, table_id: str, players: list[str], rounds: int) -> list[str]:
    """Play ``rounds`` full rounds at a table, every player on a seat of their own."""
    key = Actor(Role.TABLE, "dealer", frozenset({table_id}))
    played = []
    for number in range(rounds):
        round_id = casino.open_round(table_id, f"seed-{number}", key).body["round_id"]
        wagers = [
            SeatWager(seat, player, 100 * seat, 100 if seat % 2 else 0)
            for seat, player in enumerate(players, start=1)
        ]
        casino.place_wagers(round_id, wagers, key)
        casino.deal(round_id, key)
        played.append(round_id)
    return played
