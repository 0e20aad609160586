"""What only the Postgres store does: read-model statements in the append's transaction,
joining a caller's transaction, and recovering from a head cache the log contradicts."""

from __future__ import annotations

import json
import logging
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import psycopg
import pytest
from psycopg import Connection, sql
from psycopg_pool import ConnectionPool

from casino.db.connection import create_pool
from casino.eventstore import ConcurrencyError
from casino.eventstore.postgres import _COMMIT, PostgresEventStore
from tests.integration.eventstore.helpers import events, new_stream, wait_until

pytestmark = pytest.mark.integration


@pytest.fixture
def read_model(pool: ConnectionPool[Connection[Any]]) -> Iterator[sql.Identifier]:
    table = sql.Identifier(f"rm_test_{uuid.uuid4().hex}")
    with pool.connection() as conn:
        conn.execute(sql.SQL("CREATE TABLE {} (stream_id text PRIMARY KEY, n int)").format(table))
    yield table
    with pool.connection() as conn:
        conn.execute(sql.SQL("DROP TABLE {}").format(table))


def rows(pool: ConnectionPool[Connection[Any]], table: sql.Identifier) -> list[tuple[str, int]]:
    with pool.connection() as conn:
        query = sql.SQL("SELECT stream_id, n FROM {} ORDER BY stream_id").format(table)
        return [(r[0], r[1]) for r in conn.execute(query).fetchall()]


def insert(table: sql.Identifier) -> str:
    return sql.SQL("INSERT INTO {} (stream_id, n) VALUES (%s, %s)").format(table).as_string()


def test_read_models_commit_with_the_events(
    pool: ConnectionPool[Connection[Any]],
    event_store: PostgresEventStore,
    read_model: sql.Identifier,
) -> None:
    stream = new_stream()
    with event_store.transaction() as uow:
        uow.append(stream, 0, events("A", "B"))
        uow.execute(insert(read_model), (stream, 2))
    assert rows(pool, read_model) == [(stream, 2)]
    assert event_store.stream_version(stream) == 2


def test_a_refused_append_takes_its_read_models_with_it(
    pool: ConnectionPool[Connection[Any]],
    event_store: PostgresEventStore,
    read_model: sql.Identifier,
) -> None:
    stream = new_stream()
    event_store.append(stream, 0, events("A"))
    with pytest.raises(ConcurrencyError), event_store.transaction() as uow:
        uow.execute(insert(read_model), (stream, 1))
        uow.append(stream, 0, events("B"))
    assert rows(pool, read_model) == []


def test_a_failing_read_model_statement_takes_the_events_with_it(
    pool: ConnectionPool[Connection[Any]],
    event_store: PostgresEventStore,
    read_model: sql.Identifier,
) -> None:
    stream = new_stream()
    with pytest.raises(psycopg.errors.UniqueViolation), event_store.transaction() as uow:
        uow.append(stream, 0, events("A"))
        uow.execute(insert(read_model), (stream, 1))
        uow.execute(insert(read_model), (stream, 2))
    assert event_store.stream_version(stream) == 0
    assert rows(pool, read_model) == []
    with pool.connection() as conn:  # the pooled connection came back clean
        assert conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE


def test_a_callers_transaction_decides(database_url: str, event_store: PostgresEventStore) -> None:
    kept, dropped = new_stream(), new_stream()
    with psycopg.connect(database_url) as conn:
        event_store.append(dropped, 0, events("A"), connection=conn)
        conn.rollback()
        with conn.transaction():
            event_store.append(kept, 0, events("A"), connection=conn)
    assert (event_store.stream_version(kept), event_store.stream_version(dropped)) == (1, 0)
    # Nothing of the rolled-back append was taken for a head: appending at 0 works.
    event_store.append(dropped, 0, events("A"))


def test_a_head_cache_the_log_contradicts_is_corrected_from_the_log(
    fresh_database_url: str,
) -> None:
    stream = new_stream()
    with create_pool(fresh_database_url, max_size=2) as pool:
        store = PostgresEventStore(pool)
        [first] = store.append(stream, 0, events("A"))  # cached as the head
        with psycopg.connect(fresh_database_url, autocommit=True) as superuser:
            superuser.execute("SET session_replication_role = replica")  # bypass the triggers
            superuser.execute(
                "UPDATE events SET hash = %s WHERE stream_id = %s", ("f" * 64, stream)
            )
        [second] = store.append(stream, 1, events("B"))
    assert second.previous_hash == "f" * 64 != first.hash


ZERO, DIGEST = "0" * 64, "a" * 64


def event(stream: str, version: int = 1, previous: str = ZERO) -> list[Any]:
    """One item of events_commit()'s JSON array of events (of type A, empty data)."""
    return [stream, version, "A", 1, {}, {}, previous, DIGEST]


