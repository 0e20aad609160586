"""Benchmark of the RNG audit: shoes verified per second (seed check plus full
re-derivation), beside the bare shuffle measured in the same run.

Pure: closed shoes are synthesised in memory (real seeds, real shuffles, dealt by the game
core as the service deals them: half one round per shoe, half to a cut card at 40), so
the figures are the audit's own work, not Postgres's. One process, one core.

Run: .venv/bin/python bench/rng_audit.py [shoes]
"""

from __future__ import annotations

import random
import secrets
import statistics
import sys
import time
from collections.abc import Callable

from casino.audit.rng import audit_shoes
from casino.audit.shoes import ClosedShoe, Deal, verify_shoe
from casino.game.shoe import ALGORITHM, commitment_of, shuffle

GOAL = 5_000  # shoes verified per second per core (issue 5)


def synthesise(count: int) -> list[ClosedShoe]:
    rng = random.Random(5)
    shoes = []
    for nonce in range(count):
        seed = secrets.token_bytes(32)
        order = shuffle(seed, "bench", nonce)
        deals, position = [], 0
        while position == 0 or (nonce % 2 and position < 40 and 56 - position >= 28):
            seats = rng.randint(1, 7)
            deals.append(
                Deal(f"r{nonce}-{position}", position, order[position : position + 4 * seats])
            )
            position += 4 * seats
        shoes.append(
            ClosedShoe(
                f"s{nonce}", 1, ALGORITHM, commitment_of(seed), "bench", nonce, seed.hex(),
                position, tuple(deals), 2, tuple((d.round_id, commitment_of(seed)) for d in deals),
            )
        )  # fmt: skip
    return shoes


def rate(work: Callable[[], object], count: int, repeats: int = 3) -> float:
    """Items per second: ``count`` items per call, the median of ``repeats`` timed calls."""
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        seconds.append(time.perf_counter() - start)
    return count / statistics.median(seconds)


def main(count: int) -> None:
    shoes = synthesise(count)
    seeds = [(bytes.fromhex(s.server_seed), s.client_seed, s.nonce) for s in shoes]

    def verify_all() -> None:
        assert all(verify_shoe(shoe).ok for shoe in shoes)

    shuffled = rate(lambda: [shuffle(*inputs) for inputs in seeds], count)
    verified = rate(verify_all, count)
    audited = rate(lambda: audit_shoes(shoes, count), count, repeats=1)
    print(f"RNG audit over {count:,} synthesised closed shoes (one core, no database)")
    print(
        f"  verified (seed check + full re-derivation): {verified:>9,.0f} shoes/s (goal > {GOAL:,})"
    )
    print(f"  baseline, the bare shuffle alone:            {shuffled:>9,.0f} shoes/s")
    print(f"  the whole audit, every statistical test too: {audited:>9,.0f} shoes/s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000)
