"""The seed vault keeps the live seeds a process used in memory, once the vault holds them."""

from __future__ import annotations

from contextlib import AbstractContextManager
from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest
from psycopg import Connection
from psycopg_pool import ConnectionPool

from casino.app.actors import Actor, Role
from casino.app.seeds import SeedVault
from casino.app.service import Casino
from casino.app.unit import Command
from casino.domain.rounds import SeatWager
from casino.domain.tables import OpenTable
from casino.eventstore.postgres import PostgresEventStore
from tests.integration.app.conftest import ADMIN, unique

pytestmark = pytest.mark.integration


class CountingConnect:
    """The pool's connections, counted."""

    def __init__(self, pool: ConnectionPool[Connection[Any]]) -> None:
        self.pool = pool
        self.count = 0

    def __call__(self) -> AbstractContextManager[Connection[Any]]:
        self.count += 1
        return self.pool.connection()


def test_a_process_deals_its_own_shoe_without_reading_the_vault(
    pool: ConnectionPool[Connection[Any]],
) -> None:
    connect = CountingConnect(pool)
    casino = Casino(PostgresEventStore(pool), connect)
    table_id = unique("T")
    casino.open_table(OpenTable(table_id, "V", "EUR", 7, 1, 1, 100, 10_000, 100, 1_000, 56), ADMIN)
    key = Actor(Role.TABLE, "dealer", frozenset({table_id}))
    player = unique("P")
    casino.move_funds(player, "EUR", 100_000, "cash in", True, ADMIN)
    dealt = []
    for number in range(3):  # a cut card at 56: one shoe deals several rounds
        round_id = casino.open_round(table_id, f"seed-{number}", key).body["round_id"]
        casino.place_wagers(round_id, [SeatWager(1, player, 1_000)], key)
        dealt.append(casino.deal(round_id, key).body)
    assert connect.count == 0
    assert len({body["shoe"]["shoe_id"] for body in dealt}) == 1

    elsewhere = CountingConnect(pool)  # another process: reads the vault once, then not
    other = Casino(PostgresEventStore(pool), elsewhere)
    for number in range(2):
        round_id = other.open_round(table_id, f"other-{number}", key).body["round_id"]
        other.place_wagers(round_id, [SeatWager(1, player, 1_000)], key)
        other.deal(round_id, key)
    assert elsewhere.count == 1


def test_a_seed_is_remembered_only_once_its_shoe_has_committed(
    pool: ConnectionPool[Connection[Any]],
) -> None:
    connect = CountingConnect(pool)
    vault = SeedVault(connect)
    store = PostgresEventStore(pool)
    shoe_id, seed = unique("shoe"), bytes(range(32))
    abandoned = Command(store, "test", "open_round", datetime.now(UTC))
    vault.keep(abandoned, shoe_id, seed)  # never committed
    with pytest.raises(LookupError):
        vault.seed_of(shoe_id)

    committed = Command(store, "test", "open_round", datetime.now(UTC))
    vault.keep(committed, shoe_id, seed)
    committed.commit(None)
    refused = Command(store, "test", "open_round", datetime.now(UTC))
    vault.keep(refused, shoe_id, bytes(32))  # the vault keeps one seed per shoe
    with pytest.raises(psycopg.errors.UniqueViolation):
        refused.commit(None)
    reads = connect.count
    assert vault.seed_of(shoe_id) == seed
    assert connect.count == reads  # from memory, and the refused seed never got there

    closing = Command(store, "test", "deal", datetime.now(UTC))
    vault.closed(closing, shoe_id)
    closing.commit(None)
    assert vault.seed_of(shoe_id) == seed
    assert connect.count == reads + 1  # forgotten: read from the vault again


def test_a_deal_never_shuffles_with_a_seed_kept_wrong(
    pool: ConnectionPool[Connection[Any]],
) -> None:
    seed = bytes(range(32))
    casino = Casino(PostgresEventStore(pool), pool.connection, new_seed=lambda: seed)
    table_id = unique("T")
    casino.open_table(
        OpenTable(table_id, "V", "EUR", 7, 1, 1, 100, 10_000, 100, 1_000, None), ADMIN
    )
    key = Actor(Role.TABLE, "dealer", frozenset({table_id}))
    player = unique("P")
    casino.move_funds(player, "EUR", 100_000, "cash in", True, ADMIN)
    opened = casino.open_round(table_id, "seed", key).body
    casino.place_wagers(opened["round_id"], [SeatWager(1, player, 1_000)], key)
    casino.seeds._remember(opened["shoe"]["shoe_id"], bytes(32))  # memory gone wrong

    dealt = casino.deal(opened["round_id"], key).body
    assert dealt["shoe"]["server_seed"] == seed.hex()  # the vault's seed dealt and shown
