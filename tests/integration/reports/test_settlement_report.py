"""The settlement report against figures computed in the test from the raw events, and
against the ledger, on a generated stretch of play across three gaming days."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable
from datetime import UTC, date, datetime
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest
from psycopg import Connection
from psycopg_pool import ConnectionPool

from casino.domain.gaming_day import GamingDayRule, resolve_period
from casino.game.odds import odds_report
from casino.reconcile.read_models import check_read_models
from casino.reports.documents import CSV_HEADER, render
from casino.reports.settlement import settlement_report
from tests.integration.reports.day_of_play import Played
from tests.integration.reports.independent import (
    Expected,
    expected_figures,
    ledger_figures,
    summed,
)

pytestmark = pytest.mark.integration

RULE = GamingDayRule(6, "Europe/Malta")
Pool = ConnectionPool[Connection[Any]]


@pytest.fixture
def played(play_rounds_on_a_clock: Callable[[int], tuple[Played, Pool]]) -> tuple[Played, Pool]:
    return play_rounds_on_a_clock(90)


def _report(pool: Pool, start: str, end: str, table_id: str | None = None) -> dict[str, Any]:
    with pool.connection() as connection:
        return settlement_report(
            connection, resolve_period(start, end, RULE), RULE, table_id, "r" * 32
        )


def _expected(pool: Pool, start: str, end: str) -> dict[Any, Expected]:
    period = resolve_period(start, end, RULE)
    with pool.connection() as connection:
        return expected_figures(connection, period.start, period.end, 6, "Europe/Malta")


def _close(shown: str | None, exact: Fraction | float, places: int) -> bool:
    assert shown is not None
    return abs(Decimal(shown) - Decimal(float(exact))) <= Decimal(10) ** -places


def _check_figures(figures: dict[str, Any], expected: Expected) -> None:
    assert figures["rounds"] == expected.rounds
    assert figures["seats"] == expected.seats
    assert figures["main"]["handle"] == expected.main_handle
    assert figures["main"]["payouts"] == expected.main_payouts
    assert figures["doubles"]["wagers"] == expected.doubles_wagers
    assert figures["doubles"]["handle"] == expected.doubles_handle
    assert figures["doubles"]["payouts"] == expected.doubles_payouts
    assert figures["handle"] == expected.handle
    assert figures["win"] == expected.win
    assert figures["voids"] == expected.voids
    assert figures["voided_refunds"] == expected.voided_refunds
    assert figures["corrections"] == expected.corrections
    assert figures["corrections_net"] == expected.corrections_net
    assert figures["adjusted_win"] == expected.win + expected.corrections_net
    if expected.handle:
        assert _close(figures["hold_pct"], 100 * expected.win / expected.handle, 4)
        assert _close(figures["theoretical_win"], expected.theoretical, 2)
        theoretical_hold = 100 * expected.theoretical / expected.handle
        assert _close(figures["theoretical_hold_pct"], theoretical_hold, 4)
        deviation = math.sqrt(expected.variance)
        assert _close(figures["standard_deviation"], deviation, 2)
        z_score = (expected.win - float(expected.theoretical)) / deviation
        assert _close(figures["z_score"], z_score, 3)
    else:
        assert figures["hold_pct"] is None and figures["z_score"] is None


def test_a_gaming_day_matches_the_raw_events(
    played: tuple[Played, Pool],
) -> None:
    _, pool = played
    report = _report(pool, "2026-11-20", "2026-11-20")
    expected = _expected(pool, "2026-11-20", "2026-11-20")
    assert report["no_activity"] is False
    assert report["filters"]["period"] == {
        "start": "2026-11-20T05:00:00+00:00", "end": "2026-11-21T05:00:00+00:00"
    }  # fmt: skip
    assert {day["gaming_day"] for s in report["currencies"] for day in s["days"]} == {"2026-11-20"}
    assert [s["currency"] for s in report["currencies"]] == ["EUR", "USD"]
    for section in report["currencies"]:
        currency = section["currency"]
        mine = [e for key, e in expected.items() if key[0] == currency]
        _check_figures(section["totals"], summed(mine))
        assert len(section["tables"]) == len({key[1:4] for key in expected if key[0] == currency})
        for row in section["tables"]:
            place = (currency, row["table_id"], row["main_paytable"], row["doubles_paytable"])
            _check_figures(row, summed([e for k, e in expected.items() if k[:4] == place]))
    hands = summed(list(expected.values())).totals
    shown = {row["total"]: row for row in report["point_totals"]}
    exact = odds_report().main[1].probabilities
    assert set(shown) == set(exact)
    for total, row in shown.items():
        assert row["hands"] == hands.get(total, 0)
        assert _close(row["expected"], exact[total], 6)


@pytest.mark.parametrize(
    ("first", "last"),
    [("2026-11-19", "2026-11-19"), ("2026-11-20", "2026-11-20"), ("2026-11-21", "2026-11-21"),
     ("2026-11-19", "2026-11-21")],
)  # fmt: skip
def test_the_totals_equal_the_ledger(played: tuple[Played, Pool], first: str, last: str) -> None:
    _, pool = played
    report = _report(pool, first, last)
    period = resolve_period(first, last, RULE)
    for section in report["currencies"]:
        with pool.connection() as connection:
            ledger = ledger_figures(connection, section["currency"], period.start, period.end)
        totals = section["totals"]
        assert totals["handle"] == ledger.handle
        assert totals["payouts"] == ledger.payouts
        assert totals["win"] == ledger.handle - ledger.payouts
        assert totals["voided_refunds"] == ledger.voided_refunds
        assert totals["corrections_net"] == ledger.corrections_net
        assert totals["adjusted_win"] == ledger.handle - ledger.payouts + ledger.corrections_net
    if last == "2026-11-21":  # both corrections are made on the last gaming day
        assert any(s["totals"]["corrections_net"] != 0 for s in report["currencies"])
        assert sum(s["totals"]["corrections"] for s in report["currencies"]) == 2


def test_every_day_of_a_longer_period_and_its_corrections(played: tuple[Played, Pool]) -> None:
    result, pool = played
    report = _report(pool, "2026-11-19", "2026-11-21")
    expected = _expected(pool, "2026-11-19", "2026-11-21")
    days = {key[4] for key in expected}
    assert days == {date(2026, 11, 19), date(2026, 11, 20), date(2026, 11, 21)}
    for section in report["currencies"]:
        for day in section["days"]:
            place = (section["currency"], day["gaming_day"])
            mine = [e for k, e in expected.items() if (k[0], k[4].isoformat()) == place]
            _check_figures(day, summed(mine))
    every = summed(list(expected.values()))
    assert every.rounds == len(result.settled)  # all play falls in these three days
    assert every.voids == len(result.voided)
    corrections = [a for a in report["adjustments"] if a["kind"] == "correction"]
    assert sorted(a["round_id"] for a in corrections) == sorted(result.reversed)
    for adjustment in report["adjustments"]:
        assert adjustment["actor"] in {"admin:finance-test-admin", "table:dealer"}
        assert adjustment["reason"]
        at = datetime.fromisoformat(adjustment["at"])
        assert adjustment["gaming_day"] == RULE.day_of(at).isoformat()
    voids = [a for a in report["adjustments"] if a["kind"] == "void"]
    assert sorted(a["round_id"] for a in voids) == sorted(result.voided)
    assert all(a["reason"] == "table malfunction: tiles dropped" for a in voids)


def test_a_shift_and_a_table_filter(played: tuple[Played, Pool]) -> None:
    _, pool = played
    shift = _report(pool, "2026-11-20T06:00", "2026-11-20T14:00", table_id="fin-eur-2")
    expected = _expected(pool, "2026-11-20T06:00", "2026-11-20T14:00")
    assert shift["filters"]["period"]["start"] == "2026-11-20T05:00:00+00:00"
    assert shift["filters"]["table_id"] == "fin-eur-2"
    (section,) = shift["currencies"]
    assert [row["table_id"] for row in section["tables"]] == ["fin-eur-2"]
    _check_figures(
        section["totals"], summed([e for k, e in expected.items() if k[1] == "fin-eur-2"])
    )


def test_an_empty_period_is_a_no_activity_report(played: tuple[Played, Pool]) -> None:
    _, pool = played
    report = _report(pool, "2025-01-01", "2025-01-31")
    assert report["no_activity"] is True
    assert report["currencies"] == [] and report["adjustments"] == []
    assert report["point_totals"] == []
    rows = list(csv.reader(io.StringIO(render(report, "csv").content.decode())))
    assert rows[0] == list(CSV_HEADER)
    assert len(rows) == 2 and rows[1][-1] == "No Activity"
    assert rows[1][0] == report["report_id"]


def test_the_csv_has_a_row_per_table_and_paytable(played: tuple[Played, Pool]) -> None:
    _, pool = played
    report = _report(pool, "2026-11-19", "2026-11-21")
    rows = list(csv.DictReader(io.StringIO(render(report, "csv").content.decode())))
    tables = [(s["currency"], t) for s in report["currencies"] for t in s["tables"]]
    assert len(rows) == len(tables) == 4  # the first table twice: its paytables changed
    for row, (currency, table) in zip(rows, tables, strict=True):
        assert row["currency"] == currency and row["table_id"] == table["table_id"]
        assert int(row["main_paytable"]) == table["main_paytable"]
        assert int(row["handle"]) == table["handle"]
        assert int(row["win"]) == table["win"]
        assert row["theoretical_win"] == table["theoretical_win"]
        assert int(row["doubles_handle"]) == table["doubles"]["handle"]
        assert row["software_version"] == report["software"]["version"]
        assert row["period_start"] == report["filters"]["period"]["start"]
        assert row["gaming_day_time_zone"] == "Europe/Malta"


def test_the_read_models_reports_read_are_what_the_log_gives(
    played: tuple[Played, Pool],
) -> None:
    _, pool = played
    with pool.connection() as connection:
        checks = check_read_models(connection)
    assert all(check.equal for check in checks), [c for c in checks if not c.equal]
    assert {c.table: c.rows for c in checks}["rm_rounds"] == 90


def test_reports_carry_when_and_what_made_them(played: tuple[Played, Pool]) -> None:
    _, pool = played
    before = datetime.now(UTC)
    report = _report(pool, "2026-11-20", "2026-11-20")
    assert report["software"] == {"name": "casino", "version": "0.1.0"}
    assert datetime.fromisoformat(report["generated_at"]) >= before
    assert report["filters"]["requested"] == {"from": "2026-11-20", "to": "2026-11-20"}
    assert report["filters"]["gaming_day"] == {"start_hour": 6, "time_zone": "Europe/Malta"}
    assert "fresh shoe" in report["method"]["theoretical_win"]
    assert "independent" in report["method"]["standard_deviation"]
