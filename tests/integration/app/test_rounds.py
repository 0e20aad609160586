from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest
from psycopg import Connection
from psycopg_pool import ConnectionPool

from casino.app.actors import Actor, Role
from casino.app.commands import Idempotency
from casino.app.queries import Queries
from casino.app.service import Casino
from casino.domain.errors import Forbidden, RuleViolation
from casino.domain.rounds import SeatWager
from casino.domain.streams import round_stream
from casino.domain.tables import OpenTable
from casino.eventstore import NewEvent
from casino.eventstore.postgres import PostgresEventStore
from casino.game.deal import deal_round
from casino.game.paytables import DOUBLES_PAYTABLES, MAIN_PAYTABLES
from casino.game.scoring import score_tiles
from casino.game.shoe import commitment_of, shuffle
from tests.integration.app.conftest import ADMIN

pytestmark = pytest.mark.integration

Pool = ConnectionPool[Connection[object]]


def table_key(table_id: str) -> Actor:
    return Actor(Role.TABLE, "dealer-terminal", frozenset({table_id}))


def test_a_full_round_settles_exactly_as_the_game_core_says(
    casino: Casino, pool: Pool, new_table: Callable[..., str], funded_player: Callable[..., str]
) -> None:
    table_id = new_table()
    key = table_key(table_id)
    alice, bob = funded_player(100_000), funded_player(50_000)
    opened = casino.open_round(table_id, "client-entropy", key).body
    round_id = opened["round_id"]
    # New rounds and shoes are named by time-ordered ids (UUIDv7, casino/app/ids.py).
    assert uuid.UUID(hex=round_id).version == uuid.UUID(hex=opened["shoe"]["shoe_id"]).version == 7
    assert opened["shoe"]["nonce"] == 0
    assert len(opened["shoe"]["commitment"]) == 64
    wagers = [SeatWager(6, bob, 1_000), SeatWager(2, alice, 2_000, 500)]
    placed = casino.place_wagers(round_id, wagers, key).body
    assert {b["player_id"]: b["balance"] for b in placed["balances"]} == {
        alice: 97_500,
        bob: 49_000,
    }
    dealt = casino.deal(round_id, key).body

    # Re-derive everything from the revealed seed, independently of the service.
    seed = bytes.fromhex(dealt["shoe"]["server_seed"])
    assert commitment_of(seed) == opened["shoe"]["commitment"]
    order = shuffle(seed, "client-entropy", 0)
    expected = {d.seat: d for d in deal_round(order, 0, [2, 6])}
    balances = {alice: 97_500, bob: 49_000}
    for hand in dealt["hands"]:
        seat = expected[hand["seat"]]
        assert [t["id"] for t in hand["tiles"]] == list(seat.hand)
        assert [t["position"] for t in hand["tiles"]] == list(seat.positions[:3])
        assert hand["connector"]["id"] == seat.connector
        score = score_tiles(seat.hand, seat.connector)
        assert hand["tile_scores"] == list(score.tile_scores)
        assert hand["total"] == score.total
        odds = MAIN_PAYTABLES[1].odds_for(score.total)
        stake = hand["main"]["stake"]
        assert hand["main"]["payout"] == (0 if odds is None else stake * (odds + 1))
        balances[hand["player_id"]] += hand["main"]["payout"]
        if hand["doubles"] is not None:
            d_odds = DOUBLES_PAYTABLES[1].odds_for(hand["doubles"]["event"])
            assert hand["doubles"]["payout"] == (0 if d_odds is None else 500 * (d_odds + 1))
            balances[hand["player_id"]] += hand["doubles"]["payout"]
    assert {b["player_id"]: b["balance"] for b in dealt["balances"]} == balances

    with pool.connection() as conn:
        queries = Queries(conn)
        history = queries.round_history(round_id)
        assert history["status"] == "settled"
        assert history["hands"] == dealt["hands"]
        assert history["shoe"]["server_seed"] == dealt["shoe"]["server_seed"]
        assert [e["type"] for e in history["events"]] == [
            "RoundOpened",
            "WagerPlaced",
            "WagerPlaced",
            "BettingClosed",
            "HandsDealt",
            "RoundSettled",
        ]
        for player, balance in balances.items():
            assert queries.player(player)["balances"][0]["balance"] == balance
        shoe = queries.shoe(opened["shoe"]["shoe_id"])
        assert shoe["verification"]["verified"] is True
        assert [t["id"] for t in shoe["dealt"]] == list(order[:8])


