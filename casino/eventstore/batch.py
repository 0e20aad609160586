"""A unit of work's statements sent to Postgres in one go (libpq's pipeline mode).

psycopg's own pipeline sends every statement as it is queued: it flushes the socket
and polls it after each one, so a command's ten statements (BEGIN, the read models,
``events_commit()``, COMMIT) cost ten sends, ten polls and ten wake-ups of the server.
On this machine such a batch took 235 us of client CPU that way, and 47 us sent at
once. Here the statements queue in libpq's buffer and leave in one flush behind one
Sync.

Semantics are the protocol's: the statements run in order, and after the first error
the server skips the rest up to the Sync. That error is raised once every result has
been read and the failed transaction rolled back here, so the connection is idle
again either way. (Rolled back here, not by psycopg's ``rollback()``, which also drops
every prepared statement of the connection.) Parameters are adapted by psycopg before
anything is sent, all in text format, with every integer declared int8: the value
reads the same, and a statement keeps one shape whatever the size of its numbers. So
an integer parameter must not pick a function or operator that has no bigint version
(``substr(t, $1)``: cast it, ``$1::integer``); the read models' statements never do.

A statement is prepared, once per connection, the second time it is run there; one
that is run once (a rare shape of a multi-row INSERT) is not, nor is a ``PlanEachRun``,
and at most ``MAX_PREPARED`` are. Prepared statements found gone (psycopg drops them
all on a connection that ran DDL) or stale (a schema change altered a result type) are
deallocated and the batch is run again, once: a failed batch left nothing behind.
Should anything interrupt the exchange half-way, the connection is closed: its state
is unknown, and the pool replaces a closed connection.
"""

from __future__ import annotations

import functools
import select
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from psycopg import Connection, abc, errors, postgres, pq
from psycopg.adapt import PyFormat, Transformer
from psycopg.pq.abc import PGconn, PGresult

from casino.eventstore.unit_of_work import PlanEachRun

MAX_PREPARED = 256
PREPARE_ON_USE = 2
# Raised by a prepared statement that is gone (26000) or whose plan's result type a
# schema change altered (0A000): the connection's statements are prepared anew.
_PREPARED_STATEMENT_TROUBLE = frozenset({b"26000", b"0A000"})
_SQLSTATE = pq.DiagnosticField.SQLSTATE
# psycopg types each integer by its size (int2, int4 or int8); all declared int8 here.
_INT8 = postgres.types["int8"].oid
_AS_INT8 = {postgres.types[name].oid: _INT8 for name in ("int2", "int4")}


Key = tuple[bytes, tuple[int, ...]]  # a statement and its parameter types


@dataclass
class _PreparedStatements:
    """One connection's prepared statements by name, and how often others were run
    (forgotten now and then: only a count's first steps matter). Names are never
    reused, so one forgotten here but still on the server never collides."""

    names: dict[Key, bytes] = field(default_factory=dict)
    uses: dict[Key, int] = field(default_factory=dict)
    made: int = 0

    def name_for(self, key: Key) -> tuple[bytes | None, bool]:
        """The statement's name, and whether it is to be prepared now; no name: run it
        unprepared."""
        name = self.names.get(key)
        if name is not None:
            return name, False
        if len(self.uses) > 4 * MAX_PREPARED:
            self.uses.clear()
        self.uses[key] = uses = self.uses.get(key, 0) + 1
        if uses < PREPARE_ON_USE or len(self.names) >= MAX_PREPARED:
            return None, False
        self.made += 1
        self.names[key] = name = b"casino_%d" % self.made
        return name, True


_prepared: weakref.WeakKeyDictionary[Connection[Any], _PreparedStatements] = (
    weakref.WeakKeyDictionary()
)


