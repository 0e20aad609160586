"""The Doubles side bet: which event a seat's four tiles make (spec: "Doubles side wager")."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from enum import StrEnum

from casino.game.tiles import FACE_INDEX, IS_DOUBLE


class DoublesEvent(StrEnum):
    """The Doubles events, highest first; every four-tile hand falls in exactly one."""

    MAIDEN = "maiden"
    DOUBLE_DOUBLES = "double_doubles"
    FOUR_DOUBLES = "four_doubles"
    THREE_DOUBLES = "three_doubles"
    TWO_DOUBLES = "two_doubles"
    LOSE = "lose"


MAIDEN_FACES: frozenset[int] = frozenset(FACE_INDEX[(pip, pip)] for pip in (3, 4, 5, 6))
SEAT_TILES = 4


def doubles_event(seat_faces: Sequence[int]) -> DoublesEvent:
    """Judge a seat's four face indices (three hand tiles and the Connector)."""
    if len(seat_faces) != SEAT_TILES:
        raise ValueError(f"the Doubles bet is judged on {SEAT_TILES} tiles, got {len(seat_faces)}")
    doubles = [face for face in seat_faces if IS_DOUBLE[face]]
    count = len(doubles)
    if count < 2:
        return DoublesEvent.LOSE
    if count == 2:
        return DoublesEvent.TWO_DOUBLES
    if count == 3:
        return DoublesEvent.THREE_DOUBLES
    if frozenset(doubles) == MAIDEN_FACES:
        return DoublesEvent.MAIDEN
    if sorted(Counter(doubles).values()) == [2, 2]:
        return DoublesEvent.DOUBLE_DOUBLES
    return DoublesEvent.FOUR_DOUBLES
