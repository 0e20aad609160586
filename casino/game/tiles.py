"""Tiles, faces and the two-set shoe.

A face is identified by its index in the spec's face order (0-0, 0-1, ... 6-6); a
physical tile in a shoe by its id 0..55, whose face is ``FACES[id % 28]``.
"""

from __future__ import annotations

import re

Face = tuple[int, int]

HIGHEST_PIP = 6
FACES: tuple[Face, ...] = tuple(
    (low, high) for low in range(HIGHEST_PIP + 1) for high in range(low, HIGHEST_PIP + 1)
)
FACES_PER_SET = len(FACES)  # 28
SETS_PER_SHOE = 2
SHOE_SIZE = FACES_PER_SET * SETS_PER_SHOE  # 56
TILE_IDS: tuple[int, ...] = tuple(range(SHOE_SIZE))

FACE_INDEX: dict[Face, int] = {face: index for index, face in enumerate(FACES)}
IS_DOUBLE: tuple[bool, ...] = tuple(low == high for low, high in FACES)
DOUBLE_FACE_INDICES: tuple[int, ...] = tuple(i for i, double in enumerate(IS_DOUBLE) if double)

_FACE_TEXT = re.compile(r"^\s*([0-6])\s*-\s*([0-6])\s*$")


def face_index_of_tile(tile_id: int) -> int:
    """The face index shown by physical tile ``tile_id``."""
    if not 0 <= tile_id < SHOE_SIZE:
        raise ValueError(f"tile id must be in 0..{SHOE_SIZE - 1}, got {tile_id}")
    return tile_id % FACES_PER_SET


def face_of_tile(tile_id: int) -> Face:
    return FACES[face_index_of_tile(tile_id)]


def set_of_tile(tile_id: int) -> int:
    """Which of the shoe's two sets the tile belongs to (0 or 1)."""
    face_index_of_tile(tile_id)
    return tile_id // FACES_PER_SET


def face_index(face: Face) -> int:
    """Index of a face given in either half order, e.g. (3, 2) or (2, 3)."""
    low, high = sorted(face)
    try:
        return FACE_INDEX[(low, high)]
    except KeyError:
        raise ValueError(f"no such face: {face[0]}-{face[1]}") from None


def parse_face(text: str) -> int:
    """Parse ``"3-2"`` (halves in either order) into a face index."""
    match = _FACE_TEXT.match(text)
    if match is None:
        raise ValueError(f"not a domino face (expected two pips 0-6 like 3-2): {text!r}")
    return face_index((int(match.group(1)), int(match.group(2))))


def face_text(index: int) -> str:
    """The face written high half first, as the rules write it (``"3-2"``, ``"6-6"``)."""
    low, high = FACES[index]
    return f"{high}-{low}"
