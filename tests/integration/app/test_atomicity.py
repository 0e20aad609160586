from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import psycopg
import pytest
from psycopg import Connection
from psycopg_pool import ConnectionPool

from casino.app.actors import Actor, Role
from casino.app.commands import Idempotency
from casino.app.service import Casino
from casino.domain.rounds import SeatWager
from casino.domain.tables import OpenTable
from tests.integration.app.conftest import ADMIN
from tests.integration.eventstore.helpers import wait_until

pytestmark = pytest.mark.integration


def snapshot(conn: Connection[Any]) -> dict[str, Any]:
    return {
        "events": conn.execute("SELECT count(*), max(position) FROM events").fetchone(),
        "balances": conn.execute("SELECT * FROM rm_balances ORDER BY player_id").fetchall(),
        "rounds": conn.execute("SELECT round_id, status, version FROM rm_rounds").fetchall(),
        "ledger": conn.execute("SELECT count(*) FROM ledger_postings").fetchone(),
        "shoes": conn.execute("SELECT shoe_id, tiles_dealt, server_seed FROM rm_shoes").fetchall(),
    }


def round_with_wagers(casino: Casino) -> tuple[str, Actor]:
    """A round open for betting at a new table, two seats wagered (one with Doubles),
    and the table's key."""
    casino.open_table(OpenTable("T", "Atomic", "EUR", 2, 1, 1, 100, 10_000, 100, 1_000), ADMIN)
    key = Actor(Role.TABLE, "dealer", frozenset({"T"}))
    casino.move_funds("p", "EUR", 10_000, "", True, ADMIN)
    round_id = casino.open_round("T", "", key).body["round_id"]
    casino.place_wagers(round_id, [SeatWager(1, "p", 1_000), SeatWager(2, "p", 500, 100)], key)
    return round_id, key


def test_a_deal_that_fails_midway_writes_nothing(
    fresh_casino: tuple[Casino, ConnectionPool[Connection[Any]]],
) -> None:
    casino, pool = fresh_casino
    round_id, key = round_with_wagers(casino)
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


STALL_AT_COMMIT = 7310293372818019999  # this test's own advisory lock key

WAITING_AT_COMMIT = f"""
SELECT pid FROM pg_locks
 WHERE locktype = 'advisory' AND NOT granted
   AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
   AND (classid::bigint << 32 | objid::bigint) = {STALL_AT_COMMIT}
"""


def test_a_deal_whose_connection_is_killed_at_commit_writes_nothing(
    fresh_casino: tuple[Casino, ConnectionPool[Connection[Any]]],
    fresh_database_url: str,
) -> None:
    casino, pool = fresh_casino
    round_id, key = round_with_wagers(casino)
    once = Idempotency("deal-once", "fingerprint")
    with pool.connection() as conn:
        before = snapshot(conn)
        # A deferred trigger makes COMMIT wait for a lock the test holds: by then the
        # deal has written everything (read models, idempotency record, events) and
        # holds the append lock.
        conn.execute(
            "CREATE FUNCTION stall_at_commit() RETURNS trigger LANGUAGE plpgsql AS"
            f" $$ BEGIN PERFORM pg_advisory_xact_lock({STALL_AT_COMMIT}); RETURN NULL; END $$"
        )
        conn.execute(
            "CREATE CONSTRAINT TRIGGER stall_deal AFTER INSERT ON events"
            " DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION stall_at_commit()"
        )
    with (  # the executor outermost: on a failure the blocker lets the deal go first
        ThreadPoolExecutor(1) as executor,
        psycopg.connect(fresh_database_url, autocommit=True) as blocker,
        psycopg.connect(fresh_database_url, autocommit=True) as admin,
    ):
        blocker.execute("SELECT pg_advisory_lock(%s)", (STALL_AT_COMMIT,))
        deal = executor.submit(casino.deal, round_id, key, once)
        wait_until(lambda: admin.execute(WAITING_AT_COMMIT).fetchone() is not None)
        (victim,) = admin.execute(WAITING_AT_COMMIT).fetchone() or (0,)
        written = admin.execute(
            "SELECT relation::regclass::text FROM pg_locks"
            " WHERE pid = %s AND locktype = 'relation' AND mode = 'RowExclusiveLock'",
            (victim,),
        ).fetchall()
        assert {"events", "idempotency_keys", "rm_rounds", "rm_seats", "rm_shoes"} <= {
            name for (name,) in written
        }
        admin.execute("SELECT pg_terminate_backend(%s)", (victim,))
        with pytest.raises(psycopg.OperationalError):
            deal.result(timeout=10)
        blocker.execute("SELECT pg_advisory_unlock(%s)", (STALL_AT_COMMIT,))
    with pool.connection() as conn:
        conn.execute("DROP TRIGGER stall_deal ON events")
        assert snapshot(conn) == before
        found = conn.execute("SELECT count(*) FROM idempotency_keys WHERE key = %s", (once.key,))
        assert found.fetchone() == (0,)
    # Nothing was left behind: the same deal, with the same key, now goes through once.
    dealt = casino.deal(round_id, key, once)
    assert (dealt.body["status"], dealt.replayed) == ("settled", False)
    again = casino.deal(round_id, key, once)
    assert (again.body, again.replayed) == (dealt.body, True)