# Each connection's transformer for statements whose parameters are all text, integers,
# booleans or NULL (a command's events_commit() call), kept: a new one looks up every
# type's dumper again (5.3 us against 2.0 us for that call's nine parameters). It is
# made from the connection's adapters, not from the connection: a transformer refers
# to what it was made from, and one referring to its connection would keep it alive
# through this table. Those four types are written alike with or without a connection,
# text as UTF-8, so it is kept only while the client encoding is UTF8; any other
# statement's parameters (bytes, for one, are escaped as the connection says) get a
# transformer made from the connection, once per batch. Like any transformer, it keeps
# the dumper it found for each type: the store's connections register no adapters of
# their own once made.
_PLAIN = frozenset({str, int, bool, type(None)})
_kept: weakref.WeakKeyDictionary[Connection[Any], abc.Transformer] = weakref.WeakKeyDictionary()


def _kept_dumper(conn: Connection[Any]) -> abc.Transformer | None:
    if conn.pgconn.parameter_status(b"client_encoding") != b"UTF8":
        return None
    dumper = _kept.get(conn)
    if dumper is None:
        dumper = _kept[conn] = Transformer(conn.adapters)
    return dumper


class _Adapted(NamedTuple):  # (a named tuple: a frozen dataclass takes twice as long to make)
    sql: bytes
    values: Sequence[Any]
    types: tuple[int, ...]  # values are all in text format
    prepare: bool = True


def run_batch(
    conn: Connection[Any], statements: Sequence[tuple[str, Sequence[Any]]], rows_of: int
) -> Callable[[], list[tuple[Any, ...]]]:
    """Run ``statements`` (with native ``$n`` placeholders) in order, in one exchange,
    on a connection in no transaction, and answer how to load the rows of statement
    ``rows_of``; raise the error of the first that failed, with the connection idle
    again.

    The rows are parsed only when loaded: most commands never look at what the log
    recorded, and parsing a timestamp with time zone (converted to the session's zone)
    was the costliest step of reading the reply. The loaders are made here, while the
    connection is in hand (they read its time zone); the rows can be loaded later, on
    any thread."""
    kept = _kept_dumper(conn)  # None unless the client encoding is UTF8
    connected = Transformer.from_context(conn) if kept is None else None
    encoding = connected.encoding if connected is not None else "utf-8"
    adapted = []
    for sql, params in statements:
        if kept is not None and all(type(param) in _PLAIN for param in params):
            dumper = kept
        else:
            dumper = connected = connected or Transformer.from_context(conn)
        adapted.append(
            _adapt(dumper, sql.encode(encoding), params, not isinstance(sql, PlanEachRun))
        )
    prepared = _prepared.get(conn)
    if prepared is None:  # (setdefault would build a record and a weak reference each time)
        prepared = _prepared[conn] = _PreparedStatements()
    results, error = _exchange(conn, prepared, adapted)
    if error is not None:
        _roll_back(conn, prepared)
        if error.error_field(_SQLSTATE) in _PREPARED_STATEMENT_TROUBLE:
            _deallocate_all(conn, prepared)
            results, error = _exchange(conn, prepared, adapted)
            if error is not None:
                _roll_back(conn, prepared)
    if error is not None:
        raise errors.error_from_result(error, encoding=encoding)
    answer = results[rows_of]
    if answer.status != pq.ExecStatus.TUPLES_OK:
        return list
    # A transformer made from the connection for this batch's parameters can read its
    # reply too (the kept one cannot: it has no connection to read the time zone from).
    transformer = connected or Transformer.from_context(conn)
    transformer.set_pgresult(answer)
    return functools.partial(transformer.load_rows, 0, answer.ntuples, tuple)


def _roll_back(conn: Connection[Any], prepared: _PreparedStatements) -> None:
    if conn.info.transaction_status != pq.TransactionStatus.IDLE:
        _, error = _exchange(conn, prepared, [_Adapted(b"ROLLBACK", (), (), prepare=False)])
        if error is not None:
            raise errors.error_from_result(error, encoding=conn.info.encoding)


def _deallocate_all(conn: Connection[Any], prepared: _PreparedStatements) -> None:
    """Deallocate this module's prepared statements still on the server (only theirs:
    psycopg keeps its own), and forget them all."""
    prepared.names.clear()
    listed = _exchange(conn, prepared, [_Adapted(_OURS, (), (), prepare=False)])[0][0]
    names = [listed.get_value(row, 0) or b"" for row in range(listed.ntuples)]
    if names:
        deallocations = [
            _Adapted(b'DEALLOCATE "%s"' % name, (), (), prepare=False) for name in names
        ]
        _exchange(conn, prepared, deallocations)


