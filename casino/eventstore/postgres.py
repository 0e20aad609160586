"""The event store on Postgres (psycopg 3 and a connection pool).

Global order (invariant 3): serialized appends. Every insert into ``events`` first takes
one transaction-scoped advisory lock (the "append lock", see ``sql/0001_event_log.sql``)
and holds it to the end of its transaction; Postgres releases it only after the commit
is visible. Positions are therefore drawn in commit order: once a reader has seen
position P, no event with a smaller position can appear later, and "everything after P"
is a cursor consumers can trust with no bookkeeping of their own.

Why not transaction-id snapshot filtering (deliver only rows whose xid is below
``pg_snapshot_xmin``)? Positions would still be drawn in insert order, not commit
order: a transaction that took its xid earlier can insert a larger position and be
delivered while a later one still holds a smaller position open, so consumers would
have to carry an (xid, position) cursor instead of a position; and any long write
transaction anywhere in the database would hold every feed back. The price of the
lock is that appends commit one at a time (no group commit across writers); it is
taken last in a command, after the idempotency record and the read models, so it
covers only the check of the heads, the INSERT and the COMMIT (a unit that only read
streams takes it too, for its check). ``bench/event_store.py`` measures it.

One round trip per command: a unit of work is sent as one call of ``events_commit()``
(idempotency record, version checks, inserts), behind its read-model statements in the
same exchange when it has any (``batch.run_batch``, alone or not: all sent in one
flush; psycopg's pipeline, which sends them one by one, only for a caller's own
transaction). The hashes are computed here, which needs the hash of each stream's
head; it comes from a cache of the heads this store has read or written.
A (stream, version) pair names one event forever, so a cached head is never wrong, only
possibly old: the database checks it under the lock, and the store retries once with
heads read from the database when it was not the head.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import TracebackType
from typing import Any

import orjson
import psycopg
from psycopg import Connection, Cursor, RawCursor
from psycopg.pq import TransactionStatus
from psycopg.rows import tuple_row
from psycopg_pool import ConnectionPool

from casino.db.connection import drop_prepared_statements
from casino.eventstore.batch import run_batch
from casino.eventstore.canonical import ZERO_HASH, parse_json, parse_json_fast
from casino.eventstore.head_cache import HeadCache
from casino.eventstore.model import (
    ConcurrencyError,
    EventStoreError,
    IdempotencyConflict,
    IdempotencyRecord,
    IdempotentReplay,
    NewEvent,
    RecordedEvent,
    StreamTail,
)
from casino.eventstore.unit_of_work import ChainedEvent, PlanEachRun, UnitOfWork
from casino.eventstore.upcasting import UpcasterRegistry

# SQLSTATEs raised by sql/0001_event_log.sql, and the ones of Postgres we translate.
STALE_VERSION = "ES409"
HEAD_MOVED = "ES412"
APPEND_ONLY = "ES403"
_UNIQUE_VIOLATION = "23505"

_COMMIT = (
    "SELECT out_stream_id, out_version, out_position, out_recorded_at"
    " FROM events_commit(%s, %s, %s, %s::jsonb, %s::integer,"
    " %s::text[], %s::integer[], %s::text[], %s::jsonb)"
)
_HEADS = """
SELECT s.stream_id, h.version, h.hash
  FROM unnest(%s::text[]) AS s (stream_id)
  JOIN LATERAL (SELECT e.version, e.hash FROM events e
                 WHERE e.stream_id = s.stream_id
                 ORDER BY e.version DESC LIMIT 1) AS h ON true
"""
# data and metadata come back as text and are parsed by parse_json, so numbers read
# back exactly as they were hashed.
_COLUMNS = (
    "position, stream_id, version, type, schema_version, data::text, metadata::text,"
    " recorded_at, previous_hash, hash"
)
_READ_STREAM = (
    f"SELECT {_COLUMNS} FROM events WHERE stream_id = %s AND version > %s ORDER BY version"
)
_QUALIFIED = ", ".join(f"e.{column}" for column in _COLUMNS.replace(" ", "").split(","))
_READ_LAST = f"""
SELECT {_QUALIFIED}, e.version
  FROM unnest(%s::text[]) AS s (stream_id)
  JOIN LATERAL (SELECT * FROM events x WHERE x.stream_id = s.stream_id
                 ORDER BY x.version DESC LIMIT 1) AS e ON true