def test_the_seed_stays_out_of_the_log_while_the_shoe_is_live(
    casino: Casino, pool: Pool, new_table: Callable[..., str], funded_player: Callable[..., str]
) -> None:
    table_id = new_table(cut_card=40, seats=2)
    key = table_key(table_id)
    player = funded_player()
    first = casino.open_round(table_id, "", key).body
    casino.place_wagers(first["round_id"], [SeatWager(1, player, 500)], key)
    dealt = casino.deal(first["round_id"], key).body
    assert dealt["shoe"]["closed"] is False and dealt["shoe"]["server_seed"] is None
    second = casino.open_round(table_id, "ignored for a live shoe", key).body
    assert second["shoe"]["shoe_id"] == first["shoe"]["shoe_id"]
    with pool.connection() as conn:
        row: Any = conn.execute(
            "SELECT server_seed FROM shoe_secrets WHERE shoe_id = %s", (first["shoe"]["shoe_id"],)
        ).fetchone()
        seed_hex = bytes(row[0]).hex()
        leaks = conn.execute(
            "SELECT count(*) FROM events WHERE data::text LIKE %s OR metadata::text LIKE %s",
            (f"%{seed_hex}%", f"%{seed_hex}%"),
        ).fetchone()
        assert leaks == (0,)
        dealt_tiles = conn.execute(
            "SELECT tiles_dealt FROM rm_shoes WHERE shoe_id = %s", (first["shoe"]["shoe_id"],)
        ).fetchone()
        assert dealt_tiles == (4,)


def test_rules_are_enforced(
    casino: Casino, new_table: Callable[..., str], funded_player: Callable[..., str]
) -> None:
    table_id = new_table()
    key = table_key(table_id)
    poor = funded_player(150)
    round_id = casino.open_round(table_id, "", key).body["round_id"]
    with pytest.raises(RuleViolation, match="still open"):
        casino.open_round(table_id, "", key)
    with pytest.raises(RuleViolation, match="only once it has a wager"):
        casino.deal(round_id, key)
    with pytest.raises(RuleViolation) as caught:
        casino.place_wagers(round_id, [SeatWager(1, poor, 200)], key)
    assert caught.value.code == "insufficient_funds"
    casino.place_wagers(round_id, [SeatWager(1, poor, 150)], key)
    with pytest.raises(Forbidden):
        casino.deal(round_id, table_key("another-table"))
    casino.deal(round_id, key)
    with pytest.raises(RuleViolation) as caught:
        casino.deal(round_id, key)
    assert caught.value.code == "betting_closed"
    with pytest.raises(Forbidden, match="only an admin"):
        casino.void_round(round_id, "dealer error", key)


def test_void_refunds_and_admin_reversal_restores_balances(
    casino: Casino, pool: Pool, new_table: Callable[..., str], funded_player: Callable[..., str]
) -> None:
    table_id = new_table()
    key = table_key(table_id)
    player = funded_player(10_000)
    voided = casino.open_round(table_id, "", key).body["round_id"]
    casino.place_wagers(voided, [SeatWager(1, player, 1_000, 200)], key)
    answer = casino.void_round(voided, "table fault", key).body
    assert answer["status"] == "voided"
    assert answer["movements"] == [
        {"player_id": player, "movement": "StakeRefunded", "amount": 1_200, "balance": 10_000}
    ]
    played = casino.open_round(table_id, "", key).body["round_id"]
    casino.place_wagers(played, [SeatWager(1, player, 1_000)], key)
    casino.deal(played, key)
    reversal = casino.void_round(played, "misdeal found on camera", ADMIN).body
    assert reversal["status"] == "reversed"
    with pool.connection() as conn:
        assert Queries(conn).player(player)["balances"][0]["balance"] == 10_000
        rows = conn.execute(
            "SELECT sum(amount) FROM ledger_postings WHERE round_id IN (%s, %s)", (voided, played)
        ).fetchone()
        assert rows == (0,)


