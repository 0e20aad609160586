"""Invariant 4 over HTTP: a retry with the same Idempotency-Key changes nothing."""

from __future__ import annotations

import json

import pytest

from tests.e2e.client import Client, Json, Keys, unique

pytestmark = pytest.mark.e2e


def test_a_retried_deposit_returns_the_same_answer_and_appends_nothing(
    api: Client, keys: Keys
) -> None:
    table = api.open_table(keys.admin)
    key = api.table_key(keys.admin, table)
    player = unique("P")
    path = f"/v1/players/{player}/deposits"
    retry = {"Idempotency-Key": unique("deposit")}
    body = {"currency": "EUR", "amount": 2_500, "reference": "cage 7"}
    first = api.post(path, key, json=body, headers=retry)
    assert first.status_code == 201 and "Idempotent-Replayed" not in first.headers
    before = api.last_position(keys.auditor)

    # The same body, re-serialised with other key order and spacing, is the same request.
    again = api.post(path, key, headers={**retry, "Content-Type": "application/json"},
                     data=json.dumps(dict(reversed(body.items())), indent=2))  # fmt: skip
    assert again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    assert api.last_position(keys.auditor) == before
    assert api.balance(key, player) == 2_500

    other = api.post(path, key, json={**body, "amount": 9_999}, headers=retry)
    assert other.status_code == 422
    assert (other.json()["code"], other.json()["field"]) == (
        "idempotency_key_reused", "Idempotency-Key",
    )  # fmt: skip
    assert api.last_position(keys.auditor) == before


def _twice(api: Client, keys: Keys, key: str, path: str, body: Json | None) -> Json:
    """Send a command, then its retry; the retry must replay it and append nothing."""
    headers = {"Idempotency-Key": unique("retry")}
    first = api.post(path, key, json=body, headers=headers)
    assert first.status_code in (200, 201), first.text
    before = api.last_position(keys.auditor)
    retried = api.post(path, key, json=body, headers=headers)
    assert retried.status_code == first.status_code
    assert retried.headers["Idempotent-Replayed"] == "true"
    assert retried.headers["ETag"] == first.headers["ETag"]
    assert retried.json() == first.json()
    assert api.last_position(keys.auditor) == before
    answer: Json = first.json()
    return answer


def test_a_retried_round_replays_every_step(api: Client, keys: Keys) -> None:
    table = api.open_table(keys.admin)
    key = api.table_key(keys.admin, table)
    player = api.funded_player(key)
    opened = _twice(api, keys, key, f"/v1/tables/{table}/rounds", {"client_seed": "retry"})
    round_id = opened["round_id"]
    wager = {"seat": 4, "player_id": player, "main": 300, "doubles": 100}
    _twice(api, keys, key, f"/v1/rounds/{round_id}/wagers", wager)
    dealt = _twice(api, keys, key, f"/v1/rounds/{round_id}/deal", None)
    assert api.balance(key, player) == 1_000_000 - 400 + dealt["payouts"]


def test_idempotency_keys_belong_to_the_api_key_that_sent_them(api: Client, keys: Keys) -> None:
    table = api.open_table(keys.admin)
    first_key, second_key = api.table_key(keys.admin, table), api.table_key(keys.admin, table)
    player = unique("P")
    body = {"currency": "EUR", "amount": 100}
    shared = {"Idempotency-Key": unique("shared")}
    path = f"/v1/players/{player}/deposits"
    assert api.post(path, first_key, json=body, headers=shared).status_code == 201
    second = api.post(path, second_key, json=body, headers=shared)
    assert second.status_code == 201 and "Idempotent-Replayed" not in second.headers
    assert api.balance(first_key, player) == 200
