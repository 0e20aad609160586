from __future__ import annotations

import pytest

from casino.domain.errors import InvalidCommand, RuleViolation
from casino.domain.events import RoundSettled, StakeDebited, WagerPlaced
from casino.domain.rounds import (
    RoundStatus,
    SeatWager,
    decide_deal,
    decide_reversal,
    decide_void,
    decide_wagers,
    evolve_round,
)
from casino.game.deal import deal_round
from casino.game.paytables import MAIN_PAYTABLES
from casino.game.scoring import score_tiles
from casino.game.shoe import shuffle
from tests.unit.domain.builders import SEED, betting_round, funded, shoe

ORDER = shuffle(SEED, "table-7", 0)


def test_wagers_debit_each_player_once_for_all_their_seats() -> None:
    state = betting_round()
    wagers = [SeatWager(3, "P1", 500, 100), SeatWager(1, "P1", 200), SeatWager(2, "P2", 300)]
    placed, debits = decide_wagers(state, wagers, funded("P1", "P2"))
    assert [e.seat for e in placed if isinstance(e, WagerPlaced)] == [1, 2, 3]
    by_player = {d.player_id: d for d in debits if isinstance(d, StakeDebited)}
    assert by_player["P1"].amount == 800
    assert by_player["P1"].seats == [1, 3]
    assert by_player["P2"].amount == 300
    assert by_player["P1"].postings == [
        {"account": "player:P1", "amount": -800},
        {"account": "table:T1", "amount": 800},
    ]


@pytest.mark.parametrize(
    ("wager", "field", "code"),
    [
        (SeatWager(8, "P1", 500), "wagers[0].seat", "unknown_seat"),
        (SeatWager(0, "P1", 500), "wagers[0].seat", "unknown_seat"),
        (SeatWager(1, "P1", 99), "wagers[0].main", "amount_too_small"),
        (SeatWager(1, "P1", 100_001), "wagers[0].main", "amount_too_large"),
        (SeatWager(1, "P1", 500, 99), "wagers[0].doubles", "amount_too_small"),
        (SeatWager(1, "P1", 500, 10_001), "wagers[0].doubles", "amount_too_large"),
        (SeatWager(1, "P1", 500, -5), "wagers[0].doubles", "amount_too_small"),
        (SeatWager(1, "P1", 0, 500), "wagers[0].main", "doubles_without_main"),
        (SeatWager(1, "P1", 0), "wagers[0].main", "amount_too_small"),
        (SeatWager(1, "P1", 0, -5), "wagers[0].main", "amount_too_small"),
        (SeatWager(1, "P1", None, 500), "wagers[0].main", "invalid_amount"),  # type: ignore[arg-type]
        (SeatWager(1, "P1", False, 500), "wagers[0].main", "invalid_amount"),
        (SeatWager(1, "no spaces", 500), "wagers[0].player_id", "invalid_identifier"),
    ],
)
def test_wagers_outside_the_rules_are_refused_naming_the_field(
    wager: SeatWager, field: str, code: str
) -> None:
    with pytest.raises(InvalidCommand) as caught:
        decide_wagers(betting_round(), [wager], funded("P1"))
    assert (caught.value.field, caught.value.code) == (field, code)


def test_a_seat_takes_one_wager_per_round() -> None:
    state = betting_round(WagerPlaced(round_id="R1", seat=2, player_id="P1", main=500, doubles=0))
    with pytest.raises(RuleViolation) as caught:
        decide_wagers(state, [SeatWager(2, "P2", 500)], funded("P2"))
    assert caught.value.code == "seat_taken"
    with pytest.raises(InvalidCommand, match="twice"):
        decide_wagers(state, [SeatWager(3, "P2", 500), SeatWager(3, "P2", 500)], funded("P2"))


def test_a_wager_beyond_the_balance_is_refused() -> None:
    with pytest.raises(RuleViolation) as caught:
        decide_wagers(
            betting_round(),
            [SeatWager(1, "P1", 600), SeatWager(2, "P1", 500)],
            funded("P1", balance=1_000),
        )
    assert caught.value.code == "insufficient_funds"


