"""Benchmarks of the pure game core, each beside a baseline measured in the same run.

Run: .venv/bin/python bench/game_core.py
"""

from __future__ import annotations

import random
import secrets
import statistics
import time
from collections import Counter
from collections.abc import Callable
from itertools import combinations

from casino.game.odds import FRESH_SHOE, odds_report, shoe_of_tiles
from casino.game.scoring import CONNECTOR_BONUS, hand_total, tile_score
from casino.game.shoe import shuffle
from casino.game.tiles import FACES, FACES_PER_SET, SHOE_SIZE


def per_call_seconds(work: Callable[[], object], repeats: int) -> float:
    """Median seconds per call over ``repeats`` timed calls (after one warm-up)."""
    work()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def brute_force_odds(tiles: list[int]) -> Counter[int]:
    """Baseline: score every (Connector, hand) draw one by one."""
    ways: Counter[int] = Counter()
    for connector in tiles:
        rest = [t for t in tiles if t != connector]
        for hand in combinations(rest, 3):
            ways[hand_total([t % FACES_PER_SET for t in hand], connector % FACES_PER_SET)] += 1
    return ways


def bench_odds() -> None:
    fresh = per_call_seconds(lambda: odds_report(FRESH_SHOE), 200)
    baseline = per_call_seconds(lambda: brute_force_odds(list(range(SHOE_SIZE))), 1)
    print(f"exact odds, 9 paytables, fresh shoe:   {fresh * 1e3:8.3f} ms   (goal < 10 ms)")
    print(
        f"  baseline, scoring every draw (main only): {baseline * 1e3:8.1f} ms "
        f"({baseline / fresh:,.0f}x slower)"
    )
    rng = random.Random(7)
    depleted = [shoe_of_tiles(rng.sample(range(SHOE_SIZE), rng.randint(20, 52))) for _ in range(50)]
    index = iter(range(10**9))
    seconds = per_call_seconds(lambda: odds_report(depleted[next(index) % 50]), 500)
    print(f"exact odds, 9 paytables, depleted shoe: {seconds * 1e3:7.3f} ms   (goal < 2 ms)")


def bench_scoring() -> None:
    rng = random.Random(11)
    hands = []
    for _ in range(200_000):
        a, b, c, k = rng.sample(range(SHOE_SIZE), 4)
        hands.append(((a % 28, b % 28, c % 28), k % 28))
    start = time.perf_counter()
    totals = [hand_total(hand, connector) for hand, connector in hands]
    tabulated = len(hands) / (time.perf_counter() - start)
    start = time.perf_counter()
    rules = [
        sum(tile_score(FACES[t], FACES[connector]) for t in hand) + CONNECTOR_BONUS[connector]
        for hand, connector in hands
    ]
    baseline = len(hands) / (time.perf_counter() - start)
    assert totals == rules
    print(f"scoring: {tabulated:,.0f} hands/s   (goal > 500,000/s, one process)")
    print(f"  baseline, applying the rules per tile: {baseline:,.0f} hands/s")


def bench_shuffle() -> None:
    seed = secrets.token_bytes(32)
    count = 20_000
    start = time.perf_counter()
    for nonce in range(count):
        shuffle(seed, "bench", nonce)
    shoes = count / (time.perf_counter() - start)
    rng = random.Random(3)
    order = list(range(SHOE_SIZE))
    start = time.perf_counter()
    for _ in range(count):
        rng.shuffle(order)
    baseline = count / (time.perf_counter() - start)
    print(f"shuffle (casino-dominoes/shoe/v1): {shoes:,.0f} shoes/s")
    print(f"  baseline, random.shuffle (Mersenne Twister, not for play): {baseline:,.0f} shoes/s")


if __name__ == "__main__":
    bench_odds()
    bench_scoring()
    bench_shuffle()
