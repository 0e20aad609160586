"""Hand histories beyond one round: a player's or a seat's last rounds in full, and a
player's or a table's rounds of a period streamed as CSV or JSON lines.

A table key reads only its own tables here too: the seat's table must be one of them,
and a player's rounds or an export are read at one of them (``table_id``), as the
GET /v1/rounds listing asks. Admin and auditor keys read everything.
"""

from __future__ import annotations

import re
from typing import Any

from flask import Response, stream_with_context

from casino.api.auth import ALL_ROLES, allow, require_table_read
from casino.api.context import current_actor, queries, services, state
from casino.api.errors import ApiError
from casino.api.fields import path_id
from casino.api.hand_histories.schemas import (
    ExportArgsSchema,
    LastRoundsArgsSchema,
    PlayerLastRoundsArgsSchema,
    PlayerRoundsSchema,
    SeatRoundsSchema,
)
from casino.api.spec import Blueprint, problems
from casino.app.actors import Role
from casino.app.hand_histories.export import HandHistoryExport, export_chunks
from casino.app.hand_histories.formats import ExportFormat
from casino.app.hand_histories.recall import last_rounds_of_player, last_rounds_of_seat
from casino.domain.errors import InvalidCommand
from casino.game.deal import MAX_SEATS

blp = Blueprint("hand_histories", __name__, url_prefix="/v1",
                description="Hand histories: the last rounds of a seat or a player, and "
                            "exports of a period")  # fmt: skip

EXPORT_RETRY_SECONDS = 30
_SEAT = re.compile(r"[1-9][0-9]{0,2}")  # short, so int() is cheap; the range is checked after
_STREAMED = {
    "description": "one row per seat of each played round, oldest first",
    "headers": {
        "Content-Disposition": {
            "description": "attachment; filename=...",
            "schema": {"type": "string"},
        }
    },
    "content": {f.media_type: {"schema": {"type": "string"}} for f in ExportFormat},
}


@blp.route("/players/<id:player_id>/rounds/last")
@allow(ALL_ROLES)
@problems(422)
@blp.arguments(PlayerLastRoundsArgsSchema(), location="query")
@blp.response(200, PlayerRoundsSchema)
def player_last_rounds(args: dict[str, Any], player_id: str) -> Any:
    """A player's last n played rounds, oldest first, each its full hand history"""
    player_id = path_id(player_id, "player_id")
    _require_own_table(args.get("table_id"), "a player's rounds")
    with queries() as read:
        rounds = last_rounds_of_player(read, player_id, args["n"], args.get("table_id"))
    return {"player_id": player_id, "rounds": rounds}


# Any segment reaches the view, so a malformed seat is a 422 naming it (not a bare 404);
# the document still says what a seat is.
@blp.route("/tables/<id:table_id>/seats/<string:seat>/rounds/last", parameters=[
    {"in": "path", "name": "seat", "schema": {"type": "integer", "minimum": 1,
                                              "maximum": MAX_SEATS}},
])  # fmt: skip
@allow(ALL_ROLES)
@problems(404, 422)
@blp.arguments(LastRoundsArgsSchema(), location="query")
@blp.response(200, SeatRoundsSchema)
def seat_last_rounds(args: dict[str, Any], table_id: str, seat: str) -> Any:
    """A seat's last n played rounds at a table, oldest first, each its full hand history"""
    table_id = path_id(table_id, "table_id")
    number = _seat_number(seat)
    require_table_read(table_id)
    with queries() as read:
        rounds = last_rounds_of_seat(read, table_id, number, args["n"])
    return {"table_id": table_id, "seat": number, "rounds": rounds}


@blp.route("/exports/hand-histories")
@allow(ALL_ROLES)
@problems(422, 503)
@blp.arguments(ExportArgsSchema(), location="query")
@blp.response(200, description=_STREAMED["description"], content_type="text/csv")
@blp.doc(responses={"200": _STREAMED})
def export_hand_histories(args: dict[str, Any]) -> Any:
    """A player's or a table's hand histories of a period, streamed as CSV or JSON lines"""
    export = HandHistoryExport(**args)
    _require_own_table(export.table_id, "hand histories")
    slots = state().export_slots
    if not slots.acquire(blocking=False):
        raise ApiError(503, "exports_busy", "as many exports as this server allows are "
                       "streaming: retry in a little while", None,
                       headers={"Retry-After": str(EXPORT_RETRY_SECONDS)})  # fmt: skip
    try:
        chunks = export_chunks(services().pool.connection, export)
    except BaseException:
        slots.release()
        raise
    response = Response(
        stream_with_context(chunks),
        mimetype=export.format.media_type,
        headers={"Content-Disposition": f'attachment; filename="{export.file_name}"'},
    )
    # The server closes a response once it is sent or its client has gone, read or not.
    response.call_on_close(slots.release)
    return response


def _seat_number(text: str) -> int:
    if not _SEAT.fullmatch(text) or int(text) > MAX_SEATS:
        raise InvalidCommand("invalid_seat", f"seat must be a number from 1 to {MAX_SEATS}", "seat")
    return int(text)


def _require_own_table(table_id: str | None, what: str) -> None:
    """A table key must name one of its tables; admin and auditor may name none."""
    if current_actor().role is Role.TABLE and table_id is None:
        raise ApiError(403, "table_forbidden",
                       f"a table key reads {what} at its own tables: give table_id",
                       "table_id")  # fmt: skip
    if table_id is not None:
        require_table_read(table_id)