"""
# The latest event of a type the log indexes so (sql/0023_...: the types whose latest
# events commands fold a stream from) is one probe of that partial index, found by the
# planner because the query repeats the index's condition; any other type's is found by
# walking the stream back from its head. The second branch runs only for such a type.
_READ_LATEST_OF_TYPES = f"""
SELECT {_QUALIFIED},
       (SELECT max(h.version) FROM events h WHERE h.stream_id = s.stream_id)
  FROM unnest(%s::text[]) AS s (stream_id)
 CROSS JOIN unnest(%s::text[]) AS t (type)
  JOIN LATERAL ((SELECT * FROM events x
                  WHERE x.stream_id = s.stream_id AND x.type = t.type
                    AND x.type = ANY (events_latest_indexed_types())
                  ORDER BY x.version DESC LIMIT 1)
                UNION ALL
                (SELECT * FROM events x
                  WHERE x.stream_id = s.stream_id AND x.type = t.type
                    AND NOT t.type = ANY (events_latest_indexed_types())
                  ORDER BY x.version DESC LIMIT 1)) AS e ON true
"""
_READ_ALL = f"SELECT {_COLUMNS} FROM events WHERE position > %s ORDER BY position LIMIT %s"
_STREAM_VERSION = "SELECT coalesce(max(version), 0) FROM events WHERE stream_id = %s"
_FIND_IDEMPOTENT = (
    "SELECT scope, key, fingerprint, response::text, status, created_at"
    " FROM idempotency_keys WHERE scope = %s AND key = %s"
)


# Postgres array literals, made here: psycopg's own list adaptation costs more than the
# rest of a command put together. Every text element is quoted (so any text goes in as
# it is, the word NULL included), except hex hashes, which need no quoting.


def _text_array(items: Iterable[str]) -> str:
    return "{" + ",".join([_quoted(item) for item in items]) + "}"


def _hex_array(items: Sequence[str | None]) -> str:
    return "{" + ",".join([item or "NULL" for item in items]) + "}"


def _int_array(items: Sequence[int]) -> str:
    return "{" + ",".join(map(str, items)) + "}"


@functools.lru_cache(maxsize=1024)
def _native_placeholders(query: str) -> str | None:
    """``query`` with its ``%s`` placeholders numbered as Postgres's own ``$1, $2, ...``,
    or None when it has any other ``%``. psycopg converts a query on every execution
    when it has more than 50 parameters (it caches only smaller ones), and read-model
    upserts of many rows have hundreds."""
    parts = query.split("%s")
    if any("%" in part for part in parts):
        return None
    return "".join(f"{part}${number}" for number, part in enumerate(parts[:-1], 1)) + parts[-1]


def _list(value: list[Any]) -> Any:
    # A list of integers (the read models' integer[] columns) as an array literal:
    # adapting lists is the slowest thing psycopg does.
    return _int_array(value) if all(type(item) is int for item in value) else value


def _element(text: str) -> str:
    """``text`` as one quoted element of an array literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


# Stream ids and event types repeat: quote each once.
_quoted = functools.lru_cache(maxsize=4096)(_element)


