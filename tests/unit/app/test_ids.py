"""Round and shoe ids: UUIDv7 (RFC 9562), time-ordered, with 74 random bits."""

from __future__ import annotations

import os
import time
import uuid

import pytest

from casino.app.ids import time_ordered_id


def test_an_id_is_a_version_7_uuid_in_hex_stamped_with_the_time_it_was_made() -> None:
    before = time.time_ns() // 1_000_000
    made = time_ordered_id()
    after = time.time_ns() // 1_000_000
    assert len(made) == 32 and made == made.lower()
    parsed = uuid.UUID(hex=made)
    assert parsed.hex == made
    assert parsed.version == 7
    assert parsed.variant == uuid.RFC_4122
    assert before <= parsed.int >> 80 <= after


def test_the_time_orders_ids_whatever_their_random_bits(monkeypatch: pytest.MonkeyPatch) -> None:
    def made_at(millis: int, random: bytes) -> str:
        monkeypatch.setattr(time, "time_ns", lambda: millis * 1_000_000 + 999_999)
        monkeypatch.setattr(os, "urandom", lambda size: random[:size])
        return time_ordered_id()

    highest, lowest = b"\xff" * 10, b"\x00" * 10
    earlier = made_at(1_764_000_000_000, highest)
    later = made_at(1_764_000_000_001, lowest)
    assert earlier < later
    assert earlier == "019ab697e800" + "7fff" + "bfff" + "ffffffffffff"
    assert later == "019ab697e801" + "7000" + "8000" + "000000000000"


def test_ids_differ_in_their_random_bits() -> None:
    made = [time_ordered_id() for _ in range(20_000)]
    assert len(set(made)) == len(made)
    # 74 random bits: the bits after the time differ even among ids of one millisecond.
    assert len({one[12:] for one in made}) == len(made)
