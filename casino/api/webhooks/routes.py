"""Webhook subscriptions (admin makes and changes them; auditors read) and their
deliveries, dead letters and replays."""

from __future__ import annotations

from typing import Any

from casino.api.auth import OVERSEERS, allow
from casino.api.context import services
from casino.api.spec import Blueprint, problems
from casino.api.webhooks.schemas import (
    DeliveryArgsSchema,
    DeliveryPageSchema,
    LagSchema,
    NewSubscriptionSchema,
    PageArgsSchema,
    ReplayedSchema,
    ReplaySchema,
    SubscribeSchema,
    SubscriptionListSchema,
    SubscriptionSchema,
)
from casino.app.actors import Role
from casino.webhooks import queries, replay, subscriptions

blp = Blueprint("webhooks", __name__, url_prefix="/v1/webhooks",
                description="Event delivery to table systems")  # fmt: skip


@blp.route("", methods=["POST"])
@allow({Role.ADMIN})
@problems(422)
@blp.arguments(SubscribeSchema())
@blp.response(201, NewSubscriptionSchema)
def subscribe(args: dict[str, Any]) -> Any:
    """Subscribe an address to events (the signing secret is shown once)"""
    with services().pool.connection() as connection:
        return subscriptions.create_subscription(connection, **args)


@blp.route("")
@allow(OVERSEERS)
@blp.response(200, SubscriptionListSchema)
def list_subscriptions() -> Any:
    """Every subscription"""
    with services().pool.connection() as connection:
        return {"subscriptions": subscriptions.list_subscriptions(connection)}


@blp.route("/dead-letters")
@allow(OVERSEERS)
@problems(422)
@blp.arguments(PageArgsSchema(), location="query")
@blp.response(200, DeliveryPageSchema)
def dead_letters(args: dict[str, Any]) -> Any:
    """Deliveries given up on, across subscriptions"""
    with services().pool.connection() as connection:
        return queries.dead_letters(connection, None, args["after"], args["limit"])


@blp.route("/<string:subscription_id>")
@allow(OVERSEERS)
@problems(404)
@blp.response(200, LagSchema)
def subscription_lag(subscription_id: str) -> Any:
    """A subscription's progress: how far behind the log, pending and dead deliveries"""
    with services().pool.connection() as connection:
        return queries.lag(connection, subscription_id)


@blp.route("/<string:subscription_id>/deactivate", methods=["POST"])
@allow({Role.ADMIN})
@problems(404)
@blp.response(200, SubscriptionSchema)
def deactivate(subscription_id: str) -> Any:
    """Stop delivering to a subscription"""
    with services().pool.connection() as connection:
        return subscriptions.deactivate_subscription(connection, subscription_id)


@blp.route("/<string:subscription_id>/deliveries")
@allow(OVERSEERS)
@problems(404, 422)
@blp.arguments(DeliveryArgsSchema(), location="query")
@blp.response(200, DeliveryPageSchema)
def deliveries(args: dict[str, Any], subscription_id: str) -> Any:
    """A subscription's deliveries, oldest first, a page at a time"""
    with services().pool.connection() as connection:
        subscriptions.get_subscription(connection, subscription_id)
        return queries.deliveries(
            connection, subscription_id, args["status"], args["after"], args["limit"]
        )


@blp.route("/<string:subscription_id>/replay", methods=["POST"])
@allow({Role.ADMIN})
@problems(404, 409, 422)
@blp.arguments(ReplaySchema())
@blp.response(200, ReplayedSchema)
def replay_from(args: dict[str, Any], subscription_id: str) -> Any:
    """Deliver again every matching event after a position"""
    with services().pool.connection() as connection:
        return replay.replay(connection, subscription_id, args["from_position"])
