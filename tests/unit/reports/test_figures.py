"""Settlement figures from exact sums."""

from __future__ import annotations

import math
from fractions import Fraction

from casino.game.odds import odds_report
from casino.reports.figures import Sums, bet_figures, bet_sums, figures, point_total_figures


def test_theoretical_win_and_variance_come_from_the_exact_paytable_figures() -> None:
    odds = odds_report().main[3]
    sums = bet_sums("main", 3, wagers=2, handle=300, payouts=0, squares=100**2 + 200**2)
    assert sums.theoretical == 300 * odds.house_edge
    assert sums.variance == 50_000 * odds.variance
    shown = bet_figures(sums)
    assert shown["win"] == 300 and shown["hold_pct"] == "100.0000"
    assert math.isclose(
        float(shown["theoretical_win"]), float(300 * odds.house_edge), abs_tol=0.005
    )
    deviation = math.sqrt(50_000 * odds.variance)
    assert math.isclose(float(shown["standard_deviation"]), deviation, abs_tol=0.005)
    z_score = (300 - float(300 * odds.house_edge)) / deviation
    assert math.isclose(float(shown["z_score"]), z_score, abs_tol=0.0005)


def test_no_handle_gives_no_ratios() -> None:
    shown = figures(Sums())
    assert shown["hold_pct"] is None and shown["theoretical_hold_pct"] is None
    assert shown["z_score"] is None and shown["handle"] == 0
    assert shown["main"]["theoretical_win"] == "0.00"


def test_corrections_change_the_adjusted_win_only() -> None:
    sums = Sums(rounds=1, seats=1, main=bet_sums("main", 1, 1, 1_000, 2_000, 1_000_000))
    sums.add(Sums(corrections=1, corrections_net=1_000, voids=2, voided_refunds=700))
    shown = figures(sums)
    assert shown["win"] == -1_000 and shown["adjusted_win"] == 0
    assert shown["voids"] == 2 and shown["voided_refunds"] == 700


def test_huge_amounts_stay_exact() -> None:
    stake = 2**53 - 1
    sums = bet_sums("doubles", 4, 1, stake, 0, stake * stake)
    shown = bet_figures(sums)
    assert shown["win"] == stake
    exact = Fraction(stake) * odds_report().doubles[4].house_edge
    cents = exact * 100
    nearest = math.floor(cents) + (1 if cents - math.floor(cents) > Fraction(1, 2) else 0)
    if cents - math.floor(cents) == Fraction(1, 2):
        nearest = math.floor(cents) + math.floor(cents) % 2  # half to even
    assert Fraction(shown["theoretical_win"]) == Fraction(nearest, 100)  # every digit exact


def test_point_totals_are_shown_against_their_exact_odds() -> None:
    rows = point_total_figures({10: 3, 20: 1})
    exact = odds_report().main[1].probabilities
    assert [r["total"] for r in rows] == sorted(exact)
    ten = next(r for r in rows if r["total"] == 10)
    assert ten["hands"] == 3 and ten["observed"] == "0.750000"
    assert math.isclose(float(ten["expected"]), float(exact[10]), abs_tol=5e-7)
    assert sum(r["hands"] for r in rows) == 4
