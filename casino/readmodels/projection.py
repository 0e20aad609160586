"""From one recorded event to the read-model row changes it makes (pure)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from casino.readmodels.changes import RowChange, Update, Upsert


@dataclass(slots=True)
class Fact:
    """What a projection reads of an event: where it stands in its stream, what it says,
    and when it was decided (the command's time, carried in the event's metadata).

    Everything here is known before the event is written, so the read-model changes
    travel to the database in the same round trip as the event itself.
    """

    stream_id: str
    version: int
    type: str
    data: Mapping[str, Any]
    at: datetime


Projector = Callable[[Fact], list[RowChange]]
_PROJECTORS: dict[str, Projector] = {}


def projects(*event_types: str) -> Callable[[Projector], Projector]:
    def register(function: Projector) -> Projector:
        for event_type in event_types:
            _PROJECTORS[event_type] = function
        return function

    return register


def project(event: Fact) -> list[RowChange]:
    projector = _PROJECTORS.get(event.type)
    return [] if projector is None else projector(event)


# --- tables ---------------------------------------------------------------------------


@projects("TableOpened")
def _table_opened(event: Fact) -> list[RowChange]:
    d = event.data
    row = {
        k: d[k]
        for k in (
            "table_id",
            "name",
            "currency",
            "seats",
            "main_paytable",
            "doubles_paytable",
            "main_min",
            "main_max",
            "doubles_min",
            "doubles_max",
            "cut_card",
        )
    }
    row |= {
        "opened_at": event.at,
        "shoes_started": 0,
        "live_shoe_id": None,
        "rounds_started": 0,
        "current_round_id": None,
        "version": event.version,
    }
    return [Upsert("rm_tables", row)]


@projects("TableReconfigured")
def _table_reconfigured(event: Fact) -> list[RowChange]:
    d = event.data
    values = {k: d[k] for k in _TABLE_SETTINGS} | {"version": event.version}
    return [Update("rm_tables", {"table_id": d["table_id"]}, values)]


_TABLE_SETTINGS = (
    "name", "seats", "main_paytable", "doubles_paytable", "main_min", "main_max",
    "doubles_min", "doubles_max", "cut_card",
)  # fmt: skip


def _table_key(event: Fact) -> dict[str, Any]:
    return {"table_id": event.data["table_id"]}


@projects("ShoeStarted")
def _shoe_started(event: Fact) -> list[RowChange]:
    d = event.data
    values = {
        "live_shoe_id": d["shoe_id"],
        "shoes_started": d["nonce"] + 1,
        "version": event.version,
    }
    return [Update("rm_tables", _table_key(event), values)]


@projects("RoundStarted")
def _round_started(event: Fact) -> list[RowChange]:
    d = event.data
    values = {
        "current_round_id": d["round_id"],
        "rounds_started": d["round_number"],
        "version": event.version,
    }
    return [Update("rm_tables", _table_key(event), values)]


# --- shoes ----------------------------------------------------------------------------


@projects("ShoeOpened")
def _shoe_opened(event: Fact) -> list[RowChange]:
    d = event.data
    row = {
        k: d[k] for k in ("shoe_id", "table_id", "algorithm", "commitment", "client_seed", "nonce")
    }
    row |= {
        "opened_at": event.at,
        "tiles_dealt": 0,
        "dealt": [],
        "closed_at": None,
        "server_seed": None,
        "version": event.version,
    }
    return [Upsert("rm_shoes", row)]


@projects("TilesDealt")
def _tiles_dealt(event: Fact) -> list[RowChange]:
    d = event.data
    key = {"shoe_id": d["shoe_id"]}
    add = {"tiles_dealt": len(d["tiles"]), "dealt": list(d["tiles"])}
    return [Update("rm_shoes", key, {"version": event.version}, add)]


@projects("ShoeClosed")
def _shoe_closed(event: Fact) -> list[RowChange]:
    d = event.data
    values = {
        "closed_at": event.at,
        "server_seed": d["server_seed"],
        "version": event.version,
    }
    return [Update("rm_shoes", {"shoe_id": d["shoe_id"]}, values)]


# --- rounds ---------------------------------------------------------------------------


def _round_key(event: Fact) -> dict[str, Any]:
    return {"round_id": event.data["round_id"]}


@projects("RoundOpened")
def _round_opened(event: Fact) -> list[RowChange]:
    d = event.data
    row = {
        k: d[k]
        for k in (
            "round_id",
            "table_id",
            "round_number",
            "shoe_id",
            "commitment",
            "currency",
            "seats",
            "main_paytable",
            "doubles_paytable",
        )
    }
    row |= {
        "status": "betting",
        "opened_at": event.at,
        "closed_at": None,
        "wagers": 0,
        "handle": 0,
        "payouts": 0,
        "version": event.version,
        **_UNSETTLED_FIGURES,
    }
    return [Upsert("rm_rounds", row)]


# What settlement reports read of a round (sql/0014), before its first wager.
_UNSETTLED_FIGURES = {
    "main_handle": 0, "doubles_handle": 0, "doubles_wagers": 0, "main_squares": 0,
    "doubles_squares": 0, "main_payouts": 0, "doubles_payouts": 0, "totals": None,
    "adjusted_at": None, "adjusted_by": None, "adjustment_reason": None, "refunded": 0,
    "reclaimed": 0,
}  # fmt: skip


@projects("WagerPlaced")
def _wager_placed(event: Fact) -> list[RowChange]:
    d = event.data
    seat = {
        "round_id": d["round_id"],
        "seat": d["seat"],
        "player_id": d["player_id"],
        "main_stake": d["main"],
        "doubles_stake": d["doubles"],
        "hand": None,
        "connector": None,
        "positions": None,
        "tile_scores": None,
        "connector_bonus": None,
        "total": None,
        "doubles_event": None,
        "main_odds": None,
        "main_payout": None,
        "doubles_odds": None,
        "doubles_payout": None,
    }
    main, doubles = d["main"], d["doubles"]
    add = {
        "wagers": 1,
        "handle": main + doubles,
        "main_handle": main,
        "doubles_handle": doubles,
        "doubles_wagers": 1 if doubles else 0,
        "main_squares": main * main,
        "doubles_squares": doubles * doubles,
    }
    return [
        Upsert("rm_seats", seat),
        Update("rm_rounds", _round_key(event), {"version": event.version}, add),
    ]


@projects("BettingClosed")
def _betting_closed(event: Fact) -> list[RowChange]:
    return [Update("rm_rounds", _round_key(event), {"version": event.version})]


@projects("HandsDealt")
def _hands_dealt(event: Fact) -> list[RowChange]:
    d = event.data
    changes: list[RowChange] = [
        Update(
            "rm_seats",
            {"round_id": d["round_id"], "seat": s["seat"]},
            {"hand": s["hand"], "connector": s["connector"], "positions": s["positions"]},
        )
        for s in d["seats"]
    ]
    changes.append(Update("rm_rounds", _round_key(event), {"version": event.version}))
    return changes


_SETTLED_SEAT_COLUMNS = (
    "tile_scores",
    "connector_bonus",
    "total",
    "doubles_event",
    "main_odds",
    "main_payout",
    "doubles_odds",
    "doubles_payout",
)


@projects("RoundSettled")
def _round_settled(event: Fact) -> list[RowChange]:
    d = event.data
    changes: list[RowChange] = [
        Update(
            "rm_seats",
            {"round_id": d["round_id"], "seat": s["seat"]},
            {k: s[k] for k in _SETTLED_SEAT_COLUMNS},
        )
        for s in d["seats"]
    ]
    values = {
        "status": "settled",
        "closed_at": event.at,
        "payouts": d["payouts"],
        "main_payouts": sum(s["main_payout"] for s in d["seats"]),
        "doubles_payouts": sum(s["doubles_payout"] for s in d["seats"]),
        "totals": [s["total"] for s in d["seats"]],
        "version": event.version,
    }
    changes.append(Update("rm_rounds", _round_key(event), values))
    return changes


def _adjustment(event: Fact) -> dict[str, Any]:
    """Who voided or corrected a round, when, why, and the money it moved back."""
    d = event.data
    return {
        "adjusted_at": event.at,
        "adjusted_by": d["actor"],
        "adjustment_reason": d["reason"],
        "refunded": d["refunded"],
        "reclaimed": d.get("reclaimed", 0),
        "version": event.version,
    }


@projects("RoundVoided")
def _round_voided(event: Fact) -> list[RowChange]:
    values = {"status": "voided", "closed_at": event.at, **_adjustment(event)}
    return [Update("rm_rounds", _round_key(event), values)]


@projects("SettlementReversed")
def _settlement_reversed(event: Fact) -> list[RowChange]:
    values = {"status": "reversed", **_adjustment(event)}
    return [Update("rm_rounds", _round_key(event), values)]


# --- player accounts and the ledger ---------------------------------------------------


def _money_moved(event: Fact) -> list[RowChange]:
    d = event.data
    changes: list[RowChange] = [
        Upsert(
            "rm_balances",
            {
                "player_id": d["player_id"],
                "currency": d["currency"],
                "balance": d["balance_after"],
                "version": event.version,
            },
        )
    ]
    for line, posting in enumerate(d["postings"]):
        changes.append(
            Upsert(
                "ledger_postings",
                {
                    "stream_id": event.stream_id,
                    "version": event.version,
                    "line": line,
                    "event_type": event.type,
                    "account": posting["account"],
                    "currency": d["currency"],
                    "amount": posting["amount"],
                    "round_id": d.get("round_id"),
                    "recorded_at": event.at,
                },
            )
        )
    return changes


projects("FundsDeposited", "FundsWithdrawn")(_money_moved)


@projects("StakeDebited")
def _stake_debited(event: Fact) -> list[RowChange]:
    d = event.data
    player = Upsert(
        "rm_round_players",
        {
            "round_id": d["round_id"],
            "player_id": d["player_id"],
            "staked": d["amount"],
            "paid": 0,
            "balance_before": d["balance_after"] + d["amount"],
            "balance_after": d["balance_after"],
        },
        keep=("balance_before", "paid"),
        add=("staked",),
    )
    return [*_money_moved(event), player]


@projects("PayoutCredited", "StakeRefunded", "SettlementCorrected")
def _round_money(event: Fact) -> list[RowChange]:
    d = event.data
    key = {"round_id": d["round_id"], "player_id": d["player_id"]}
    add = {"paid": d["amount"]} if event.type == "PayoutCredited" else {}
    player = Update("rm_round_players", key, {"balance_after": d["balance_after"]}, add)
    return [*_money_moved(event), player]