_OURS = b"SELECT name FROM pg_prepared_statements WHERE name LIKE 'casino\\_%'"


def _exchange(
    conn: Connection[Any],
    prepared: _PreparedStatements,
    statements: Sequence[_Adapted],
) -> tuple[list[PGresult], PGresult | None]:
    """Each statement's result, and the first error."""
    pgconn = conn.pgconn
    made: dict[Key, int] = {}  # prepared here -> where its result comes
    answers: list[int] = []  # where each statement's result comes among all results
    try:
        pgconn.enter_pipeline_mode()
        sent = 0
        for statement in statements:
            key = (statement.sql, statement.types)
            name, prepare = prepared.name_for(key) if statement.prepare else (None, False)
            if prepare and name is not None:
                pgconn.send_prepare(name, statement.sql, param_types=statement.types)
                made[key] = sent
                sent += 1
            _send(pgconn, name, statement)
            answers.append(sent)
            sent += 1
        pgconn.pipeline_sync()
        _flush(pgconn)
        results, error = _collect(pgconn)
        pgconn.exit_pipeline_mode()
    except BaseException:
        conn.close()  # half-way through the protocol: no state worth keeping
        raise
    for key, index in made.items():  # those queued behind an error were never made
        if results[index].status != pq.ExecStatus.COMMAND_OK:
            prepared.names.pop(key, None)
    return [results[index] for index in answers], error


def _adapt(
    transformer: abc.Transformer, sql: bytes, params: Sequence[Any], prepare: bool = True
) -> _Adapted:
    if not params:  # (the transformer would still hold the previous statement's types)
        return _Adapted(sql, (), (), prepare)
    values = transformer.dump_sequence(params, [PyFormat.TEXT] * len(params))
    return _Adapted(sql, values, _declared(tuple(transformer.types or ())), prepare)


@functools.lru_cache(maxsize=1024)
def _declared(types: tuple[int, ...]) -> tuple[int, ...]:
    # A statement's parameter types repeat with its shape: mapped once per shape, not
    # once per parameter of every statement run (a deal's batch has hundreds).
    return tuple(_AS_INT8.get(oid, oid) for oid in types)


def _send(pgconn: PGconn, name: bytes | None, statement: _Adapted) -> None:
    if name is None:
        pgconn.send_query_params(statement.sql, statement.values, param_types=statement.types)
    else:
        pgconn.send_query_prepared(name, statement.values)


def _wait(pgconn: PGconn, events: int) -> int:
    poller = select.poll()
    poller.register(pgconn.socket, events)
    ready = 0
    while not ready:  # poll releases the GIL while it waits
        ready = sum(event for _, event in poller.poll())
    return ready


def _flush(pgconn: PGconn) -> None:
    # Results arriving while a large batch is still being sent are read into libpq's
    # buffer, so that neither side waits on the other.
    while pgconn.flush():
        if _wait(pgconn, select.POLLIN | select.POLLOUT) & select.POLLIN:
            pgconn.consume_input()


def _collect(pgconn: PGconn) -> tuple[list[PGresult], PGresult | None]:
    """Every result up to the Sync, in order (one per message sent), and the first
    error among them."""
    results: list[PGresult] = []
    error: PGresult | None = None
    while True:
        while pgconn.is_busy():
            _wait(pgconn, select.POLLIN)
            pgconn.consume_input()
        result = pgconn.get_result()
        if result is None:
            continue  # the end of one statement's results
        status = result.status
        if status == pq.ExecStatus.PIPELINE_SYNC:
            return results, error
        results.append(result)
        ok = status in (pq.ExecStatus.COMMAND_OK, pq.ExecStatus.TUPLES_OK)
        if error is None and not ok and status != pq.ExecStatus.PIPELINE_ABORTED:
            error = result
