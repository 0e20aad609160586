"""``casino export hand-histories`` on the tests' database: the same bytes as the
library's export, to a file or to stdout, and one-line usage errors."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from psycopg import Connection
from psycopg_pool import ConnectionPool

from casino.app.hand_histories.export import HandHistoryExport, export_chunks
from casino.app.hand_histories.formats import ExportFormat
from casino.app.service import Casino
from casino.cli.main import main
from tests.integration.app.conftest import play_rounds

pytestmark = pytest.mark.integration

Pool = ConnectionPool[Connection[Any]]


def run(*argv: str) -> int:
    try:
        return main(["export", "hand-histories", *argv])
    except SystemExit as exit_:
        return int(exit_.code or 0)


@pytest.fixture
def played_table(
    casino: Casino,
    database_url: str,
    monkeypatch: pytest.MonkeyPatch,
    new_table: Callable[..., str],
    funded_player: Callable[..., str],
) -> str:
    monkeypatch.setenv("DATABASE_URL", database_url)
    table = new_table()
    play_rounds(casino, table, [funded_player(), funded_player()], rounds=3)
    return table


def period() -> tuple[datetime, datetime]:
    """Around now: the rounds were just played on the real clock."""
    now = datetime.now(UTC)
    return now - timedelta(hours=1), now + timedelta(hours=1)


@pytest.mark.parametrize("format", list(ExportFormat))
def test_an_export_to_a_file_is_the_librarys_export(
    pool: Pool, played_table: str, tmp_path: Path, format: ExportFormat
) -> None:
    start, end = period()
    output = tmp_path / f"hands.{format.value}"
    status = run(
        "--table", played_table, "--from", start.isoformat(), "--to", end.isoformat(),
        "--format", format.value, "--output", str(output),
    )  # fmt: skip
    assert status == 0
    export = HandHistoryExport(start, end, table_id=played_table, format=format)
    expected = b"".join(export_chunks(pool.connection, export))
    assert output.read_bytes() == expected
    assert len(expected.splitlines()) == 6 + (format is ExportFormat.CSV)  # 3 rounds x 2 seats
    assert [p.name for p in tmp_path.iterdir()] == [output.name]  # no partial file left


def test_an_export_to_stdout(
    pool: Pool, played_table: str, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    start, end = period()
    status = run(
        "--table", played_table, "--from", start.isoformat().replace("+00:00", "Z"),
        "--to", end.isoformat(), "--format", "csv",
    )  # fmt: skip
    assert status == 0
    export = HandHistoryExport(start, end, table_id=played_table)
    assert capsysbinary.readouterr().out == b"".join(export_chunks(pool.connection, export))


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--from", "2030-01-01T00:00Z", "--to", "2030-01-02T00:00Z", "--format", "csv"],
         "one of the arguments --player --table is required"),
        (["--table", "T1", "--player", "P1", "--from", "2030-01-01T00:00Z",
          "--to", "2030-01-02T00:00Z", "--format", "csv"], "not allowed with"),
        (["--table", "T1", "--from", "2030-01-01", "--to", "2030-01-02T00:00Z",
          "--format", "csv"], "--from: give the time zone"),
        (["--table", "T1", "--from", "yesterday", "--to", "2030-01-02T00:00Z",
          "--format", "csv"], "--from: not an ISO 8601 time"),
        (["--table", "T1", "--from", "2030-01-02T00:00Z", "--to", "2030-01-01T00:00Z",
          "--format", "csv"], "--to: to must be later than from"),
        (["--player", "bad id", "--from", "2030-01-01T00:00Z", "--to", "2030-01-02T00:00Z",
          "--format", "csv"], "--player: player_id must be"),
        (["--table", "T1", "--from", "2030-01-01T00:00Z", "--to", "2030-01-02T00:00Z",
          "--format", "xml"], "invalid choice: 'xml'"),
        (["--table", "T1", "--from", "2030-01-01T00:00Z", "--to", "2030-01-02T00:00Z",
          "--format", "csv", "--output", "/nonexistent-folder/hands.csv"],
         "--output: cannot write /nonexistent-folder/hands.csv"),
    ],
)  # fmt: skip
def test_bad_input_is_a_one_line_usage_error(
    argv: list[str],
    message: str,
    database_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("DATABASE_URL", database_url)
    assert run(*argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert message in err


def test_the_player_export_has_only_their_seats(
    casino: Casino,
    database_url: str,
    monkeypatch: pytest.MonkeyPatch,
    new_table: Callable[..., str],
    funded_player: Callable[..., str],
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("DATABASE_URL", database_url)
    player, other = funded_player(), funded_player()
    for table in (new_table(), new_table()):
        play_rounds(casino, table, [other, player], rounds=2)
    start, end = period()
    output = tmp_path / "player.jsonl"
    status = run(
        "--player", player, "--from", start.isoformat(), "--to", end.isoformat(),
        "--format", "jsonl", "--output", str(output),
    )  # fmt: skip
    assert status == 0
    lines = output.read_text().splitlines()
    assert len(lines) == 4
    assert all(f'"player_id":"{player}"' in line and '"seat":2' in line for line in lines)
