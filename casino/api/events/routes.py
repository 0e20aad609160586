"""GET /v1/events: the global log, for integrators and auditors (admin and auditor keys).

A reader that keeps asking for ``after=<next_after>`` sees every event exactly once:
the store never shows a position below one it has already shown.
"""

from __future__ import annotations

from typing import Any

from casino.api.auth import OVERSEERS, allow
from casino.api.context import services
from casino.api.events.schemas import FeedArgsSchema, FeedPageSchema
from casino.api.spec import Blueprint, problems

blp = Blueprint("events", __name__, url_prefix="/v1/events",
                description="The global event feed")  # fmt: skip


@blp.route("")
@allow(OVERSEERS)
@problems(422)
@blp.arguments(FeedArgsSchema(), location="query")
@blp.response(200, FeedPageSchema)
def feed(args: dict[str, Any]) -> Any:
    """Events after a position, in log order"""
    events = services().store.read_all(args["after"], args["limit"])
    return {
        "events": events,
        "next_after": events[-1].position if events else args["after"],
    }
