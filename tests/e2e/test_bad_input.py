"""Hand-written bad input: each request gets a 4xx problem that names what is wrong,
and changes nothing."""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import pytest

from tests.e2e.client import PROBLEM, Client, Json, Keys, unique

pytestmark = pytest.mark.e2e

TABLE: Json = {
    "name": "Strict", "currency": "EUR", "seats": 2, "main_paytable": 1,
    "doubles_paytable": 1, "main_min": 100, "main_max": 1_000, "doubles_min": 100,
    "doubles_max": 500,
}  # fmt: skip


Request = tuple[str, str, dict[str, Any]]


@dataclass
class Table:
    """A two-seat table (main 100-1000, Doubles 100-500) with a funded player."""

    api: Client
    keys: Keys

    @cached_property
    def id(self) -> str:
        return self.api.open_table(self.keys.admin, **TABLE)

    @cached_property
    def key(self) -> str:
        return self.api.table_key(self.keys.admin, self.id)

    @cached_property
    def player(self) -> str:
        return self.api.funded_player(self.key, 1_000)

    def new_round(self, *wagers: Json, dealt: bool = False) -> str:
        round_id = str(self.api.ok("POST", f"/v1/tables/{self.id}/rounds", self.key)["round_id"])
        if wagers:
            self.api.ok("POST", f"/v1/rounds/{round_id}/wagers", self.key,
                        json={"wagers": list(wagers)})  # fmt: skip
        if dealt:
            self.api.ok("POST", f"/v1/rounds/{round_id}/deal", self.key)
        return round_id

    def second_round(self) -> Request:
        self.new_round()
        return "POST", f"/v1/tables/{self.id}/rounds", {}

    def wagers(self, body: Any) -> Request:
        return "POST", f"/v1/rounds/{self.new_round()}/wagers", {"json": body}

    def seat(self, **fields: Any) -> Json:
        return {"seat": 1, "player_id": self.player, "main": 100, **fields}


Case = tuple[Callable[[Table], Request], int, str, str | None]


def deposit(body: Any, player: str = "P-bad-input") -> Request:
    return "POST", f"/v1/players/{player}/deposits", {"json": body}


def new_table(**fields: Any) -> Request:
    return "POST", "/v1/tables", {"json": {"table_id": unique("T"), **TABLE, **fields}}


