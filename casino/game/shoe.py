"""The seeded, committed shoe: algorithm ``casino-dominoes/shoe/v1`` (spec: "Shoe").

The server seed comes only from the OS CSPRNG (``secrets``). Its SHA-256 is the
commitment shown before any wager; an HMAC-SHA256 word stream keyed by the seed drives a
rejection-sampled Fisher-Yates shuffle, so anyone holding the revealed seed can re-derive
every deal.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import struct
from collections.abc import Callable, Iterator

from casino.game.tiles import SHOE_SIZE

ALGORITHM = "casino-dominoes/shoe/v1"
SERVER_SEED_BYTES = 32
WORD_BITS = 32
WORDS_PER_BLOCK = 8
_BLOCK_WORDS = struct.Struct(">8I")
_SEED_HEX = re.compile(r"^[0-9a-fA-F]{64}$")


def new_server_seed() -> bytes:
    """A fresh secret server seed from the operating system's CSPRNG."""
    return secrets.token_bytes(SERVER_SEED_BYTES)


def commitment_of(server_seed: bytes) -> str:
    """The lowercase hex SHA-256 of the server seed, published before play."""
    return hashlib.sha256(server_seed).hexdigest()


def parse_server_seed(text: str) -> bytes:
    """A server seed written as 64 hex digits."""
    if not _SEED_HEX.match(text):
        raise ValueError("a server seed is exactly 64 hex digits (32 bytes)")
    return bytes.fromhex(text)


def _check_inputs(server_seed: bytes, nonce: int) -> None:
    if len(server_seed) != SERVER_SEED_BYTES:
        raise ValueError(f"a server seed is {SERVER_SEED_BYTES} bytes, got {len(server_seed)}")
    if isinstance(nonce, bool) or not isinstance(nonce, int) or nonce < 0:
        raise ValueError(f"a nonce is a non-negative integer, got {nonce!r}")


def word_blocks(server_seed: bytes, client_seed: str, nonce: int) -> Iterator[bytes]:
    """The HMAC blocks ``block_0, block_1, ...`` of the shoe's word stream."""
    _check_inputs(server_seed, nonce)
    prefix = f"{ALGORITHM}:{client_seed}:{nonce}:".encode()
    k = 0
    while True:
        yield hmac.digest(server_seed, prefix + str(k).encode(), "sha256")
        k += 1


def words(server_seed: bytes, client_seed: str, nonce: int) -> Iterator[int]:
    """The unsigned 32-bit big-endian words of the stream, in order."""
    for block in word_blocks(server_seed, client_seed, nonce):
        yield from _BLOCK_WORDS.unpack(block)


def uniform_below(n: int, next_word: Callable[[], int], word_bits: int = WORD_BITS) -> int:
    """A uniform integer in ``0..n-1`` from uniform ``word_bits``-bit words.

    Words at or above the largest multiple of ``n`` that fits are rejected, so every
    result is produced by exactly the same number of accepted words: no modulo bias.
    """
    span = 1 << word_bits
    if not 1 <= n <= span:
        raise ValueError(f"n must be in 1..{span}, got {n}")
    limit = span - (span % n)
    while True:
        word = next_word()
        if word < limit:
            return word % n


def shuffle_with(
    next_word: Callable[[], int], size: int = SHOE_SIZE, word_bits: int = WORD_BITS
) -> list[int]:
    """Fisher-Yates from the top down: ``order[i]`` swaps with a uniform ``j <= i``."""
    order = list(range(size))
    for i in range(size - 1, 0, -1):
        j = uniform_below(i + 1, next_word, word_bits)
        order[i], order[j] = order[j], order[i]
    return order


def shuffle(server_seed: bytes, client_seed: str, nonce: int) -> tuple[int, ...]:
    """The shoe's deal order: tile ids, dealt from index 0 upwards."""
    stream = words(server_seed, client_seed, nonce)
    return tuple(shuffle_with(stream.__next__))
