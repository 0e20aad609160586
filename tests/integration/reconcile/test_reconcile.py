from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from psycopg import Connection
from psycopg_pool import ConnectionPool

from casino.app.actors import Actor, Role
from casino.app.service import Casino
from casino.domain.rounds import SeatWager
from casino.domain.tables import OpenTable
from casino.reconcile.run import reconcile
from tests.integration.app.conftest import ADMIN, play_rounds

pytestmark = pytest.mark.integration

Fresh = tuple[Casino, ConnectionPool[Connection[Any]]]


def play(casino: Casino) -> None:
    for player in ("ann", "ben"):
        casino.move_funds(player, "EUR", 1_000_000, "opening", True, ADMIN)
    casino.open_table(OpenTable("T", "Reconciled", "EUR", 3, 1, 1, 100, 5_000, 100, 1_000), ADMIN)
    play_rounds(casino, "T", ["ann", "ben"], 6)


def by_check(outcome: Any) -> dict[str, int]:
    return {r.name: len(r.findings) for r in outcome.results}


def test_a_clean_log_reconciles_clean_and_the_run_is_recorded(fresh_casino: Fresh) -> None:
    casino, pool = fresh_casino
    play(casino)
    with pool.connection() as conn:
        outcome = reconcile(conn, casino.store)
        assert outcome.clean, outcome.as_json()["findings"]
        examined = {r.name: r.examined for r in outcome.results}
        assert examined["payouts"] == 6
        assert examined["wagers"] == 6
        rows = conn.execute(
            "SELECT type, data FROM events WHERE stream_id = %s ORDER BY version",
            (f"reconciliation-{outcome.run_id}",),
        ).fetchall()
        assert [r[0] for r in rows] == ["ReconciliationCompleted"]
        assert rows[0][1]["clean"] is True
        # The run extended the checkpoints; a second run checks against them.
        assert conn.execute("SELECT count(*) FROM log_checkpoints").fetchone() == (1,)
    with pool.connection() as conn:
        assert reconcile(conn, casino.store).clean


def test_an_edited_payout_is_found_by_the_chain_and_by_the_game_core(fresh_casino: Fresh) -> None:
    casino, pool = fresh_casino
    play(casino)
    with pool.connection() as conn:
        conn.execute("SET session_replication_role = replica")  # a superuser bypassing triggers
        row = conn.execute(
            "SELECT position, data FROM events WHERE type = 'RoundSettled'"
            " ORDER BY position LIMIT 1"
        ).fetchone()
        assert row is not None
        position, data = row
        data["seats"][0]["main_payout"] += 1_000
        conn.execute(
            "UPDATE events SET data = %s WHERE position = %s", (json.dumps(data), position)
        )
        conn.execute("SET session_replication_role = origin")
        outcome = reconcile(conn, casino.store)
    found = by_check(outcome)
    assert not outcome.clean
    assert found["chains"] == 1
    assert found["payouts"] == 1
    assert found["ledger"] == 0 and found["wagers"] == 0


def test_read_model_drift_and_a_stuck_round_are_found(fresh_casino: Fresh) -> None:
    casino, pool = fresh_casino
    play(casino)
    key = Actor(Role.TABLE, "dealer", frozenset({"T"}))
    stuck = casino.open_round("T", "", key).body["round_id"]
    casino.place_wagers(stuck, [SeatWager(1, "ann", 500)], key)
    with pool.connection() as conn:
        conn.execute("UPDATE rm_balances SET balance = balance + 7 WHERE player_id = 'ben'")
        outcome = reconcile(conn, casino.store, stuck_age=timedelta(0))
    found = by_check(outcome)
    assert found["read_models"] == 1  # rm_balances
    assert found["ledger"] == 1  # ben's balance no longer equals his postings
    assert found["stuck_rounds"] == 1
    stuck_finding = next(f for r in outcome.results for f in r.findings if r.name == "stuck_rounds")
    assert stuck_finding.subject == stuck


def test_a_wager_settled_twice_is_found(fresh_casino: Fresh) -> None:
    casino, pool = fresh_casino
    play(casino)
    with pool.connection() as conn:
        row = conn.execute(
            "SELECT stream_id, data, metadata FROM events WHERE type = 'RoundSettled'"
            " ORDER BY position LIMIT 1"
        ).fetchone()
        assert row is not None
        stream, data, metadata = row
        last = conn.execute(
            "SELECT max(version) FROM events WHERE stream_id = %s", (stream,)
        ).fetchone()
        assert last is not None
        conn.execute(
            "INSERT INTO events (stream_id, version, type, schema_version, data, metadata,"
            " previous_hash, hash) VALUES (%s, %s, 'RoundSettled', 1, %s, %s, %s, %s)",
            (stream, last[0] + 1, json.dumps(data), json.dumps(metadata), "0" * 64, "1" * 64),
        )
        outcome = reconcile(conn, casino.store)
    found = by_check(outcome)
    assert found["wagers"] == 1
    assert found["chains"] == 1