EUR = {"currency": "EUR"}
CASES: dict[str, Case] = {
    # amounts: integers in minor units, nothing else
    "float amount": (lambda t: deposit({**EUR, "amount": 1.5}), 422, "validation_failed", "amount"),
    "string amount": (lambda t: deposit({**EUR, "amount": "100"}), 422, "validation_failed",
                      "amount"),
    "boolean amount": (lambda t: deposit({**EUR, "amount": True}), 422, "validation_failed",
                       "amount"),
    "negative amount": (lambda t: deposit({**EUR, "amount": -5}), 422, "validation_failed",
                        "amount"),
    "zero amount": (lambda t: deposit({**EUR, "amount": 0}), 422, "validation_failed", "amount"),
    "huge amount": (lambda t: deposit({**EUR, "amount": 10**13}), 422, "validation_failed",
                    "amount"),
    "enormous amount": (lambda t: deposit({**EUR, "amount": 10**40}), 422, "validation_failed",
                        "amount"),
    "missing amount": (lambda t: deposit(EUR), 422, "validation_failed", "amount"),
    "lowercase currency": (lambda t: deposit({"currency": "eur", "amount": 1}), 422,
                           "validation_failed", "currency"),
    "unknown field": (lambda t: deposit({**EUR, "amount": 1, "bonus": 5}), 422,
                      "validation_failed", "bonus"),
    "NUL in text": (lambda t: deposit({**EUR, "amount": 1, "reference": "a\u0000b"}), 422,
                    "validation_failed", "reference"),
    "malformed player id": (lambda t: deposit({**EUR, "amount": 1}, "bad id!"), 422,
                            "invalid_identifier", "player_id"),
    "withdrawal beyond the balance": (
        lambda t: ("POST", f"/v1/players/{t.player}/withdrawals",
                   {"json": {**EUR, "amount": 1_001}}),
        409, "insufficient_funds", "amount",
    ),
    # tables
    "too many seats": (lambda t: new_table(seats=8), 422, "validation_failed", "seats"),
    "seats as text": (lambda t: new_table(seats="7"), 422, "validation_failed", "seats"),
    "unknown paytable": (lambda t: new_table(main_paytable=6), 422, "validation_failed",
                         "main_paytable"),
    "limits inverted": (lambda t: new_table(main_min=500, main_max=100), 422, "limits_inverted",
                        "main_max"),
    "cut card too early": (lambda t: new_table(cut_card=2), 422, "validation_failed",
                           "cut_card"),
    "empty name": (lambda t: new_table(name=""), 422, "validation_failed", "name"),
    "bad table id": (lambda t: new_table(table_id="a/b c"), 422, "validation_failed",
                     "table_id"),
    "table exists": (lambda t: ("POST", "/v1/tables", {"json": {"table_id": t.id, **TABLE}}),
                     409, "table_exists", "table_id"),
    "unknown table": (lambda t: ("GET", f"/v1/tables/{unique('T')}", {}), 404,
                      "table_not_found", "table_id"),
    # rounds
    "round on an unknown table": (lambda t: ("POST", f"/v1/tables/{unique('T')}/rounds", {}),
                                  404, "table_not_found", "table_id"),
    "round while one is open": (lambda t: t.second_round(), 409, "round_in_progress",
                                "table_id"),
    "client seed too long": (
        lambda t: ("POST", f"/v1/tables/{t.id}/rounds", {"json": {"client_seed": "x" * 300}}),
        422, "validation_failed", "client_seed",
    ),
    "seat beyond the table": (lambda t: t.wagers(t.seat(seat=3)), 422, "unknown_seat",
                              "wagers[0].seat"),
    "seat beyond any table": (lambda t: t.wagers(t.seat(seat=9)), 422, "validation_failed",
                              "seat"),
    "main below the table minimum": (lambda t: t.wagers(t.seat(main=50)), 422,
                                     "amount_too_small", "wagers[0].main"),
    "main above the table maximum": (lambda t: t.wagers(t.seat(main=5_000)), 422,
                                     "amount_too_large", "wagers[0].main"),
    # The request schema refuses these before the domain would (doubles_without_main).
    "Doubles without a main wager": (
        lambda t: t.wagers({"seat": 1, "player_id": t.player, "doubles": 100}), 422,
        "validation_failed", "main",
    ),
    "Doubles beside a zero main wager": (lambda t: t.wagers(t.seat(main=0, doubles=100)), 422,
                                         "validation_failed", "main"),
    "negative Doubles": (lambda t: t.wagers(t.seat(doubles=-100)), 422, "validation_failed",
                         "doubles"),
    "both wager forms": (lambda t: t.wagers({**t.seat(), "wagers": [t.seat()]}), 422,
                         "validation_failed", "seat"),
    "empty batch": (lambda t: t.wagers({"wagers": []}), 422, "validation_failed", "wagers"),
    "float in a batch": (lambda t: t.wagers({"wagers": [t.seat(main=100.0)]}), 422,
                         "validation_failed", "wagers[0].main"),
    "seat twice in a batch": (lambda t: t.wagers({"wagers": [t.seat(), t.seat()]}), 422,
                              "duplicate_seat", "wagers[1].seat"),
    "missing player": (lambda t: t.wagers({"seat": 1, "main": 100}), 422, "validation_failed",
                       "player_id"),
    "seat already taken": (
        lambda t: ("POST", f"/v1/rounds/{t.new_round(t.seat())}/wagers",
                   {"json": t.seat(player_id=t.player)}),
        409, "seat_taken", "wagers[0].seat",
    ),
    "stake beyond the balance": (
        lambda t: t.wagers({"wagers": [t.seat(main=800), t.seat(seat=2, main=300)]}),
        409, "insufficient_funds", "wagers[0].main",
    ),
    "wager on an unknown round": (
        lambda t: ("POST", f"/v1/rounds/{unique('R')}/wagers", {"json": t.seat()}),
        404, "round_not_found", "round_id",
    ),
    "deal without wagers": (lambda t: ("POST", f"/v1/rounds/{t.new_round()}/deal", {}), 409,
                            "no_wagers", "round_id"),
    "deal twice": (
        lambda t: ("POST", f"/v1/rounds/{t.new_round(t.seat(), dealt=True)}/deal", {}),
        409, "betting_closed", "round_id",
    ),
    "wager after the deal": (
        lambda t: ("POST", f"/v1/rounds/{t.new_round(t.seat(), dealt=True)}/wagers",
                   {"json": t.seat(seat=2)}),
        409, "betting_closed", "round_id",
    ),
    "void without a reason": (lambda t: ("POST", f"/v1/rounds/{t.new_round()}/void",
                                         {"json": {}}), 422, "validation_failed", "reason"),
    "blank reason": (lambda t: ("POST", f"/v1/rounds/{t.new_round()}/void",
                                {"json": {"reason": "   "}}), 422, "invalid_text", "reason"),
    "body on a deal": (lambda t: ("POST", f"/v1/rounds/{t.new_round()}/deal",
                                  {"json": {"fast": True}}), 422, "validation_failed", "fast"),
    # transport
    "malformed JSON": (
        lambda t: ("POST", "/v1/players/P1/deposits",
                   {"data": b'{"amount": 1', "headers": {"Content-Type": "application/json"}}),
        400, "malformed_json", "body",
    ),
    "body that is not UTF-8": (
        lambda t: ("POST", "/v1/players/P1/deposits",
                   {"data": b"\xff\xfe", "headers": {"Content-Type": "application/json"}}),
        400, "malformed_json", "body",
    ),
    "JSON that is not an object": (lambda t: deposit([1, 2]), 422, "validation_failed", "body"),
    "text body": (
        lambda t: ("POST", "/v1/players/P1/deposits",
                   {"data": b"amount=1", "headers": {"Content-Type": "text/plain"}}),
        415, "unsupported_media_type", "Content-Type",
    ),
    "body without a type": (
        lambda t: ("POST", "/v1/players/P1/deposits", {"data": b'{"amount": 1}'}),
        415, "unsupported_media_type", "Content-Type",
    ),
    "idempotency key too long": (
        lambda t: ("POST", "/v1/players/P1/deposits",
                   {"json": {**EUR, "amount": 1}, "headers": {"Idempotency-Key": "k" * 201}}),
        400, "invalid_idempotency_key", "Idempotency-Key",
    ),
    "If-Match that is no version": (
        lambda t: ("POST", f"/v1/rounds/{t.new_round()}/wagers",
                   {"json": t.seat(), "headers": {"If-Match": "yesterday"}}),
        400, "invalid_if_match", "If-Match",
    ),
    "body too large": (
        lambda t: ("POST", "/v1/players/P1/deposits",
                   {"json": {**EUR, "amount": 1, "reference": "x" * 100_000}}),
        413, "body_too_large", None,
    ),
    # queries
    "page of zero": (lambda t: ("GET", "/v1/rounds?limit=0", {}), 422, "validation_failed",
                     "limit"),
    "page size as text": (lambda t: ("GET", "/v1/rounds?limit=ten", {}), 422,
                          "validation_failed", "limit"),
    "date that is no date": (lambda t: ("GET", "/v1/rounds?from=yesterday", {}), 422,
                             "validation_failed", "from"),
    "date without a zone": (lambda t: ("GET", "/v1/rounds?to=2024-01-01T00:00:00", {}), 422,
                            "validation_failed", "to"),
    "cursor that is not ours": (lambda t: ("GET", "/v1/rounds?cursor=!!!", {}), 422,
                                "invalid_cursor", "cursor"),
    "over-long query string": (
        lambda t: ("GET", "/v1/rounds", {"params": {"cursor": "c" * 20_000}}),
        422, "validation_failed", "cursor",
    ),
    "forged cursor": (
        lambda t: ("GET", "/v1/rounds", {"params": {"cursor": base64.urlsafe_b64encode(
            b"2024-01-01T00:00:00+00:00|x\x00y").decode()}}),
        422, "invalid_cursor", "cursor",
    ),
    "negative feed position": (lambda t: ("GET", "/v1/events?after=-1", {}), 422,
                               "validation_failed", "after"),
    "feed page too large": (lambda t: ("GET", "/v1/events?limit=5000", {}), 422,
                            "validation_failed", "limit"),
    "no last rounds": (lambda t: ("GET", "/v1/players/P1/rounds/last?n=0", {}), 422,
                       "validation_failed", "n"),
    "seat that is no number": (
        lambda t: ("GET", f"/v1/tables/{t.id}/seats/one/rounds/last", {}),
        422, "invalid_seat", "seat",
    ),
    "export of no one": (
        lambda t: ("GET", "/v1/exports/hand-histories?from=2030-01-01T00:00:00Z"
                   "&to=2030-01-02T00:00:00Z&format=csv", {}),
        422, "invalid_scope", "player_id",
    ),
    "export of an empty period": (
        lambda t: ("GET", f"/v1/exports/hand-histories?table_id={t.id}&format=csv"
                   "&from=2030-01-01T00:00:00Z&to=2030-01-01T00:00:00Z", {}),
        422, "invalid_period", "to",
    ),
    "export from before the first instant": (
        lambda t: ("GET", f"/v1/exports/hand-histories?table_id={t.id}&format=csv"
                   "&from=0001-01-01T00:00:00%2B05:00&to=2030-01-01T00:00:00Z", {}),
        422, "invalid_period", "from",
    ),
    "report to the end of time": (
        lambda t: ("POST", "/v1/reports/settlement",
                   {"json": {"from": "2026-01-01", "to": "9999-12-31"}}),
        422, "invalid_period", "to",
    ),
    "unknown route": (lambda t: ("GET", "/v1/croupiers", {}), 404, "not_found", None),
    "wrong method": (lambda t: ("DELETE", "/v1/tables", {}), 405, "method_not_allowed", None),
}  # fmt: skip


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_is_a_problem_that_names_the_field(api: Client, keys: Keys, case: str) -> None:
    build, status, code, field = CASES[case]
    table = Table(api, keys)
    method, path, kwargs = build(table)
    response = api.request(method, path, keys.admin, **kwargs)
    assert response.status_code == status, response.text
    assert response.headers["Content-Type"] == PROBLEM
    problem = response.json()
    assert problem["type"] == f"urn:casino:problem:{code}"
    assert (problem["status"], problem["code"], problem["field"]) == (status, code, field)
    assert problem["title"] and problem["detail"]
    if code == "validation_failed":
        assert problem["errors"][0]["field"] == field
    if status == 405:
        assert "POST" in response.headers["Allow"]


def test_refused_commands_write_nothing(api: Client, keys: Keys) -> None:
    table = Table(api, keys)
    round_id, player = table.new_round(), table.player
    before = api.last_position(keys.auditor)
    for body in (
        {"wagers": [table.seat(), table.seat(seat=2, main=10_000)]},  # the second breaks a limit
        {"wagers": [table.seat(main=900), table.seat(seat=2, main=200)]},  # beyond the balance
        {"wagers": [table.seat(), table.seat(seat=3)]},  # no third seat
    ):
        response = api.post(f"/v1/rounds/{round_id}/wagers", table.key, json=body)
        assert 400 <= response.status_code < 500, response.text
    assert api.last_position(keys.auditor) == before
    assert api.balance(table.key, player) == 1_000
