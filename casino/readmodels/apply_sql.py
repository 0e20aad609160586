"""Row changes as SQL statements, run in the transaction that appends their events."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any

import orjson
from psycopg import sql

from casino.eventstore.unit_of_work import PlanEachRun
from casino.readmodels.changes import TABLE_KEYS, RowChange, Update, Upsert, key_of

ARRAY_COLUMNS = frozenset({"dealt", "hand", "positions", "tile_scores", "totals"})


def _placeholder(column: str) -> sql.Composable:
    return sql.SQL("%s::integer[]") if column in ARRAY_COLUMNS else sql.SQL("%s")


def _added(table: str, column: str, value: sql.Composable) -> sql.Composable:
    operator = sql.SQL("||") if column in ARRAY_COLUMNS else sql.SQL("+")
    return sql.SQL("{t}.{c} {op} {v}").format(
        t=sql.Identifier(table), c=sql.Identifier(column), op=operator, v=value
    )


@cache
def _upsert_statement(
    table: str,
    columns: tuple[str, ...],
    keep: tuple[str, ...],
    add: tuple[str, ...],
    rows: int = 1,
) -> str:
    keys = TABLE_KEYS[table]
    assignments = []
    for column in columns:
        if column in keys or column in keep:
            continue
        excluded = sql.SQL("EXCLUDED.{}").format(sql.Identifier(column))
        value = _added(table, column, excluded) if column in add else excluded
        assignments.append(sql.SQL("{} = {}").format(sql.Identifier(column), value))
    conflict = (
        sql.SQL("DO UPDATE SET {}").format(sql.SQL(", ").join(assignments))
        if assignments
        else sql.SQL("DO NOTHING")
    )
    return (
        sql.SQL("INSERT INTO {t} ({cols}) VALUES {vals} ON CONFLICT ({keys}) {conflict}")
        .format(
            t=sql.Identifier(table),
            cols=sql.SQL(", ").join(map(sql.Identifier, columns)),
            vals=sql.SQL(", ").join(
                [sql.SQL("({})").format(sql.SQL(", ").join(_placeholder(c) for c in columns))]
                * rows
            ),
            keys=sql.SQL(", ").join(map(sql.Identifier, keys)),
            conflict=conflict,
        )
        .as_string(None)
    )


@cache
def _update_statement(
    table: str, key: tuple[str, ...], values: tuple[str, ...], add: tuple[str, ...]
) -> str:
    assignments = [
        sql.SQL("{} = {}").format(sql.Identifier(c), _placeholder(c)) for c in values
    ] + [
        sql.SQL("{} = {}").format(sql.Identifier(c), _added(table, c, _placeholder(c))) for c in add
    ]
    return (
        sql.SQL("UPDATE {t} SET {sets} WHERE {where}")
        .format(
            t=sql.Identifier(table),
            sets=sql.SQL(", ").join(assignments),
            where=sql.SQL(" AND ").join(sql.SQL("{} = %s").format(sql.Identifier(c)) for c in key),
        )
        .as_string(None)
    )


@cache
def _update_many_statement(
    table: str, key: tuple[str, ...], values: tuple[str, ...], add: tuple[str, ...]
) -> PlanEachRun:
    """One UPDATE for many rows, given as a JSON array of objects (key, values and
    additions by column name), typed by the table's own row type. The LIMIT is the
    number of rows: it cuts nothing, but tells the planner how few there are (it takes
    a set-returning function for 100 rows, and would scan a small table whole), which it
    sees because the statement is planned on every run (``PlanEachRun``)."""
    rows = sql.Identifier("v")
    assignments = [
        sql.SQL("{} = {}.{}").format(sql.Identifier(c), rows, sql.Identifier(c)) for c in values
    ] + [
        sql.SQL("{} = {}").format(
            sql.Identifier(c), _added(table, c, sql.SQL("{}.{}").format(rows, sql.Identifier(c)))
        )
        for c in add
    ]
    return PlanEachRun(
        sql.SQL(
            "UPDATE {t} SET {sets}"
            " FROM (SELECT * FROM jsonb_populate_recordset(NULL::{t}, %s::jsonb) LIMIT %s) AS {v}"
            " WHERE {where}"
        )
        .format(
            t=sql.Identifier(table),
            sets=sql.SQL(", ").join(assignments),
            v=rows,
            where=sql.SQL(" AND ").join(
                sql.SQL("{t}.{c} = {v}.{c}").format(
                    t=sql.Identifier(table), c=sql.Identifier(c), v=rows
                )
                for c in key
            ),
        )
        .as_string(None)
    )


Statement = tuple[str, list[Any]]


def statements(changes: Iterable[RowChange]) -> list[Statement]:
    """The SQL (with parameters) that applies ``changes`` to the read-model tables."""
    result: list[Statement] = []
    for change in changes:
        if isinstance(change, Upsert):
            columns = tuple(change.row)
            statement = _upsert_statement(change.table, columns, change.keep, change.add)
            result.append((statement, list(change.row.values())))
        else:
            statement = _update_statement(
                change.table, tuple(change.key), tuple(change.values), tuple(change.add)
            )
            result.append(
                (statement, [*change.values.values(), *change.add.values(), *change.key.values()])
            )
    return result


def batched_statements(changes: Sequence[RowChange]) -> list[Statement]:
    """The same changes in fewer statements: the upserts of a table become one multi-row
    INSERT, and the updates of one row become one UPDATE.

    Upserts go first, then updates, which keeps every row's own order as long as no
    upsert touches a row an earlier update changed (projections create a row, then
    update it); otherwise the changes are sent one by one, in order. Rows with the same
    key never share an INSERT (ON CONFLICT cannot change one row twice).
    """
    if not _upserts_precede_updates(changes):
        return statements(changes)
    upserts = [c for c in changes if isinstance(c, Upsert)]
    updates = [c for c in changes if isinstance(c, Update)]
    result: list[Statement] = []
    for batch in _upsert_batches(upserts):
        first = batch[0]
        statement = _upsert_statement(
            first.table, tuple(first.row), first.keep, first.add, len(batch)
        )
        result.append((statement, [v for u in batch for v in u.row.values()]))
    merged = _merged_updates(updates)
    batches = _update_batches(merged)
    if batches is None:
        result.extend(statements(merged))
        return result
    for same_shape in batches:
        if len(same_shape) == 1:
            result.extend(statements(same_shape))
            continue
        one = same_shape[0]
        statement = _update_many_statement(
            one.table, tuple(one.key), tuple(one.values), tuple(one.add)
        )
        rows = [{**u.key, **u.values, **u.add} for u in same_shape]
        try:
            result.append((statement, [orjson.dumps(rows).decode(), len(rows)]))
        except TypeError:  # a value JSON cannot carry: one statement per row
            result.extend(statements(same_shape))
    return result


def _update_batches(updates: Sequence[Update]) -> list[list[Update]] | None:
    """Updates of one table and shape, together; None when a row is updated twice (then
    their order matters, and they go one by one)."""
    rows: set[tuple[str, Any]] = set()
    groups: dict[tuple[Any, ...], list[Update]] = {}
    for update in updates:
        row = (update.table, key_of(update.table, update.key))
        if row in rows:
            return None
        rows.add(row)
        shape = (update.table, tuple(update.key), tuple(update.values), tuple(update.add))
        groups.setdefault(shape, []).append(update)
    return list(groups.values())


def _upserts_precede_updates(changes: Sequence[RowChange]) -> bool:
    updated: set[tuple[str, Any]] = set()
    for change in changes:
        if isinstance(change, Upsert):
            if (change.table, key_of(change.table, change.row)) in updated:
                return False
        else:
            updated.add((change.table, key_of(change.table, change.key)))
    return True


def _upsert_batches(upserts: Sequence[Upsert]) -> list[list[Upsert]]:
    """Upserts of one table and shape, in order; a repeated key starts a later batch."""
    groups: dict[tuple[Any, ...], list[tuple[set[Any], list[Upsert]]]] = {}
    for upsert in upserts:
        batches = groups.setdefault((upsert.table, tuple(upsert.row), upsert.keep, upsert.add), [])
        key = key_of(upsert.table, upsert.row)
        batch = next((b for b in batches if key not in b[0]), None)
        if batch is None:
            batch = (set(), [])
            batches.append(batch)
        batch[0].add(key)
        batch[1].append(upsert)
    return [rows for batches in groups.values() for _, rows in batches]


def _merged_updates(updates: Sequence[Update]) -> list[Update]:
    """Consecutive updates of one row as one (later values win, additions add up)."""
    merged: dict[tuple[str, Any], Update] = {}
    result: list[Update] = []
    for update in updates:
        row = (update.table, key_of(update.table, update.key))
        earlier = merged.get(row)
        if earlier is not None and not (
            earlier.add.keys() & update.values.keys() or earlier.values.keys() & update.add.keys()
        ):
            earlier.values.update(update.values)
            for column, value in update.add.items():
                earlier.add[column] = (
                    earlier.add[column] + value if column in earlier.add else value
                )
            continue
        copy = Update(update.table, dict(update.key), dict(update.values), dict(update.add))
        merged[row] = copy
        result.append(copy)
    return result
