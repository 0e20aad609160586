"""Scoring a hand of three tiles against its Connector (spec: "Scoring one hand").

``tile_score`` states the rules plainly; ``TILE_SCORES`` tabulates it once at import
so that scoring a hand in play is three lookups and an addition.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from casino.game.tiles import FACES, Face, face_index, face_index_of_tile

COUNTING_VALUES = frozenset({5, 10, 15})
BONUS_CONNECTOR: Face = (2, 3)
CONNECTOR_BONUS_POINTS = 5
HAND_TILES = 3
POINT_TOTALS: tuple[int, ...] = tuple(range(0, 45, 5))


def _counted(value: int) -> int:
    return value if value in COUNTING_VALUES else 0


def tile_score(tile: Face, connector: Face) -> int:
    """Score of one hand tile against the Connector, per the spec's rules 1-5."""
    tile_double = tile[0] == tile[1]
    connector_double = connector[0] == connector[1]
    if tile_double and connector_double:
        return _counted(3 * tile[0]) if tile == connector else 0
    if tile_double or connector_double:
        double, other = (tile, connector) if tile_double else (connector, tile)
        pip = double[0]
        if pip not in other:
            return 0
        unmatched = other[1] if other[0] == pip else other[0]
        return _counted(unmatched + 2 * pip)
    best = 0
    for tile_half in (0, 1):
        for connector_half in (0, 1):
            if tile[tile_half] == connector[connector_half]:
                value = tile[1 - tile_half] + connector[1 - connector_half]
                best = max(best, _counted(value))
    return best


# TILE_SCORES[connector_face][tile_face]: the score of a hand tile against a Connector.
TILE_SCORES: tuple[tuple[int, ...], ...] = tuple(
    tuple(tile_score(tile, connector) for tile in FACES) for connector in FACES
)
CONNECTOR_BONUS: tuple[int, ...] = tuple(
    CONNECTOR_BONUS_POINTS if connector == BONUS_CONNECTOR else 0 for connector in FACES
)


@dataclass(frozen=True, slots=True)
class HandScore:
    """A scored hand: each tile's score in hand order, the Connector bonus and the total."""

    tile_scores: tuple[int, ...]
    connector_bonus: int
    total: int


def hand_total(hand_faces: Sequence[int], connector_face: int) -> int:
    """Point total of three hand faces against a Connector face (face indices)."""
    row = TILE_SCORES[connector_face]
    return (
        row[hand_faces[0]]
        + row[hand_faces[1]]
        + row[hand_faces[2]]
        + CONNECTOR_BONUS[connector_face]
    )


def score_hand(hand_faces: Sequence[int], connector_face: int) -> HandScore:
    """Score a hand of face indices with the details a hand history shows."""
    if len(hand_faces) != HAND_TILES:
        raise ValueError(f"a hand has {HAND_TILES} tiles, got {len(hand_faces)}")
    row = TILE_SCORES[connector_face]
    scores = tuple(row[face] for face in hand_faces)
    bonus = CONNECTOR_BONUS[connector_face]
    return HandScore(tile_scores=scores, connector_bonus=bonus, total=sum(scores) + bonus)


def score_tiles(hand_tile_ids: Sequence[int], connector_tile_id: int) -> HandScore:
    """Score a hand given as physical tile ids (0..55)."""
    return score_hand(
        [face_index_of_tile(tile) for tile in hand_tile_ids], face_index_of_tile(connector_tile_id)
    )


def score_faces(hand: Sequence[Face], connector: Face) -> HandScore:
    """Score a hand given as faces (halves in either order)."""
    return score_hand([face_index(face) for face in hand], face_index(connector))
