"""Rounds: opened with the shoe's commitment, wagers placed, dealt, settled or voided."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

from casino.domain import accounts, validation
from casino.domain.errors import InvalidCommand, NotFound, RuleViolation
from casino.domain.events import (
    BettingClosed,
    DomainEvent,
    HandsDealt,
    JsonDict,
    MoneyMoved,
    RoundOpened,
    RoundSettled,
    RoundVoided,
    SettlementReversed,
    TableOpened,
    TilesDealt,
    WagerPlaced,
)
from casino.domain.shoes import ShoeState
from casino.game.deal import deal_round
from casino.game.doubles import doubles_event
from casino.game.paytables import doubles_paytable, main_paytable, settle
from casino.game.scoring import score_hand
from casino.game.tiles import FACES_PER_SET, face_text


class RoundStatus(StrEnum):
    BETTING = "betting"
    SETTLED = "settled"
    VOIDED = "voided"
    REVERSED = "reversed"


@dataclass(frozen=True)
class SeatWager:
    seat: int
    player_id: str
    main: int
    doubles: int = 0


@dataclass(frozen=True)
class RoundState:
    opened: RoundOpened
    status: RoundStatus = RoundStatus.BETTING
    wagers: Mapping[int, WagerPlaced] = field(default_factory=dict)
    settled: RoundSettled | None = None

    @property
    def finished(self) -> bool:
        return self.status is not RoundStatus.BETTING


def open_round(
    round_id: str, config: TableOpened, round_number: int, shoe: ShoeState
) -> RoundOpened:
    return RoundOpened(
        round_id=round_id,
        table_id=config.table_id,
        round_number=round_number,
        shoe_id=shoe.opened.shoe_id,
        commitment=shoe.opened.commitment,
        currency=config.currency,
        seats=config.seats,
        main_paytable=config.main_paytable,
        doubles_paytable=config.doubles_paytable,
        main_min=config.main_min,
        main_max=config.main_max,
        doubles_min=config.doubles_min,
        doubles_max=config.doubles_max,
    )


def evolve_round(state: RoundState | None, event: DomainEvent) -> RoundState | None:
    if isinstance(event, RoundOpened):
        return RoundState(opened=event)
    if state is None:
        return None
    if isinstance(event, WagerPlaced):
        return replace(state, wagers={**state.wagers, event.seat: event})
    if isinstance(event, RoundSettled):
        return replace(state, status=RoundStatus.SETTLED, settled=event)
    if isinstance(event, RoundVoided):
        return replace(state, status=RoundStatus.VOIDED)
    if isinstance(event, SettlementReversed):
        return replace(state, status=RoundStatus.REVERSED)
    return state


def fold_round(events: Iterable[DomainEvent]) -> RoundState | None:
    state: RoundState | None = None
    for event in events:
        state = evolve_round(state, event)
    return state


def require_round(state: RoundState | None, round_id: str) -> RoundState:
    if state is None:
        raise NotFound("round_not_found", f"no round {round_id}", "round_id")
    return state


def _require_betting(state: RoundState, action: str) -> None:
    if state.status is not RoundStatus.BETTING:
        raise RuleViolation(
            "betting_closed",
            f"round {state.opened.round_id} is {state.status.value}: cannot {action}",
            "round_id",
        )


def validate_wagers(state: RoundState, wagers: Sequence[SeatWager]) -> None:
    """Check each wager against the table's seats and limits and the seats already taken."""
    opened = state.opened
    if not wagers:
        raise InvalidCommand("no_wagers", "at least one wager is needed", "wagers")
    seen: set[int] = set()
    for index, wager in enumerate(wagers):
        where = f"wagers[{index}]"
        if (
            isinstance(wager.seat, bool)
            or not isinstance(wager.seat, int)
            or not (1 <= wager.seat <= opened.seats)
        ):
            raise InvalidCommand(
                "unknown_seat", f"seat must be 1-{opened.seats} at this table", f"{where}.seat"
            )
        if wager.seat in seen:
            raise InvalidCommand(
                "duplicate_seat", f"seat {wager.seat} appears twice", f"{where}.seat"
            )
        seen.add(wager.seat)
        if wager.seat in state.wagers:
            raise RuleViolation(
                "seat_taken",
                f"seat {wager.seat} already has its wager in this round",
                f"{where}.seat",
            )
        validation.identifier(wager.player_id, f"{where}.player_id")
        if _whole(wager.main) == 0 and _whole(wager.doubles) > 0:
            raise InvalidCommand(
                "doubles_without_main",
                "a Doubles wager needs a main wager on the same seat",
                f"{where}.main",
            )
        validation.amount(wager.main, f"{where}.main", opened.main_min, opened.main_max)
        if wager.doubles:
            validation.amount(
                wager.doubles, f"{where}.doubles", opened.doubles_min, opened.doubles_max
            )
        elif isinstance(wager.doubles, bool) or wager.doubles != 0:
            raise InvalidCommand(
                "invalid_amount", "doubles must be an integer (0: none)", f"{where}.doubles"
            )


