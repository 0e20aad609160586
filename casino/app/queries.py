"""Answers from the read models, as JSON-ready dicts (the API's response bodies)."""

from __future__ import annotations

import base64
from datetime import datetime
from typing import Any

import psycopg
from psycopg.rows import dict_row

from casino.app.views import hand_json, iso, table_json, tile_json
from casino.domain.errors import InvalidCommand, NotFound
from casino.domain.streams import round_stream
from casino.game.shoe import commitment_of, shuffle

Json = dict[str, Any]


class Queries:
    def __init__(self, connection: psycopg.Connection[Any]) -> None:
        self.connection = connection

    def _one(self, query: str, params: tuple[Any, ...]) -> Json | None:
        with self.connection.cursor(row_factory=dict_row) as cursor:
            return cursor.execute(query, params).fetchone()

    def _all(self, query: str, params: tuple[Any, ...] | dict[str, Any]) -> list[Json]:
        with self.connection.cursor(row_factory=dict_row) as cursor:
            return cursor.execute(query, params).fetchall()

    def table(self, table_id: str) -> Json:
        row = self._one("SELECT * FROM rm_tables WHERE table_id = %s", (table_id,))
        if row is None:
            raise NotFound("table_not_found", f"no table {table_id}", "table_id")
        return table_json(row)

    def player(self, player_id: str) -> Json:
        rows = self._all(
            "SELECT currency, balance, version FROM rm_balances WHERE player_id = %s "
            "ORDER BY currency",
            (player_id,),
        )
        return {"player_id": player_id, "balances": rows}

    def round_summary(self, round_id: str) -> Json:
        row = self._one("SELECT * FROM rm_rounds WHERE round_id = %s", (round_id,))
        if row is None:
            raise NotFound("round_not_found", f"no round {round_id}", "round_id")
        seats = self._all(
            "SELECT seat, player_id, main_stake, doubles_stake FROM rm_seats "
            "WHERE round_id = %s ORDER BY seat",
            (round_id,),
        )
        return {
            "round_id": row["round_id"], "table_id": row["table_id"],
            "round_number": row["round_number"], "status": row["status"],
            "shoe_id": row["shoe_id"], "commitment": row["commitment"],
            "currency": row["currency"], "seats": row["seats"],
            "main_paytable": row["main_paytable"], "doubles_paytable": row["doubles_paytable"],
            "opened_at": iso(row["opened_at"]), "closed_at": iso(row["closed_at"]),
            "handle": row["handle"], "payouts": row["payouts"], "version": row["version"],
            "wagers": [
                {"seat": s["seat"], "player_id": s["player_id"], "main": s["main_stake"],
                 "doubles": s["doubles_stake"]}
                for s in seats
            ],
        }  # fmt: skip

    def list_rounds(
        self,
        table_id: str | None = None,
        player_id: str | None = None,
        opened_from: datetime | None = None,
        opened_to: datetime | None = None,
        limit: int = 50,
        cursor: str | None = None,
    ) -> Json:
        """Rounds opened in ``[opened_from, opened_to)``, oldest first, a page at a time;
        ``next_cursor`` continues after the last one (None: nothing more)."""
        conditions = ["true"]
        params: dict[str, Any] = {"limit": limit + 1}
        if table_id is not None:
            conditions.append("r.table_id = %(table_id)s")
            params["table_id"] = table_id
        if player_id is not None:
            conditions.append(
                "EXISTS (SELECT 1 FROM rm_seats s WHERE s.round_id = r.round_id"
                " AND s.player_id = %(player_id)s)"
            )
            params["player_id"] = player_id
        if opened_from is not None:
            conditions.append("r.opened_at >= %(opened_from)s")
            params["opened_from"] = opened_from
        if opened_to is not None:
            conditions.append("r.opened_at < %(opened_to)s")
            params["opened_to"] = opened_to
        if cursor is not None:
            after_at, after_id = decode_cursor(cursor)
            conditions.append("(r.opened_at, r.round_id) > (%(after_at)s, %(after_id)s)")
            params |= {"after_at": after_at, "after_id": after_id}
        rows = self._all(
            "SELECT r.* FROM rm_rounds r WHERE " + " AND ".join(conditions)
            + " ORDER BY r.opened_at, r.round_id LIMIT %(limit)s",
            params,
        )  # fmt: skip
        page = rows[:limit]
        more = len(rows) > limit
        return {
            "rounds": [_round_row_json(r) for r in page],
            "next_cursor": encode_cursor(page[-1]["opened_at"], page[-1]["round_id"])
            if more
            else None,
        }

    def round_history(self, round_id: str) -> Json:
        """Everything a regulator asks of one round (game recall)."""
        summary = self.round_summary(round_id)
        seats = self._all("SELECT * FROM rm_seats WHERE round_id = %s ORDER BY seat", (round_id,))
        players = self._all(
            "SELECT player_id, staked, paid, balance_before, balance_after "
            "FROM rm_round_players WHERE round_id = %s ORDER BY player_id",
            (round_id,),
        )
        history = dict(summary)
        history.pop("wagers")
        history["hands"] = [hand_json(s) for s in seats]
        history["players"] = players
        history["shoe"] = self.shoe(summary["shoe_id"], verify=False)
        history["events"] = self._all(
            "SELECT position, version, type, recorded_at::text AS recorded_at, previous_hash, hash "
            "FROM events WHERE stream_id = %s ORDER BY version",
            (round_stream(round_id),),
        )
        return history

    def shoe(self, shoe_id: str, verify: bool = True) -> Json:
        row = self._one("SELECT * FROM rm_shoes WHERE shoe_id = %s", (shoe_id,))
        if row is None:
            raise NotFound("shoe_not_found", f"no shoe {shoe_id}", "shoe_id")
        shoe: Json = {
            "shoe_id": row["shoe_id"], "table_id": row["table_id"],
            "algorithm": row["algorithm"], "commitment": row["commitment"],
            "client_seed": row["client_seed"], "nonce": row["nonce"],
            "opened_at": iso(row["opened_at"]), "tiles_dealt": row["tiles_dealt"],
            "dealt": [tile_json(t, p) for p, t in enumerate(row["dealt"])],
            "status": "closed" if row["server_seed"] else "live",
            "closed_at": iso(row["closed_at"]), "server_seed": row["server_seed"],
        }  # fmt: skip
        if verify and row["server_seed"]:
            shoe["verification"] = verify_shoe(
                row["server_seed"], row["commitment"], row["client_seed"], row["nonce"],
                row["dealt"],
            )  # fmt: skip
        return shoe