def test_the_deal_follows_the_spec_order_and_settles_by_the_game_core() -> None:
    wagers = [
        WagerPlaced(round_id="R1", seat=5, player_id="P2", main=1_000, doubles=200),
        WagerPlaced(round_id="R1", seat=2, player_id="P1", main=500, doubles=0),
    ]
    state = betting_round(*wagers)
    decision = decide_deal(state, shoe(), ORDER, funded("P1", "P2"))
    settled = decision.round_events[-1]
    assert isinstance(settled, RoundSettled)
    expected = deal_round(ORDER, 0, [2, 5])
    assert decision.tiles_dealt.tiles == list(ORDER[:8])
    assert decision.tiles_dealt.first_position == 0
    total_paid = 0
    by_seat = sorted(wagers, key=lambda w: w.seat)
    for seat, dealt, wager in zip(settled.seats, expected, by_seat, strict=True):
        score = score_tiles(dealt.hand, dealt.connector)
        assert seat["seat"] == dealt.seat
        assert seat["tile_scores"] == list(score.tile_scores)
        assert seat["total"] == score.total
        odds = MAIN_PAYTABLES[1].odds_for(score.total)
        assert seat["main_payout"] == (0 if odds is None else wager.main * (odds + 1))
        total_paid += seat["main_payout"] + seat["doubles_payout"]
    assert settled.handle == 1_700
    assert settled.payouts == total_paid
    assert sum(p.amount for p in decision.payouts) == total_paid


def test_a_round_is_dealt_once_and_only_with_wagers() -> None:
    with pytest.raises(RuleViolation, match="only once it has a wager"):
        decide_deal(betting_round(), shoe(), ORDER, {})
    state = betting_round(WagerPlaced(round_id="R1", seat=1, player_id="P1", main=500, doubles=0))
    decision = decide_deal(state, shoe(), ORDER, funded("P1"))
    for event in decision.round_events:
        state = evolve_round(state, event)  # type: ignore[assignment]
    assert state.status is RoundStatus.SETTLED
    with pytest.raises(RuleViolation) as caught:
        decide_deal(state, shoe(), ORDER, funded("P1"))
    assert caught.value.code == "betting_closed"
    with pytest.raises(RuleViolation):
        decide_wagers(state, [SeatWager(2, "P1", 500)], funded("P1"))
    with pytest.raises(RuleViolation, match="admin correction"):
        decide_void(state, "table:T1", "dealer error", funded("P1"))


def test_void_before_the_deal_refunds_every_stake() -> None:
    state = betting_round(
        WagerPlaced(round_id="R1", seat=1, player_id="P1", main=500, doubles=100),
        WagerPlaced(round_id="R1", seat=2, player_id="P1", main=300, doubles=0),
        WagerPlaced(round_id="R1", seat=4, player_id="P2", main=200, doubles=0),
    )
    events, refunds = decide_void(state, "table:T1", "table fault", funded("P1", "P2", balance=0))
    assert {r.player_id: r.amount for r in refunds} == {"P1": 900, "P2": 200}
    assert events[0].refunded == 1_100  # type: ignore[attr-defined]
    with pytest.raises(InvalidCommand):
        decide_void(state, "table:T1", "", funded("P1", "P2"))


def test_reversing_a_settlement_returns_stakes_and_reclaims_payouts() -> None:
    state = betting_round(WagerPlaced(round_id="R1", seat=1, player_id="P1", main=500, doubles=100))
    decision = decide_deal(state, shoe(), ORDER, funded("P1", balance=0))
    for event in decision.round_events:
        state = evolve_round(state, event)  # type: ignore[assignment]
    paid = sum(p.amount for p in decision.payouts)
    events, corrections = decide_reversal(state, "admin:A", "misdeal", funded("P1", balance=paid))
    assert corrections[0].amount == 600 - paid
    assert sum(p["amount"] for p in corrections[0].postings) == 0
    reversed_state = evolve_round(state, events[0])
    assert reversed_state is not None
    assert reversed_state.status is RoundStatus.REVERSED
    with pytest.raises(RuleViolation, match="only a settled round"):
        decide_reversal(reversed_state, "admin:A", "again", funded("P1"))


def test_a_reversal_that_would_overdraw_a_player_is_refused() -> None:
    state = betting_round(
        WagerPlaced(round_id="R1", seat=1, player_id="P1", main=100_000, doubles=10_000)
    )
    order = next(o for o in (shuffle(SEED, "t", n) for n in range(1000)) if wins_ten(o))
    decision = decide_deal(state, shoe(), order, funded("P1", balance=0))
    for event in decision.round_events:
        state = evolve_round(state, event)  # type: ignore[assignment]
    with pytest.raises(RuleViolation) as caught:
        decide_reversal(state, "admin:A", "misdeal", funded("P1", balance=0))
    assert caught.value.code == "insufficient_funds"


def wins_ten(order: tuple[int, ...]) -> bool:
    seat = deal_round(order, 0, [1])[0]
    return score_tiles(seat.hand, seat.connector).total >= 10
