from __future__ import annotations

from typing import Any

import psycopg
import pytest
from psycopg import Connection
from psycopg_pool import ConnectionPool

from casino.app.actors import Actor, Role
from casino.app.service import Casino
from casino.domain.rounds import SeatWager
from casino.domain.tables import OpenTable
from tests.integration.app.conftest import ADMIN

pytestmark = pytest.mark.integration


def snapshot(conn: Connection[Any]) -> dict[str, Any]:
    return {
        "events": conn.execute("SELECT count(*), max(position) FROM events").fetchone(),
        "balances": conn.execute("SELECT * FROM rm_balances ORDER BY player_id").fetchall(),
        "rounds": conn.execute("SELECT round_id, status, version FROM rm_rounds").fetchall(),
        "ledger": conn.execute("SELECT count(*) FROM ledger_postings").fetchone(),
        "shoes": conn.execute("SELECT shoe_id, tiles_dealt, server_seed FROM rm_shoes").fetchall(),
    }


def test_a_deal_that_fails_midway_writes_nothing(
    fresh_casino: tuple[Casino, ConnectionPool[Connection[Any]]],
) -> None:
    casino, pool = fresh_casino
    casino.open_table(OpenTable("T", "Atomic", "EUR", 2, 1, 1, 100, 10_000, 100, 1_000), ADMIN)
    key = Actor(Role.TABLE, "dealer", frozenset({"T"}))
    casino.move_funds("p", "EUR", 10_000, "", True, ADMIN)
    round_id = casino.open_round("T", "", key).body["round_id"]
    casino.place_wagers(round_id, [SeatWager(1, "p", 1_000), SeatWager(2, "p", 1_000)], key)
    with pool.connection() as conn:
        before = snapshot(conn)
        # Fail the deal's transaction at COMMIT: after its events, read models, shoe and
        # ledger postings have all been written within it.
        conn.execute(
            "CREATE FUNCTION fail_at_commit() RETURNS trigger LANGUAGE plpgsql AS"
            " $$ BEGIN RAISE EXCEPTION 'crash at commit' USING ERRCODE = 'XX000'; END $$"
        )
        conn.execute(
            "CREATE CONSTRAINT TRIGGER fail_deal AFTER UPDATE ON rm_shoes"
            " DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION fail_at_commit()"
        )
    with pytest.raises(psycopg.errors.InternalError_, match="crash at commit"):
        casino.deal(round_id, key)
    with pool.connection() as conn:
        assert snapshot(conn) == before
        conn.execute("DROP TRIGGER fail_deal ON rm_shoes")
    dealt = casino.deal(round_id, key).body
    assert dealt["status"] == "settled"
