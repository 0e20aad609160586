"""A player's credit meter: deposits, withdrawals (table keys and admin) and balances."""

from __future__ import annotations

from typing import Any

from casino.api import idempotency
from casino.api.auth import ALL_ROLES, OPERATORS, allow
from casino.api.context import current_actor, queries, services
from casino.api.fields import path_id
from casino.api.players.schemas import FundsMovedSchema, MoveFundsSchema, PlayerSchema
from casino.api.spec import Blueprint, problems
from casino.app.commands import CommandResult

blp = Blueprint("players", __name__, url_prefix="/v1/players",
                description="Player balances in each currency")  # fmt: skip


def _move(player_id: str, movement: dict[str, Any], deposit: bool) -> CommandResult:
    return services().casino.move_funds(
        path_id(player_id, "player_id"),
        movement["currency"],
        movement["amount"],
        movement["reference"],
        deposit,
        current_actor(),
        idempotency.from_request(),
    )


@blp.route("/<id:player_id>/deposits", methods=["POST"])
@allow(OPERATORS)
@problems(409)
@blp.doc(parameters=[idempotency.HEADER_PARAMETER])
@blp.arguments(MoveFundsSchema())
@blp.response(201, FundsMovedSchema)
def deposit(movement: dict[str, Any], player_id: str) -> Any:
    """Pay money into a player's balance"""
    return idempotency.answer(_move(player_id, movement, deposit=True))


@blp.route("/<id:player_id>/withdrawals", methods=["POST"])
@allow(OPERATORS)
@problems(409)
@blp.doc(parameters=[idempotency.HEADER_PARAMETER])
@blp.arguments(MoveFundsSchema())
@blp.response(201, FundsMovedSchema)
def withdraw(movement: dict[str, Any], player_id: str) -> Any:
    """Pay money out of a player's balance (refused beyond it: 409)"""
    return idempotency.answer(_move(player_id, movement, deposit=False))


@blp.route("/<id:player_id>")
@allow(ALL_ROLES)
@problems(422)
@blp.response(200, PlayerSchema)
def get_player(player_id: str) -> Any:
    """A player's balance in every currency they hold (none yet: an empty list)"""
    with queries() as read:
        return read.player(path_id(player_id, "player_id"))
