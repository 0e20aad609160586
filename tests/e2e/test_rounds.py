"""Whole rounds over HTTP, every figure re-derived from the revealed seed by the game core."""

from __future__ import annotations

import pytest

from casino.game.deal import deal_round
from casino.game.doubles import doubles_event
from casino.game.paytables import DOUBLES_PAYTABLES, MAIN_PAYTABLES
from casino.game.scoring import score_tiles
from casino.game.shoe import commitment_of, shuffle
from casino.game.tiles import face_index_of_tile, face_text
from tests.e2e.client import Client, Json, Keys

pytestmark = pytest.mark.e2e


def _wagers(players: list[str]) -> list[Json]:
    return [
        {"seat": seat, "player_id": player, "main": 100 * seat, "doubles": 100 if seat % 2 else 0}
        for seat, player in enumerate(players, start=1)
    ]


def _check_hand(hand: Json, expected: Json, main_paytable: int, doubles_paytable: int) -> int:
    """Check one seat of a deal answer against the game core; return what it paid."""
    seat = expected["dealt"]
    assert [t["id"] for t in hand["tiles"]] == list(seat.hand)
    assert [t["position"] for t in hand["tiles"]] == list(seat.positions[:3])
    assert [t["face"] for t in hand["tiles"]] == [
        face_text(face_index_of_tile(t)) for t in seat.hand
    ]
    assert (hand["connector"]["id"], hand["connector"]["position"]) == (
        seat.connector, seat.positions[3],
    )  # fmt: skip
    score = score_tiles(seat.hand, seat.connector)
    assert hand["tile_scores"] == list(score.tile_scores)
    assert hand["connector_bonus"] == score.connector_bonus
    assert hand["total"] == score.total
    odds = MAIN_PAYTABLES[main_paytable].odds_for(score.total)
    main = expected["wager"]["main"]
    assert hand["main"] == {
        "stake": main, "odds_to_one": odds, "payout": 0 if odds is None else main * (odds + 1),
        "result": "lose" if odds is None else "win",
    }  # fmt: skip
    paid = int(hand["main"]["payout"])
    stake = expected["wager"]["doubles"]
    if not stake:
        assert hand["doubles"] is None
        return paid
    event = doubles_event([face_index_of_tile(t) for t in (*seat.hand, seat.connector)])
    d_odds = DOUBLES_PAYTABLES[doubles_paytable].odds_for(event)
    assert hand["doubles"] == {
        "stake": stake, "event": event.value, "odds_to_one": d_odds,
        "payout": 0 if d_odds is None else stake * (d_odds + 1),
        "result": "lose" if d_odds is None else "win",
    }  # fmt: skip
    return paid + int(hand["doubles"]["payout"])


@pytest.mark.parametrize(("seats", "main_paytable", "doubles_paytable"), [(1, 3, 2), (7, 5, 4)])
def test_a_full_round_settles_exactly_as_the_game_core_says(
    api: Client, keys: Keys, seats: int, main_paytable: int, doubles_paytable: int
) -> None:
    table = api.open_table(
        keys.admin, seats=seats, main_paytable=main_paytable, doubles_paytable=doubles_paytable
    )
    key = api.table_key(keys.admin, table)
    players = [api.funded_player(key, 100_000) for _ in range(seats)]

    opening = api.post(f"/v1/tables/{table}/rounds", key, json={"client_seed": "e2e entropy"})
    assert opening.status_code == 201, opening.text
    opened = opening.json()
    assert opening.headers["ETag"] == '"1"'
    round_id = opened["round_id"]
    wagers = _wagers(players)
    body: Json = wagers[0] if seats == 1 else {"wagers": wagers}  # single form and batch
    placed = api.ok("POST", f"/v1/rounds/{round_id}/wagers", key, json=body)
    staked = {w["player_id"]: w["main"] + w["doubles"] for w in wagers}
    assert {b["player_id"]: b["balance"] for b in placed["balances"]} == {
        p: 100_000 - staked[p] for p in players
    }

    dealt = api.ok("POST", f"/v1/rounds/{round_id}/deal", key)
    assert dealt["status"] == "settled" and dealt["shoe"]["closed"] is True

    # Re-derive the deal from the revealed seed, independently of the service.
    seed = bytes.fromhex(dealt["shoe"]["server_seed"])
    assert commitment_of(seed) == opened["shoe"]["commitment"]
    order = shuffle(seed, "e2e entropy", opened["shoe"]["nonce"])
    expected = {d.seat: d for d in deal_round(order, 0, list(range(1, seats + 1)))}
    balances = {p: 100_000 - staked[p] for p in players}
    assert [h["seat"] for h in dealt["hands"]] == list(range(1, seats + 1))
    for hand, wager in zip(dealt["hands"], wagers, strict=True):
        paid = _check_hand(
            hand, {"dealt": expected[hand["seat"]], "wager": wager}, main_paytable,
            doubles_paytable,
        )  # fmt: skip
        balances[hand["player_id"]] += paid
    assert dealt["handle"] == sum(staked.values())
    assert dealt["payouts"] == sum(balances.values()) - sum(100_000 - staked[p] for p in players)
    assert {b["player_id"]: b["balance"] for b in dealt["balances"]} == balances
    for player, balance in balances.items():
        assert api.balance(key, player) == balance

    recall = api.get(f"/v1/rounds/{round_id}", keys.auditor)
    history = recall.json()
    assert recall.headers["ETag"] == f'"{dealt["version"]}"' == f'"{history["version"]}"'
    assert history["hands"] == dealt["hands"]
    assert history["shoe"]["server_seed"] == seed.hex()
    assert [e["type"] for e in history["events"]] == [
        "RoundOpened", *["WagerPlaced"] * seats, "BettingClosed", "HandsDealt", "RoundSettled",
    ]  # fmt: skip
    assert {p["player_id"]: p["balance_after"] for p in history["players"]} == balances
    shoe = api.ok("GET", f"/v1/shoes/{opened['shoe']['shoe_id']}", keys.auditor)
    assert shoe["verification"]["verified"] is True
    assert [t["id"] for t in shoe["dealt"]] == list(order[: 4 * seats])


