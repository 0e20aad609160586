from __future__ import annotations

from typing import Any

import pytest
from psycopg import Connection
from psycopg_pool import ConnectionPool

from casino.app.actors import Actor, Role
from casino.app.service import Casino
from casino.domain.rounds import SeatWager
from casino.domain.tables import OpenTable
from casino.eventstore import NewEvent
from casino.eventstore.postgres import PostgresEventStore
from casino.readmodels.rebuild import _events, rebuild
from tests.integration.app.conftest import ADMIN, play_rounds

pytestmark = pytest.mark.integration


def table(table_id: str, cut_card: int | None) -> OpenTable:
    return OpenTable(table_id, "Rebuild", "EUR", 4, 2, 3, 100, 5_000, 100, 1_000, cut_card)


def test_replaying_the_log_reproduces_every_read_model_exactly(
    fresh_casino: tuple[Casino, ConnectionPool[Connection[Any]]],
) -> None:
    casino, pool = fresh_casino
    players = ["alice", "bob", "carol"]
    for player in players:
        casino.move_funds(player, "EUR", 1_000_000, "opening", True, ADMIN)
    casino.move_funds("alice", "EUR", 5_000, "cash-out", False, ADMIN)
    casino.open_table(table("every-round", None), ADMIN)
    casino.open_table(table("cut-card", 40), ADMIN)
    play_rounds(casino, "every-round", players, 3)
    played = play_rounds(casino, "cut-card", players, 4)
    key = Actor(Role.TABLE, "dealer", frozenset({"cut-card"}))
    voided = casino.open_round("cut-card", "", key).body["round_id"]
    casino.place_wagers(voided, [SeatWager(2, "bob", 300)], key)
    casino.void_round(voided, "power cut", key)
    casino.void_round(played[0], "misdeal", ADMIN)

    with pool.connection() as conn:
        report = rebuild(conn)
        assert report.equal, [t for t in report.tables if not t.equal]
        assert report.events > 60
        counts = {t.table: t.live_rows for t in report.tables}
        assert counts["rm_rounds"] == 8
        assert counts["rm_balances"] == 3
        assert counts["rm_shoes"] >= 4

        # A read model that drifted from the log is found, and replacing repairs it.
        conn.execute("UPDATE rm_balances SET balance = balance + 1 WHERE player_id = 'bob'")
        drifted = rebuild(conn)
        assert not drifted.equal
        assert [t.table for t in drifted.tables if not t.equal] == ["rm_balances"]
        repaired = rebuild(conn, replace=True)
        assert repaired.replaced
        assert rebuild(conn).equal


def test_the_replay_reads_every_event_in_order_with_its_text_intact(
    fresh_casino: tuple[Casino, ConnectionPool[Connection[Any]]],
) -> None:
    # The replay streams the log out of one COPY: texts that a COPY escapes (backslash,
    # tab, newline) or that are not ASCII come back as they went in, in global order.
    _, pool = fresh_casino
    store = PostgresEventStore(pool)
    odd = ['back\\slash "quoted"', "tab\there", "new\nline", "café ✓ 🂡", ""]
    store.append("odd-1", 0, [NewEvent("Odd", {"text": text}) for text in odd[:3]], {"at": "1"})
    store.append("odd-2", 0, [NewEvent("Odd", {"text": text}) for text in odd[3:]])
    with pool.connection() as conn, conn.transaction():
        events = list(_events(conn))
    assert events == [
        ["odd-1", 1, "Odd", 1, {"text": odd[0]}, "1"],
        ["odd-1", 2, "Odd", 1, {"text": odd[1]}, "1"],
        ["odd-1", 3, "Odd", 1, {"text": odd[2]}, "1"],
        ["odd-2", 1, "Odd", 1, {"text": odd[3]}, None],
        ["odd-2", 2, "Odd", 1, {"text": odd[4]}, None],
    ]