def commit_directly(
    pool: ConnectionPool[Connection[Any]],
    stream: str,
    *,
    head: tuple[str, int] | None = None,
    given: list[Any] | None = None,
) -> None:
    """Call events_commit() as no store would: two events of ``stream`` (versions 1 and
    2), or the events ``given``, following ``head`` (the stream and version given as
    its head; by default the stream itself at 0); the idempotency key is the stream id."""
    head_stream, head_version = head or (stream, 0)
    arguments = [
        "test", stream, "fp", "{}", 201,
        f"{{{head_stream}}}", f"{{{head_version}}}", f"{{{ZERO}}}",
        json.dumps([event(stream), event(stream, 2, DIGEST)] if given is None else given),
    ]  # fmt: skip
    with pool.connection() as conn:
        conn.execute(_COMMIT, arguments)


def nothing_written(pool: ConnectionPool[Connection[Any]], stream: str) -> bool:
    with pool.connection() as conn:
        events = conn.execute("SELECT count(*) FROM events WHERE stream_id = %s", (stream,))
        keys = conn.execute("SELECT count(*) FROM idempotency_keys WHERE key = %s", (stream,))
        return events.fetchone() == (0,) and keys.fetchone() == (0,)


def one_event(stream: str, heads: Sequence[str | None]) -> list[Any]:
    """events_commit()'s arguments for event A as version 1 of ``stream``, with ``heads``
    (stream ids, versions, hashes) as given; the idempotency key is the stream id."""
    return ["test", stream, "fp", "{}", 201, *heads, json.dumps([event(stream)])]


@pytest.mark.parametrize(
    "shape",
    [
        lambda stream: event(stream)[:7],  # an item short
        lambda stream: [*event(stream), "more"],  # an item too many
        lambda stream: [None, *event(stream)[1:]],  # no stream id
        lambda stream: [new_stream(), *event(stream)[1:]],  # a stream without a head
    ],
)
def test_events_commit_refuses_an_event_that_is_not_its_eight_items_with_a_head(
    pool: ConnectionPool[Connection[Any]], shape: Callable[[str], Any]
) -> None:
    # The function takes versions and links from its caller (UnitOfWork.chain), so it
    # insists at least that every event has its eight items and its stream a head, so
    # that none goes unchecked: else the event's stream id reads as NULL (0024).
    stream = new_stream()
    refused = pytest.raises(psycopg.errors.NotNullViolation, match='"stream_id"')
    with refused:
        commit_directly(pool, stream, given=[event(stream), shape(stream)])
    assert nothing_written(pool, stream)


@pytest.mark.parametrize("shape", [{"0": "stream"}, "A", None])
def test_events_commit_refuses_an_event_that_is_not_an_array(
    pool: ConnectionPool[Connection[Any]], shape: Any
) -> None:
    stream = new_stream()
    refused = pytest.raises(psycopg.errors.InvalidParameterValue, match="array length")
    with refused:
        commit_directly(pool, stream, given=[event(stream), shape])
    assert nothing_written(pool, stream)


@pytest.mark.parametrize(
    "heads",
    [
        ["{%(stream)s}", "{0,0}", "{%(zero)s}"],  # a version too many
        ["{%(stream)s}", "{0}", "{}"],  # no hash at all
        ["{%(stream)s,%(other)s}", "{0}", "{%(zero)s,%(zero)s}"],  # a version short
    ],
)
def test_events_commit_refuses_heads_that_do_not_line_up(
    pool: ConnectionPool[Connection[Any]], heads: list[str]
) -> None:
    # unnest would pad a short array of the heads with NULLs, and a head with a NULL
    # hash or version would go unchecked, not into the log: the heads are counted.
    stream, other = new_stream(), new_stream()
    names = {"stream": stream, "other": other, "zero": "0" * 64}
    refused = pytest.raises(psycopg.errors.InvalidParameterValue, match="heads must line up")
    with refused, pool.connection() as conn:
        conn.execute(_COMMIT, one_event(stream, [head % names for head in heads]))
    assert nothing_written(pool, stream)


def test_events_commit_checks_every_head_against_the_log(
    pool: ConnectionPool[Connection[Any]],
) -> None:
    stream = new_stream()
    with pytest.raises(psycopg.Error) as refused:
        commit_directly(pool, stream, head=(stream, 1))  # the stream is new: at version 0
    assert refused.value.sqlstate == "ES409"
    assert nothing_written(pool, stream)
    commit_directly(pool, stream)
    with pool.connection() as conn:
        rows = conn.execute(
            "SELECT version FROM events WHERE stream_id = %s ORDER BY position", (stream,)
        ).fetchall()
    assert rows == [(1,), (2,)]