def test_void_refunds_and_an_admin_reverses_a_settled_round(api: Client, keys: Keys) -> None:
    table = api.open_table(keys.admin)
    key = api.table_key(keys.admin, table)
    player = api.funded_player(key, 10_000)
    voided = api.ok("POST", f"/v1/tables/{table}/rounds", key)["round_id"]
    api.ok("POST", f"/v1/rounds/{voided}/wagers", key,
           json={"seat": 1, "player_id": player, "main": 1_000, "doubles": 200})  # fmt: skip
    answer = api.ok("POST", f"/v1/rounds/{voided}/void", key, json={"reason": "table fault"})
    assert answer["status"] == "voided"
    assert answer["movements"] == [
        {"player_id": player, "movement": "StakeRefunded", "amount": 1_200, "balance": 10_000}
    ]
    played = api.ok("POST", f"/v1/tables/{table}/rounds", key)["round_id"]
    api.ok("POST", f"/v1/rounds/{played}/wagers", key,
           json={"seat": 3, "player_id": player, "main": 1_000})  # fmt: skip
    api.ok("POST", f"/v1/rounds/{played}/deal", key)
    refused = api.post(f"/v1/rounds/{played}/void", key, json={"reason": "dealer says so"})
    assert refused.status_code == 403 and refused.json()["code"] == "admin_only"
    reversal = api.ok("POST", f"/v1/rounds/{played}/void", keys.admin,
                      json={"reason": "misdeal seen on camera"})  # fmt: skip
    assert reversal["status"] == "reversed" and reversal["reason"] == "misdeal seen on camera"
    assert api.balance(key, player) == 10_000


def test_if_match_pins_the_round_version(api: Client, keys: Keys) -> None:
    table = api.open_table(keys.admin)
    key = api.table_key(keys.admin, table)
    alice, bob = api.funded_player(key), api.funded_player(key)
    round_id = api.ok("POST", f"/v1/tables/{table}/rounds", key)["round_id"]
    etag = api.get(f"/v1/rounds/{round_id}", key).headers["ETag"]
    assert etag == '"1"'
    first = api.post(f"/v1/rounds/{round_id}/wagers", key, headers={"If-Match": etag},
                     json={"seat": 1, "player_id": alice, "main": 500})  # fmt: skip
    assert first.status_code == 201 and first.headers["ETag"] == '"2"'
    stale = api.post(f"/v1/rounds/{round_id}/wagers", key, headers={"If-Match": etag},
                     json={"seat": 2, "player_id": bob, "main": 500})  # fmt: skip
    assert stale.status_code == 412, stale.text
    assert stale.json()["field"] == "If-Match"
    assert api.balance(key, bob) == 1_000_000  # nothing of the refused command was written
    dealt = api.post(f"/v1/rounds/{round_id}/deal", key, headers={"If-Match": '"2"'})
    assert dealt.status_code == 200 and dealt.headers["ETag"] == f'"{dealt.json()["version"]}"'


def test_rounds_are_listed_by_table_player_and_time_a_page_at_a_time(
    api: Client, keys: Keys
) -> None:
    table = api.open_table(keys.admin)
    key = api.table_key(keys.admin, table)
    regular, visitor = api.funded_player(key), api.funded_player(key)
    played = []
    for number in range(3):
        round_id = api.ok("POST", f"/v1/tables/{table}/rounds", key)["round_id"]
        seats = [{"seat": 1, "player_id": regular, "main": 100}]
        if number == 1:
            seats.append({"seat": 2, "player_id": visitor, "main": 100})
        api.ok("POST", f"/v1/rounds/{round_id}/wagers", key, json={"wagers": seats})
        api.ok("POST", f"/v1/rounds/{round_id}/deal", key)
        played.append(round_id)

    first = api.ok("GET", f"/v1/rounds?table_id={table}&limit=2", key)
    assert [r["round_id"] for r in first["rounds"]] == played[:2]
    rest = api.ok("GET", f"/v1/rounds?table_id={table}&limit=2&cursor={first['next_cursor']}", key)
    assert [r["round_id"] for r in rest["rounds"]] == played[2:]
    assert rest["next_cursor"] is None
    mine = api.ok("GET", f"/v1/rounds?player_id={visitor}", keys.auditor)
    assert [r["round_id"] for r in mine["rounds"]] == [played[1]]
    opened_at = first["rounds"][1]["opened_at"]
    window = api.get(f"/v1/rounds?table_id={table}", keys.auditor,
                     params={"from": opened_at, "to": "2999-01-01T00:00:00Z"})  # fmt: skip
    assert [r["round_id"] for r in window.json()["rounds"]] == played[1:]
