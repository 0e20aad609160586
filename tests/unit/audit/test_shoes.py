"""Per-shoe verification: an honest shoe passes, each kind of tampering is named."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from casino.audit import shoes
from casino.audit.shoes import ClosedShoe, Deal, seats_dealt, verify_shoe
from casino.game.deal import deal_round
from casino.game.shoe import commitment_of, shuffle
from tests.unit.audit.builders import closed_shoe

CHECK_SEED = bytes(range(32))


def reasons(shoe: ClosedShoe) -> list[str]:
    return [p.reason for p in verify_shoe(shoe).problems]


def test_an_honest_shoe_passes_and_carries_its_order() -> None:
    shoe = closed_shoe(1, rounds=(3, 2, 4))
    verdict = verify_shoe(shoe)
    assert verdict.ok and verdict.first_mismatch is None
    assert verdict.order == shuffle(bytes.fromhex(shoe.server_seed), shoe.client_seed, 1)


def test_the_spec_check_vector_verifies() -> None:
    tiles = (18, 28, 1, 37, 14, 23, 29, 19, 31, 52, 8, 3)
    shoe = ClosedShoe(
        "check", 1, "casino-dominoes/shoe/v1",
        "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd",
        "table-7", 0, CHECK_SEED.hex(), 12, (Deal("r", 0, tiles),),
    )  # fmt: skip
    assert verify_shoe(shoe).ok


@settings(max_examples=60, deadline=None)
@given(
    index=st.integers(0, 10_000),
    rounds=st.lists(st.integers(1, 7), min_size=1, max_size=2),
    data=st.data(),
)
def test_any_tile_out_of_seed_order_is_found_at_its_position(
    index: int, rounds: list[int], data: st.DataObject
) -> None:
    shoe = closed_shoe(index, rounds)
    assert verify_shoe(shoe).ok
    dealt = [t for d in shoe.deals for t in d.tiles]
    first, second = sorted(
        data.draw(st.lists(st.integers(0, len(dealt) - 1), min_size=2, max_size=2, unique=True))
    )
    dealt[first], dealt[second] = dealt[second], dealt[first]
    deals, start = [], 0
    for deal in shoe.deals:
        deals.append(replace(deal, tiles=tuple(dealt[start : start + len(deal.tiles)])))
        start += len(deal.tiles)
    verdict = verify_shoe(replace(shoe, deals=tuple(deals)))
    assert [p.reason for p in verdict.problems] == [shoes.TILE_MISMATCH]
    assert verdict.first_mismatch == first


def test_a_tile_not_in_the_order_at_all_is_a_mismatch() -> None:
    shoe = closed_shoe(2)
    deal = shoe.deals[0]
    order = verify_shoe(shoe).order
    assert order is not None
    stranger = order[30]
    tampered = replace(
        shoe, deals=(replace(deal, tiles=(*deal.tiles[:5], stranger, *deal.tiles[6:])),)
    )
    problem = verify_shoe(tampered).problems[0]
    assert (problem.reason, problem.position, problem.found) == (shoes.TILE_MISMATCH, 5, stranger)


def test_a_commitment_that_does_not_match_the_revealed_seed() -> None:
    shoe = closed_shoe(3)
    other = commitment_of(b"\x01" * 32)
    assert reasons(replace(shoe, commitment=other)) == [
        shoes.COMMITMENT_MISMATCH,
        *[shoes.ROUND_COMMITMENT_MISMATCH] * len(shoe.deals),
    ]
    wrong_seed = replace(shoe, server_seed=(b"\x01" * 32).hex())
    assert reasons(wrong_seed)[0] == shoes.COMMITMENT_MISMATCH
    assert shoes.TILE_MISMATCH in reasons(wrong_seed)  # another seed, another order


def test_a_commitment_recorded_after_a_wager() -> None:
    shoe = closed_shoe(4)
    assert reasons(replace(shoe, opened_position=21)) == [shoes.COMMITTED_AFTER_WAGER]
    assert verify_shoe(replace(shoe, first_wager_position=None)).ok  # no wager: nothing to precede


def test_a_round_that_announced_another_commitment() -> None:
    shoe = closed_shoe(5, rounds=(2, 2))
    announced = (shoe.round_commitments[0], ("r-x", "0" * 64))
    problems = verify_shoe(replace(shoe, round_commitments=announced)).problems
    assert [(p.reason, p.found) for p in problems] == [
        (shoes.ROUND_COMMITMENT_MISMATCH, f"r-x: {'0' * 64}")
    ]


def test_deals_that_skip_or_repeat_positions() -> None:
    shoe = closed_shoe(6, rounds=(2, 2))
    order = verify_shoe(shoe).order
    assert order is not None
    skipping = (shoe.deals[0], Deal("r1", 12, tuple(order[12:20])))
    verdict = verify_shoe(replace(shoe, deals=skipping))
    assert [p.reason for p in verdict.problems] == [shoes.DEAL_OUT_OF_SEQUENCE]
    assert verdict.first_mismatch == 8
    repeating = (shoe.deals[0], Deal("r1", 0, shoe.deals[0].tiles))
    assert reasons(replace(shoe, deals=repeating, tiles_dealt=16)) == [shoes.DEAL_OUT_OF_SEQUENCE]


def test_a_malformed_deal_and_a_wrong_count_of_tiles_dealt() -> None:
    shoe = closed_shoe(7)
    short = (replace(shoe.deals[0], tiles=shoe.deals[0].tiles[:10]),)
    assert reasons(replace(shoe, deals=short, tiles_dealt=10)) == [shoes.MALFORMED_DEAL]
    assert reasons(replace(shoe, tiles_dealt=11)) == [shoes.TILES_DEALT_MISMATCH]


def test_shoes_that_cannot_be_re_derived() -> None:
    shoe = closed_shoe(8)
    assert reasons(replace(shoe, algorithm="other/v9")) == [shoes.UNSUPPORTED_ALGORITHM]
    assert reasons(replace(shoe, server_seed="xyz")) == [shoes.MALFORMED_SEED]
    assert reasons(replace(shoe, nonce=-1)) == [shoes.MALFORMED_SEED]
    assert reasons(replace(shoe, opened_position=None)) == [shoes.NOT_OPENED]
    assert verify_shoe(replace(shoe, algorithm="other/v9")).order is None


def test_seats_are_regrouped_as_the_game_core_deals_them() -> None:
    shoe = closed_shoe(9, rounds=(3, 5))
    order = verify_shoe(shoe).order
    assert order is not None
    expected = [(*s.hand, s.connector) for s in deal_round(order, 0, [1, 2, 3])]
    expected += [(*s.hand, s.connector) for s in deal_round(order, 12, [1, 2, 3, 4, 5])]
    assert seats_dealt(shoe) == expected


def test_a_verdict_as_json() -> None:
    shoe = closed_shoe(10)
    verdict = verify_shoe(replace(shoe, tiles_dealt=99)).as_json()
    assert verdict == {
        "shoe_id": "honest-10",
        "reasons": [shoes.TILES_DEALT_MISMATCH],
        "first_mismatch": None,
        "problems": [
            {"reason": shoes.TILES_DEALT_MISMATCH, "position": None, "expected": 12, "found": 99}
        ],
    }
