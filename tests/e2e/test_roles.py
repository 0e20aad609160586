"""Every endpoint against every role: admin, the table's key, another table's key,
auditor, and no key at all.

Each case builds only what its endpoint needs, on a table of its own, so an allowed
call is expected to succeed outright (2xx), and a refused one to be exactly 401 / 403.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import pytest

from tests.e2e.client import Client, Json, Keys, unique

pytestmark = pytest.mark.e2e

ROLES = ("admin", "table", "other_table", "auditor", "none")


@dataclass
class World:
    api: Client
    keys: Keys

    @cached_property
    def table(self) -> str:
        return self.api.open_table(self.keys.admin)

    @cached_property
    def table_key(self) -> str:
        return self.api.table_key(self.keys.admin, self.table)

    @cached_property
    def other_table_key(self) -> str:
        return self.api.table_key(self.keys.admin, unique("elsewhere"))

    @cached_property
    def player(self) -> str:
        return self.api.funded_player(self.table_key)

    def _round(self, wagered: bool) -> Json:
        opened = self.api.ok("POST", f"/v1/tables/{self.table}/rounds", self.table_key)
        if wagered:
            wager = {"seat": 1, "player_id": self.player, "main": 100}
            self.api.ok("POST", f"/v1/rounds/{opened['round_id']}/wagers", self.table_key,
                        json=wager)  # fmt: skip
        return opened

    @cached_property
    def betting_round(self) -> str:
        return str(self._round(wagered=False)["round_id"])

    @cached_property
    def wagered_round(self) -> str:
        return str(self._round(wagered=True)["round_id"])

    @cached_property
    def settled_round(self) -> Json:
        opened = self._round(wagered=True)
        self.api.ok("POST", f"/v1/rounds/{opened['round_id']}/deal", self.table_key)
        return opened

    def key(self, role: str) -> str | None:
        return {
            "admin": self.keys.admin, "table": self.table_key,
            "other_table": self.other_table_key, "auditor": self.keys.auditor, "none": None,
        }[role]  # fmt: skip


Call = Callable[[World], tuple[str, str, Json | None]]

ENDPOINTS: dict[str, tuple[Call, set[str]]] = {
    "open table": (
        lambda w: (
            "POST",
            "/v1/tables",
            {
                "table_id": unique("T"),
                "name": "Roles",
                "currency": "EUR",
                "seats": 2,
                "main_paytable": 1,
                "doubles_paytable": 1,
                "main_min": 1,
                "main_max": 10,
                "doubles_min": 1,
                "doubles_max": 10,
            },
        ),
        {"admin"},
    ),
    "read table": (lambda w: ("GET", f"/v1/tables/{w.table}", None), {"admin", "table", "auditor"}),
    "deposit": (
        lambda w: (
            "POST",
            f"/v1/players/{unique('P')}/deposits",
            {"currency": "EUR", "amount": 100},
        ),
        {"admin", "table", "other_table"},
    ),
    "withdraw": (
        lambda w: (
            "POST",
            f"/v1/players/{w.player}/withdrawals",
            {"currency": "EUR", "amount": 100},
        ),
        {"admin", "table", "other_table"},
    ),
    "read player": (
        lambda w: ("GET", f"/v1/players/{w.player}", None),
        {"admin", "table", "other_table", "auditor"},
    ),
    "open round": (lambda w: ("POST", f"/v1/tables/{w.table}/rounds", {}), {"admin", "table"}),
    "place wagers": (
        lambda w: (
            "POST",
            f"/v1/rounds/{w.betting_round}/wagers",
            {"seat": 2, "player_id": w.player, "main": 100},
        ),
        {"admin", "table"},
    ),
    "deal": (lambda w: ("POST", f"/v1/rounds/{w.wagered_round}/deal", None), {"admin", "table"}),
    "void before the deal": (
        lambda w: ("POST", f"/v1/rounds/{w.wagered_round}/void", {"reason": "test"}),
        {"admin", "table"},
    ),
    "reverse a settled round": (
        lambda w: ("POST", f"/v1/rounds/{w.settled_round['round_id']}/void", {"reason": "test"}),
        {"admin"},
    ),
    "recall round": (
        lambda w: ("GET", f"/v1/rounds/{w.settled_round['round_id']}", None),
        {"admin", "table", "auditor"},
    ),
    "verification bundle": (
        lambda w: ("GET", f"/v1/rounds/{w.settled_round['round_id']}/verification", None),
        {"admin", "table", "auditor"},
    ),
    "list rounds": (
        lambda w: ("GET", f"/v1/rounds?table_id={w.table}", None),
        {"admin", "table", "auditor"},
    ),
    "a seat's last rounds": (
        lambda w: ("GET", f"/v1/tables/{w.table}/seats/1/rounds/last", None),
        {"admin", "table", "auditor"},
    ),
    "a player's last rounds": (
        lambda w: ("GET", f"/v1/players/{w.player}/rounds/last?table_id={w.table}", None),
        {"admin", "table", "auditor"},
    ),
    "export hand histories": (
        lambda w: (
            "GET",
            f"/v1/exports/hand-histories?table_id={w.table}&from=2000-01-01T00:00:00Z"
            "&to=2100-01-01T00:00:00Z&format=csv",
            None,
        ),
        {"admin", "table", "auditor"},
    ),
    "read shoe": (
        lambda w: ("GET", f"/v1/shoes/{w.settled_round['shoe']['shoe_id']}", None),
        {"admin", "table", "auditor"},
    ),
    "event feed": (lambda w: ("GET", "/v1/events?limit=5", None), {"admin", "auditor"}),
    "paytables": (
        lambda w: ("GET", "/v1/paytables", None),
        {"admin", "table", "other_table", "auditor"},
    ),
    "create key": (lambda w: ("POST", "/v1/keys", {"role": "auditor"}), {"admin"}),
    "ask for a settlement report": (
        lambda w: ("POST", "/v1/reports/settlement", {"from": "2026-11-20", "to": "2026-11-20"}),
        {"admin", "auditor"},
    ),
    "list reports": (lambda w: ("GET", "/v1/reports", None), {"admin", "auditor"}),
    "liveness": (lambda w: ("GET", "/healthz", None), set(ROLES)),
    "readiness": (lambda w: ("GET", "/readyz", None), set(ROLES)),
    "metrics": (lambda w: ("GET", "/metrics", None), set(ROLES)),
    "OpenAPI document": (lambda w: ("GET", "/openapi.json", None), set(ROLES)),
}


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("endpoint", list(ENDPOINTS))
def test_every_endpoint_admits_exactly_its_roles(
    api: Client, keys: Keys, endpoint: str, role: str
) -> None:
    call, allowed = ENDPOINTS[endpoint]
    world = World(api, keys)
    method, path, body = call(world)
    response = api.request(method, path, world.key(role), json=body)
    if role in allowed:
        assert 200 <= response.status_code < 300, response.text
        return
    expected = 401 if role == "none" else 403
    assert response.status_code == expected, response.text
    assert response.headers["Content-Type"] == "application/problem+json"
    problem = response.json()
    assert problem["status"] == expected
    assert problem["field"] in ("Authorization", "table_id")
    if expected == 401:
        assert response.headers["WWW-Authenticate"].startswith("Bearer")


def test_an_unknown_or_malformed_key_is_401(api: Client) -> None:
    for header in ("Bearer ck_000000000000_nothing", "Bearer", "Basic dXNlcjpwYXNz", "Bearer a b"):
        response = api.get("/v1/paytables", headers={"Authorization": header})
        assert response.status_code == 401, header
        assert response.json()["field"] == "Authorization"


def test_a_table_key_lists_only_its_own_tables(api: Client, keys: Keys) -> None:
    world = World(api, keys)
    response = api.get("/v1/rounds", world.table_key)
    assert response.status_code == 403 and response.json()["field"] == "table_id"