def _round_row_json(row: Json) -> Json:
    return {
        "round_id": row["round_id"], "table_id": row["table_id"],
        "round_number": row["round_number"], "status": row["status"],
        "shoe_id": row["shoe_id"], "currency": row["currency"],
        "opened_at": iso(row["opened_at"]), "closed_at": iso(row["closed_at"]),
        "wagers": row["wagers"], "handle": row["handle"], "payouts": row["payouts"],
    }  # fmt: skip


def encode_cursor(opened_at: datetime, round_id: str) -> str:
    text = f"{opened_at.isoformat()}|{round_id}"
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        opened_at, round_id = base64.urlsafe_b64decode(padded).decode().split("|", 1)
        return datetime.fromisoformat(opened_at), round_id
    except (ValueError, UnicodeDecodeError):
        raise InvalidCommand(
            "invalid_cursor", "cursor is not one this service gave", "cursor"
        ) from None


def verify_shoe(
    server_seed_hex: str, commitment: str, client_seed: str, nonce: int, dealt: list[int]
) -> Json:
    """Re-derive a closed shoe: the seed hashes to its commitment, and the shuffle gives
    every dealt tile at its position."""
    seed = bytes.fromhex(server_seed_hex)
    order = shuffle(seed, client_seed, nonce)
    commitment_ok = commitment_of(seed) == commitment
    mismatches = [p for p, t in enumerate(dealt) if order[p] != t]
    return {
        "commitment_matches": commitment_ok,
        "deal_matches": not mismatches,
        "first_mismatch": mismatches[0] if mismatches else None,
        "verified": commitment_ok and not mismatches,
    }
