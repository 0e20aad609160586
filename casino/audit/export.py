"""Export the raw RNG output of closed shoes, for external batteries (NIST SP 800-22,
Dieharder, TestU01).

Format: a flat binary file with no header or separators: unsigned 32-bit words,
big-endian, exactly as the shoe's HMAC-SHA256 blocks hold them (``block_0 || block_1 ||
...`` of spec "Shoe", before any scaling to a tile index). Shoes follow one another in
the order their seeds were revealed (``ShoeClosed`` log position), so a later export
begins with an earlier one.

Which words of each shoe:

- by default, exactly the words its shuffle consumed: the 55 accepted draws plus any word
  that rejection sampling refused (a few in a billion). This is the output that really
  dealt the tiles. It is still an unbiased sample: whether the shuffle reads one more
  word depends only on the words before it, never on that word, so every exported word
  is a fresh uniform word given all before it.
- with ``words_per_shoe=N``, the first N words of every shoe's stream, consumed or not
  (a fixed length, e.g. to export more output per revealed seed than a shuffle uses).

Batteries read the file as a bit stream, most significant bit of each byte first, which
is each word's bits from the top. Dieharder's raw input (``-g 201``) reads native-endian
32-bit integers, so on a little-endian host it sees every word byte-swapped: the same
bytes, tested all the same.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any, BinaryIO

import psycopg

from casino.audit.rng import stream_json
from casino.game.shoe import (
    ALGORITHM,
    WORDS_PER_BLOCK,
    parse_server_seed,
    shuffle_with,
    word_blocks,
    words,
)

WORD_BYTES = 4

_REVEALED_SHOES = """
SELECT json_build_array(c.stream_id, o.data->'algorithm', o.data->'client_seed',
                        o.data->'nonce', c.data->'server_seed')::text
  FROM events c
  JOIN events o ON o.stream_id = c.stream_id AND o.type = 'ShoeOpened'
 WHERE c.stream_id LIKE 'shoe-%' AND c.type = 'ShoeClosed'
 ORDER BY c.position
"""


@dataclass(frozen=True)
class RevealedShoe:
    shoe_id: str
    algorithm: str
    client_seed: str
    nonce: int
    server_seed: str  # hex


@dataclass(frozen=True)
class ExportSummary:
    shoes: int
    skipped: int  # shoes of another algorithm, or with a malformed seed
    words: int
    sha256: str  # of the whole file
    words_per_shoe: int | None  # None: the words each shuffle consumed

    @property
    def bytes(self) -> int:
        return self.words * WORD_BYTES


def consumed_words(server_seed: bytes, client_seed: str, nonce: int) -> list[int]:
    """The words the shoe's shuffle read, in order, rejected ones included."""
    stream = words(server_seed, client_seed, nonce)
    read: list[int] = []

    def next_word() -> int:
        word = next(stream)
        read.append(word)
        return word

    shuffle_with(next_word)
    return read


def first_bytes(server_seed: bytes, client_seed: str, nonce: int, count: int) -> bytes:
    """The first ``count`` words of the stream, as the blocks' own big-endian bytes."""
    blocks = -(-count // WORDS_PER_BLOCK)
    data = b"".join(islice(word_blocks(server_seed, client_seed, nonce), blocks))
    return data[: count * WORD_BYTES]


def write_words(
    shoes: Iterable[RevealedShoe], out: BinaryIO, words_per_shoe: int | None = None
) -> ExportSummary:
    if words_per_shoe is not None and words_per_shoe < 1:
        raise ValueError(f"words per shoe must be at least 1, got {words_per_shoe}")
    digest = hashlib.sha256()
    exported = skipped = total = 0
    for shoe in shoes:
        data = _shoe_bytes(shoe, words_per_shoe)
        if data is None:
            skipped += 1
            continue
        out.write(data)
        digest.update(data)
        exported += 1
        total += len(data) // WORD_BYTES
    return ExportSummary(exported, skipped, total, digest.hexdigest(), words_per_shoe)


def _shoe_bytes(shoe: RevealedShoe, words_per_shoe: int | None) -> bytes | None:
    """The shoe's exported words, or None when its output cannot be re-derived."""
    if shoe.algorithm != ALGORITHM:
        return None
    try:
        seed = parse_server_seed(shoe.server_seed)
        if words_per_shoe is not None:
            return first_bytes(seed, shoe.client_seed, shoe.nonce, words_per_shoe)
        read = consumed_words(seed, shoe.client_seed, shoe.nonce)
    except ValueError:  # a malformed seed or nonce
        return None
    return struct.pack(f">{len(read)}I", *read)


def revealed_shoes(connection: psycopg.Connection[Any]) -> Iterable[RevealedShoe]:
    """Every closed shoe's seed and stream inputs, in the order the seeds were revealed."""
    for stream_id, algorithm, client_seed, nonce, seed in stream_json(
        connection, "export_revealed_shoes", _REVEALED_SHOES
    ):
        yield RevealedShoe(stream_id.removeprefix("shoe-"), algorithm, client_seed, nonce, seed)


def export_rng(
    connection: psycopg.Connection[Any], path: Path, words_per_shoe: int | None = None
) -> ExportSummary:
    """Write the raw words of every closed shoe to ``path`` (``connection`` in autocommit)."""
    with connection.transaction(), path.open("wb") as out:
        return write_words(revealed_shoes(connection), out, words_per_shoe)
