"""Answers to commands, built from the decision itself (see ``service``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from casino.app.views import Json, hand_json, table_json
from casino.domain.events import DomainEvent, MoneyMoved, RoundOpened, ShoeOpened
from casino.domain.rounds import DealDecision, RoundState
from casino.domain.shoes import ShoeState
from casino.domain.tables import OpenTable, TableState


def table_opened(table: OpenTable, at: datetime) -> Json:
    row: dict[str, Any] = dict(table.__dict__)
    row |= {
        "opened_at": at,
        "live_shoe_id": None,
        "rounds_started": 0,
        "current_round_id": None,
        "version": 1,
    }
    return table_json(row)


def table_reconfigured(table: OpenTable, state: TableState, version: int) -> Json:
    row: dict[str, Any] = dict(table.__dict__)
    row |= {
        "opened_at": None,
        "live_shoe_id": state.live_shoe_id,
        "rounds_started": state.rounds_started,
        "current_round_id": state.current_round_id,
        "version": version,
    }
    answer = table_json(row)
    answer.pop("opened_at")
    return answer


def money_moved(move: MoneyMoved, version: int) -> Json:
    return {
        "player_id": move.player_id,
        "currency": move.currency,
        "movement": move.TYPE,
        "amount": move.amount,
        "balance": move.balance_after,
        "version": version,
        "postings": move.postings,
    }


def shoe_json(opened: ShoeOpened) -> Json:
    return {
        "shoe_id": opened.shoe_id,
        "algorithm": opened.algorithm,
        "commitment": opened.commitment,
        "client_seed": opened.client_seed,
        "nonce": opened.nonce,
    }


def round_opened(opened: RoundOpened, shoe: ShoeOpened, at: datetime) -> Json:
    return {
        "round_id": opened.round_id,
        "table_id": opened.table_id,
        "round_number": opened.round_number,
        "status": "betting",
        "currency": opened.currency,
        "main_paytable": opened.main_paytable,
        "doubles_paytable": opened.doubles_paytable,
        "opened_at": at.isoformat(),
        "shoe": shoe_json(shoe),
        "version": 1,
    }


def _balances(moves: Sequence[MoneyMoved]) -> list[Json]:
    return [{"player_id": m.player_id, "balance": m.balance_after} for m in moves]


def wagers_placed(state: RoundState | None, version: int, debits: Sequence[MoneyMoved]) -> Json:
    assert state is not None
    return {
        "round_id": state.opened.round_id,
        "status": state.status.value,
        "version": version,
        "wagers": [
            {"seat": w.seat, "player_id": w.player_id, "main": w.main, "doubles": w.doubles}
            for _, w in sorted(state.wagers.items())
        ],
        "balances": _balances(debits),
    }


def round_dealt(
    state: RoundState,
    decision: DealDecision,
    version: int,
    balances: Mapping[str, int],
    shoe: ShoeState,
    revealed_seed: str | None,
) -> Json:
    dealt_by_seat = {s["seat"]: s for s in decision.dealt.seats}
    settled = decision.settled
    hands = []
    for seat in settled.seats:
        wager = state.wagers[seat["seat"]]
        dealt = dealt_by_seat[seat["seat"]]
        row = {
            "seat": seat["seat"],
            "player_id": seat["player_id"],
            "main_stake": wager.main,
            "doubles_stake": wager.doubles,
            "hand": dealt["hand"],
            "connector": dealt["connector"],
            "positions": dealt["positions"],
            **{k: seat[k] for k in (
                "tile_scores", "connector_bonus", "total", "doubles_event", "main_odds",
                "main_payout", "doubles_odds", "doubles_payout",
            )},
        }  # fmt: skip
        hands.append(hand_json(row))
    return {
        "round_id": state.opened.round_id,
        "table_id": state.opened.table_id,
        "status": "settled",
        "version": version,
        "main_paytable": state.opened.main_paytable,
        "doubles_paytable": state.opened.doubles_paytable,
        "handle": settled.handle,
        "payouts": settled.payouts,
        "hands": hands,
        "balances": [{"player_id": p, "balance": b} for p, b in sorted(balances.items())],
        "shoe": {
            **shoe_json(shoe.opened),
            "closed": revealed_seed is not None,
            "server_seed": revealed_seed,
        },
    }


def round_voided(
    state: RoundState, version: int, event: DomainEvent, moves: Sequence[MoneyMoved]
) -> Json:
    return {
        "round_id": state.opened.round_id,
        "status": state.status.value,
        "version": version,
        "actor": getattr(event, "actor", None),
        "reason": getattr(event, "reason", None),
        "movements": [
            {
                "player_id": m.player_id,
                "movement": m.TYPE,
                "amount": m.amount,
                "balance": m.balance_after,
            }
            for m in moves
        ],
    }
