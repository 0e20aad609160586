"""Events to deliver, made by the real service, and what each subscription must get,
worked out here from the log independently of the SQL that fan-out uses."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from psycopg import Connection
from psycopg_pool import ConnectionPool

from casino.app.service import Casino
from casino.domain.tables import OpenTable
from casino.eventstore.model import RecordedEvent
from casino.eventstore.postgres import PostgresEventStore
from tests.integration.app.conftest import ADMIN, play_rounds

Pool = ConnectionPool[Connection[Any]]
Fresh = tuple[Casino, Pool]
DEADLINE = 30.0


def play(
    casino: Casino, tables: Iterable[str] = ("T1", "T2"), rounds: int = 2, new: bool = True
) -> None:
    """Two players at each table (a shoe serves several rounds), ``rounds`` rounds each;
    the tables and the players' funds are made first unless ``new`` is false."""
    if new:
        for player in ("ann", "bob"):
            casino.move_funds(player, "EUR", 10**9, "", True, ADMIN)
    for table_id in tables:
        if new:
            casino.open_table(
                OpenTable(table_id, table_id, "EUR", 2, 1, 1, 100, 5_000, 100, 1_000, 20), ADMIN
            )
        play_rounds(casino, table_id, ["ann", "bob"], rounds)


def log(pool: Pool) -> list[RecordedEvent]:
    store = PostgresEventStore(pool)
    events: list[RecordedEvent] = []
    while batch := store.read_all(events[-1].position if events else 0, 1000):
        events.extend(batch)
    return events


def tables_of(events: list[RecordedEvent]) -> dict[int, str | None]:
    """Each event's table: named in its data, or through its round or shoe."""
    rounds = {e.data["round_id"]: e.data["table_id"] for e in events if e.type == "RoundOpened"}
    shoes = {e.data["shoe_id"]: e.data["table_id"] for e in events if e.type == "ShoeOpened"}
    found: dict[int, str | None] = {}
    for e in events:
        found[e.position] = (
            e.data.get("table_id")
            or rounds.get(e.data.get("round_id", ""))
            or shoes.get(e.data.get("shoe_id", ""))
        )
    return found


def expected(
    events: list[RecordedEvent],
    types: Iterable[str] = (),
    tables: Iterable[str] = (),
    after: int = 0,
) -> list[RecordedEvent]:
    wanted_types, wanted_tables = set(types), set(tables)
    table = tables_of(events)
    return [
        e
        for e in events
        if e.position > after
        and (not wanted_types or e.type in wanted_types)
        and (not wanted_tables or table[e.position] in wanted_tables)
    ]


def versions_by_stream(events: Iterable[RecordedEvent]) -> dict[str, list[int]]:
    streams: dict[str, list[int]] = {}
    for e in events:
        streams.setdefault(e.stream_id, []).append(e.version)
    return streams


def wait_until(done: Callable[[], bool], step: Callable[[], object] = lambda: None) -> None:
    """Run ``step`` until ``done``; fail at the deadline (no fixed sleeps)."""
    deadline = time.monotonic() + DEADLINE
    while not done():
        assert time.monotonic() < deadline, "not done by the deadline"
        step()
        time.sleep(0.005)


def scalar(pool: Pool, sql: str, *params: Any) -> Any:
    with pool.connection() as connection:
        row = connection.execute(sql, params).fetchone()
    assert row is not None
    return row[0]
