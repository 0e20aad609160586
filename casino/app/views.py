"""The JSON shapes of tables, tiles and hands, shared by command answers and queries.

Both sides feed the same row-shaped dicts (read-model column names) into these, so a
deal's answer and the later recall of the same round cannot disagree in form.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from casino.game.tiles import face_index_of_tile, face_text

Json = dict[str, Any]


def iso(value: datetime | str | None) -> str | None:
    return value.isoformat() if isinstance(value, datetime) else value


def tile_json(tile_id: int, position: int | None = None) -> Json:
    tile: Json = {"id": tile_id, "face": face_text(face_index_of_tile(tile_id))}
    if position is not None:
        tile["position"] = position
    return tile


def table_json(row: Mapping[str, Any]) -> Json:
    cut_card = row["cut_card"]
    return {
        "table_id": row["table_id"],
        "name": row["name"],
        "currency": row["currency"],
        "seats": row["seats"],
        "main_paytable": row["main_paytable"],
        "doubles_paytable": row["doubles_paytable"],
        "limits": {
            "main": {"min": row["main_min"], "max": row["main_max"]},
            "doubles": {"min": row["doubles_min"], "max": row["doubles_max"]},
        },
        "shuffle_policy": (
            {"kind": "every_round", "cut_card": None}
            if cut_card is None
            else {"kind": "cut_card", "cut_card": cut_card}
        ),
        "opened_at": iso(row["opened_at"]),
        "live_shoe_id": row["live_shoe_id"],
        "rounds_started": row["rounds_started"],
        "current_round_id": row["current_round_id"],
        "version": row["version"],
    }


def hand_json(row: Mapping[str, Any]) -> Json:
    """One seat of a round: wagers, tiles in deal order with shoe positions, scores, pays."""
    dealt = row["hand"] is not None
    positions: Sequence[int] = row["positions"] or ()
    settled = row["total"] is not None
    return {
        "seat": row["seat"],
        "player_id": row["player_id"],
        "tiles": [tile_json(t, p) for t, p in zip(row["hand"], positions, strict=False)]
        if dealt
        else None,
        "connector": tile_json(row["connector"], positions[3]) if dealt else None,
        "tile_scores": row["tile_scores"],
        "connector_bonus": row["connector_bonus"],
        "total": row["total"],
        "main": {
            "stake": row["main_stake"],
            "odds_to_one": row["main_odds"],
            "payout": row["main_payout"],
            "result": (("win" if row["main_payout"] else "lose") if settled else None),
        },
        "doubles": None
        if not row["doubles_stake"]
        else {
            "stake": row["doubles_stake"],
            "event": row["doubles_event"],
            "odds_to_one": row["doubles_odds"],
            "payout": row["doubles_payout"],
            "result": (("win" if row["doubles_payout"] else "lose") if settled else None),
        },
    }
