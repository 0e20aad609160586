"""Hand histories over HTTP: a seat's and a player's last rounds, and the streamed
exports, with the problems and the table-key scope they answer with."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cached_property
from typing import Any

import pytest

from tests.e2e.client import PROBLEM, Client, Json, Keys, unique

pytestmark = pytest.mark.e2e

EXPORTS = "/v1/exports/hand-histories"


def _moment(delta: timedelta) -> str:
    return (datetime.now(UTC) + delta).strftime("%Y-%m-%dT%H:%M:%SZ")


def around_now() -> dict[str, str]:
    """A period holding every round this test plays (on the server's real clock)."""
    return {"from": _moment(-timedelta(hours=1)), "to": _moment(timedelta(hours=1))}


@dataclass
class Scene:
    """Two tables; ``player`` sits at both, ``other`` only at the first."""

    api: Client
    keys: Keys

    @cached_property
    def first(self) -> str:
        return self.api.open_table(self.keys.admin, seats=3)

    @cached_property
    def second(self) -> str:
        return self.api.open_table(self.keys.admin, seats=3)

    @cached_property
    def first_key(self) -> str:
        return self.api.table_key(self.keys.admin, self.first)

    @cached_property
    def second_key(self) -> str:
        return self.api.table_key(self.keys.admin, self.second)

    @cached_property
    def player(self) -> str:
        return self.api.funded_player(self.first_key)

    @cached_property
    def other(self) -> str:
        return self.api.funded_player(self.first_key)

    def play(self, table: str, key: str, wagers: list[Json], deal: bool = True) -> str:
        opened = self.api.ok("POST", f"/v1/tables/{table}/rounds", key)
        round_id = str(opened["round_id"])
        self.api.ok("POST", f"/v1/rounds/{round_id}/wagers", key, json={"wagers": wagers})
        if deal:
            self.api.ok("POST", f"/v1/rounds/{round_id}/deal", key)
        return round_id

    @cached_property
    def rounds(self) -> list[str]:
        """Played in this order: first, second, first, second, first (the player sits on
        seat 1 at the first table and seat 3 at the second; the other on seat 2 at the
        first); then a round of the first table left taking bets."""
        played = []
        for number in range(5):
            if number % 2 == 0:
                wagers = [
                    {"seat": 1, "player_id": self.player, "main": 100, "doubles": 100},
                    {"seat": 2, "player_id": self.other, "main": 200},
                ]
                played.append(self.play(self.first, self.first_key, wagers))
            else:
                wagers = [{"seat": 3, "player_id": self.player, "main": 300}]
                played.append(self.play(self.second, self.second_key, wagers))
        self.play(self.first, self.first_key, [{"seat": 1, "player_id": self.player,
                                                "main": 100}], deal=False)  # fmt: skip
        return played

    def history(self, round_id: str) -> Json:
        return self.api.ok("GET", f"/v1/rounds/{round_id}", self.keys.auditor)


@pytest.fixture
def scene(api: Client, keys: Keys) -> Scene:
    scene = Scene(api, keys)
    assert len(scene.rounds) == 5
    return scene


def test_a_seats_last_rounds_are_its_full_hand_histories_oldest_first(scene: Scene) -> None:
    path = f"/v1/tables/{scene.first}/seats/1/rounds/last"
    answer = scene.api.ok("GET", path + "?n=2", scene.keys.auditor)
    assert (answer["table_id"], answer["seat"]) == (scene.first, 1)
    assert answer["rounds"] == [scene.history(r) for r in scene.rounds[2:5:2]]
    everything = scene.api.ok("GET", path, scene.first_key)["rounds"]  # n defaults to 10
    assert [r["round_id"] for r in everything] == scene.rounds[0:5:2]
    empty = scene.api.ok("GET", f"/v1/tables/{scene.first}/seats/3/rounds/last", scene.keys.admin)
    assert empty["rounds"] == []


def test_a_players_last_rounds_run_across_tables(scene: Scene) -> None:
    path = f"/v1/players/{scene.player}/rounds/last"
    answer = scene.api.ok("GET", path + "?n=4", scene.keys.auditor)
    assert answer["player_id"] == scene.player
    assert answer["rounds"] == [scene.history(r) for r in scene.rounds[1:5]]
    at_second = scene.api.ok("GET", path, scene.second_key, params={"table_id": scene.second})
    assert [r["round_id"] for r in at_second["rounds"]] == scene.rounds[1:5:2]


def test_a_table_key_reads_only_at_its_own_tables(scene: Scene) -> None:
    export = {**around_now(), "format": "csv"}
    refused = [
        (f"/v1/players/{scene.player}/rounds/last", {}),
        (f"/v1/players/{scene.player}/rounds/last", {"table_id": scene.second}),
        (f"/v1/tables/{scene.second}/seats/3/rounds/last", {}),
        (EXPORTS, {**export, "player_id": scene.player}),
        (EXPORTS, {**export, "table_id": scene.second}),
    ]
    for path, params in refused:
        response = scene.api.get(path, scene.first_key, params=params)
        assert response.status_code == 403, (path, params, response.text)
        assert response.headers["Content-Type"] == PROBLEM
        assert (response.json()["code"], response.json()["field"]) == (
            "table_forbidden",
            "table_id",
        )


def csv_rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_a_tables_export_streams_csv_and_json_lines(scene: Scene) -> None:
    params = {"table_id": scene.first, **around_now()}
    response = scene.api.get(EXPORTS, scene.keys.auditor, params={**params, "format": "csv"},
                             stream=True)  # fmt: skip
    assert response.status_code == 200, response.text
    assert response.headers["Content-Type"] == "text/csv; charset=utf-8"
    assert response.headers["Transfer-Encoding"] == "chunked"  # streamed, no length known
    assert "Content-Length" not in response.headers
    disposition = response.headers["Content-Disposition"]
    assert disposition.startswith(f'attachment; filename="hand-histories_table-{scene.first}_')
    assert disposition.endswith('.csv"')
    rows = csv_rows(b"".join(response.iter_content(chunk_size=None)).decode())

    expected = []
    for round_id in scene.rounds[0:5:2]:
        history = scene.history(round_id)
        for hand in history["hands"]:
            expected.append({
                "round_id": round_id, "round_number": str(history["round_number"]),
                "status": "settled", "seat": str(hand["seat"]), "player_id": hand["player_id"],
                "main_stake": str(hand["main"]["stake"]),
                "hand": " ".join(str(t["id"]) for t in hand["tiles"]),
                "hand_faces": " ".join(t["face"] for t in hand["tiles"]),
                "connector": str(hand["connector"]["id"]), "total": str(hand["total"]),
                "main_payout": str(hand["main"]["payout"]),
                # Without a Doubles wager the settlement pays it 0 (the recall shows null).
                "doubles_payout": str(hand["doubles"]["payout"] if hand["doubles"] else 0),
            })  # fmt: skip
    assert [{k: row[k] for k in expected[0]} for row in rows] == expected

    jsonl = scene.api.get(EXPORTS, scene.keys.admin, params={**params, "format": "jsonl"})
    assert jsonl.status_code == 200, jsonl.text
    assert jsonl.headers["Content-Type"] == "application/x-ndjson"
    records = [json.loads(line) for line in jsonl.text.splitlines()]
    assert [_as_csv(record) for record in records] == rows


def _as_csv(record: Json) -> dict[str, str]:
    def cell(value: Any) -> str:
        if value is None:
            return ""
        return " ".join(map(str, value)) if isinstance(value, list) else str(value)

    return {name: cell(value) for name, value in record.items()}


def test_a_players_export_and_a_table_keys_own_export(scene: Scene) -> None:
    by_player = scene.api.get(
        EXPORTS,
        scene.keys.auditor,
        params={"player_id": scene.player, **around_now(), "format": "csv"},
    )
    assert by_player.status_code == 200, by_player.text
    rows = csv_rows(by_player.text)
    assert [r["round_id"] for r in rows] == scene.rounds
    assert {r["player_id"] for r in rows} == {scene.player}
    own = scene.api.get(
        EXPORTS,
        scene.second_key,
        params={"table_id": scene.second, **around_now(), "format": "csv"},
    )
    assert [r["round_id"] for r in csv_rows(own.text)] == scene.rounds[1:5:2]
    assert scene.api.get(EXPORTS, None, params={"table_id": scene.second}).status_code == 401


DAY = {"from": "2030-01-01T00:00:00Z", "to": "2030-01-02T00:00:00Z"}
BAD: dict[str, tuple[str, dict[str, str], int, str, str | None]] = {
    "n of zero": ("player", {"n": "0"}, 422, "validation_failed", "n"),
    "n beyond 100": ("seat:1", {"n": "101"}, 422, "validation_failed", "n"),
    "n as text": ("player", {"n": "ten"}, 422, "validation_failed", "n"),
    "malformed table filter": ("player", {"table_id": "a b"}, 422, "validation_failed",
                               "table_id"),
    "seat that is no number": ("seat:x", {}, 422, "invalid_seat", "seat"),
    "seat beyond any table": ("seat:9", {}, 422, "invalid_seat", "seat"),
    "seat of zero": ("seat:0", {}, 422, "invalid_seat", "seat"),
    "seat beyond this table": ("seat:4", {}, 422, "unknown_seat", "seat"),
    "seat of an unknown table": ("unknown table", {}, 404, "table_not_found", "table_id"),
    "malformed player": ("bad player", {}, 422, "invalid_identifier", "player_id"),
    "export of no one": ("export", {**DAY, "format": "csv"}, 422, "invalid_scope", "player_id"),
    "export of both": ("export", {**DAY, "player_id": "P1", "table_id": "T1", "format": "csv"},
                       422, "invalid_scope", "player_id"),
    "export of an empty period": ("export", {"from": DAY["to"], "to": DAY["to"],
                                             "table_id": "T1", "format": "csv"},
                                  422, "invalid_period", "to"),
    "export without a start": ("export", {"to": DAY["to"], "table_id": "T1", "format": "csv"},
                               422, "validation_failed", "from"),
    "export without a zone": ("export", {**DAY, "to": "2030-01-02T00:00:00", "table_id": "T1",
                                         "format": "csv"}, 422, "validation_failed", "to"),
    "export in an unknown format": ("export", {**DAY, "table_id": "T1", "format": "xml"}, 422,
                                    "validation_failed", "format"),
    "export without a format": ("export", {**DAY, "table_id": "T1"}, 422, "validation_failed",
                                "format"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_is_a_problem_naming_the_field(api: Client, keys: Keys, case: str) -> None:
    target, params, status, code, field = BAD[case]
    if target.startswith("seat:"):  # a three-seat table of its own
        table = api.open_table(keys.admin, seats=3)
        path = f"/v1/tables/{table}/seats/{target.removeprefix('seat:')}/rounds/last"
    else:
        path = {
            "player": "/v1/players/P1/rounds/last",
            "unknown table": f"/v1/tables/{unique('T')}/seats/1/rounds/last",
            "bad player": "/v1/players/bad!player/rounds/last",
            "export": EXPORTS,
        }[target]
    response = api.get(path, keys.auditor, params=params)
    assert response.status_code == status, response.text
    assert response.headers["Content-Type"] == PROBLEM
    problem = response.json()
    assert (problem["code"], problem["field"]) == (code, field)
