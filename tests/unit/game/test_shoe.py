from __future__ import annotations

import hashlib
import hmac
import secrets
from collections import Counter
from collections.abc import Iterator
from itertools import permutations, product

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import chi2

from casino.game.deal import deal_round
from casino.game.doubles import DoublesEvent, doubles_event
from casino.game.odds import doubles_event_ways, main_total_ways
from casino.game.scoring import hand_total
from casino.game.shoe import (
    commitment_of,
    new_server_seed,
    parse_server_seed,
    shuffle,
    shuffle_with,
    uniform_below,
    words,
)
from casino.game.tiles import FACES_PER_SET

CHECK_SEED = bytes(range(32))
CHECK_COMMITMENT = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
CHECK_FIRST_TWELVE = (18, 28, 1, 37, 14, 23, 29, 19, 31, 52, 8, 3)
SIGNIFICANCE = 0.001


def test_the_spec_check_vector() -> None:
    assert commitment_of(CHECK_SEED) == CHECK_COMMITMENT
    assert shuffle(CHECK_SEED, "table-7", 0)[:12] == CHECK_FIRST_TWELVE


def test_the_word_stream_is_hmac_blocks_read_as_big_endian_words() -> None:
    stream = words(CHECK_SEED, "c", 3)
    first_sixteen = [next(stream) for _ in range(16)]
    block_1 = hmac.new(CHECK_SEED, b"casino-dominoes/shoe/v1:c:3:1", "sha256").digest()
    assert first_sixteen[8:] == [int.from_bytes(block_1[i : i + 4], "big") for i in range(0, 32, 4)]


def test_client_seed_and_nonce_each_change_the_deal() -> None:
    base = shuffle(CHECK_SEED, "table-7", 0)
    assert shuffle(CHECK_SEED, "table-7", 1) != base
    assert shuffle(CHECK_SEED, "table-8", 0) != base
    assert shuffle(CHECK_SEED, "", 0) != base


def test_server_seeds_come_from_the_os_csprng(monkeypatch: pytest.MonkeyPatch) -> None:
    assert len(new_server_seed()) == 32
    assert new_server_seed() != new_server_seed()
    monkeypatch.setattr(secrets, "token_bytes", lambda n: b"\x07" * n)
    assert new_server_seed() == b"\x07" * 32


@given(st.binary(min_size=32, max_size=32), st.text(max_size=20), st.integers(0, 10**9))
def test_a_shuffle_is_always_a_permutation_of_the_56_tiles(
    seed: bytes, client_seed: str, nonce: int
) -> None:
    assert sorted(shuffle(seed, client_seed, nonce)) == list(range(56))


def test_seeds_and_nonces_are_validated() -> None:
    with pytest.raises(ValueError, match="64 hex digits"):
        parse_server_seed("00")
    with pytest.raises(ValueError, match="32 bytes"):
        shuffle(b"short", "x", 0)
    with pytest.raises(ValueError, match="non-negative"):
        shuffle(CHECK_SEED, "x", -1)


@pytest.mark.parametrize("bits", [3, 4, 5])
def test_rejection_sampling_maps_equally_many_words_to_each_value(bits: int) -> None:
    """Exhaustive over every word of a small word size and every n it can serve."""
    span = 1 << bits
    for n in range(1, span + 1):
        preimages: Counter[int] = Counter()
        rejected = 0
        for word in range(span):
            supply = iter([word])
            try:
                preimages[uniform_below(n, supply.__next__, word_bits=bits)] += 1
            except StopIteration:  # asked for a second word: this one was rejected
                rejected += 1
        assert set(preimages) == set(range(n))
        assert set(preimages.values()) == {span // n}
        assert rejected == span % n


def test_the_shuffle_gives_every_permutation_equally_often() -> None:
    """Exhaustive over every stream of five 2-bit words shuffling four items.

    Drawing from 0..2 rejects the word 3, so some streams need a fifth word; each stream
    prefix that completes a shuffle is weighted by the streams that share it.
    """
    bits, stream_length = 2, 5
    weights: Counter[tuple[int, ...]] = Counter()
    for stream in product(range(1 << bits), repeat=stream_length):
        supply: Iterator[int] = iter(stream)
        try:
            order = shuffle_with(supply.__next__, size=4, word_bits=bits)
        except StopIteration:
            continue
        weights[tuple(order)] += 1
    assert set(weights) == set(permutations(range(4)))
    assert len(set(weights.values())) == 1


def test_monte_carlo_through_the_real_shoe_agrees_with_the_exact_odds() -> None:
    """Chi-square goodness of fit at significance 0.001, with fixed seeds.

    One seat per shoe so that the draws are independent; rare outcomes are pooled so
    every expected count is at least 5.
    """
    shoes = 20_000
    totals: Counter[int] = Counter()
    events: Counter[DoublesEvent] = Counter()
    for nonce in range(shoes):
        seed = hashlib.sha256(b"monte-carlo" + nonce.to_bytes(4, "big")).digest()
        seat = deal_round(shuffle(seed, "mc", nonce), 0, [1])[0]
        faces = [t % FACES_PER_SET for t in (*seat.hand, seat.connector)]
        totals[hand_total(faces[:3], faces[3])] += 1
        events[doubles_event(faces)] += 1

    main_ways, main_draws = main_total_ways()
    main_bins = [[0], [5], [10], [15], [20], [25, 30, 35, 40]]
    observed = [sum(totals[t] for t in group) for group in main_bins]
    expected = [shoes * sum(main_ways[t] for t in group) / main_draws for group in main_bins]
    assert chi_square_p_value(observed, expected) > SIGNIFICANCE

    doubles_ways, doubles_draws = doubles_event_ways()
    four = [DoublesEvent.MAIDEN, DoublesEvent.DOUBLE_DOUBLES, DoublesEvent.FOUR_DOUBLES]
    doubles_bins = [
        [DoublesEvent.LOSE],
        [DoublesEvent.TWO_DOUBLES],
        [DoublesEvent.THREE_DOUBLES],
        four,
    ]
    observed = [sum(events[e] for e in group) for group in doubles_bins]
    expected = [
        shoes * sum(doubles_ways[e] for e in group) / doubles_draws for group in doubles_bins
    ]
    assert chi_square_p_value(observed, expected) > SIGNIFICANCE


def test_the_goodness_of_fit_check_rejects_a_wrong_distribution() -> None:
    """Negative control: the same statistic flags counts drawn from other odds."""
    observed = [15_200, 3_000, 1_500, 250, 40, 10]  # a 0 rate near 76% instead of 75%
    main_ways, main_draws = main_total_ways()
    groups = [[0], [5], [10], [15], [20], [25, 30, 35, 40]]
    expected = [20_000 * sum(main_ways[t] for t in g) / main_draws for g in groups]
    assert chi_square_p_value(observed, expected) < SIGNIFICANCE


def chi_square_p_value(observed: list[int], expected: list[float]) -> float:
    assert min(expected) >= 5
    statistic = sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True))
    return float(chi2.sf(statistic, len(observed) - 1))