def test_a_retry_with_the_same_idempotency_key_appends_nothing(
    casino: Casino, pool: Pool, funded_player: Callable[..., str]
) -> None:
    player = funded_player(0 + 1)
    key = Idempotency("deposit-1", "fingerprint-a")
    first = casino.move_funds(player, "EUR", 500, "cash", True, ADMIN, key)
    again = casino.move_funds(player, "EUR", 500, "cash", True, ADMIN, key)
    assert again.replayed and not first.replayed
    assert again.body == first.body
    with pool.connection() as conn:
        assert Queries(conn).player(player)["balances"][0]["balance"] == 501
    with pytest.raises(RuleViolation) as caught:
        casino.move_funds(
            player, "EUR", 700, "cash", True, ADMIN, Idempotency("deposit-1", "other")
        )
    assert caught.value.code == "idempotency_key_reused"


def test_a_reconfigured_table_deals_its_next_round_by_the_new_paytables(
    casino: Casino, pool: Pool, new_table: Callable[..., str], funded_player: Callable[..., str]
) -> None:
    table_id = new_table(main_paytable=1)
    key = table_key(table_id)
    player = funded_player()
    first = casino.open_round(table_id, "", key).body["round_id"]
    with pytest.raises(RuleViolation, match="reconfigure between rounds"):
        casino.reconfigure_table(reconfigured(table_id, main_paytable=5), ADMIN)
    with pytest.raises(Forbidden):
        casino.reconfigure_table(reconfigured(table_id, main_paytable=5), key)
    casino.place_wagers(first, [SeatWager(1, player, 500)], key)
    casino.deal(first, key)
    answer = casino.reconfigure_table(reconfigured(table_id, main_paytable=5), ADMIN).body
    assert answer["main_paytable"] == 5
    second = casino.open_round(table_id, "", key).body
    assert second["main_paytable"] == 5
    with pool.connection() as conn:
        assert Queries(conn).table(table_id)["main_paytable"] == 5
        assert Queries(conn).round_summary(first)["main_paytable"] == 1


def reconfigured(table_id: str, **changes: Any) -> OpenTable:
    values: dict[str, Any] = {
        "table_id": table_id, "name": "Test table", "currency": "EUR", "seats": 7,
        "main_paytable": 1, "doubles_paytable": 1, "main_min": 100, "main_max": 100_000,
        "doubles_min": 100, "doubles_max": 10_000, "cut_card": None,
    }  # fmt: skip
    return OpenTable(**(values | changes))


def test_a_new_round_id_that_already_names_a_stream_is_replaced_by_another(
    event_store: PostgresEventStore, pool: Pool, new_table: Callable[..., str]
) -> None:
    # open_round appends a new id's stream at version 0 without asking the log first;
    # should the id name a stream after all, the append is refused and the command is
    # decided again with a fresh id, and the other stream is left as it was.
    table_id = new_table()
    taken = f"taken-{table_id}"
    event_store.append(round_stream(taken), 0, [NewEvent("Unrelated", {"n": 1})])
    # A new table's first round draws a shoe id, then a round id; the retry does again.
    ids = iter([f"shoe-a-{table_id}", taken, f"shoe-b-{table_id}", f"fresh-{table_id}"])
    casino = Casino(event_store, pool.connection, new_id=lambda: next(ids))
    opened = casino.open_round(table_id, "client-entropy", table_key(table_id)).body
    assert opened["round_id"] == f"fresh-{table_id}"
    assert [e.type for e in event_store.read_stream(round_stream(taken))] == ["Unrelated"]
    assert event_store.stream_version(round_stream(opened["round_id"])) == 1