def test_events_commit_refuses_a_stream_appended_to_without_its_heads_hash(
    pool: ConnectionPool[Connection[Any]],
) -> None:
    # A head without a hash is a stream only read (its version alone is checked); the
    # chain of a stream appended to links onto its head's hash, so it must be given.
    stream = new_stream()
    refused = pytest.raises(psycopg.errors.InvalidParameterValue, match="has no hash")
    with refused, pool.connection() as conn:
        conn.execute(_COMMIT, one_event(stream, [f"{{{stream}}}", "{0}", "{NULL}"]))
    assert nothing_written(pool, stream)


@pytest.mark.parametrize(
    "heads",
    [
        ["{%(read)s,%(appended)s}", "{0,0}", "{%(zero)s,NULL}"],  # not the first head
        ["[0:1]={%(read)s,%(appended)s}", "{0,0}", "[0:1]={%(zero)s,NULL}"],  # from 0
        ["{{%(read)s},{%(appended)s}}", "{{0},{0}}", "{{%(zero)s},{NULL}}"],  # two dims
    ],
)
def test_events_commit_finds_a_missing_heads_hash_in_arrays_of_any_shape(
    pool: ConnectionPool[Connection[Any]], heads: list[str]
) -> None:
    # The function looks for a head without a hash only when array_position finds a
    # NULL, or cannot look (an array of more than one dimension): whatever the shape,
    # the second head, appended to without its hash, is refused before the lock.
    read, appended = new_stream(), new_stream()
    names = {"read": read, "appended": appended, "zero": "0" * 64}
    arguments = one_event(appended, [head % names for head in heads])
    refused = pytest.raises(psycopg.errors.InvalidParameterValue, match="has no hash")
    with refused, pool.connection() as conn:
        conn.execute(_COMMIT, arguments)
    assert nothing_written(pool, appended) and nothing_written(pool, read)


def test_events_commit_reports_a_stale_version_before_a_moved_hash(
    pool: ConnectionPool[Connection[Any]],
) -> None:
    # Three streams at version 2; a command that read them: the first with a wrong hash,
    # the second and third at the wrong version. A version is reported before a hash
    # (the store retries a moved hash, never a stale version), the first given first.
    zero, digest = "0" * 64, "a" * 64
    streams = [new_stream() for _ in range(3)]
    for stream in streams:
        commit_directly(pool, stream)

    def refusal(heads: list[tuple[str, int, str]]) -> psycopg.Error:
        arguments = [
            "test", new_stream(), "fp", "{}", 201,
            "{" + ",".join(s for s, _, _ in heads) + "}",
            "{" + ",".join(str(v) for _, v, _ in heads) + "}",
            "{" + ",".join(h for _, _, h in heads) + "}",
            "[]",
        ]  # fmt: skip
        with pytest.raises(psycopg.Error) as refused, pool.connection() as conn:
            conn.execute(_COMMIT, arguments)
        return refused.value

    moved, stale, staler = (streams[0], 2, zero), (streams[1], 1, digest), (streams[2], 3, digest)
    error = refusal([moved, stale, staler])
    assert error.sqlstate == "ES409"
    assert json.loads(error.diag.message_detail or "") == {
        "stream_id": streams[1],
        "expected": 1,
        "actual": 2,
    }
    error = refusal([moved, staler, stale])
    assert error.sqlstate == "ES409" and streams[2] in str(error)
    error = refusal([(streams[2], 2, digest), moved])
    assert error.sqlstate == "ES412" and f"stream {streams[0]} version 2 has hash" in str(error)


def test_events_commit_checks_heads_given_in_arrays_of_any_shape(
    pool: ConnectionPool[Connection[Any]],
) -> None:
    # A caller may pass arrays that do not start at 1, or have two dimensions: every
    # head is still checked (a subscript [i] once read NULL there and let a stale head by).
    zero = "0" * 64
    at_one, at_zero = new_stream(), new_stream()
    commit_directly(pool, at_one)  # versions 1 and 2
    stale_append = [
        "test", new_stream(), "fp", "{}", 201, f"[0:0]={{{at_one}}}", "{0}", f"{{{zero}}}",
        json.dumps([event(at_one)]),
    ]  # fmt: skip
    stale_reads = [
        "test", new_stream(), "fp", "{}", 201, f"[0:1]={{{at_zero},{at_one}}}", "{0,0}",
        "{NULL,NULL}", "[]",
    ]  # fmt: skip
    two_dimensions = [
        "test", new_stream(), "fp", "{}", 201, f"{{{{{at_one}}}}}", "{{0}}", "{{NULL}}", "[]",
    ]  # fmt: skip
    for arguments in (stale_append, stale_reads, two_dimensions):
        with pytest.raises(psycopg.Error) as refused, pool.connection() as conn:
            conn.execute(_COMMIT, arguments)
        assert refused.value.sqlstate == "ES409", arguments
        assert json.loads(refused.value.diag.message_detail or "") == {
            "stream_id": at_one,
            "expected": 0,
            "actual": 2,
        }
        assert nothing_written(pool, str(arguments[1]))
    with pool.connection() as conn:
        versions = conn.execute("SELECT max(version) FROM events WHERE stream_id = %s", (at_one,))
        assert versions.fetchone() == (2,)


