"""Apply row changes to rows held in memory: the replay side of the same projection."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from casino.readmodels.changes import (
    TABLE_KEYS,
    ProjectionError,
    Row,
    RowChange,
    Update,
    Upsert,
    key_of,
)


class MemoryReadModels:
    def __init__(self) -> None:
        self.tables: dict[str, dict[Any, Row]] = {name: {} for name in TABLE_KEYS}

    def apply(self, changes: Iterable[RowChange]) -> None:
        tables = self.tables
        for change in changes:
            rows = tables[change.table]
            if type(change) is Upsert:
                key = key_of(change.table, change.row)
                existing = rows.get(key)
                if existing is None:
                    rows[key] = change.row  # projections build a fresh row for each change
                    continue
                for column, value in change.row.items():
                    if column in change.keep:
                        continue
                    existing[column] = existing[column] + value if column in change.add else value
            elif type(change) is Update:
                row = rows.get(key_of(change.table, change.key))
                if row is None:
                    raise ProjectionError(f"{change.table} has no row {change.key} to update")
                row.update(change.values)
                for column, value in change.add.items():
                    row[column] = row[column] + value