def _commit_params(uow: UnitOfWork, chained: list[list[ChainedEvent]]) -> tuple[Any, ...]:
    """events_commit()'s arguments: the idempotency record, each stream's head as the
    chain assumes it (or as the command read it, for a stream only read), as parallel
    arrays, and the events as one JSON array (sql/0017_events_commit_arrays.sql,
    sql/0018_...read_streams.sql, sql/0019_..._heads_one_by_one.sql: which failing head
    is reported; 0020: any array shape; 0021: the same function over the log's
    domain-typed columns; 0022: without function scans; 0023: less to prepare per call;
    0024: the events as one JSON array). Event data and metadata go as the canonical
    JSON already made for the hashes, spliced into the array by orjson."""
    record = uow.idempotency
    heads: dict[str, tuple[int, str | None]] = {}
    for batch in chained:
        first = batch[0]
        heads.setdefault(first.stream_id, (first.version - 1, first.previous_hash))
    if uow.expected:
        for stream_id, version in uow.read_only_expectations().items():
            heads[stream_id] = (version, None)  # read, not appended to: its version alone
    events = orjson.dumps(
        [
            (
                event.stream_id,
                event.version,
                event.type,
                event.schema_version,
                orjson.Fragment(event.data_json),
                orjson.Fragment(event.metadata_json),
                event.previous_hash,
                event.hash,
            )
            for batch in chained
            for event in batch
        ]
    )
    return (
        record.scope if record else None,
        record.key if record else None,
        record.fingerprint if record else None,
        uow.idempotency_response_json.decode() if record else None,
        record.status if record else None,
        _text_array(heads),
        _int_array([version for version, _ in heads.values()]),
        _hex_array([digest for _, digest in heads.values()]),
        events.decode(),
    )


def _native(sql: Any, params: Any) -> tuple[str, list[Any]] | None:
    """A read-model statement with native ``$n`` placeholders (still a ``PlanEachRun`` if
    it was one) and its values, integer lists as array literals; None when it is not
    plain SQL text with positional ``%s`` parameters."""
    native = _native_placeholders(sql) if isinstance(sql, str) else None
    if native is None or not isinstance(params, Sequence):
        return None
    if isinstance(sql, PlanEachRun):
        native = PlanEachRun(native)
    return native, [_list(v) if type(v) is list else v for v in params]


def _native_commit() -> str:
    native = _native_placeholders(_COMMIT)
    if native is None:  # the events_commit() call has no other %
        raise ValueError("the events_commit() call must take %s parameters only")
    return native


_NATIVE_COMMIT = _native_commit()


