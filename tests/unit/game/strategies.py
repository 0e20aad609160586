"""Hypothesis strategies for the game core."""

from __future__ import annotations

from hypothesis import strategies as st

from casino.game.tiles import FACES_PER_SET, SHOE_SIZE

face_indices = st.integers(min_value=0, max_value=FACES_PER_SET - 1)
pips = st.integers(min_value=0, max_value=6)
faces = st.tuples(pips, pips)


@st.composite
def seat_draws(draw: st.DrawFn) -> tuple[list[int], int]:
    """Four distinct physical tiles from one shoe: three hand tiles and a Connector."""
    tiles = draw(st.lists(st.integers(0, SHOE_SIZE - 1), min_size=4, max_size=4, unique=True))
    return tiles[:3], tiles[3]
