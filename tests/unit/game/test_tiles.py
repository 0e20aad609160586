from __future__ import annotations

import pytest

from casino.game.tiles import (
    DOUBLE_FACE_INDICES,
    FACES,
    SHOE_SIZE,
    face_index,
    face_of_tile,
    face_text,
    parse_face,
    set_of_tile,
)


def test_a_set_is_the_28_double_six_faces_in_the_spec_order() -> None:
    assert len(FACES) == 28
    assert FACES[:8] == ((0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (0, 6), (1, 1))
    assert FACES[-1] == (6, 6)
    assert [FACES[i] for i in DOUBLE_FACE_INDICES] == [(p, p) for p in range(7)]


def test_a_shoe_is_two_sets_by_tile_id() -> None:
    assert SHOE_SIZE == 56
    assert face_of_tile(0) == face_of_tile(28) == (0, 0)
    assert face_of_tile(27) == face_of_tile(55) == (6, 6)
    assert [set_of_tile(t) for t in (0, 27, 28, 55)] == [0, 0, 1, 1]
    with pytest.raises(ValueError, match="tile id"):
        face_of_tile(56)
    with pytest.raises(ValueError, match="tile id"):
        face_of_tile(-1)


def test_faces_parse_in_either_half_order_and_print_high_half_first() -> None:
    assert parse_face("3-2") == parse_face("2-3") == face_index((2, 3))
    assert face_text(parse_face("2-3")) == "3-2"
    assert face_text(parse_face(" 6 - 6 ")) == "6-6"
    for bad in ("7-1", "3", "3-", "a-b", "3-2-1", ""):
        with pytest.raises(ValueError, match="not a domino face"):
            parse_face(bad)
