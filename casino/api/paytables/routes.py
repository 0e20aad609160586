"""GET /v1/paytables: every paytable with its exact return and house edge."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from functools import cache
from typing import Any

from casino.api.auth import ALL_ROLES, allow
from casino.api.paytables.schemas import PaytablesSchema
from casino.api.spec import Blueprint, problems
from casino.game.odds import BetOdds, odds_report
from casino.game.paytables import DOUBLES_PAYTABLES, MAIN_PAYTABLES, Paytable

blp = Blueprint("paytables", __name__, url_prefix="/v1/paytables",
                description="Paytables and their exact odds")  # fmt: skip


def _exact(value: Fraction) -> dict[str, Any]:
    return {"fraction": f"{value.numerator}/{value.denominator}", "value": float(value)}


def _paytable(odds: BetOdds[Any], paytable: Paytable[Any]) -> dict[str, Any]:
    return {
        "kind": odds.kind.value,
        "number": odds.paytable,
        "rtp": _exact(odds.rtp),
        "house_edge": _exact(odds.house_edge),
        "variance": _exact(odds.variance),
        "outcomes": [
            {"outcome": str(outcome), "odds_to_one": paytable.odds_for(outcome),
             "probability": _exact(probability)}
            for outcome, probability in odds.probabilities.items()
        ],
    }  # fmt: skip


def _all(odds: Mapping[int, BetOdds[Any]], paytables: Mapping[int, Paytable[Any]]) -> list[Any]:
    return [_paytable(odds[number], paytables[number]) for number in sorted(paytables)]


@cache
def paytables() -> dict[str, Any]:
    """Computed once per process: exact enumeration is cheap, but not free."""
    report = odds_report()
    return {
        "tiles_in_shoe": report.tiles_in_shoe,
        "main": _all(report.main, MAIN_PAYTABLES),
        "doubles": _all(report.doubles, DOUBLES_PAYTABLES),
    }


@blp.route("")
@allow(ALL_ROLES)
@problems()
@blp.response(200, PaytablesSchema)
def list_paytables() -> Any:
    """Every main and Doubles paytable: pays, probabilities, RTP, house edge, variance"""
    return paytables()
