"""GET /v1/rounds/{round_id}/verification over HTTP, checked the way the README says:
an auditor saves the bundle and runs ``casino shoe verify --bundle`` on it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
import pytest
import schemathesis

from casino.audit.bundle.report import SEED_NOT_REVEALED
from tests.e2e.client import PROBLEM, Client, Json, Keys, Server, unique

pytestmark = pytest.mark.e2e


def _played_round(api: Client, keys: Keys, **table: Any) -> tuple[str, str, Json]:
    """(the table's key, the round id, the deal's answer) of one round, seat 1 wagered."""
    table_id = api.open_table(keys.admin, **table)
    key = api.table_key(keys.admin, table_id)
    player = api.funded_player(key)
    opened = api.ok("POST", f"/v1/tables/{table_id}/rounds", key, json={"client_seed": "e2e"})
    round_id = str(opened["round_id"])
    wager = {"seat": 1, "player_id": player, "main": 100, "doubles": 100}
    api.ok("POST", f"/v1/rounds/{round_id}/wagers", key, json=wager)
    return key, round_id, api.ok("POST", f"/v1/rounds/{round_id}/deal", key)


def _cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "casino.cli.main", "shoe", "verify", *args],
        input=stdin, capture_output=True, check=False, timeout=60,
    )  # fmt: skip


def test_an_auditor_saves_a_bundle_and_the_cli_verifies_it(
    api: Client, keys: Keys, tmp_path: Path
) -> None:
    _, round_id, dealt = _played_round(api, keys)
    response = api.get(f"/v1/rounds/{round_id}/verification", keys.auditor)
    assert response.status_code == 200, response.text
    assert response.headers["Content-Type"] == "application/json"
    bundle = response.json()
    assert bundle["format"] == "casino-dominoes/round-verification"
    assert bundle["shoe"]["server_seed"] == dealt["shoe"]["server_seed"] is not None
    assert bundle["shoe"]["commitment"] == dealt["shoe"]["commitment"]
    assert [t["id"] for t in bundle["dealt"][0]["tiles"]] == [
        t["id"] for t in dealt["hands"][0]["tiles"]
    ]

    path = tmp_path / "round.json"
    path.write_bytes(response.content)
    result = _cli("--bundle", str(path))
    assert result.returncode == 0, result.stdout.decode() + result.stderr.decode()
    assert b"VERIFIED: every check passed" in result.stdout
    piped = _cli("--bundle", "-", "--json", stdin=response.content)
    assert piped.returncode == 0 and json.loads(piped.stdout)["verified"] is True


def test_a_live_shoe_bundle_shows_no_seed_and_does_not_verify(
    api: Client, keys: Keys, server: Server
) -> None:
    _, round_id, dealt = _played_round(api, keys, seats=2, cut_card=8)
    assert dealt["shoe"]["closed"] is False
    response = api.get(f"/v1/rounds/{round_id}/verification", keys.auditor)
    assert response.status_code == 200, response.text
    assert response.json()["shoe"]["server_seed"] is None
    with psycopg.connect(server.database_url) as connection:
        row: Any = connection.execute(
            "SELECT server_seed FROM shoe_secrets WHERE shoe_id = %s",
            (dealt["shoe"]["shoe_id"],),
        ).fetchone()
    seed = bytes(row[0]).hex()
    assert seed.encode() not in response.content
    assert seed.upper().encode() not in response.content
    result = _cli("--bundle", "-", stdin=response.content)
    assert result.returncode == 1
    assert SEED_NOT_REVEALED in result.stdout.decode()


def test_an_unknown_round_is_a_404_problem(api: Client, keys: Keys) -> None:
    response = api.get(f"/v1/rounds/{unique('R')}/verification", keys.auditor)
    assert response.status_code == 404
    assert response.headers["Content-Type"] == PROBLEM
    assert (response.json()["code"], response.json()["field"]) == ("round_not_found", "round_id")


def test_a_malformed_round_id_is_a_422_problem(api: Client, keys: Keys) -> None:
    response = api.get("/v1/rounds/-not-an-id/verification", keys.auditor)
    assert response.status_code == 422
    assert response.headers["Content-Type"] == PROBLEM
    assert response.json()["field"] == "round_id"


def test_readers_are_those_of_the_hand_history(api: Client, keys: Keys) -> None:
    key, round_id, _ = _played_round(api, keys)
    path = f"/v1/rounds/{round_id}/verification"
    other_table = api.table_key(keys.admin, unique("elsewhere"))
    for reader in (keys.admin, keys.auditor, key):
        assert api.get(path, reader).status_code == 200
    refused = api.get(path, other_table)
    assert (refused.status_code, refused.json()["field"]) == (403, "table_id")
    assert api.get(path).status_code == 401


def test_the_answer_conforms_to_the_openapi_document(
    api: Client, keys: Keys, server: Server
) -> None:
    schema = schemathesis.openapi.from_url(f"{server.base_url}/openapi.json")
    operation = schema["/v1/rounds/{round_id}/verification"]["GET"]
    for table in ({}, {"seats": 2, "cut_card": 8}):  # a closed shoe, then a live one
        _, round_id, _ = _played_round(api, keys, **table)
        response = api.get(f"/v1/rounds/{round_id}/verification", keys.auditor)
        operation.validate_response(response)  # raises when the body breaks the document
        assert response.json()["checkpoint"] is None or response.json()["checkpoint"]["hash"]
    missing = api.get(f"/v1/rounds/{unique('R')}/verification", keys.auditor)
    operation.validate_response(missing)
