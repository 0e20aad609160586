"""Verification bundles of rounds really played on Postgres, checked by the CLI.

A table without a cut card shuffles a new shoe for every round and closes it (revealing
its seed) at the round's deal; a cut-card table keeps its shoe live across rounds, and
a bundle read then must hold no seed at all.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from psycopg import Connection
from psycopg_pool import ConnectionPool

from casino.app.queries import Queries
from casino.app.service import Casino
from casino.app.verification import round_bundle
from casino.audit.bundle.report import SEED_NOT_REVEALED
from casino.cli.main import main
from casino.domain.errors import NotFound
from casino.domain.tables import OpenTable
from casino.eventstore.verify import create_checkpoint
from tests.integration.app.conftest import ADMIN, play_rounds, unique

pytestmark = pytest.mark.integration

Pool = ConnectionPool[Connection[Any]]
Json = dict[str, Any]


def bundle_of(pool: Pool, round_id: str) -> Json:
    with pool.connection() as connection:
        return round_bundle(connection, round_id)


def verify_with_cli(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, bundle: Json, *flags: str
) -> tuple[int, str]:
    path = tmp_path / f"{bundle['round']['round_id']}.json"
    path.write_text(json.dumps(bundle))
    status = main(["shoe", "verify", "--bundle", str(path), *flags])
    return status, capsys.readouterr().out


def seed_of(pool: Pool, shoe_id: str) -> bytes:
    with pool.connection() as connection:
        row = connection.execute(
            "SELECT server_seed FROM shoe_secrets WHERE shoe_id = %s", (shoe_id,)
        ).fetchone()
    assert row is not None
    return bytes(row[0])


def test_a_played_round_verifies_offline_from_its_bundle(
    casino: Casino,
    pool: Pool,
    new_table: Callable[..., str],
    funded_player: Callable[..., str],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    table_id = new_table(main_paytable=4, doubles_paytable=3)
    players = [funded_player() for _ in range(5)]
    (round_id,) = play_rounds(casino, table_id, players, 1)
    bundle = bundle_of(pool, round_id)

    status, out = verify_with_cli(capsys, tmp_path, bundle, "--json")
    report = json.loads(out)
    assert status == 0, out
    assert report["verified"] is True
    assert {c["name"]: c["status"] for c in report["checks"]} == {
        name: "pass" for name in (
            "format", "round_chain", "shoe_chain", "summary", "commit_before_bets",
            "seed_revealed", "commitment", "shoe_deal", "round_deal", "settlement",
        )
    }  # fmt: skip
    status, out = verify_with_cli(capsys, tmp_path, bundle)
    assert status == 0 and "VERIFIED: every check passed" in out

    # The bundle tells the same story as the hand history, from the log itself.
    with pool.connection() as connection:
        history = Queries(connection).round_history(round_id)
    assert [e["hash"] for e in bundle["round"]["events"]] == [e["hash"] for e in history["events"]]
    assert [e["type"] for e in bundle["shoe"]["events"]] == [
        "ShoeOpened", "TilesDealt", "ShoeClosed",
    ]  # fmt: skip
    assert bundle["shoe"]["server_seed"] == history["shoe"]["server_seed"] is not None
    assert [(s["tiles"], s["connector"]) for s in bundle["dealt"]] == [
        (h["tiles"], h["connector"]) for h in history["hands"]
    ]
    assert bundle["round"]["events"][0]["recorded_at"].endswith("+00:00")


def test_a_tampered_copy_of_a_real_bundle_fails(
    casino: Casino,
    pool: Pool,
    new_table: Callable[..., str],
    funded_player: Callable[..., str],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    (round_id,) = play_rounds(casino, new_table(), [funded_player()], 1)
    bundle = bundle_of(pool, round_id)
    dealt = next(e for e in bundle["shoe"]["events"] if e["type"] == "TilesDealt")
    dealt["data"]["tiles"][0] = (dealt["data"]["tiles"][0] + 1) % 56
    status, out = verify_with_cli(capsys, tmp_path, bundle, "--json")
    failed = {c["name"] for c in json.loads(out)["checks"] if c["status"] == "fail"}
    assert status == 1
    assert {"shoe_chain", "shoe_deal"} <= failed


def test_a_live_shoe_bundle_holds_no_seed_until_the_shoe_closes(
    casino: Casino,
    pool: Pool,
    new_table: Callable[..., str],
    funded_player: Callable[..., str],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    # Two seats, one playing: 4 tiles a round, so the cut card (8) closes the shoe at the
    # second round's deal.
    table_id = new_table(seats=2, cut_card=8)
    player = funded_player()
    (first,) = play_rounds(casino, table_id, [player], 1)
    live = bundle_of(pool, first)
    seed = seed_of(pool, live["shoe"]["shoe_id"])
    assert (live["shoe"]["status"], live["shoe"]["server_seed"]) == ("live", None)
    text = json.dumps(live)
    assert seed.hex() not in text and seed.hex().upper() not in text
    assert all(e["type"] != "ShoeClosed" for e in live["shoe"]["events"])

    status, out = verify_with_cli(capsys, tmp_path, live, "--json")
    checks = {c["name"]: c for c in json.loads(out)["checks"]}
    assert status == 1
    assert [name for name, c in checks.items() if c["status"] == "fail"] == ["seed_revealed"]
    assert checks["seed_revealed"]["detail"] == SEED_NOT_REVEALED
    assert checks["commitment"]["status"] == "skipped"
    assert checks["settlement"]["status"] == "pass"

    (second,) = play_rounds(casino, table_id, [player], 1)
    closed = bundle_of(pool, first)
    assert closed["shoe"]["shoe_id"] == bundle_of(pool, second)["shoe"]["shoe_id"]
    assert (closed["shoe"]["status"], closed["shoe"]["server_seed"]) == ("closed", seed.hex())
    assert [e["type"] for e in closed["shoe"]["events"]] == [
        "ShoeOpened", "TilesDealt", "TilesDealt", "ShoeClosed",
    ]  # fmt: skip
    assert closed["round"] == live["round"]  # the round itself did not change
    status, out = verify_with_cli(capsys, tmp_path, closed)
    assert status == 0, out


def test_the_bundle_carries_the_latest_checkpoint_after_the_round(
    fresh_casino: tuple[Casino, Pool],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    casino, pool = fresh_casino
    table_id = unique("T")
    casino.open_table(
        OpenTable(table_id, "Checkpoints", "EUR", 7, 1, 1, 100, 100_000, 100, 10_000), ADMIN
    )
    player = unique("P")
    casino.move_funds(player, "EUR", 1_000_000, "test", True, ADMIN)
    (checkpointed,) = play_rounds(casino, table_id, [player], 1)
    with pool.connection() as connection:
        checkpoint = create_checkpoint(connection)
    (later,) = play_rounds(casino, table_id, [player], 1)

    bundle = bundle_of(pool, checkpointed)
    assert bundle["checkpoint"] is not None
    assert (bundle["checkpoint"]["position"], bundle["checkpoint"]["hash"]) == (
        checkpoint.position, checkpoint.hash,
    )  # fmt: skip
    assert bundle["checkpoint"]["position"] >= bundle["round"]["events"][-1]["position"]
    assert bundle_of(pool, later)["checkpoint"] is None  # none covers it yet
    status, out = verify_with_cli(capsys, tmp_path, bundle)
    assert status == 0
    assert f"checkpoint: log position {checkpoint.position}" in out


def test_an_unknown_round_has_no_bundle(pool: Pool) -> None:
    with pytest.raises(NotFound) as raised:
        bundle_of(pool, unique("R"))
    assert raised.value.code == "round_not_found"
