"""Ids for new rounds and shoes: UUID version 7 (RFC 9562, section 5.7), as 32 hex digits.

The first 48 bits are the Unix time in milliseconds, then the version (7), 12 random
bits, the variant (binary 10) and 62 more random bits: 74 random bits in all, from the
OS CSPRNG, so an id is still unguessable. What the time prefix buys is order. Every
index keyed by a round's or a shoe's id (the log's stream keys, the read models' primary
keys) receives a new round's entries next to the previous round's, on the index's last
pages, instead of on a random page anywhere in it. On a large log, a random page is
soon one not touched since the last checkpoint, and its first change writes the whole
page to the WAL. On a database of 2,000,000 events, 300 HTTP rounds after a checkpoint
wrote 56-61 KiB of WAL per round with random (version 4) ids, 46 KiB with these: the
B-tree pages written whole fell from 3.9-5.4 MiB to 0.6-0.8 MiB.
"""

from __future__ import annotations

import os
import time

_VERSION = 0x7
_VARIANT = 0b10
_MILLIS = (1 << 48) - 1
_RAND_B = (1 << 62) - 1


def time_ordered_id() -> str:
    """A new UUIDv7, as 32 lowercase hex digits (the form ``uuid.UUID.hex`` gives)."""
    millis = time.time_ns() // 1_000_000
    random = int.from_bytes(os.urandom(10), "big")  # 80 bits: 12 for rand_a, 62 for rand_b
    value = (
        (millis & _MILLIS) << 80
        | _VERSION << 76
        | (random >> 68) << 64
        | _VARIANT << 62
        | (random & _RAND_B)
    )
    return f"{value:032x}"
