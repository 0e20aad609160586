"""Invariant 7: a live shoe's server seed is in no response and no log line.

Rounds are played on a cut-card table, so one shoe deals many rounds; every answer
the client was given, the whole event feed and the server's log are searched for the
seed (read from the seed vault). Playing on until the cut card closes the shoe shows
the search would find it: the closing deal reveals it.
"""

from __future__ import annotations

import base64
from typing import Any

import psycopg
import pytest

from tests.e2e.client import Client, Keys, Server

pytestmark = pytest.mark.e2e

CUT_CARD = 40  # one seat takes 4 tiles: the shoe closes at the tenth round's deal


def _seed_of(server: Server, shoe_id: str) -> bytes:
    with psycopg.connect(server.database_url) as connection:
        row: Any = connection.execute(
            "SELECT server_seed FROM shoe_secrets WHERE shoe_id = %s", (shoe_id,)
        ).fetchone()
    return bytes(row[0])


def _forms(seed: bytes) -> list[bytes]:
    return [seed.hex().encode(), seed.hex().upper().encode(), base64.b64encode(seed),
            base64.urlsafe_b64encode(seed).rstrip(b"=")]  # fmt: skip


def _play_and_read_everything(api: Client, keys: Keys, table: str, key: str, player: str) -> Any:
    round_id = api.ok("POST", f"/v1/tables/{table}/rounds", key, json={"client_seed": "c"})[
        "round_id"
    ]
    api.ok("POST", f"/v1/rounds/{round_id}/wagers", key,
           json={"seat": 1, "player_id": player, "main": 100, "doubles": 100})  # fmt: skip
    dealt = api.ok("POST", f"/v1/rounds/{round_id}/deal", key)
    for reader in (key, keys.auditor):
        api.ok("GET", f"/v1/rounds/{round_id}", reader)
        api.ok("GET", f"/v1/shoes/{dealt['shoe']['shoe_id']}", reader)
        api.ok("GET", f"/v1/tables/{table}", reader)
        api.ok("GET", f"/v1/rounds?table_id={table}", reader)
        api.ok("GET", f"/v1/rounds/{round_id}/verification", reader)
        api.ok("GET", f"/v1/tables/{table}/seats/1/rounds/last?n=5", reader)
        api.ok("GET", f"/v1/players/{player}/rounds/last?n=5&table_id={table}", reader)
        for export_format in ("csv", "jsonl"):
            exported = api.get(f"/v1/exports/hand-histories?table_id={table}&format="
                               f"{export_format}&from=2020-01-01T00:00:00Z"
                               "&to=2100-01-01T00:00:00Z", reader)  # fmt: skip
            assert exported.status_code == 200, exported.text
    api.last_position(keys.auditor)  # reads the whole event feed
    return dealt


def test_the_seed_of_a_live_shoe_is_never_shown(api: Client, keys: Keys, server: Server) -> None:
    table = api.open_table(keys.admin, seats=2, cut_card=CUT_CARD)
    key = api.table_key(keys.admin, table)
    player = api.funded_player(key)
    dealt = [_play_and_read_everything(api, keys, table, key, player) for _ in range(3)]
    shoe_id = dealt[0]["shoe"]["shoe_id"]
    assert {d["shoe"]["shoe_id"] for d in dealt} == {shoe_id}
    assert all(d["shoe"]["closed"] is False and d["shoe"]["server_seed"] is None for d in dealt)
    seed = _seed_of(server, shoe_id)
    everything = b"\n".join(api.bodies)
    log = server.log.read_bytes()
    for form in _forms(seed):
        assert form not in everything
        assert form not in log

    # Play on to the cut card: the deal that closes the shoe reveals the seed.
    for _ in range(CUT_CARD // 4 - 3):
        last = _play_and_read_everything(api, keys, table, key, player)
    assert last["shoe"]["closed"] is True
    assert last["shoe"]["server_seed"] == seed.hex()
    assert seed.hex().encode() in b"\n".join(api.bodies)
    shoe = api.ok("GET", f"/v1/shoes/{shoe_id}", keys.auditor)
    assert shoe["verification"]["verified"] is True and shoe["tiles_dealt"] == CUT_CARD