_PLAIN_INSERT = (
    "INSERT INTO events (stream_id, version, type, schema_version, data, metadata,"
    " previous_hash, hash) VALUES (%s, 1, 'A', 1, '{}', '{}', %s, %s)"
)
_MY_ADVISORY_LOCKS = """
SELECT count(*) FILTER (WHERE granted), count(*) FILTER (WHERE NOT granted) FROM pg_locks
 WHERE locktype = 'advisory' AND pid = %s
"""


_TRIGGER_CALLS = """
SELECT coalesce(sum(calls), 0) FROM pg_stat_xact_user_functions
 WHERE funcname = 'events_take_append_lock'
"""


def test_any_writer_to_the_log_holds_the_append_lock_to_its_commit(
    pool: ConnectionPool[Connection[Any]],
) -> None:
    # The statement trigger takes the lock in its WHEN condition when it can: a plain
    # INSERT, not through events_commit(), holds it until its transaction ends, and no
    # PL/pgSQL runs for it.
    with pool.connection() as writer:
        pid = writer.info.backend_pid
        writer.execute("SET track_functions = 'pl'")
        with writer.transaction():
            writer.execute(_PLAIN_INSERT, (new_stream(), "0" * 64, "a" * 64))
            assert writer.execute(_MY_ADVISORY_LOCKS, (pid,)).fetchone() == (1, 0)
            assert writer.execute(_TRIGGER_CALLS).fetchone() == (0,)
        assert writer.execute(_MY_ADVISORY_LOCKS, (pid,)).fetchone() == (0, 0)


def test_a_writer_that_finds_the_append_lock_taken_waits_for_it(
    pool: ConnectionPool[Connection[Any]],
) -> None:
    # Where the WHEN condition cannot take the lock, the trigger function waits for it.
    stream = new_stream()
    calls: list[Any] = []

    def insert_and_count() -> None:
        with writer.transaction():
            writer.execute(_PLAIN_INSERT, (stream, "0" * 64, "a" * 64))
            calls.append(writer.execute(_TRIGGER_CALLS).fetchone())

    with pool.connection() as holder, pool.connection() as writer:
        writer.execute("SET track_functions = 'pl'")
        holder.execute("SELECT pg_advisory_lock(7310293372818011001)")
        pid = writer.info.backend_pid
        insert = threading.Thread(target=insert_and_count)
        insert.start()
        try:
            wait_until(lambda: holder.execute(_MY_ADVISORY_LOCKS, (pid,)).fetchone() == (0, 1))
            written = holder.execute("SELECT count(*) FROM events WHERE stream_id = %s", (stream,))
            assert written.fetchone() == (0,)
        finally:
            holder.execute("SELECT pg_advisory_unlock(7310293372818011001)")
            insert.join()
        written = holder.execute("SELECT count(*) FROM events WHERE stream_id = %s", (stream,))
        assert written.fetchone() == (1,)
        assert calls == [(1,)]


def test_events_commit_refuses_events_whose_heads_are_missing(
    pool: ConnectionPool[Connection[Any]],
) -> None:
    # With no head arrays at all, no head could be checked: the events are refused.
    stream = new_stream()
    for heads in ([None, None, None], ["{}", "{}", "{}"]):
        refused = pytest.raises(psycopg.errors.NotNullViolation, match='"stream_id"')
        with refused, pool.connection() as conn:
            conn.execute(_COMMIT, one_event(stream, heads))
    assert nothing_written(pool, stream)


def test_a_failing_pipeline_raises_its_own_error_and_logs_nothing(
    event_store: PostgresEventStore, caplog: pytest.LogCaptureFixture
) -> None:
    # A unit with statements goes as one pipeline. Its first error comes back while the
    # rest is still being sent; the store raises that error, and the driver is left
    # nothing to log about the pipeline it aborted.
    stream = new_stream()
    with caplog.at_level(logging.WARNING):
        for _ in range(3):
            with pytest.raises(psycopg.errors.DivisionByZero), event_store.transaction() as uow:
                uow.execute("SELECT 1 / 0")
                for _ in range(300):
                    uow.execute("SELECT 1")
                uow.append(stream, 0, events("A"))
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert event_store.stream_version(stream) == 0
