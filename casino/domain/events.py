"""Domain events (past tense), with the JSON data they are stored as.

Each event type has a stable name and a schema version; ``encode`` and ``decode`` map
between the dataclasses and the plain JSON stored in the log. Nested structures (dealt
seats, postings) are kept as plain JSON lists and dicts, exactly as stored.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar

JsonDict = dict[str, Any]


@dataclass(frozen=True)
class DomainEvent:
    TYPE: ClassVar[str] = ""
    SCHEMA_VERSION: ClassVar[int] = 1


# --- tables ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TableOpened(DomainEvent):
    TYPE: ClassVar[str] = "TableOpened"
    table_id: str
    name: str
    currency: str
    seats: int
    main_paytable: int
    doubles_paytable: int
    main_min: int
    main_max: int
    doubles_min: int
    doubles_max: int
    cut_card: int | None  # None: a new shoe for every round


@dataclass(frozen=True)
class TableReconfigured(TableOpened):
    """New paytables, limits, seats or shuffle policy, from the next round on (the currency
    never changes: balances are kept per currency)."""

    TYPE: ClassVar[str] = "TableReconfigured"


@dataclass(frozen=True)
class ShoeStarted(DomainEvent):
    TYPE: ClassVar[str] = "ShoeStarted"
    table_id: str
    shoe_id: str
    nonce: int


@dataclass(frozen=True)
class RoundStarted(DomainEvent):
    TYPE: ClassVar[str] = "RoundStarted"
    table_id: str
    round_id: str
    round_number: int
    shoe_id: str


# --- shoes ----------------------------------------------------------------------------


@dataclass(frozen=True)
class ShoeOpened(DomainEvent):
    """A shoe's commitment, published before any wager of a round dealt from it."""

    TYPE: ClassVar[str] = "ShoeOpened"
    shoe_id: str
    table_id: str
    algorithm: str
    commitment: str
    client_seed: str
    nonce: int


@dataclass(frozen=True)
class TilesDealt(DomainEvent):
    TYPE: ClassVar[str] = "TilesDealt"
    shoe_id: str
    round_id: str
    first_position: int
    tiles: list[int]


@dataclass(frozen=True)
class ShoeClosed(DomainEvent):
    """The shoe is done: its server seed is revealed so anyone can re-derive it."""

    TYPE: ClassVar[str] = "ShoeClosed"
    shoe_id: str
    server_seed: str
    tiles_dealt: int


# --- rounds ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RoundOpened(DomainEvent):
    TYPE: ClassVar[str] = "RoundOpened"
    round_id: str
    table_id: str
    round_number: int
    shoe_id: str
    commitment: str
    currency: str
    seats: int
    main_paytable: int
    doubles_paytable: int
    main_min: int
    main_max: int
    doubles_min: int
    doubles_max: int


@dataclass(frozen=True)
class WagerPlaced(DomainEvent):
    TYPE: ClassVar[str] = "WagerPlaced"
    round_id: str
    seat: int
    player_id: str
    main: int
    doubles: int  # 0: no Doubles wager


@dataclass(frozen=True)
class BettingClosed(DomainEvent):
    TYPE: ClassVar[str] = "BettingClosed"
    round_id: str
    wagers: int


@dataclass(frozen=True)
class HandsDealt(DomainEvent):
    """Every playing seat's tiles: ``seats`` items are {seat, hand, connector, positions}."""

    TYPE: ClassVar[str] = "HandsDealt"
    round_id: str
    shoe_id: str
    seats: list[JsonDict]


@dataclass(frozen=True)
class RoundSettled(DomainEvent):
    """Every seat scored and paid; ``seats`` items carry the scores and payouts."""

    TYPE: ClassVar[str] = "RoundSettled"
    round_id: str
    seats: list[JsonDict]
    handle: int
    payouts: int


@dataclass(frozen=True)
class RoundVoided(DomainEvent):
    """Voided before the deal: every stake refunded."""

    TYPE: ClassVar[str] = "RoundVoided"
    round_id: str
    actor: str
    reason: str
    refunded: int


@dataclass(frozen=True)
class SettlementReversed(DomainEvent):
    """An admin correction of a settled round (a significant event): payouts taken back,
    stakes refunded, by reversing postings."""

    TYPE: ClassVar[str] = "SettlementReversed"
    round_id: str
    actor: str
    reason: str
    refunded: int
    reclaimed: int


# --- player accounts ------------------------------------------------------------------


@dataclass(frozen=True)
class MoneyMoved(DomainEvent):
    """A movement of a player's money: postings sum to zero; ``balance_after`` is the
    player's balance in the account's currency once they are applied."""

    player_id: str
    currency: str
    amount: int
    balance_after: int
    postings: list[JsonDict]


@dataclass(frozen=True)
class FundsDeposited(MoneyMoved):
    TYPE: ClassVar[str] = "FundsDeposited"
    reference: str


@dataclass(frozen=True)
class FundsWithdrawn(MoneyMoved):
    TYPE: ClassVar[str] = "FundsWithdrawn"
    reference: str


@dataclass(frozen=True)
class StakeDebited(MoneyMoved):
    TYPE: ClassVar[str] = "StakeDebited"
    round_id: str
    seats: list[int]


@dataclass(frozen=True)
class PayoutCredited(MoneyMoved):
    TYPE: ClassVar[str] = "PayoutCredited"
    round_id: str
    seats: list[int]


@dataclass(frozen=True)
class StakeRefunded(MoneyMoved):
    TYPE: ClassVar[str] = "StakeRefunded"
    round_id: str
    seats: list[int]


@dataclass(frozen=True)
class SettlementCorrected(MoneyMoved):
    """The player's side of a reversed settlement: ``amount`` is the net change."""

    TYPE: ClassVar[str] = "SettlementCorrected"
    round_id: str
    refunded: int
    reclaimed: int


EVENT_TYPES: dict[str, type[DomainEvent]] = {
    cls.TYPE: cls
    for cls in (
        TableOpened, TableReconfigured, ShoeStarted, RoundStarted, ShoeOpened, TilesDealt,
        ShoeClosed, RoundOpened, WagerPlaced, BettingClosed, HandsDealt, RoundSettled, RoundVoided,
        SettlementReversed, FundsDeposited, FundsWithdrawn, StakeDebited, PayoutCredited,
        StakeRefunded, SettlementCorrected,
    )
}  # fmt: skip


_FIELD_NAMES: dict[type[DomainEvent], tuple[str, ...]] = {
    cls: tuple(f.name for f in fields(cls)) for cls in EVENT_TYPES.values()
}


def encode(event: DomainEvent) -> JsonDict:
    """The event's data as stored. Nested lists and dicts are shared with the event, not
    copied (``asdict`` deep-copies, a tenth of a command's time): events are frozen and
    nothing changes encoded data once made."""
    names = _FIELD_NAMES.get(type(event)) or tuple(f.name for f in fields(event))
    return {name: getattr(event, name) for name in names}


def decode(event_type: str, data: JsonDict) -> DomainEvent:
    cls = EVENT_TYPES[event_type]
    names = _FIELD_NAMES[cls]
    return cls(**{k: v for k, v in data.items() if k in names})
