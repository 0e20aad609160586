"""Row changes: the small vocabulary projections speak.

Changes are plain (not frozen) slotted dataclasses because a replay makes millions of
them and frozen ones cost twice as much to build; nothing changes one once made.

``Upsert`` inserts a row, or, when its key exists, merges it: ``keep`` columns keep
their stored value and ``add`` columns are added to it. ``Update`` sets and adds to
columns of a row that must exist.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

Row = dict[str, Any]

# The key columns of every read-model table, in order.
TABLE_KEYS: Mapping[str, tuple[str, ...]] = {
    "rm_tables": ("table_id",),
    "rm_shoes": ("shoe_id",),
    "rm_rounds": ("round_id",),
    "rm_seats": ("round_id", "seat"),
    "rm_round_players": ("round_id", "player_id"),
    "rm_balances": ("player_id", "currency"),
    "ledger_postings": ("stream_id", "version", "line"),
}

# Every column of every read-model table, in the order of its CREATE TABLE.
TABLE_COLUMNS: Mapping[str, tuple[str, ...]] = {
    "rm_tables": (
        "table_id", "name", "currency", "seats", "main_paytable", "doubles_paytable",
        "main_min", "main_max", "doubles_min", "doubles_max", "cut_card", "opened_at",
        "shoes_started", "live_shoe_id", "rounds_started", "current_round_id", "version",
    ),
    "rm_shoes": (
        "shoe_id", "table_id", "algorithm", "commitment", "client_seed", "nonce", "opened_at",
        "tiles_dealt", "dealt", "closed_at", "server_seed", "version",
    ),
    "rm_rounds": (
        "round_id", "table_id", "round_number", "shoe_id", "commitment", "currency", "seats",
        "main_paytable", "doubles_paytable", "status", "opened_at", "closed_at", "wagers",
        "handle", "payouts", "version", "main_handle", "doubles_handle", "doubles_wagers",
        "main_squares", "doubles_squares", "main_payouts", "doubles_payouts", "totals",
        "adjusted_at", "adjusted_by", "adjustment_reason", "refunded", "reclaimed",
    ),
    "rm_seats": (
        "round_id", "seat", "player_id", "main_stake", "doubles_stake", "hand", "connector",
        "positions", "tile_scores", "connector_bonus", "total", "doubles_event", "main_odds",
        "main_payout", "doubles_odds", "doubles_payout",
    ),
    "rm_round_players": (
        "round_id", "player_id", "staked", "paid", "balance_before", "balance_after",
    ),
    "rm_balances": ("player_id", "currency", "balance", "version"),
    "ledger_postings": (
        "stream_id", "version", "line", "event_type", "account", "currency", "amount",
        "round_id", "recorded_at",
    ),
}  # fmt: skip


@dataclass(slots=True)
class Upsert:
    table: str
    row: Row
    keep: tuple[str, ...] = ()
    add: tuple[str, ...] = ()


@dataclass(slots=True)
class Update:
    table: str
    key: Row
    values: Row = field(default_factory=dict)
    add: Row = field(default_factory=dict)  # added to the stored value (or appended, for arrays)


RowChange = Upsert | Update


class ProjectionError(RuntimeError):
    """A change met a read model in a state the log cannot have produced."""


# itemgetter per table: the key of a row (a value, or a tuple for composite keys), taken
# in C; a replay computes millions of them.
_KEY_GETTERS = {table: itemgetter(*keys) for table, keys in TABLE_KEYS.items()}


def key_of(table: str, row: Mapping[str, Any]) -> Any:
    return _KEY_GETTERS[table](row)
