"""Tables: their configuration, and which shoe and round are current."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from casino.domain import validation
from casino.domain.errors import InvalidCommand, NotFound, RuleViolation
from casino.domain.events import (
    DomainEvent,
    RoundStarted,
    ShoeStarted,
    TableOpened,
    TableReconfigured,
)
from casino.game.deal import MAX_SEATS, shoe_can_serve, tiles_for_round
from casino.game.paytables import DOUBLES_PAYTABLES, MAIN_PAYTABLES
from casino.game.tiles import SHOE_SIZE


@dataclass(frozen=True)
class OpenTable:
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
    cut_card: int | None = None


@dataclass(frozen=True)
class TableState:
    config: TableOpened
    shoes_started: int = 0
    live_shoe_id: str | None = None
    rounds_started: int = 0
    current_round_id: str | None = None


def _choice(value: int, field: str, allowed: Iterable[int]) -> int:
    options = sorted(allowed)
    if isinstance(value, bool) or not isinstance(value, int) or value not in options:
        raise InvalidCommand(
            "invalid_choice", f"{field} must be one of {options[0]}-{options[-1]}", field
        )
    return value


def _limits(kind: str, minimum: int, maximum: int) -> None:
    validation.amount(minimum, f"{kind}_min")
    validation.amount(maximum, f"{kind}_max")
    if maximum < minimum:
        raise InvalidCommand(
            "limits_inverted", f"{kind}_max must be at least {kind}_min", f"{kind}_max"
        )


def _validate(command: OpenTable) -> None:
    validation.identifier(command.table_id, "table_id")
    validation.text(command.name, "name", max_length=100)
    validation.currency(command.currency)
    _choice(command.seats, "seats", range(1, MAX_SEATS + 1))
    _choice(command.main_paytable, "main_paytable", MAIN_PAYTABLES)
    _choice(command.doubles_paytable, "doubles_paytable", DOUBLES_PAYTABLES)
    _limits("main", command.main_min, command.main_max)
    _limits("doubles", command.doubles_min, command.doubles_max)
    if command.cut_card is not None:
        validation.amount(
            command.cut_card, "cut_card", minimum=tiles_for_round(command.seats), maximum=SHOE_SIZE
        )


def decide_open_table(command: OpenTable, existing: TableState | None) -> list[DomainEvent]:
    _validate(command)
    if existing is not None:
        raise RuleViolation("table_exists", f"table {command.table_id} already exists", "table_id")
    return [TableOpened(**command.__dict__)]


def decide_reconfigure_table(
    command: OpenTable, state: TableState | None, round_in_progress: bool
) -> list[DomainEvent]:
    """New settings for the rounds to come; the round in play keeps what it opened with."""
    _validate(command)
    current = require_table(state, command.table_id)
    if command.currency != current.config.currency:
        raise RuleViolation(
            "currency_fixed", "a table's currency cannot change: open a new table", "currency"
        )
    if round_in_progress:
        raise RuleViolation(
            "round_in_progress",
            f"round {current.current_round_id} is still open: reconfigure between rounds",
            "table_id",
        )
    return [TableReconfigured(**command.__dict__)]


def evolve_table(state: TableState | None, event: DomainEvent) -> TableState | None:
    if isinstance(event, TableReconfigured) and state is not None:
        return replace(state, config=event)
    if isinstance(event, TableOpened):
        return TableState(config=event)
    if state is None:
        return None
    # Counts are taken from the events, not incremented: the latest event of each type
    # then gives the same state as the whole stream (see STATE_EVENT_TYPES).
    if isinstance(event, ShoeStarted):
        return replace(state, shoes_started=event.nonce + 1, live_shoe_id=event.shoe_id)
    if isinstance(event, RoundStarted):
        return replace(state, rounds_started=event.round_number, current_round_id=event.round_id)
    return state


# A table's state is the fold of its latest event of each of these types (in version
# order): a command reads those few, never the table's whole history.
STATE_EVENT_TYPES = (TableOpened.TYPE, TableReconfigured.TYPE, ShoeStarted.TYPE, RoundStarted.TYPE)


def fold_table(events: Iterable[DomainEvent]) -> TableState | None:
    state: TableState | None = None
    for event in events:
        state = evolve_table(state, event)
    return state


def require_table(state: TableState | None, table_id: str) -> TableState:
    if state is None:
        raise NotFound("table_not_found", f"no table {table_id}", "table_id")
    return state


def live_shoe_can_serve(config: TableOpened, tiles_dealt: int) -> bool:
    return shoe_can_serve(tiles_dealt, config.seats, config.cut_card)
