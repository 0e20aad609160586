"""What a settlement report reads: the rounds settled in a period, summed per gaming
day, table and paytable in the database; their seats' point totals; the voids and
corrections made in the period. Every figure comes from the rounds' read model, which
the projection keeps from the log in the same transaction as the events."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import psycopg

from casino.domain.gaming_day import GamingDayRule, Period


@dataclass(frozen=True)
class Scope:
    period: Period
    rule: GamingDayRule
    table_id: str | None  # None: every table

    def parameters(self) -> dict[str, Any]:
        return {
            "start": self.period.start,
            "end": self.period.end,
            "zone": self.rule.time_zone,
            "hours": self.rule.start_hour,
            "table_id": self.table_id,
        }


@dataclass(frozen=True)
class Cell:
    """The rounds of one table and paytable pair settled in one gaming day."""

    currency: str
    table_id: str
    main_paytable: int
    doubles_paytable: int
    gaming_day: date
    rounds: int
    seats: int
    doubles_wagers: int
    main_handle: int
    doubles_handle: int
    main_payouts: int
    doubles_payouts: int
    main_squares: int
    doubles_squares: int


@dataclass(frozen=True)
class Adjustment:
    kind: str  # void (before the deal) or correction (a settlement reversed)
    round_id: str
    table_id: str
    currency: str
    main_paytable: int
    doubles_paytable: int
    at: datetime
    actor: str
    reason: str
    refunded: int
    reclaimed: int


_AT_TABLE = "(%(table_id)s::text IS NULL OR table_id = %(table_id)s::text)"  # None: every table

_SETTLED = f"""
status IN ('settled', 'reversed') AND closed_at >= %(start)s AND closed_at < %(end)s
AND {_AT_TABLE}
"""

_CELLS = f"""
SELECT currency, table_id, main_paytable, doubles_paytable,
       ((closed_at AT TIME ZONE %(zone)s) - make_interval(hours => %(hours)s))::date,
       count(*), sum(wagers), sum(doubles_wagers), sum(main_handle), sum(doubles_handle),
       sum(main_payouts), sum(doubles_payouts), sum(main_squares), sum(doubles_squares)
FROM rm_rounds WHERE {_SETTLED}
GROUP BY 1, 2, 3, 4, 5
"""

_POINT_TOTALS = f"""
SELECT total, count(*) FROM rm_rounds, unnest(totals) AS total
WHERE {_SETTLED}
GROUP BY total
"""

_ADJUSTMENTS = f"""
SELECT status, round_id, table_id, currency, main_paytable, doubles_paytable, adjusted_at,
       adjusted_by, adjustment_reason, refunded, reclaimed
FROM rm_rounds
WHERE adjusted_at >= %(start)s AND adjusted_at < %(end)s
AND {_AT_TABLE}
ORDER BY adjusted_at, round_id COLLATE "C"
"""


def settled_cells(connection: psycopg.Connection[Any], scope: Scope) -> list[Cell]:
    rows = connection.execute(_CELLS, scope.parameters()).fetchall()
    # Postgres sums bigints as numeric: back to Python integers, exactly.
    return [Cell(*row[:5], *(int(value) for value in row[5:])) for row in rows]


def point_totals(connection: psycopg.Connection[Any], scope: Scope) -> dict[int, int]:
    rows = connection.execute(_POINT_TOTALS, scope.parameters()).fetchall()
    return {total: hands for total, hands in rows}


def adjustments(connection: psycopg.Connection[Any], scope: Scope) -> list[Adjustment]:
    rows = connection.execute(_ADJUSTMENTS, scope.parameters()).fetchall()
    return [
        Adjustment("void" if status == "voided" else "correction", *rest) for status, *rest in rows
    ]