def _whole(value: object) -> int:
    """``value`` if it is an integer (not a bool), else -1: what the amount rules look at."""
    return value if type(value) is int else -1


def stakes_by_player(wagers: Iterable[SeatWager | WagerPlaced]) -> dict[str, tuple[list[int], int]]:
    """For each player: the seats and the total staked, in seat order."""
    seats: dict[str, list[int]] = defaultdict(list)
    totals: dict[str, int] = defaultdict(int)
    for wager in sorted(wagers, key=lambda w: w.seat):
        seats[wager.player_id].append(wager.seat)
        totals[wager.player_id] += wager.main + wager.doubles
    return {player: (seats[player], totals[player]) for player in seats}


def decide_wagers(
    state: RoundState,
    wagers: Sequence[SeatWager],
    player_accounts: Mapping[str, accounts.AccountState],
) -> tuple[list[DomainEvent], list[MoneyMoved]]:
    """The round's ``WagerPlaced`` events and each player's ``StakeDebited``."""
    _require_betting(state, "take wagers")
    validate_wagers(state, wagers)
    opened = state.opened
    debits: list[MoneyMoved] = []
    for player, (seats, total) in stakes_by_player(wagers).items():
        index = next(i for i, w in enumerate(wagers) if w.player_id == player)
        debits.append(
            accounts.debit_stake(
                player_accounts[player], opened.table_id, opened.round_id, seats, total,
                f"wagers[{index}].main",
            )
        )  # fmt: skip
    placed: list[DomainEvent] = [
        WagerPlaced(
            round_id=opened.round_id,
            seat=w.seat,
            player_id=w.player_id,
            main=w.main,
            doubles=w.doubles,
        )
        for w in sorted(wagers, key=lambda w: w.seat)
    ]
    return placed, debits


@dataclass(frozen=True)
class DealDecision:
    closed: BettingClosed
    dealt: HandsDealt
    settled: RoundSettled
    tiles_dealt: TilesDealt
    payouts: list[MoneyMoved]

    @property
    def round_events(self) -> list[DomainEvent]:
        return [self.closed, self.dealt, self.settled]


def settle_seat(wager: WagerPlaced, dealt: JsonDict, opened: RoundOpened) -> JsonDict:
    """Score one dealt seat and settle its wagers: the seat's entry in ``RoundSettled``."""
    hand_faces = [tile % FACES_PER_SET for tile in dealt["hand"]]
    connector_face = dealt["connector"] % FACES_PER_SET
    score = score_hand(hand_faces, connector_face)
    main = settle(wager.main, main_paytable(opened.main_paytable).odds_for(score.total))
    event = doubles_event([*hand_faces, connector_face])
    doubles = (
        settle(wager.doubles, doubles_paytable(opened.doubles_paytable).odds_for(event))
        if wager.doubles
        else None
    )
    return {
        "seat": wager.seat,
        "player_id": wager.player_id,
        "hand": [face_text(f) for f in hand_faces],
        "connector": face_text(connector_face),
        "tile_scores": list(score.tile_scores),
        "connector_bonus": score.connector_bonus,
        "total": score.total,
        "main_stake": wager.main,
        "main_odds": main.odds_to_one,
        "main_payout": main.payout,
        "doubles_event": event.value,
        "doubles_stake": wager.doubles,
        "doubles_odds": None if doubles is None else doubles.odds_to_one,
        "doubles_payout": 0 if doubles is None else doubles.payout,
    }


