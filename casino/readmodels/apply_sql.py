"""Row changes as SQL statements, run in the transaction that appends their events."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

from psycopg import sql

from casino.readmodels.changes import TABLE_KEYS, RowChange, Upsert

ARRAY_COLUMNS = frozenset({"dealt", "hand", "positions", "tile_scores"})


def _placeholder(column: str) -> sql.Composable:
    return sql.SQL("%s::integer[]") if column in ARRAY_COLUMNS else sql.SQL("%s")


def _added(table: str, column: str, value: sql.Composable) -> sql.Composable:
    operator = sql.SQL("||") if column in ARRAY_COLUMNS else sql.SQL("+")
    return sql.SQL("{t}.{c} {op} {v}").format(
        t=sql.Identifier(table), c=sql.Identifier(column), op=operator, v=value
    )


@cache
def _upsert_statement(
    table: str, columns: tuple[str, ...], keep: tuple[str, ...], add: tuple[str, ...]
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
        sql.SQL("INSERT INTO {t} ({cols}) VALUES ({vals}) ON CONFLICT ({keys}) {conflict}")
        .format(
            t=sql.Identifier(table),
            cols=sql.SQL(", ").join(map(sql.Identifier, columns)),
            vals=sql.SQL(", ").join(_placeholder(c) for c in columns),
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