def _fetch(conn: Connection[Any], query: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    """The rows of a read, prepared on the connection. A schema change that alters the
    type of a column a prepared read returns (0021 made the log's columns domains) makes
    Postgres refuse that statement for as long as the connection lives: 0A000, "cached
    plan must not change result type". Outside a transaction, the connection's prepared
    statements are dropped then and the read runs again, once; inside one, the caller
    rolls back, which drops them too."""
    cursor = conn.cursor(row_factory=tuple_row)
    try:
        return cursor.execute(query, params, prepare=True).fetchall()
    except psycopg.errors.FeatureNotSupported:
        if not drop_prepared_statements(conn):
            raise
        return cursor.execute(query, params, prepare=True).fetchall()


def _batch(
    uow: UnitOfWork, params: tuple[Any, ...]
) -> tuple[list[tuple[str, Sequence[Any]]], int] | None:
    """The unit's statements for ``run_batch``, in an explicit BEGIN/COMMIT (its extent
    never depends on where a Sync falls), and where ``events_commit()`` is among them;
    None when a statement is not plain SQL text with positional ``%s`` parameters (it
    goes through psycopg's pipeline then).

    A unit with no read-model statements is the ``events_commit()`` call alone: a single
    statement is its own transaction, atomic without BEGIN/COMMIT. It goes through
    ``run_batch`` too, not through a psycopg cursor: 4-5% less time per command
    (``bench/event_store.py``'s command, about 30 us on this machine)."""
    if not uow.statements:
        return [(_NATIVE_COMMIT, params)], 0
    statements: list[tuple[str, Sequence[Any]]] = [("BEGIN", ())]
    for sql, statement_params in uow.statements:
        native = _native(sql, statement_params)
        if native is None:
            return None
        statements.append(native)
    statements.append((_NATIVE_COMMIT, params))
    statements.append(("COMMIT", ()))
    return statements, len(statements) - 2


class PostgresEventStore:
    """The ``EventStore`` on Postgres; thread-safe, one instance per process."""

    def __init__(
        self,
        pool: ConnectionPool[Connection[Any]],
        *,
        upcasters: UpcasterRegistry | None = None,
        head_cache_size: int = 10_000,
    ) -> None:
        self._pool = pool
        self._upcasters = upcasters or UpcasterRegistry()
        self._heads = HeadCache(head_cache_size)

    # -- writing ---------------------------------------------------------------------

    def transaction(self, connection: Connection[Any] | None = None) -> _Transaction:
        """Collect a command's writes; commit them all when the block ends.

        With ``connection``, the writes join that connection's transaction when it has one
        open (or is not in autocommit): the caller commits, and owns the outcome.
        """
        return _Transaction(self, connection)

    def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        metadata: Mapping[str, Any] | None = None,
        idempotency: IdempotencyRecord | None = None,
        connection: Connection[Any] | None = None,
    ) -> list[RecordedEvent]:
        """Append to one stream (and save ``idempotency``) in one transaction."""
        with self.transaction(connection) as uow:
            uow.append(stream_id, expected_version, events, metadata)
            if idempotency is not None:
                uow.save_idempotency(idempotency)
        return uow.recorded

    def _commit(
        self, uow: UnitOfWork, connection: Connection[Any] | None
    ) -> Callable[[], list[RecordedEvent]]:
        if uow.is_empty:
            return list
        if connection is not None:
            return self._commit_on(uow, connection)
        with self._pool.connection() as conn:
            return self._commit_on(uow, conn)

    def _commit_on(
        self, uow: UnitOfWork, conn: Connection[Any]
    ) -> Callable[[], list[RecordedEvent]]:
        owned = conn.autocommit and conn.pgconn.transaction_status == TransactionStatus.IDLE
        # A cached head may be stale only if someone else appended; then the database
        # refuses it (ES412) and one retry with heads read from the database settles it.
        for attempt in (1, 2):
            previous = self._previous_hashes(conn, uow, use_cache=owned and attempt == 1)
            chained = uow.chain(previous)
            try:
                rows = self._send(conn, uow, chained, owned)
            except psycopg.Error as error:
                idle = conn.info.transaction_status == TransactionStatus.IDLE
                if owned and not (conn.broken or conn.closed or idle):
                    conn.rollback()
                if error.sqlstate == HEAD_MOVED and owned and attempt == 1:
                    for stream_id in uow.first_expected_versions():
                        self._heads.discard(stream_id)
                    continue
                raise self._translate(error, uow) from error
            break
        if owned:  # only committed heads may be cached
            for batch in chained:
                self._heads.put(batch[-1].stream_id, batch[-1].version, batch[-1].hash)
        return lambda: self._record(chained, rows())

    def _previous_hashes(
        self, conn: Connection[Any], uow: UnitOfWork, *, use_cache: bool
    ) -> dict[str, str]:
        """The hash each stream's first pending append chains onto."""
        expected = uow.first_expected_versions()
        hashes: dict[str, str] = {}
        unknown: list[str] = []
        for stream_id, version in expected.items():
            cached = self._heads.get(stream_id) if use_cache else None
            if version == 0:
                hashes[stream_id] = ZERO_HASH  # the database checks the stream is new
            elif cached is not None and cached[0] == version:
                hashes[stream_id] = cached[1]
            else:
                unknown.append(stream_id)
        if unknown:
            rows = _fetch(conn, _HEADS, (_text_array(unknown),))
            heads = {row[0]: (row[1], row[2]) for row in rows}
            for stream_id in unknown:
                version, digest = heads.get(stream_id, (0, ZERO_HASH))
                if version != expected[stream_id]:  # stale: refuse before any write
                    raise ConcurrencyError(stream_id, expected[stream_id], version)
                hashes[stream_id] = digest
        return hashes

    def _send(
        self,
        conn: Connection[Any],
        uow: UnitOfWork,
        chained: list[list[ChainedEvent]],
        owned: bool,
    ) -> Callable[[], list[tuple[Any, ...]]]:
        """Commit the unit; answer how to load the rows events_commit() returned."""
        params = _commit_params(uow, chained)
        # A caller's transaction goes through psycopg, which knows (and opens) it.
        batch = _batch(uow, params) if owned else None
        if batch is not None:
            statements, rows_of = batch
            return run_batch(conn, statements, rows_of)
        # In a caller's transaction, or with statements run_batch cannot take. Explicit
        # BEGIN/COMMIT when owned: the transaction's extent never depends on where the
        # driver happens to place pipeline syncs. The first error may come back while
        # the rest is still being sent: it is kept, not raised inside the pipeline
        # (whose exit would then log the pipeline it found aborted), and raised after.
        first_error: psycopg.Error | None = None
        cursor = conn.cursor(row_factory=tuple_row)
        try:
            with conn.pipeline():
                try:
                    self._pipe(conn, cursor, uow, params, owned)
                except psycopg.Error as error:
                    first_error = error
        except psycopg.Error:
            if first_error is None:
                raise
        if first_error is not None:
            raise first_error
        rows = cursor.fetchall()
        return lambda: rows

    @staticmethod
    def _pipe(
        conn: Connection[Any],
        cursor: Cursor[tuple[Any, ...]],
        uow: UnitOfWork,
        params: tuple[Any, ...],
        owned: bool,
    ) -> None:
        if owned:
            conn.execute("BEGIN")
        raw = RawCursor(conn)
        for sql, statement_params in uow.statements:
            native = _native(sql, statement_params)
            prepare = False if isinstance(sql, PlanEachRun) else None
            if native is None:
                conn.execute(sql, statement_params, prepare=prepare)
            else:
                raw.execute(*native, prepare=prepare)
        cursor.execute(_COMMIT, params, prepare=True)
        if owned:
            conn.execute("COMMIT")

    def _record(
        self, chained: list[list[ChainedEvent]], rows: list[tuple[Any, ...]]
    ) -> list[RecordedEvent]:
        placed = {(row[0], row[1]): (row[2], row[3]) for row in rows}
        recorded = []
        for batch in chained:
            for event in batch:
                position, recorded_at = placed[(event.stream_id, event.version)]
                recorded.append(
                    self._upcasters.apply(
                        RecordedEvent(
                            position=position,
                            stream_id=event.stream_id,
                            version=event.version,
                            type=event.type,
                            schema_version=event.schema_version,
                            data=parse_json(event.data_json),
                            metadata=parse_json(event.metadata_json),
                            recorded_at=recorded_at,
                            previous_hash=event.previous_hash,
                            hash=event.hash,
                        )
                    )
                )
        return recorded

    def _translate(self, error: psycopg.Error, uow: UnitOfWork) -> Exception:
        """The store's own error for a refused commit, or ``error`` itself."""
        if error.sqlstate == STALE_VERSION and error.diag.message_detail:
            detail = json.loads(error.diag.message_detail)
            return ConcurrencyError(detail["stream_id"], detail["expected"], detail["actual"])
        if error.sqlstate == HEAD_MOVED:  # even fresh from the database: a changed log
            return EventStoreError(f"the stream head changed under the append: {error}")
        if error.sqlstate != _UNIQUE_VIOLATION:
            return error
        record = uow.idempotency
        if error.diag.constraint_name == "idempotency_keys_pkey" and record is not None:
            # The key's first user has committed (the INSERT waited for it): answer with it.
            existing = self.find_idempotent(record.scope, record.key)
            if existing is None:
                return error
            if existing.fingerprint != record.fingerprint:
                return IdempotencyConflict(record.scope, record.key)
            return IdempotentReplay(existing)
        if error.diag.constraint_name == "events_stream_version_key":
            # Only reachable when the caller's transaction reads an old snapshot
            # (REPEATABLE READ): the unique key still keeps the versions single.
            for stream_id, expected in uow.first_expected_versions().items():
                actual = self.stream_version(stream_id)
                if actual != expected:
                    return ConcurrencyError(stream_id, expected, actual)
        return error

    # -- reading ---------------------------------------------------------------------

    def read_stream(self, stream_id: str, after_version: int = 0) -> list[RecordedEvent]:
        """The stream's events after ``after_version``, in version order."""
        with self._pool.connection() as conn:
            rows = _fetch(conn, _READ_STREAM, (stream_id, after_version))
        events = [self._event(row) for row in rows]
        if events:
            self._heads.put(stream_id, events[-1].version, events[-1].hash)
        return events

    def read_latest(
        self, stream_ids: Sequence[str], types: Sequence[str] | None = None
    ) -> dict[str, StreamTail]:
        """For each stream: its head version and its latest event of each of ``types``
        (or its last event), in one round trip: one index probe per event of the types
        the log indexes so (a table's state types), a walk back through the stream for
        any other type."""
        with self._pool.connection() as conn:
            if types is None:
                rows = _fetch(conn, _READ_LAST, (_text_array(stream_ids),))
            else:
                rows = _fetch(
                    conn, _READ_LATEST_OF_TYPES, (_text_array(stream_ids), _text_array(types))
                )
        found: dict[str, list[RecordedEvent]] = {}
        heads: dict[str, int] = {}
        for row in rows:
            event = self._event(row[:-1])
            found.setdefault(event.stream_id, []).append(event)
            heads[event.stream_id] = row[-1]
        return {
            stream_id: StreamTail(
                heads.get(stream_id, 0),
                sorted(found.get(stream_id, []), key=lambda e: e.version),
            )
            for stream_id in stream_ids
        }

    def stream_version(self, stream_id: str) -> int:
        """The stream's current version; 0 when it has no events."""
        with self._pool.connection() as conn:
            rows = _fetch(conn, _STREAM_VERSION, (stream_id,))
        return int(rows[0][0]) if rows else 0

    def read_all(self, after_position: int = 0, limit: int = 1000) -> list[RecordedEvent]:
        """Up to ``limit`` events of the global log after ``after_position``, in order.

        Positions may have gaps (a rolled-back append still used its numbers), never a
        late arrival: a later call will not return a position below the last one seen.
        """
        if limit < 1:
            raise ValueError("limit must be at least 1")
        with self._pool.connection() as conn:
            rows = _fetch(conn, _READ_ALL, (after_position, limit))
        return [self._event(row) for row in rows]

    def find_idempotent(self, scope: str, key: str) -> IdempotencyRecord | None:
        """The stored answer for an idempotency key, if a command saved one."""
        with self._pool.connection() as conn:
            rows = _fetch(conn, _FIND_IDEMPOTENT, (scope, key))
        if not rows:
            return None
        [row] = rows
        return IdempotencyRecord(row[0], row[1], row[2], parse_json(row[3]), row[4], row[5])

    def _event(self, row: tuple[Any, ...]) -> RecordedEvent:
        event = RecordedEvent(
            position=row[0],
            stream_id=row[1],
            version=row[2],
            type=row[3],
            schema_version=row[4],
            data=parse_json_fast(row[5]),
            metadata=parse_json_fast(row[6]),
            recorded_at=row[7],
            previous_hash=row[8],
            hash=row[9],
        )
        return self._upcasters.apply(event)


class _Transaction:
    """``PostgresEventStore.transaction()``'s block: a plain object rather than a
    generator-based context manager, as every command opens one."""

    __slots__ = ("_connection", "_store", "_uow")

    def __init__(self, store: PostgresEventStore, connection: Connection[Any] | None) -> None:
        self._store = store
        self._connection = connection

    def __enter__(self) -> UnitOfWork:
        self._uow = UnitOfWork()
        return self._uow

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if kind is None:  # an exception in the block leaves no trace
            self._uow.committed(self._store._commit(self._uow, self._connection))
