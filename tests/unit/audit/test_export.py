"""The raw-output export: the words as the HMAC blocks hold them, per shoe, in order."""

from __future__ import annotations

import hmac
import io
import struct
from itertools import islice

import pytest

from casino.audit.export import (
    RevealedShoe,
    consumed_words,
    first_bytes,
    write_words,
)
from casino.game.shoe import ALGORITHM, shuffle, shuffle_with, words

CHECK_SEED = bytes(range(32))


def revealed(index: int, seed: bytes = CHECK_SEED) -> RevealedShoe:
    return RevealedShoe(f"s{index}", ALGORITHM, "table-7", index, seed.hex())


def test_consumed_words_are_the_streams_prefix_the_shuffle_read() -> None:
    read = consumed_words(CHECK_SEED, "table-7", 0)
    assert len(read) == 55  # one accepted word per swap; a rejection is a few in a billion
    assert read == list(islice(words(CHECK_SEED, "table-7", 0), len(read)))
    replayed = iter(read)
    assert tuple(shuffle_with(replayed.__next__)) == shuffle(CHECK_SEED, "table-7", 0)


def test_first_bytes_are_the_hmac_blocks_big_endian() -> None:
    block_0 = hmac.digest(CHECK_SEED, b"casino-dominoes/shoe/v1:table-7:0:0", "sha256")
    block_1 = hmac.digest(CHECK_SEED, b"casino-dominoes/shoe/v1:table-7:0:1", "sha256")
    assert first_bytes(CHECK_SEED, "table-7", 0, 10) == (block_0 + block_1)[:40]
    first_word = struct.unpack(">I", block_0[:4])[0]
    assert first_word == next(words(CHECK_SEED, "table-7", 0))


def test_the_file_concatenates_each_shoes_consumed_words() -> None:
    out = io.BytesIO()
    summary = write_words([revealed(0), revealed(1)], out)
    expected = b"".join(
        struct.pack(">55I", *consumed_words(CHECK_SEED, "table-7", n)) for n in (0, 1)
    )
    assert out.getvalue() == expected
    assert (summary.shoes, summary.words, summary.bytes) == (2, 110, 440)
    assert summary.words_per_shoe is None


def test_a_fixed_number_of_words_per_shoe() -> None:
    out = io.BytesIO()
    summary = write_words([revealed(0), revealed(1)], out, words_per_shoe=100)
    assert out.getvalue()[400:800] == first_bytes(CHECK_SEED, "table-7", 1, 100)
    assert (summary.words, len(out.getvalue())) == (200, 800)


def test_shoes_that_cannot_be_re_derived_are_skipped_and_counted() -> None:
    out = io.BytesIO()
    shoes = [revealed(0), RevealedShoe("x", "other/v2", "", 0, CHECK_SEED.hex()),
             RevealedShoe("y", ALGORITHM, "", 0, "not hex")]  # fmt: skip
    summary = write_words(shoes, out)
    assert (summary.shoes, summary.skipped, summary.words) == (1, 2, 55)


def test_at_least_one_word_per_shoe() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        write_words([], io.BytesIO(), words_per_shoe=0)
