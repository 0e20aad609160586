"""The settlement report for casino finance: per currency, the totals, each table and
paytable pair, each paytable and each gaming day, with the point totals dealt against
their exact odds and every void and correction made in the period."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, NamedTuple

import psycopg

from casino import __version__
from casino.domain.gaming_day import GamingDayRule, Period
from casino.reports.currencies import minor_unit_exponent
from casino.reports.figures import (
    BetSums,
    Sums,
    bet_figures,
    bet_sums,
    figures,
    point_total_figures,
    total_of,
)
from casino.reports.settlement_queries import (
    Adjustment,
    Cell,
    Scope,
    adjustments,
    point_totals,
    settled_cells,
)

SOFTWARE = "casino"
NO_ACTIVITY = "No Activity"
# How the figures are made, stated in every report (finance and auditors read it there).
METHOD = {
    "period": "a round counts on the gaming day in which it was settled; a void or a "
    "correction counts on the gaming day in which it was made",
    "theoretical_win": "handle times the exact house edge of the paytable in force, a "
    "fresh shoe's, by enumeration of every draw",
    "standard_deviation": "the square root of the sum, over the wagers, of the stake squared "
    "times its paytable's exact variance per unit staked; wagers are taken as independent",
    "z_score": "(win - theoretical win) / standard deviation",
    "adjusted_win": "win plus what corrections reclaimed less what they refunded",
}


def software_version() -> str:
    return __version__


def settlement_report(
    connection: psycopg.Connection[Any],
    period: Period,
    rule: GamingDayRule,
    table_id: str | None,
    report_id: str,
    now: datetime | None = None,
) -> dict[str, Any]:
    """Read the period's figures in one snapshot and lay them out as the report."""
    scope = Scope(period, rule, table_id)
    with connection.transaction():
        connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        cells = settled_cells(connection, scope)
        hands_by_total = point_totals(connection, scope)
        made = adjustments(connection, scope)
    return {
        "report": "settlement",
        "report_id": report_id,
        "software": {"name": SOFTWARE, "version": software_version()},
        "generated_at": (now or datetime.now(UTC)).isoformat(),
        "filters": {
            "requested": {"from": period.requested_from, "to": period.requested_to},
            "period": {"start": period.start.isoformat(), "end": period.end.isoformat()},
            "table_id": table_id,
            "gaming_day": {"start_hour": rule.start_hour, "time_zone": rule.time_zone},
        },
        "method": METHOD,
        "no_activity": not cells and not made,
        "currencies": _by_currency(cells, made, rule),
        "point_totals": point_total_figures(hands_by_total) if hands_by_total else [],
        "adjustments": [_adjustment_entry(a, rule) for a in made],
    }


def _cell_sums(cell: Cell) -> Sums:
    return Sums(
        rounds=cell.rounds,
        seats=cell.seats,
        main=bet_sums(
            "main", cell.main_paytable, cell.seats, cell.main_handle, cell.main_payouts,
            cell.main_squares,
        ),
        doubles=bet_sums(
            "doubles", cell.doubles_paytable, cell.doubles_wagers, cell.doubles_handle,
            cell.doubles_payouts, cell.doubles_squares,
        ),
    )  # fmt: skip


def _adjustment_sums(adjustment: Adjustment) -> Sums:
    if adjustment.kind == "void":
        return Sums(voids=1, voided_refunds=adjustment.refunded)
    return Sums(corrections=1, corrections_net=adjustment.reclaimed - adjustment.refunded)


class _Place(NamedTuple):
    """Where and when settled play is summed: the finest grain of the report."""

    currency: str
    table_id: str
    main_paytable: int
    doubles_paytable: int
    gaming_day: str


def _by_currency(
    cells: list[Cell], made: list[Adjustment], rule: GamingDayRule
) -> list[dict[str, Any]]:
    """Each cell's sums, with each adjustment added where (and when) it was made."""
    places: dict[_Place, Sums] = defaultdict(Sums)
    for cell in cells:
        place = _Place(cell.currency, cell.table_id, cell.main_paytable, cell.doubles_paytable,
                       cell.gaming_day.isoformat())  # fmt: skip
        places[place].add(_cell_sums(cell))
    for adjustment in made:
        day = rule.day_of(adjustment.at).isoformat()
        place = _Place(adjustment.currency, adjustment.table_id, adjustment.main_paytable,
                       adjustment.doubles_paytable, day)  # fmt: skip
        places[place].add(_adjustment_sums(adjustment))
    currencies = sorted({place.currency for place in places})
    return [
        _currency_section(c, {p: s for p, s in places.items() if p.currency == c})
        for c in currencies
    ]


def _grouped(places: dict[_Place, Sums], key: Callable[[_Place], Any]) -> list[tuple[Any, Sums]]:
    """The places' sums added up per ``key``, in the keys' order."""
    groups: dict[Any, list[Sums]] = defaultdict(list)
    for place, sums in places.items():
        groups[key(place)].append(sums)
    return [(k, total_of(groups[k])) for k in sorted(groups)]


def _currency_section(currency: str, places: dict[_Place, Sums]) -> dict[str, Any]:
    tables = [
        {"table_id": t, "main_paytable": m, "doubles_paytable": d, **figures(sums)}
        for (t, m, d), sums in _grouped(
            places, lambda p: (p.table_id, p.main_paytable, p.doubles_paytable)
        )
    ]
    days = [
        {"gaming_day": day, **figures(sums)}
        for day, sums in _grouped(places, lambda p: p.gaming_day)
    ]
    return {
        "currency": currency,
        "minor_unit_exponent": minor_unit_exponent(currency),
        "totals": figures(total_of(places.values())),
        "tables": tables,
        "paytables": _paytables(places),
        "days": days,
    }


def _paytables(places: dict[_Place, Sums]) -> list[dict[str, Any]]:
    bets: dict[tuple[str, int], BetSums] = defaultdict(BetSums)
    for place, sums in places.items():
        bets["main", place.main_paytable].add(sums.main)
        if sums.doubles.wagers:
            bets["doubles", place.doubles_paytable].add(sums.doubles)
    return [
        {"bet": bet, "paytable": number, **bet_figures(sums)}
        for (bet, number), sums in sorted(bets.items())
        if sums.wagers
    ]


def _adjustment_entry(adjustment: Adjustment, rule: GamingDayRule) -> dict[str, Any]:
    return {
        "kind": adjustment.kind,
        "round_id": adjustment.round_id,
        "table_id": adjustment.table_id,
        "currency": adjustment.currency,
        "at": adjustment.at.astimezone(UTC).isoformat(),
        "gaming_day": rule.day_of(adjustment.at).isoformat(),
        "actor": adjustment.actor,
        "reason": adjustment.reason,
        "refunded": adjustment.refunded,
        "reclaimed": adjustment.reclaimed,
    }
