"""Settlement figures (pure): sums of settled play, and what finance reads from them.

The theoretical win of a bet is its handle times the exact house edge of its paytable
(a fresh shoe's, from the game core's enumeration); its variance is the sum, over the
wagers, of the stake squared times the paytable's exact variance per unit staked. The
z-score of the actual win against the theoretical treats the wagers as independent.
Every sum is exact (integers and fractions); only the figures shown are rounded.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, Context, Decimal
from fractions import Fraction
from functools import cache
from typing import Any

from casino.game.odds import OddsReport, odds_report

_PRECISION = Context(prec=60)


@cache
def fresh_odds() -> OddsReport:
    return odds_report()


@dataclass(slots=True)
class BetSums:
    wagers: int = 0
    handle: int = 0
    payouts: int = 0
    theoretical: Fraction = field(default_factory=Fraction)  # expected win, minor units
    variance: Fraction = field(default_factory=Fraction)  # of the win, minor units squared

    def add(self, other: BetSums) -> None:
        self.wagers += other.wagers
        self.handle += other.handle
        self.payouts += other.payouts
        self.theoretical += other.theoretical
        self.variance += other.variance

    @property
    def win(self) -> int:
        return self.handle - self.payouts


def bet_sums(
    kind: str, paytable: int, wagers: int, handle: int, payouts: int, squares: int
) -> BetSums:
    """One paytable's sums, with its theoretical win and variance."""
    odds = (fresh_odds().main if kind == "main" else fresh_odds().doubles)[paytable]
    return BetSums(wagers, handle, payouts, handle * odds.house_edge, squares * odds.variance)


@dataclass(slots=True)
class Sums:
    rounds: int = 0
    seats: int = 0
    main: BetSums = field(default_factory=BetSums)
    doubles: BetSums = field(default_factory=BetSums)
    voids: int = 0
    voided_refunds: int = 0
    corrections: int = 0
    corrections_net: int = 0  # what corrections gave the house back (reclaimed - refunded)

    def add(self, other: Sums) -> None:
        self.rounds += other.rounds
        self.seats += other.seats
        self.main.add(other.main)
        self.doubles.add(other.doubles)
        self.voids += other.voids
        self.voided_refunds += other.voided_refunds
        self.corrections += other.corrections
        self.corrections_net += other.corrections_net

    @property
    def both(self) -> BetSums:
        total = BetSums()
        total.add(self.main)
        total.add(self.doubles)
        return total


def total_of(parts: Iterable[Sums]) -> Sums:
    total = Sums()
    for part in parts:
        total.add(part)
    return total


# --- as shown -------------------------------------------------------------------------


def _as_decimal(value: Fraction) -> Decimal:
    """The fraction to 60 significant digits, far past any figure shown."""
    return _PRECISION.divide(Decimal(value.numerator), Decimal(value.denominator))


def _decimal(value: Fraction, places: int) -> str:
    quotient = _as_decimal(value)
    return str(quotient.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN))


def _percent(part: Fraction, whole: int) -> str | None:
    return None if whole == 0 else _decimal(100 * part / whole, 4)


def _deviation(variance: Fraction) -> Decimal:
    exact = _as_decimal(variance)
    return _PRECISION.sqrt(exact)


def bet_figures(sums: BetSums) -> dict[str, Any]:
    deviation = _deviation(sums.variance)
    excess = sums.win - sums.theoretical
    return {
        "wagers": sums.wagers,
        "handle": sums.handle,
        "payouts": sums.payouts,
        "win": sums.win,
        "hold_pct": _percent(Fraction(sums.win), sums.handle),
        "theoretical_win": _decimal(sums.theoretical, 2),
        "theoretical_hold_pct": _percent(sums.theoretical, sums.handle),
        "win_minus_theoretical": _decimal(excess, 2),
        "standard_deviation": str(deviation.quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN)),
        "z_score": _z_score(excess, deviation),
    }


def _z_score(excess: Fraction, deviation: Decimal) -> str | None:
    """How many standard deviations the win lies from the theoretical (none without
    variance: no wager, or only sure outcomes)."""
    if deviation == 0:
        return None
    z_score = _PRECISION.divide(_as_decimal(excess), deviation)
    return str(z_score.quantize(Decimal("0.001"), rounding=ROUND_HALF_EVEN))


def figures(sums: Sums) -> dict[str, Any]:
    both = bet_figures(sums.both)
    del both["wagers"]
    return {
        "rounds": sums.rounds,
        "seats": sums.seats,
        "main": bet_figures(sums.main),
        "doubles": bet_figures(sums.doubles),
        **both,
        "voids": sums.voids,
        "voided_refunds": sums.voided_refunds,
        "corrections": sums.corrections,
        "corrections_net": sums.corrections_net,
        "adjusted_win": sums.both.win + sums.corrections_net,
    }


def point_total_figures(hands_by_total: dict[int, int]) -> list[dict[str, Any]]:
    """Observed share of hands per point total against the exact probability."""
    expected = fresh_odds().main[1].probabilities  # totals do not depend on the paytable
    hands = sum(hands_by_total.values())
    return [
        {
            "total": total,
            "hands": hands_by_total.get(total, 0),
            "observed": None
            if hands == 0
            else _decimal(Fraction(hands_by_total.get(total, 0), hands), 6),
            "expected": _decimal(probability, 6),
        }
        for total, probability in sorted(expected.items())
    ]