def decide_deal(
    state: RoundState,
    shoe: ShoeState,
    order: Sequence[int],
    player_accounts: Mapping[str, accounts.AccountState],
) -> DealDecision:
    """Close betting, deal from the shoe's next position, score and settle every seat."""
    _require_betting(state, "deal")
    if not state.wagers:
        raise RuleViolation("no_wagers", "a round is dealt only once it has a wager", "round_id")
    if shoe.closed:
        raise RuleViolation("shoe_closed", "the round's shoe is closed", "round_id")
    opened = state.opened
    seats = sorted(state.wagers)
    dealt: list[JsonDict] = [
        {"seat": d.seat, "hand": list(d.hand), "connector": d.connector,
         "positions": list(d.positions)}
        for d in deal_round(order, shoe.tiles_dealt, seats)
    ]  # fmt: skip
    results = [settle_seat(state.wagers[d["seat"]], d, opened) for d in dealt]
    handle = sum(r["main_stake"] + r["doubles_stake"] for r in results)
    payouts_total = sum(r["main_payout"] + r["doubles_payout"] for r in results)
    first = shoe.tiles_dealt
    count = 4 * len(seats)
    payouts: list[MoneyMoved] = []
    won: dict[str, tuple[list[int], int]] = defaultdict(lambda: ([], 0))
    for result in results:
        amount = result["main_payout"] + result["doubles_payout"]
        if amount:
            seats_won, total = won[result["player_id"]]
            won[result["player_id"]] = ([*seats_won, result["seat"]], total + amount)
    for player, (seats_won, amount) in won.items():
        payouts.append(
            accounts.credit_payout(
                player_accounts[player], opened.table_id, opened.round_id, seats_won, amount
            )
        )
    return DealDecision(
        closed=BettingClosed(round_id=opened.round_id, wagers=len(seats)),
        dealt=HandsDealt(round_id=opened.round_id, shoe_id=shoe.opened.shoe_id, seats=dealt),
        settled=RoundSettled(
            round_id=opened.round_id, seats=results, handle=handle, payouts=payouts_total
        ),
        tiles_dealt=TilesDealt(
            shoe_id=shoe.opened.shoe_id,
            round_id=opened.round_id,
            first_position=first,
            tiles=list(order[first : first + count]),
        ),
        payouts=payouts,
    )


def decide_void(
    state: RoundState,
    actor: str,
    reason: str,
    player_accounts: Mapping[str, accounts.AccountState],
) -> tuple[list[DomainEvent], list[MoneyMoved]]:
    """Void before the deal: every stake refunded."""
    _require_betting(state, "void before the deal (a settled round needs an admin correction)")
    validation.text(reason, "reason")
    opened = state.opened
    refunds: list[MoneyMoved] = [
        accounts.refund_stake(player_accounts[p], opened.table_id, opened.round_id, seats, total)
        for p, (seats, total) in stakes_by_player(state.wagers.values()).items()
    ]
    refunded = sum(r.amount for r in refunds)
    voided = RoundVoided(round_id=opened.round_id, actor=actor, reason=reason, refunded=refunded)
    return [voided], refunds


def decide_reversal(
    state: RoundState,
    actor: str,
    reason: str,
    player_accounts: Mapping[str, accounts.AccountState],
) -> tuple[list[DomainEvent], list[MoneyMoved]]:
    """The admin correction of a settled round: reverse every posting it made."""
    if state.status is not RoundStatus.SETTLED or state.settled is None:
        raise RuleViolation(
            "not_settled",
            f"round {state.opened.round_id} is {state.status.value}: only a settled round "
            "can be reversed",
            "round_id",
        )
    validation.text(reason, "reason")
    opened = state.opened
    by_player: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for seat in state.settled.seats:
        sums = by_player[seat["player_id"]]
        sums[0] += seat["main_stake"] + seat["doubles_stake"]
        sums[1] += seat["main_payout"] + seat["doubles_payout"]
    corrections: list[MoneyMoved] = [
        accounts.correct_settlement(player_accounts[p], opened.table_id, opened.round_id, s, r)
        for p, (s, r) in by_player.items()
    ]
    refunded = sum(s for s, _ in by_player.values())
    reclaimed = sum(r for _, r in by_player.values())
    event = SettlementReversed(
        round_id=opened.round_id, actor=actor, reason=reason, refunded=refunded, reclaimed=reclaimed
    )
    return [event], corrections
