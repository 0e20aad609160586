"""The RNG audit against a real Postgres: real play passes; hand-written tampering is
named shoe by shoe; the CLI's exit status and the export follow."""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import Connection
from psycopg_pool import ConnectionPool

from casino.app.service import Casino
from casino.audit import shoes
from casino.audit.export import consumed_words, export_rng, first_bytes
from casino.audit.rng import audit_rng
from casino.audit.statistics import Status
from casino.cli import audit as audit_cli
from casino.cli.args import Parser
from casino.db.connection import create_pool
from casino.domain.tables import OpenTable
from casino.eventstore.model import NewEvent
from casino.eventstore.postgres import PostgresEventStore
from casino.game.shoe import ALGORITHM, commitment_of, shuffle
from tests.integration.app.conftest import ADMIN, play_rounds

pytestmark = pytest.mark.integration

Fresh = tuple[Casino, ConnectionPool[Connection[Any]]]
PLAYERS = ["ann", "ben", "cat"]


def play(casino: Casino) -> None:
    """Eight rounds with a new shoe each, and eight from cut-card shoes (four a shoe)."""
    for player in PLAYERS:
        casino.move_funds(player, "EUR", 10_000_000, "opening", True, ADMIN)
    for table_id, cut_card in (("fresh", None), ("cut", 40)):
        casino.open_table(
            OpenTable(table_id, table_id, "EUR", 3, 1, 1, 100, 5_000, 100, 1_000, cut_card), ADMIN
        )
        play_rounds(casino, table_id, PLAYERS, 8)


def seeded(fresh: Fresh) -> Casino:
    """The casino with server seeds fixed by the test. With the OS's, about one run in
    a few hundred deals hands that a statistical test rightly calls unlikely at 0.001,
    and a clean audit fails: these tests are about the audit's verdict on clean play."""
    numbers = itertools.count()
    return Casino(
        PostgresEventStore(fresh[1]),
        fresh[1].connection,
        new_seed=lambda: hashlib.sha256(f"audit seed {next(numbers)}".encode()).digest(),
    )


def test_real_play_passes_every_shoe(fresh_casino: Fresh) -> None:
    _, pool = fresh_casino
    play(seeded(fresh_casino))
    with pool.connection() as connection:
        audit = audit_rng(connection)
    assert audit.ok, audit.as_json()
    # Eight one-round shoes, and two cut-card shoes closed by their fourth round.
    assert (audit.shoes_closed, audit.shoes_verified, audit.shoes_open) == (10, 10, 0)
    assert audit.hands == 16 * len(PLAYERS)
    assert {t.status for t in audit.tests} <= {Status.PASS, Status.INSUFFICIENT_DATA}
    json.dumps(audit.as_json())


# --- tampering written into the log by hand -------------------------------------------------


def seed(n: int) -> bytes:
    return bytes([n]) * 32


def write_shoe(
    store: PostgresEventStore,
    shoe_id: str,
    server_seed: bytes,
    tiles: list[int],
    commitment: str | None = None,
    wager_first: bool = False,
) -> None:
    """A one-round shoe as the service writes it: ShoeOpened, the round's RoundOpened and
    WagerPlaced, TilesDealt, ShoeClosed (or the wager before the commitment)."""
    meta = {"actor": "test", "at": "2026-01-01T00:00:00+00:00"}
    commitment = commitment or commitment_of(server_seed)
    round_id = f"{shoe_id}-round"
    opened = NewEvent("ShoeOpened", {
        "shoe_id": shoe_id, "table_id": "T", "algorithm": ALGORITHM, "commitment": commitment,
        "client_seed": "c", "nonce": 0,
    })  # fmt: skip
    round_opened = NewEvent("RoundOpened", {"round_id": round_id, "shoe_id": shoe_id,
                                            "commitment": commitment})  # fmt: skip
    wager = NewEvent("WagerPlaced", {"round_id": round_id, "seat": 1, "player_id": "p",
                                     "main": 100, "doubles": 0})  # fmt: skip
    if wager_first:
        store.append(f"round-{round_id}", 0, [round_opened, wager], meta)
        store.append(f"shoe-{shoe_id}", 0, [opened], meta)
    else:
        store.append(f"shoe-{shoe_id}", 0, [opened], meta)
        store.append(f"round-{round_id}", 0, [round_opened, wager], meta)
    dealt = NewEvent("TilesDealt", {"shoe_id": shoe_id, "round_id": round_id,
                                    "first_position": 0, "tiles": tiles})  # fmt: skip
    closed = NewEvent("ShoeClosed", {"shoe_id": shoe_id, "server_seed": server_seed.hex(),
                                     "tiles_dealt": len(tiles)})  # fmt: skip
    store.append(f"shoe-{shoe_id}", 1, [dealt, closed], meta)


