"""Shoes for the audit's tests, all from fixed seeds: honest ones dealt by the game core,
and orders from deliberately broken shuffles (the negative controls)."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Sequence

from casino.audit.shoes import ClosedShoe, Deal
from casino.game.deal import deal_round
from casino.game.shoe import commitment_of, shuffle, shuffle_with, uniform_below, words
from casino.game.tiles import DOUBLE_FACE_INDICES, SHOE_SIZE

CLIENT_SEED = "audit-tests"
DOUBLE_FACES = frozenset(DOUBLE_FACE_INDICES)
NextWord = Callable[[], int]
Shuffler = Callable[[NextWord], list[int]]


def seed_of(index: int, salt: str = "honest") -> bytes:
    return hashlib.sha256(f"{salt}-{index}".encode()).digest()


def word_source(index: int, salt: str) -> NextWord:
    return words(seed_of(index, salt), CLIENT_SEED, index).__next__


def deal_pattern(rng: random.Random, cut_card: int | None) -> list[int]:
    """Playing seats of each round dealt from one shoe: one round without a cut card, as
    many as the cut card (and a full table of seven) allow with one."""
    rounds = [rng.randint(1, 7)]
    dealt = 4 * rounds[0]
    while cut_card is not None and dealt < cut_card and SHOE_SIZE - dealt >= 28:
        rounds.append(rng.randint(1, 7))
        dealt += 4 * rounds[-1]
    return rounds


def deals_of(order: Sequence[int], rounds: Sequence[int], prefix: str = "r") -> list[Deal]:
    deals, position = [], 0
    for number, seats in enumerate(rounds):
        tiles = tuple(order[position : position + 4 * seats])
        deals.append(Deal(f"{prefix}{number}", position, tiles))
        position += len(tiles)
    return deals


def seats_of(deals: Sequence[Deal]) -> list[tuple[int, ...]]:
    seats: list[tuple[int, ...]] = []
    for deal in deals:
        for seat in deal_round(deal.tiles, 0, list(range(1, len(deal.tiles) // 4 + 1))):
            seats.append((*seat.hand, seat.connector))
    return seats


def closed_shoe(index: int, rounds: Sequence[int] = (3,), salt: str = "honest") -> ClosedShoe:
    """An honest closed shoe as the log records it: opened at log position 10, the first
    wager of its rounds at 20."""
    seed = seed_of(index, salt)
    order = shuffle(seed, CLIENT_SEED, index)
    deals = deals_of(order, rounds, f"{salt}-{index}-r")
    return ClosedShoe(
        shoe_id=f"{salt}-{index}",
        opened_position=10,
        algorithm="casino-dominoes/shoe/v1",
        commitment=commitment_of(seed),
        client_seed=CLIENT_SEED,
        nonce=index,
        server_seed=seed.hex(),
        tiles_dealt=sum(len(d.tiles) for d in deals),
        deals=tuple(deals),
        first_wager_position=20,
        round_commitments=tuple((d.round_id, commitment_of(seed)) for d in deals),
    )


def honest_shoes(count: int, seed: int = 1) -> list[tuple[tuple[int, ...], list[tuple[int, ...]]]]:
    """``(order, seats)`` of ``count`` honest shoes, half of them dealt to a cut card."""
    rng = random.Random(seed)
    shoes = []
    for index in range(count):
        order = shuffle(seed_of(index), CLIENT_SEED, index)
        rounds = deal_pattern(rng, 40 if index % 2 else None)
        shoes.append((order, seats_of(deals_of(order, rounds))))
    return shoes


def orders(shuffler: Shuffler, count: int, salt: str) -> list[list[int]]:
    return [shuffler(word_source(index, salt)) for index in range(count)]


# --- broken shuffles --------------------------------------------------------------------


def honest(next_word: NextWord) -> list[int]:
    return shuffle_with(next_word)


def modulo_biased(next_word: NextWord) -> list[int]:
    """Fisher-Yates on 8-bit words reduced modulo n, no rejection: for n = 56, 32 of the
    56 values are 5/4 as likely as the rest."""
    order = list(range(SHOE_SIZE))
    for i in range(SHOE_SIZE - 1, 0, -1):
        j = (next_word() >> 24) % (i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def off_by_one(next_word: NextWord) -> list[int]:
    """``j = uniform_below(i)``: a tile never stays where it is (Sattolo's cycles)."""
    order = list(range(SHOE_SIZE))
    for i in range(SHOE_SIZE - 1, 0, -1):
        j = uniform_below(i, next_word)
        order[i], order[j] = order[j], order[i]
    return order


def naive(next_word: NextWord) -> list[int]:
    """Every position swaps with any of the 56: 56^55 equally likely paths onto 56! orders."""
    order = list(range(SHOE_SIZE))
    for i in range(SHOE_SIZE - 1, 0, -1):
        j = uniform_below(SHOE_SIZE, next_word)
        order[i], order[j] = order[j], order[i]
    return order


def rigged_shoes(count: int, rate: float) -> list[tuple[list[int], list[tuple[int, ...]]]]:
    """Shoes whose dealer, for a share ``rate`` of the Connectors that are not doubles,
    swaps in the next double from further down the shoe (tiles stay a permutation)."""
    rng = random.Random(8)
    shoes = []
    for index in range(count):
        order = list(shuffle(seed_of(index, "rigged"), CLIENT_SEED, index))
        rounds = deal_pattern(rng, 40 if index % 2 else None)
        start = 0
        for seats in rounds:
            end = start + 4 * seats
            for connector in range(start + 3 * seats, end):
                if order[connector] % 28 in DOUBLE_FACES or rng.random() >= rate:
                    continue
                later = [p for p in range(end, SHOE_SIZE) if order[p] % 28 in DOUBLE_FACES]
                if later:
                    order[connector], order[later[0]] = order[later[0]], order[connector]
            start = end
        shoes.append((order, seats_of(deals_of(order, rounds))))
    return shoes
