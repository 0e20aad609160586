"""The report's PDF read back as text, the CLI that makes reports, and the migration
that fills report figures for rounds recorded before it."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from psycopg import Connection
from psycopg_pool import ConnectionPool
from pypdf import PdfReader

from casino.cli.main import main
from casino.db.migrations import SQL_DIR
from casino.domain.gaming_day import GamingDayRule, resolve_period
from casino.reconcile.read_models import check_table
from casino.reports.documents import render
from casino.reports.make import SettlementRequest, make_settlement_report, record_request
from casino.reports.settlement import settlement_report
from casino.reports.store import report_content
from tests.integration.reports.day_of_play import Played

pytestmark = pytest.mark.integration

Pool = ConnectionPool[Connection[Any]]
RULE = GamingDayRule(6, "Europe/Malta")


@pytest.fixture
def played(play_rounds_on_a_clock: Callable[[int], tuple[Played, Pool]]) -> tuple[Played, Pool]:
    return play_rounds_on_a_clock(40)


def _pdf_pages(content: bytes) -> list[str]:
    return [re.sub(r"\s+", " ", p.extract_text()) for p in PdfReader(io.BytesIO(content)).pages]


def test_the_pdf_states_the_figures_of_the_report(played: tuple[Played, Pool]) -> None:
    result, pool = played
    with pool.connection() as connection:
        period = resolve_period("2026-11-19", "2026-11-21", RULE)
        report = settlement_report(connection, period, RULE, None, "c" * 32)
    pages = _pdf_pages(render(report, "pdf").content)
    text = " ".join(pages)
    assert "Settlement report" in pages[0]
    assert "casino 0.1.0" in pages[0] and "Europe/Malta" in pages[0]
    eur = report["currencies"][0]["totals"]
    handle = f"{eur['handle'] // 100:,}.{eur['handle'] % 100:02d} EUR"
    assert handle in text
    for table in result.tables:
        assert table in text
    for day in ("2026-11-19", "2026-11-20", "2026-11-21"):
        assert day in text
    assert "Hold % by gaming day, EUR" in text and "Distribution of point totals" in text
    assert "dealer misread the connector" in text
    assert "Method" in pages[0] and "fresh shoe" in text and "independent" in text
    assert all(f"report {'c' * 32}" in page for page in pages)


def test_the_cli_writes_each_format(
    played: tuple[Played, Pool],
    fresh_database_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("DATABASE_URL", fresh_database_url)
    monkeypatch.setenv("CASINO_GAMING_DAY_START_HOUR", "6")
    monkeypatch.setenv("CASINO_GAMING_DAY_TIME_ZONE", "Europe/Malta")
    for format_name in ("json", "csv", "pdf"):
        out = tmp_path / f"report.{format_name}"
        argv = ["report", "settlement", "--from", "2026-11-20", "--to", "2026-11-20",
                "--format", format_name, "--output", str(out)]  # fmt: skip
        assert main(argv) == 0
        assert re.search(r"report [0-9a-f]{32}: \d+ bytes, sha256 [0-9a-f]{64}",
                         capsys.readouterr().err)  # fmt: skip
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["filters"]["gaming_day"] == {"start_hour": 6, "time_zone": "Europe/Malta"}
    assert report["currencies"][0]["totals"]["rounds"] > 0
    assert (tmp_path / "report.csv").read_text().startswith("report_id,generated_at,")
    assert (tmp_path / "report.pdf").read_bytes().startswith(b"%PDF-")
    with played[1].connection() as connection:
        kept = connection.execute(
            "SELECT count(*) FROM report_documents WHERE requested_by LIKE 'cli:%'"
        ).fetchone()
    assert kept == (3,)


def test_the_cli_refuses_a_bad_period_in_one_line(
    fresh_database_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", fresh_database_url)
    with pytest.raises(SystemExit) as exited:
        main(["report", "settlement", "--from", "2026-11-21", "--to", "2026-11-20"])
    assert exited.value.code == 2
    assert "--to" in capsys.readouterr().err


def test_the_migration_fills_the_figures_of_earlier_rounds(played: tuple[Played, Pool]) -> None:
    """Rounds recorded before sql/0014 get their figures from the seats and the log."""
    _, pool = played
    migration = (SQL_DIR / "0014_settlement_figures.sql").read_text()
    backfill = [s for s in migration.split(";") if s.strip().startswith("UPDATE")]
    assert len(backfill) == 2
    with pool.connection() as connection:
        connection.execute(
            "UPDATE rm_rounds SET main_handle = 0, doubles_handle = 0, doubles_wagers = 0,"
            " main_squares = 0, doubles_squares = 0, main_payouts = 0, doubles_payouts = 0,"
            " totals = NULL, adjusted_at = NULL, adjusted_by = NULL, adjustment_reason = NULL,"
            " refunded = 0, reclaimed = 0"
        )
        with connection.transaction():  # the check reads through a server-side cursor
            assert not check_table(connection, "rm_rounds").equal
        for statement in backfill:
            connection.execute(statement)
        with connection.transaction():
            check = check_table(connection, "rm_rounds")
    assert check.equal, check
    assert check.rows == 40


def test_a_report_made_twice_under_one_id_is_kept_once(played: tuple[Played, Pool]) -> None:
    """A redelivered task (same id) finds its document made and makes nothing again."""
    _, pool = played
    request = SettlementRequest("2026-11-20", "2026-11-20", None, "csv")
    with pool.connection() as connection:
        first = make_settlement_report(connection, request, RULE, "d" * 32, "auditor:a")
        again = make_settlement_report(connection, request, RULE, "d" * 32, "auditor:a")
        rows = connection.execute(
            "SELECT count(*) FROM report_documents WHERE report_id = %s", ("d" * 32,)
        ).fetchone()
    assert first == again and first.made is not None
    assert rows == (1,)
    assert first.summary()["period"] == {
        "start": "2026-11-20T05:00:00+00:00", "end": "2026-11-21T05:00:00+00:00"
    }  # fmt: skip


def test_the_worker_makes_the_report_as_it_was_asked(played: tuple[Played, Pool]) -> None:
    """A worker configured with another gaming day still makes the period and grouping
    recorded when the report was asked for."""
    _, pool = played
    request = SettlementRequest("2026-11-20", "2026-11-20", None, "json")
    with pool.connection() as connection:
        asked = record_request(connection, request, RULE, "e" * 32, "auditor:a")
        made = make_settlement_report(
            connection, request, GamingDayRule(0, "UTC"), "e" * 32, "auditor:a"
        )
        content = report_content(connection, "e" * 32)
    assert asked.request.parameters["gaming_day"] == {"start_hour": 6, "time_zone": "Europe/Malta"}
    assert made.request == asked.request
    assert content is not None
    report = json.loads(content)
    assert report["filters"]["gaming_day"] == {"start_hour": 6, "time_zone": "Europe/Malta"}
    assert report["filters"]["period"]["start"] == "2026-11-20T05:00:00+00:00"


def test_the_cli_names_its_own_option_for_a_bad_table(
    fresh_database_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", fresh_database_url)
    with pytest.raises(SystemExit) as exited:
        main(["report", "settlement", "--from", "2026-11-20", "--to", "2026-11-21",
              "--table", "no spaces allowed"])  # fmt: skip
    assert exited.value.code == 2
    assert capsys.readouterr().err.startswith("error: --table:")
