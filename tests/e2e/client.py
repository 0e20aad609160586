"""A small HTTP client for the e2e tests, and the steps most tests take."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests

Json = dict[str, Any]
PROBLEM = "application/problem+json"


@dataclass(frozen=True)
class Server:
    base_url: str
    database_url: str
    log: Path
    redis_url: str = ""
    task_queue: str = ""


@dataclass(frozen=True)
class Keys:
    admin: str
    auditor: str


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


class Client:
    """``requests`` against the server; every response body is kept (``bodies``) so a
    test can search all it was shown."""

    def __init__(self, base_url: str, session: requests.Session) -> None:
        self.base_url = base_url
        self.session = session
        self.bodies: list[bytes] = []
        self._newest = 0  # positions only grow: later reads start from the last seen

    def request(
        self, method: str, path: str, key: str | None = None, **kwargs: Any
    ) -> requests.Response:
        headers = dict(kwargs.pop("headers", None) or {})
        if key is not None:
            headers["Authorization"] = f"Bearer {key}"
        response = self.session.request(
            method, self.base_url + path, headers=headers, timeout=30, **kwargs
        )
        self.bodies.append(response.content)
        return response

    def get(self, path: str, key: str | None = None, **kwargs: Any) -> requests.Response:
        return self.request("GET", path, key, **kwargs)

    def post(self, path: str, key: str | None = None, **kwargs: Any) -> requests.Response:
        return self.request("POST", path, key, **kwargs)

    def ok(self, method: str, path: str, key: str | None = None, **kwargs: Any) -> Json:
        response = self.request(method, path, key, **kwargs)
        assert response.status_code in (200, 201), response.text
        body: Json = response.json()
        return body

    # --- the steps of most tests ------------------------------------------------------

    def open_table(self, admin: str, **overrides: Any) -> str:
        table: Json = {
            "table_id": unique("T"), "name": "E2E table", "currency": "EUR", "seats": 7,
            "main_paytable": 1, "doubles_paytable": 1, "main_min": 100, "main_max": 100_000,
            "doubles_min": 100, "doubles_max": 10_000, "cut_card": None,
        }  # fmt: skip
        table.update(overrides)
        return str(self.ok("POST", "/v1/tables", admin, json=table)["table_id"])

    def table_key(self, admin: str, *table_ids: str) -> str:
        issued = self.ok("POST", "/v1/keys", admin, json={"role": "table", "tables": table_ids})
        return str(issued["key"])

    def funded_player(self, key: str, amount: int = 1_000_000, currency: str = "EUR") -> str:
        player = unique("P")
        body = {"currency": currency, "amount": amount, "reference": "e2e"}
        self.ok("POST", f"/v1/players/{player}/deposits", key, json=body)
        return player

    def balance(self, key: str, player: str) -> int:
        balances = self.ok("GET", f"/v1/players/{player}", key)["balances"]
        return int(balances[0]["balance"]) if balances else 0

    def last_position(self, key: str) -> int:
        """The position of the newest event in the global feed."""
        while True:
            page = self.ok("GET", f"/v1/events?after={self._newest}&limit=1000", key)
            if not page["events"]:
                return self._newest
            self._newest = int(page["next_after"])
