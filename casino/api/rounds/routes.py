"""Rounds: open on a table, take wagers, deal, void; recall one, or list many; bundle one
for offline verification.

Commands on a round answer with its new version as ETag and accept If-Match with a
version read earlier, so a client can pin what it decided on.
"""

from __future__ import annotations

from typing import Any

from casino.api import idempotency, preconditions
from casino.api.auth import ALL_ROLES, OPERATORS, allow, require_table_read
from casino.api.context import current_actor, queries, services, state
from casino.api.errors import ApiError
from casino.api.fields import path_id
from casino.api.rounds.schemas import (
    NoBodySchema,
    OpenRoundSchema,
    PlaceWagersSchema,
    RoundDealtSchema,
    RoundHistorySchema,
    RoundListArgsSchema,
    RoundOpenedSchema,
    RoundPageSchema,
    RoundVoidedSchema,
    VerificationBundleSchema,
    VoidRoundSchema,
    WagersPlacedSchema,
)
from casino.api.spec import Blueprint, problems
from casino.app.actors import Role
from casino.app.queries import decode_cursor
from casino.app.verification import round_bundle
from casino.domain import validation
from casino.domain.errors import InvalidCommand
from casino.domain.rounds import SeatWager

blp = Blueprint("rounds", __name__, url_prefix="/v1",
                description="Rounds: open, wager, deal, void, and hand histories")  # fmt: skip

VERSIONED = {"ETag": preconditions.ETAG_HEADER}
COMMAND_HEADERS = [idempotency.HEADER_PARAMETER, preconditions.HEADER_PARAMETER]


@blp.route("/tables/<id:table_id>/rounds", methods=["POST"])
@allow(OPERATORS)
@problems(404, 409)
@blp.doc(parameters=[idempotency.HEADER_PARAMETER])
@blp.arguments(OpenRoundSchema(), required=False)
@blp.response(201, RoundOpenedSchema, headers=VERSIONED)
def open_round(args: dict[str, Any], table_id: str) -> Any:
    """Open a round: its shoe's commitment is fixed before any wager"""
    result = services().casino.open_round(
        path_id(table_id, "table_id"), args["client_seed"], current_actor(),
        idempotency.from_request(),
    )  # fmt: skip
    if not result.replayed:
        state().metrics.rounds_opened.inc()
    return idempotency.answer(result, version_tag=True)


@blp.route("/rounds/<id:round_id>/wagers", methods=["POST"])
@allow(OPERATORS)
@problems(404, 409, 412)
@blp.doc(parameters=COMMAND_HEADERS)
@blp.arguments(PlaceWagersSchema())
@blp.response(201, WagersPlacedSchema, headers=VERSIONED)
def place_wagers(wagers: list[SeatWager], round_id: str) -> Any:
    """Stake one seat, or a batch of seats at once, from the players' balances"""
    result = services().casino.place_wagers(
        path_id(round_id, "round_id"), wagers, current_actor(), idempotency.from_request(),
        preconditions.expected_version(),
    )  # fmt: skip
    if not result.replayed:
        state().metrics.wagers_placed.inc(len(wagers))
    return idempotency.answer(result, version_tag=True)


@blp.route("/rounds/<id:round_id>/deal", methods=["POST"])
@allow(OPERATORS)
@problems(404, 409, 412)
@blp.doc(parameters=COMMAND_HEADERS)
@blp.arguments(NoBodySchema(), required=False)
@blp.response(200, RoundDealtSchema, headers=VERSIONED)
def deal(_: dict[str, Any], round_id: str) -> Any:
    """Close betting, deal, score and settle every seat"""
    result = services().casino.deal(
        path_id(round_id, "round_id"), current_actor(), idempotency.from_request(),
        preconditions.expected_version(),
    )  # fmt: skip
    if not result.replayed:
        state().metrics.rounds_dealt.inc()
    return idempotency.answer(result, version_tag=True)


@blp.route("/rounds/<id:round_id>/void", methods=["POST"])
@allow(OPERATORS)
@problems(404, 409, 412)
@blp.doc(parameters=COMMAND_HEADERS)
@blp.arguments(VoidRoundSchema())
@blp.response(200, RoundVoidedSchema, headers=VERSIONED)
def void(args: dict[str, Any], round_id: str) -> Any:
    """Void a round: before the deal refunds every wager; after it, admin only, reverses
    the settlement"""
    result = services().casino.void_round(
        path_id(round_id, "round_id"), args["reason"], current_actor(),
        idempotency.from_request(), preconditions.expected_version(),
    )  # fmt: skip
    if not result.replayed:
        state().metrics.rounds_voided.inc()
    return idempotency.answer(result, version_tag=True)


@blp.route("/rounds/<id:round_id>")
@allow(ALL_ROLES)
@problems(404, 422)
@blp.response(200, RoundHistorySchema, headers=VERSIONED)
def get_round(round_id: str) -> Any:
    """The full hand history of a round (game recall)"""
    with queries() as read:
        history = read.round_history(path_id(round_id, "round_id"))
    require_table_read(history["table_id"])
    return history, 200, {"ETag": preconditions.entity_tag(history["version"])}


@blp.route("/rounds/<id:round_id>/verification")
@allow(ALL_ROLES)
@problems(404, 422)
@blp.response(200, VerificationBundleSchema)
def get_verification_bundle(round_id: str) -> Any:
    """A self-contained bundle to verify the round offline: `casino shoe verify --bundle`

    The round's and its shoe's events with their hash chains, the shoe's commitment,
    client seed, nonce and algorithm, and its server seed once the shoe is closed.
    """
    with queries() as read:
        bundle = round_bundle(read.connection, path_id(round_id, "round_id"))
    require_table_read(bundle["round"]["table_id"])
    return bundle


@blp.route("/rounds")
@allow(ALL_ROLES)
@problems(422)
@blp.arguments(RoundListArgsSchema(), location="query")
@blp.response(200, RoundPageSchema)
def list_rounds(args: dict[str, Any]) -> Any:
    """Rounds opened in [from, to), oldest first, a page at a time"""
    actor = current_actor()
    table_id = args.get("table_id")
    if actor.role is Role.TABLE and (table_id is None or table_id not in actor.tables):
        raise ApiError(403, "table_forbidden",
                       "a table key lists the rounds of its own tables: give table_id",
                       "table_id")  # fmt: skip
    if "cursor" in args:
        _check_cursor(args["cursor"])
    with queries() as read:
        return read.list_rounds(**args)


def _check_cursor(cursor: str) -> None:
    """Refuse a forged cursor here: its round id goes into SQL, which refuses NUL."""
    _, round_id = decode_cursor(cursor)
    try:
        validation.identifier(round_id, "cursor")
    except InvalidCommand:
        raise InvalidCommand(
            "invalid_cursor", "cursor is not one this service gave", "cursor"
        ) from None
