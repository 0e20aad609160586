"""The ``settlement`` check: every seat re-scored and re-settled by the game core.

The rules are applied afresh to the tiles ``HandsDealt`` records (which ``round_deal``
proves) and the stakes of the ``WagerPlaced`` events, on the paytables ``RoundOpened``
fixed, and compared with ``RoundSettled`` field by field, then the round's handle and
payouts. This is kept apart from the domain's own settlement on purpose: a checker
outside the service needs the published rules (``casino.game``) and nothing else.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from casino.audit.bundle.facts import BundleFacts
from casino.audit.bundle.report import Status
from casino.game.doubles import doubles_event
from casino.game.paytables import doubles_paytable, main_paytable, settle
from casino.game.scoring import score_hand
from casino.game.tiles import face_index_of_tile, face_text


def settled_seat(
    seat: int,
    player_id: str,
    hand: Sequence[int],
    connector: int,
    main_stake: int,
    doubles_stake: int,
    main_table: int,
    doubles_table: int,
) -> dict[str, Any]:
    """What ``RoundSettled`` must say of one seat dealt ``hand`` and ``connector`` (tile
    ids) on the round's paytables. Raises ``ValueError`` on impossible input."""
    hand_faces = [face_index_of_tile(tile) for tile in hand]
    connector_face = face_index_of_tile(connector)
    score = score_hand(hand_faces, connector_face)
    main = settle(main_stake, main_paytable(main_table).odds_for(score.total))
    event = doubles_event([*hand_faces, connector_face])
    doubles = (
        settle(doubles_stake, doubles_paytable(doubles_table).odds_for(event))
        if doubles_stake
        else None
    )
    return {
        "seat": seat,
        "player_id": player_id,
        "hand": [face_text(face) for face in hand_faces],
        "connector": face_text(connector_face),
        "tile_scores": list(score.tile_scores),
        "connector_bonus": score.connector_bonus,
        "total": score.total,
        "main_stake": main_stake,
        "main_odds": main.odds_to_one,
        "main_payout": main.payout,
        "doubles_event": event.value,
        "doubles_stake": doubles_stake,
        "doubles_odds": None if doubles is None else doubles.odds_to_one,
        "doubles_payout": 0 if doubles is None else doubles.payout,
    }


def settlement(facts: BundleFacts) -> tuple[Status, str]:
    hands = facts.of_round("HandsDealt")
    settled = facts.of_round("RoundSettled")
    if not hands and not settled:
        return Status.SKIPPED, f"nothing was settled: the round is {facts.round_status}"
    if len(hands) != 1 or len(settled) != 1:
        return Status.FAIL, (
            f"{len(hands)} HandsDealt and {len(settled)} RoundSettled: one of each is due"
        )
    opened = facts.round_opened
    if opened is None:
        return Status.FAIL, "the round's stream does not begin with RoundOpened"
    main_table, doubles_table = opened.data["main_paytable"], opened.data["doubles_paytable"]
    wagers = {w.data["seat"]: w.data for w in facts.of_round("WagerPlaced")}
    expected = [
        settled_seat(
            seat["seat"], wagers[seat["seat"]]["player_id"], seat["hand"], seat["connector"],
            wagers[seat["seat"]]["main"], wagers[seat["seat"]]["doubles"], main_table,
            doubles_table,
        )
        for seat in hands[0].data["seats"]
    ]  # fmt: skip
    recorded = settled[0].data
    if len(recorded["seats"]) != len(expected):
        return Status.FAIL, (
            f"RoundSettled settles {len(recorded['seats'])} seats, {len(expected)} were dealt"
        )
    for found, due in zip(recorded["seats"], expected, strict=True):
        for name, value in due.items():
            if found.get(name) != value:
                return Status.FAIL, (
                    f"seat {due['seat']}: RoundSettled says {name} {found.get(name)!r}, "
                    f"the wagers and the rules give {value!r}"
                )
    handle = sum(seat["main_stake"] + seat["doubles_stake"] for seat in expected)
    payouts = sum(seat["main_payout"] + seat["doubles_payout"] for seat in expected)
    for name, value in (("handle", handle), ("payouts", payouts)):
        if recorded[name] != value:
            return (
                Status.FAIL,
                f"RoundSettled says {name} {recorded[name]!r}, the seats sum to {value}",
            )
    later = "; later reversed by an admin" if facts.of_round("SettlementReversed") else ""
    return Status.PASS, (
        f"{len(expected)} seats re-scored and re-settled on main paytable {main_table} and "
        f"Doubles paytable {doubles_table}: handle {handle}, payouts {payouts}{later}"
    )
