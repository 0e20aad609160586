"""A unit of work's statements sent to Postgres in one go (libpq's pipeline mode).

psycopg's own pipeline sends every statement as it is queued: it flushes the socket
and polls it after each one, so a command's ten statements (BEGIN, the read models,
``events_commit()``, COMMIT) cost ten sends, ten polls and ten wake-ups of the server.
On this machine such a batch took 235 us of client CPU that way, and 47 us sent at
once. Here the statements queue in libpq's buffer and leave in one flush behind one
Sync.

Semantics are the protocol's: the statements run in order; after the first error the
server skips the rest up to the Sync, and that error is raised once every result has
been read, so the connection is left idle (or in a failed transaction, which its
owner rolls back). Parameters are adapted by psycopg, as for any query, before
anything is sent. Each distinct statement (with its parameter types) is prepared once
per connection; a connection holding ``MAX_PREPARED`` of them runs further new ones
unprepared. Should anything interrupt the exchange half-way, the connection is closed:
its state is unknown, and the pool replaces a closed connection.
"""

from __future__ import annotations

import select
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from psycopg import Connection, abc, errors, postgres, pq
from psycopg.adapt import PyFormat, Transformer
from psycopg.pq.abc import PGconn, PGresult

MAX_PREPARED = 256
# Raised by a prepared statement that is gone (26000) or whose plan's result type a
# schema change altered (0A000): the connection's statements are prepared anew.
_PREPARED_STATEMENT_TROUBLE = frozenset({b"26000", b"0A000"})
_SQLSTATE = pq.DiagnosticField.SQLSTATE
# psycopg types each integer by its size (int2, int4 or int8): declared all as int8 (in
# text format, which every parameter is sent in, the value reads the same), a statement
# keeps one shape, and so one prepared statement.
_INT8 = postgres.types["int8"].oid
_AS_INT8 = {postgres.types[name].oid: _INT8 for name in ("int2", "int4")}


@dataclass
class _PreparedStatements:
    """One connection's: (statement, parameter types) -> name. Names are never reused,
    so a statement forgotten here but still on the server never collides."""

    names: dict[tuple[bytes, tuple[int, ...]], bytes] = field(default_factory=dict)
    made: int = 0


_prepared: weakref.WeakKeyDictionary[Connection[Any], _PreparedStatements] = (
    weakref.WeakKeyDictionary()
)


@dataclass(frozen=True, slots=True)
class _Adapted:
    sql: bytes
    values: Sequence[Any]
    types: tuple[int, ...]
    formats: Sequence[pq.Format]


def run_batch(
    conn: Connection[Any], statements: Sequence[tuple[str, Sequence[Any]]], rows_of: int
) -> list[tuple[Any, ...]]:
    """Run ``statements`` (with native ``$n`` placeholders) in order, in one exchange,
    and answer the rows of statement ``rows_of``; raise the error of the first that
    failed. Run them on a connection in no transaction: a batch that fails leaves
    nothing behind (it runs in one transaction, explicit or implicit), and so one
    that fails for want of a prepared statement is simply run again."""
    encoding = conn.info.encoding
    transformer: abc.Transformer = Transformer.from_context(conn)
    adapted = [_adapt(transformer, sql.encode(encoding), params) for sql, params in statements]
    prepared = _prepared.setdefault(conn, _PreparedStatements())
    results, error = _exchange(conn, prepared, adapted)
    if error is not None and error.error_field(_SQLSTATE) in _PREPARED_STATEMENT_TROUBLE:
        # Dropped behind this module's back (psycopg deallocates every prepared
        # statement of a connection that ran DDL), or made stale by a schema change.
        prepared.names.clear()
        if conn.info.transaction_status != pq.TransactionStatus.IDLE:
            conn.rollback()
        results, error = _exchange(conn, prepared, adapted)
    if error is not None:
        raise errors.error_from_result(error, encoding=encoding)
    answer = results[rows_of]
    if answer.status != pq.ExecStatus.TUPLES_OK:
        return []
    transformer.set_pgresult(answer)
    return transformer.load_rows(0, answer.ntuples, tuple)


def _exchange(
    conn: Connection[Any], prepared: _PreparedStatements, statements: Sequence[_Adapted]
) -> tuple[list[PGresult], PGresult | None]:
    """Each statement's result, and the first error."""
    pgconn = conn.pgconn
    new: dict[tuple[bytes, tuple[int, ...]], int] = {}  # prepared here -> its result
    answers: list[int] = []  # where each statement's result comes among all results
    try:
        pgconn.enter_pipeline_mode()
        sent = 0
        for statement in statements:
            key = (statement.sql, statement.types)
            if key not in prepared.names and len(prepared.names) < MAX_PREPARED:
                new[key] = sent
                sent += 1
            _send(pgconn, prepared, statement)
            answers.append(sent)
            sent += 1
        pgconn.pipeline_sync()
        _flush(pgconn)
        results, error = _collect(pgconn)
        pgconn.exit_pipeline_mode()
    except BaseException:
        conn.close()  # half-way through the protocol: no state worth keeping
        raise
    for key, index in new.items():  # those queued behind an error were never made
        if results[index].status != pq.ExecStatus.COMMAND_OK:
            prepared.names.pop(key, None)
    return [results[index] for index in answers], error


def _adapt(transformer: abc.Transformer, sql: bytes, params: Sequence[Any]) -> _Adapted:
    if not params:  # (the transformer would still hold the previous statement's types)
        return _Adapted(sql, (), (), ())
    values = transformer.dump_sequence(params, [PyFormat.TEXT] * len(params))
    types = tuple(_AS_INT8.get(oid, oid) for oid in transformer.types or ())
    return _Adapted(sql, values, types, list(transformer.formats or ()))


def _send(
    pgconn: PGconn,
    prepared: _PreparedStatements,
    statement: _Adapted,
) -> None:
    """Queue ``statement``, prepared first if it is new and there is room."""
    key = (statement.sql, statement.types)
    name = prepared.names.get(key)
    if name is None and len(prepared.names) < MAX_PREPARED:
        prepared.made += 1
        name = b"casino_%d" % prepared.made
        pgconn.send_prepare(name, statement.sql, param_types=statement.types)
        prepared.names[key] = name
    if name is None:
        pgconn.send_query_params(
            statement.sql,
            statement.values,
            param_types=statement.types,
            param_formats=statement.formats,
        )
    else:
        pgconn.send_query_prepared(name, statement.values, param_formats=statement.formats)


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
