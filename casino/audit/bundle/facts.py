"""What a bundle's events say, looked up once for all the checks.

The events are the evidence: every lookup here reads them, never the bundle's summary
fields. Event data is read as the log recorded it; a tampered bundle may hold anything
there, so callers run under ``MALFORMED`` guards rather than trusting its shape.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

from casino.audit.bundle.format import Bundle, BundleEvent
from casino.audit.shoes import ClosedShoe, Deal, ShoeVerdict, verify_shoe

# What reading untrusted event data can raise (a field missing, of the wrong type, out
# of range): the check doing the reading fails, naming the error, instead of crashing.
MALFORMED = (KeyError, TypeError, ValueError, IndexError, AttributeError)


class BundleFacts:
    def __init__(self, bundle: Bundle) -> None:
        self.bundle = bundle
        self.round_id = bundle.round.round_id
        self.shoe_id = bundle.shoe.shoe_id

    def of_round(self, event_type: str) -> list[BundleEvent]:
        return [event for event in self.bundle.round.events if event.type == event_type]

    def of_shoe(self, event_type: str) -> list[BundleEvent]:
        return [event for event in self.bundle.shoe.events if event.type == event_type]

    @property
    def round_opened(self) -> BundleEvent | None:
        """The round's first event, when it is the ``RoundOpened`` a round begins with."""
        events = self.bundle.round.events
        return events[0] if events and events[0].type == "RoundOpened" else None

    @property
    def shoe_opened(self) -> BundleEvent | None:
        events = self.bundle.shoe.events
        return events[0] if events and events[0].type == "ShoeOpened" else None

    @property
    def shoe_closed(self) -> BundleEvent | None:
        closed = self.of_shoe("ShoeClosed")
        return closed[-1] if closed else None

    @property
    def round_deals(self) -> list[BundleEvent]:
        """The shoe's ``TilesDealt`` for this round."""
        return [e for e in self.of_shoe("TilesDealt") if e.data.get("round_id") == self.round_id]

    @property
    def round_status(self) -> str:
        for event_type, status in (
            ("SettlementReversed", "settled, then reversed by an admin"),
            ("RoundVoided", "voided before the deal"),
            ("RoundSettled", "settled"),
        ):
            if self.of_round(event_type):
                return status
        return "still taking wagers"

    @cached_property
    def verdict(self) -> ShoeVerdict | None:
        """The shoe re-derived from its revealed seed (None while it is live); raises one
        of ``MALFORMED`` when the events cannot say what the shoe was."""
        closed = self.shoe_closed
        if closed is None:
            return None
        opened = self.shoe_opened
        data: dict[str, Any] = opened.data if opened is not None else {}
        shoe = ClosedShoe(
            shoe_id=self.shoe_id,
            opened_position=None if opened is None else opened.position,
            algorithm=data.get("algorithm", ""),
            commitment=data.get("commitment", ""),
            client_seed=data.get("client_seed", ""),
            nonce=data.get("nonce", 0),
            server_seed=closed.data["server_seed"],
            tiles_dealt=closed.data["tiles_dealt"],
            deals=tuple(
                Deal(e.data["round_id"], e.data["first_position"], tuple(e.data["tiles"]))
                for e in self.of_shoe("TilesDealt")
            ),
        )
        return verify_shoe(shoe)

    @property
    def order(self) -> tuple[int, ...] | None:
        """The shoe's deal order re-derived from its revealed seed, when there is one."""
        try:
            verdict = self.verdict
        except MALFORMED:
            return None
        return None if verdict is None else verdict.order
