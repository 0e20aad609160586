"""Streams kept between commands: no reads while the process is current, and no decision
on state that another process has moved on (each such decision is taken again)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from psycopg import Connection
from psycopg_pool import ConnectionPool

from casino.app.actors import Actor, Role
from casino.app.queries import Queries
from casino.app.service import Casino
from casino.bootstrap import bootstrap
from casino.config import Settings
from casino.domain.errors import RuleViolation
from casino.domain.rounds import SeatWager
from casino.domain.streams import table_stream
from casino.domain.tables import OpenTable
from casino.eventstore.model import ConcurrencyError, RecordedEvent, StreamTail
from casino.eventstore.postgres import PostgresEventStore
from casino.eventstore.unit_of_work import UnitOfWork
from tests.integration.app.conftest import ADMIN, unique

pytestmark = pytest.mark.integration


class CountingStore(PostgresEventStore):
    """The Postgres store, counting the stream reads that commands make."""

    reads = 0

    def read_stream(self, stream_id: str, after_version: int = 0) -> list[RecordedEvent]:
        self.reads += 1
        return super().read_stream(stream_id, after_version)

    def read_latest(
        self, stream_ids: Sequence[str], types: Sequence[str] | None = None
    ) -> dict[str, StreamTail]:
        self.reads += 1
        return super().read_latest(stream_ids, types)

    def stream_version(self, stream_id: str) -> int:
        self.reads += 1
        return super().stream_version(stream_id)


class ConflictCountingStore(PostgresEventStore):
    """The Postgres store, counting the commits refused for a stale version."""

    conflicts = 0

    def _commit(self, uow: UnitOfWork, connection: Connection[Any] | None) -> Any:
        try:
            return super()._commit(uow, connection)
        except ConcurrencyError:
            self.conflicts += 1
            raise


def open_table(casino: Casino) -> tuple[str, Actor]:
    table_id = unique("T")
    casino.open_table(
        OpenTable(table_id, "Cached", "EUR", 7, 1, 1, 100, 100_000, 100, 10_000, None), ADMIN
    )
    return table_id, Actor(Role.TABLE, "dealer", frozenset({table_id}))


def fund(casino: Casino, players: int) -> list[str]:
    names = [unique("P") for _ in range(players)]
    for name in names:
        casino.move_funds(name, "EUR", 100_000, "cash in", True, ADMIN)
    return names


def play(casino: Casino, table_id: str, key: Actor, players: list[str]) -> dict[str, Any]:
    round_id = casino.open_round(table_id, "table-seed", key).body["round_id"]
    wagers = [SeatWager(seat, p, 1_000, 500) for seat, p in enumerate(players, start=1)]
    casino.place_wagers(round_id, wagers, key)
    return casino.deal(round_id, key).body


def balances(pool: ConnectionPool[Connection[Any]], players: list[str]) -> dict[str, int]:
    with pool.connection() as conn:
        queries = Queries(conn)
        return {p: queries.player(p)["balances"][0]["balance"] for p in players}


def answered_balances(dealt: dict[str, Any]) -> dict[str, int]:
    return {entry["player_id"]: entry["balance"] for entry in dealt["balances"]}


def a_round_two_processes_see(
    pool: ConnectionPool[Connection[Any]], players: int, **here: Any
) -> tuple[Casino, Casino, Actor, list[str], str]:
    """Two processes on one log: ``here`` (Casino options ``here``) opens a table, funds
    ``players`` players and opens a round; ``elsewhere`` has seen nothing yet."""
    store = here.pop("store", None) or PostgresEventStore(pool)
    casino = Casino(store, pool.connection, **here)
    elsewhere = Casino(PostgresEventStore(pool), pool.connection)
    table_id, key = open_table(casino)
    names = fund(casino, players)
    round_id = casino.open_round(table_id, "seed", key).body["round_id"]
    return casino, elsewhere, key, names, round_id


def test_a_process_that_played_a_table_reads_no_stream_for_its_next_round(
    pool: ConnectionPool[Connection[Any]],
) -> None:
    store = CountingStore(pool)
    casino = Casino(store, pool.connection)
    table_id, key = open_table(casino)
    players = fund(casino, 6)
    play(casino, table_id, key, players)
    store.reads = 0
    dealt = play(casino, table_id, key, players)
    assert store.reads == 0
    assert answered_balances(dealt) == balances(pool, players)


def test_a_deal_on_a_round_another_process_added_a_wager_to_is_taken_again(
    pool: ConnectionPool[Connection[Any]],
) -> None:
    here, elsewhere, key, [first, second], round_id = a_round_two_processes_see(pool, 2)
    here.place_wagers(round_id, [SeatWager(1, first, 1_000)], key)
    elsewhere.place_wagers(round_id, [SeatWager(2, second, 2_000)], key)

    dealt = here.deal(round_id, key).body  # this process holds the round with one wager
    assert sorted((h["seat"], h["player_id"]) for h in dealt["hands"]) == [
        (1, first),
        (2, second),
    ]
    assert answered_balances(dealt) == balances(pool, [first, second])


def test_a_balance_another_process_changed_is_never_answered_stale(
    pool: ConnectionPool[Connection[Any]],
) -> None:
    # The deal reads every wagering player's account, but appends only to the winners':
    # a losing player's account is only read, so only the check of the streams a
    # command read refuses a decision on its old balance. This seed deals seat 1 a loss.
    here, elsewhere, key, [player], round_id = a_round_two_processes_see(
        pool, 1, new_seed=lambda: bytes(32)
    )
    here.place_wagers(round_id, [SeatWager(1, player, 1_000)], key)
    elsewhere.move_funds(player, "EUR", 250, "top-up", True, ADMIN)

    dealt = here.deal(round_id, key).body  # this process holds the balance before it
    assert [hand["main"]["payout"] for hand in dealt["hands"]] == [0]
    assert answered_balances(dealt) == {player: 100_000 - 1_000 + 250}
    assert balances(pool, [player]) == {player: 100_000 - 1_000 + 250}


def test_a_refusal_decided_on_old_cached_state_is_decided_again(
    pool: ConnectionPool[Connection[Any]],
) -> None:
    here, elsewhere, key, [player], round_id = a_round_two_processes_see(pool, 1)
    elsewhere.place_wagers(round_id, [SeatWager(1, player, 1_000)], key)
    # This process holds the round without its wager: dealt on that, it has none.
    dealt = here.deal(round_id, key).body
    assert [hand["player_id"] for hand in dealt["hands"]] == [player]


def test_a_pinned_version_is_never_checked_against_cached_state(
    pool: ConnectionPool[Connection[Any]],
) -> None:
    # This process holds the table as it opened it; another opened a round there since.
    # The admin pins the table's current version (If-Match): the reconfiguration must be
    # decided on the log's state, where a round is in progress, not on the cached one.
    here = Casino(PostgresEventStore(pool), pool.connection)
    elsewhere = Casino(PostgresEventStore(pool), pool.connection)
    table_id, key = open_table(here)
    elsewhere.open_round(table_id, "seed", key)
    with pool.connection() as conn:
        current = conn.execute(
            "SELECT max(version) FROM events WHERE stream_id = %s", (table_stream(table_id),)
        ).fetchone()
    assert current is not None and current[0] > 1
    changed = OpenTable(table_id, "Cached", "EUR", 7, 2, 1, 100, 100_000, 100, 10_000, None)
    with pytest.raises(RuleViolation) as refused:
        here.reconfigure_table(changed, ADMIN, expected_version=current[0])
    assert refused.value.code == "round_in_progress"


def test_the_service_keeps_as_many_streams_as_configured(
    database_url: str, redis_url: str, tmp_path: Path
) -> None:
    settings = Settings(
        database_url, redis_url, tmp_path, pool_size=1, task_queue="unused", stream_cache_size=7
    )
    services = bootstrap(settings, migrate=False)
    try:
        assert services.casino.streams.size == 7
    finally:
        services.close()


def test_a_stream_another_process_keeps_writing_is_read_from_the_log(
    pool: ConnectionPool[Connection[Any]],
) -> None:
    # Requests of one table spread over two processes: each finds its cached round old
    # once, then reads it from the log rather than meet a refused commit every time.
    store = ConflictCountingStore(pool)
    here, elsewhere, key, players, round_id = a_round_two_processes_see(pool, 6, store=store)
    for seat, player in enumerate(players, start=1):
        process = elsewhere if seat % 2 else here
        process.place_wagers(round_id, [SeatWager(seat, player, 1_000)], key)
    assert store.conflicts == 1
    dealt = here.deal(round_id, key).body
    assert [hand["seat"] for hand in dealt["hands"]] == [1, 2, 3, 4, 5, 6]