def first_tiles(server_seed: bytes, count: int = 8) -> list[int]:
    return list(shuffle(server_seed, "c", 0)[:count])


@pytest.fixture
def tampered(fresh_database_url: str) -> str:
    pool = create_pool(fresh_database_url, min_size=1, max_size=2, name="tamper")
    store = PostgresEventStore(pool)
    write_shoe(store, "honest", seed(1), first_tiles(seed(1)))
    swapped = first_tiles(seed(2))
    swapped[3], swapped[6] = swapped[6], swapped[3]
    write_shoe(store, "swapped", seed(2), swapped)
    write_shoe(store, "recommitted", seed(3), first_tiles(seed(3)), commitment_of(seed(99)))
    write_shoe(store, "late", seed(4), first_tiles(seed(4)), wager_first=True)
    pool.close()
    return fresh_database_url


def test_tampered_shoes_are_named_with_reason_and_position(tampered: str) -> None:
    with psycopg.connect(tampered, autocommit=True) as connection:
        audit = audit_rng(connection)
    assert not audit.ok
    assert (audit.shoes_closed, audit.shoes_verified, audit.shoes_failed) == (4, 1, 3)
    found = {f.shoe_id: ([p.reason for p in f.problems], f.first_mismatch) for f in audit.failures}
    assert found == {
        "swapped": ([shoes.TILE_MISMATCH], 3),
        "recommitted": ([shoes.COMMITMENT_MISMATCH], None),
        "late": ([shoes.COMMITTED_AFTER_WAGER], None),
    }


def run_cli(argv: list[str], database_url: str, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setenv("DATABASE_URL", database_url)
    parser = Parser(prog="casino")
    audit_cli.add_parser(parser.add_subparsers(dest="command", required=True, parser_class=Parser))
    args: argparse.Namespace = parser.parse_args(argv)
    status: int = args.run(args)
    return status


def test_the_cli_exits_non_zero_on_a_failing_shoe(
    tampered: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(["audit", "rng", "--json"], tampered, monkeypatch) == 1
    shown = json.loads(capsys.readouterr().out)
    assert shown["ok"] is False and shown["shoes"]["failed"] == 3
    assert run_cli(["audit", "rng", "--significance", "0.01"], tampered, monkeypatch) == 1
    text = capsys.readouterr().out
    assert "shoe swapped: tile_mismatch at position 3" in text


def test_the_cli_exits_zero_on_clean_play(
    fresh_casino: Fresh,
    fresh_database_url: str,  # the very database fresh_casino plays on
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    play(seeded(fresh_casino))
    assert run_cli(["audit", "rng"], fresh_database_url, monkeypatch) == 0
    assert "RNG audit: ok" in capsys.readouterr().out


def test_export_writes_each_closed_shoes_words_in_reveal_order(
    tampered: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    consumed = tmp_path / "consumed.bin"
    with psycopg.connect(tampered, autocommit=True) as connection:
        summary = export_rng(connection, consumed)
        fixed = export_rng(connection, tmp_path / "fixed.bin", words_per_shoe=64)
    # Reveal order is the order written: honest, swapped, recommitted, late.
    expected = b"".join(
        b"".join(w.to_bytes(4, "big") for w in consumed_words(seed(n), "c", 0))
        for n in (1, 2, 3, 4)
    )
    assert consumed.read_bytes() == expected
    assert (summary.shoes, summary.words) == (4, 4 * 55)
    assert (tmp_path / "fixed.bin").read_bytes() == b"".join(
        first_bytes(seed(n), "c", 0, 64) for n in (1, 2, 3, 4)
    )
    assert fixed.bytes == 4 * 64 * 4
    out = tmp_path / "cli.bin"
    assert run_cli(["audit", "export-rng", "--out", str(out)], tampered, monkeypatch) == 0
    assert out.read_bytes() == expected
