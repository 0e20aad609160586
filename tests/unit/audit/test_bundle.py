"""The bundle checker: an honest round passes every check, and each kind of tampering
fails the check that judges it, by name."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from casino.audit.bundle.checks import verify_bundle
from casino.audit.bundle.format import FORMAT, read_bundle
from casino.audit.bundle.report import SEED_NOT_REVEALED, BundleReport, CheckName, Status
from casino.game.shoe import commitment_of
from tests.unit.audit.bundle_builders import (
    SEED,
    Json,
    event_of,
    forge,
    honest_bundle,
    rechain,
)

ALL_PASS = {name: Status.PASS for name in CheckName}


def statuses(report: BundleReport) -> dict[CheckName, Status]:
    return {check.name: check.status for check in report.checks}


def failed(document: Json) -> set[CheckName]:
    return {check.name for check in verify_bundle(document).failed}


def detail(report: BundleReport, name: CheckName) -> str:
    return next(check.detail for check in report.checks if check.name == name)


# --- honest bundles ---------------------------------------------------------------------


def test_an_honest_round_passes_every_check() -> None:
    report = verify_bundle(honest_bundle())
    assert statuses(report) == ALL_PASS, report.as_json()
    assert report.verified
    assert (report.round_id, report.shoe_id) == ("R1", "S1")
    assert [c.name for c in report.checks] == list(CheckName)


def test_the_bundle_reads_back_exactly_as_written() -> None:
    document = honest_bundle()
    assert read_bundle(document).as_json() == document
    assert document["format"] == FORMAT and document["format_version"] == 1
    assert document["shoe"]["server_seed"] == SEED.hex()
    assert [seat["seat"] for seat in document["dealt"]] == [1, 2, 3, 4, 5, 7]
    assert [t["position"] for t in document["dealt"][1]["tiles"]] == [1, 7, 13]
    assert document["dealt"][1]["connector"]["position"] == 19
    assert document["dealt"][0]["tiles"][0] == {"id": 18, "face": "3-3", "position": 0}
    settled = event_of(document, "round", "RoundSettled")["data"]
    assert settled["payouts"] == 1_000 * 3 + 100 * 3 + 400 * 3  # seats 1 and 7, seat 2's Doubles


def test_a_live_shoe_bundle_has_no_seed_and_is_not_verified() -> None:
    document = honest_bundle(closed=False)
    assert document["shoe"]["server_seed"] is None and document["shoe"]["status"] == "live"
    assert SEED.hex() not in str(document)
    report = verify_bundle(document)
    assert not report.verified
    assert [c.name for c in report.failed] == [CheckName.SEED_REVEALED]
    assert detail(report, CheckName.SEED_REVEALED) == SEED_NOT_REVEALED
    assert report.status_of(CheckName.COMMITMENT) is Status.SKIPPED
    assert report.status_of(CheckName.SHOE_DEAL) is Status.SKIPPED
    # What can be checked without the seed still is.
    for name in (CheckName.ROUND_CHAIN, CheckName.SHOE_CHAIN, CheckName.ROUND_DEAL,
                 CheckName.SETTLEMENT, CheckName.COMMIT_BEFORE_BETS):  # fmt: skip
        assert report.status_of(name) is Status.PASS


def test_a_round_voided_before_the_deal_has_nothing_to_deal_or_settle() -> None:
    report = verify_bundle(honest_bundle(dealt=False))
    assert report.verified, report.as_json()
    assert report.status_of(CheckName.ROUND_DEAL) is Status.SKIPPED
    assert report.status_of(CheckName.SETTLEMENT) is Status.SKIPPED
    assert "voided" in detail(report, CheckName.SETTLEMENT)


def test_a_forger_who_changes_nothing_changes_nothing() -> None:
    assert statuses(verify_bundle(forge(honest_bundle()))) == ALL_PASS


# --- the chains ---------------------------------------------------------------------------


def test_edited_event_data_breaks_its_chain() -> None:
    document = honest_bundle()
    event_of(document, "round", "RoundSettled")["data"]["payouts"] += 100
    assert CheckName.ROUND_CHAIN in failed(document)
    report = verify_bundle(document)
    assert "hash does not match the event's content" in detail(report, CheckName.ROUND_CHAIN)


def test_edited_metadata_breaks_its_chain() -> None:
    document = honest_bundle()
    event_of(document, "shoe", "TilesDealt")["metadata"]["actor"] = "admin:someone"
    assert failed(document) == {CheckName.SHOE_CHAIN}


def test_an_edited_hash_breaks_the_chain() -> None:
    document = honest_bundle()
    event_of(document, "round", "WagerPlaced")["hash"] = "f" * 64
    report = verify_bundle(document)
    assert [c.name for c in report.failed] == [CheckName.ROUND_CHAIN]
    assert "version 2" in detail(report, CheckName.ROUND_CHAIN)


def test_a_broken_link_is_named() -> None:
    document = honest_bundle()
    event_of(document, "shoe", "ShoeClosed")["previous_hash"] = "0" * 64
    assert "previous_hash does not link" in detail(verify_bundle(document), CheckName.SHOE_CHAIN)


def test_a_removed_event_breaks_the_chain() -> None:
    document = honest_bundle()
    del document["round"]["events"][2]  # the second wager
    report = verify_bundle(document)
    assert CheckName.ROUND_CHAIN in {c.name for c in report.failed}
    assert "an event is missing or moved" in detail(report, CheckName.ROUND_CHAIN)


def test_swapped_events_break_the_chain() -> None:
    document = honest_bundle()
    events = document["shoe"]["events"]
    events[1], events[2] = events[2], events[1]  # ShoeClosed before TilesDealt
    assert CheckName.SHOE_CHAIN in failed(document)


def test_an_event_from_another_stream_is_refused() -> None:
    document = honest_bundle()
    document["round"]["events"][1]["stream_id"] = "round-R2"
    assert "belongs to stream" in detail(verify_bundle(document), CheckName.ROUND_CHAIN)


# --- what the events say, even when re-chained by a forger -------------------------------


def test_a_wrong_seed_fails_the_commitment_and_the_deal() -> None:
    document = honest_bundle()
    event_of(document, "shoe", "ShoeClosed")["data"]["server_seed"] = bytes(range(1, 33)).hex()
    assert failed(forge(document)) == {CheckName.COMMITMENT, CheckName.SHOE_DEAL,
                                       CheckName.ROUND_DEAL}  # fmt: skip


def test_a_commitment_to_another_seed_fails_the_commitment_only() -> None:
    document = honest_bundle()
    other = commitment_of(bytes(32))
    event_of(document, "shoe", "ShoeOpened")["data"]["commitment"] = other
    event_of(document, "round", "RoundOpened")["data"]["commitment"] = other
    report = verify_bundle(forge(document))
    assert [c.name for c in report.failed] == [CheckName.COMMITMENT]
    assert "commitment_mismatch" in detail(report, CheckName.COMMITMENT)


@pytest.mark.parametrize(("field", "value"), [("client_seed", "table-8"), ("nonce", 1)])
def test_a_wrong_client_seed_or_nonce_fails_the_deal(field: str, value: object) -> None:
    document = honest_bundle()
    event_of(document, "shoe", "ShoeOpened")["data"][field] = value
    report = verify_bundle(forge(document))
    assert report.status_of(CheckName.COMMITMENT) is Status.PASS
    assert report.status_of(CheckName.SHOE_DEAL) is Status.FAIL
    assert "tile_mismatch at shoe position 0" in detail(report, CheckName.SHOE_DEAL)


def test_altered_dealt_tiles_fail_the_shoe_deal() -> None:
    document = honest_bundle()
    tiles = event_of(document, "shoe", "TilesDealt")["data"]["tiles"]
    tiles[0], tiles[1] = tiles[1], tiles[0]
    assert CheckName.SHOE_DEAL in failed(forge(document))


def test_an_altered_hand_fails_the_round_deal() -> None:
    document = honest_bundle()
    seat = event_of(document, "round", "HandsDealt")["data"]["seats"][0]
    seat["hand"][0], seat["connector"] = seat["connector"], seat["hand"][0]
    report = verify_bundle(forge(document))
    assert report.status_of(CheckName.ROUND_DEAL) is Status.FAIL
    assert report.status_of(CheckName.SHOE_DEAL) is Status.PASS
    assert "differs from the round's TilesDealt: seat 1" in detail(report, CheckName.ROUND_DEAL)


def test_altered_positions_fail_the_round_deal() -> None:
    document = honest_bundle()
    event_of(document, "round", "HandsDealt")["data"]["seats"][1]["positions"][3] = 55
    assert CheckName.ROUND_DEAL in failed(forge(document))


def test_an_altered_payout_fails_the_settlement() -> None:
    document = honest_bundle()
    settled = event_of(document, "round", "RoundSettled")["data"]
    settled["seats"][1]["main_payout"] += 2_000
    settled["payouts"] += 2_000  # consistent totals: only the rules can tell
    report = verify_bundle(forge(document))
    assert [c.name for c in report.failed] == [CheckName.SETTLEMENT]
    expected = "seat 2: RoundSettled says main_payout 2000, the wagers and the rules give 0"
    assert expected in detail(report, CheckName.SETTLEMENT)


def test_a_wrong_total_fails_the_settlement() -> None:
    document = honest_bundle()
    event_of(document, "round", "RoundSettled")["data"]["handle"] -= 1
    assert failed(forge(document)) == {CheckName.SETTLEMENT}


def test_a_stake_that_differs_from_the_wager_fails_the_settlement() -> None:
    document = honest_bundle()
    event_of(document, "round", "WagerPlaced")["data"]["main"] = 5_000
    assert failed(forge(document)) == {CheckName.SETTLEMENT}


def test_a_commitment_made_after_the_first_wager_is_caught() -> None:
    document = honest_bundle()
    first_wager = event_of(document, "round", "WagerPlaced")["position"]
    event_of(document, "shoe", "ShoeOpened")["position"] = first_wager + 1  # not hashed
    report = verify_bundle(document)
    assert [c.name for c in report.failed] == [CheckName.COMMIT_BEFORE_BETS]


def test_a_round_announcing_another_commitment_is_caught() -> None:
    document = honest_bundle()
    event_of(document, "round", "RoundOpened")["data"]["commitment"] = "0" * 64
    assert failed(forge(document)) == {CheckName.COMMIT_BEFORE_BETS}


def test_a_dropped_settlement_is_caught_though_the_chain_still_links() -> None:
    document = honest_bundle()
    document["round"]["events"].pop()  # the last event: the chain alone cannot tell
    report = verify_bundle(document)
    assert report.status_of(CheckName.ROUND_CHAIN) is Status.PASS
    assert report.status_of(CheckName.SETTLEMENT) is Status.FAIL


# --- the summary is proved against the events ---------------------------------------------


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("shoe", "server_seed"), "ab" * 32),
        (("shoe", "commitment"), "0" * 64),
        (("shoe", "nonce"), 7),
        (("round", "table_id"), "T2"),
        (("dealt", 0, "connector", "id"), 0),
    ],
)
def test_a_summary_field_that_the_events_do_not_say_fails(
    path: tuple[str | int, ...], value: object
) -> None:
    document = honest_bundle()
    container: object = document
    for key in path[:-1]:
        container = container[key]  # type: ignore[index]
    container[path[-1]] = value  # type: ignore[index]
    assert CheckName.SUMMARY in failed(document)


# --- malformed bundles never crash the checker --------------------------------------------


@pytest.mark.parametrize(
    "document",
    [[], {"format": "something else", "format_version": 1}, {"format": FORMAT}, "text", None],
)
def test_a_document_that_is_not_a_bundle_fails_the_format_check(document: object) -> None:
    report = verify_bundle(document)
    assert [c.name for c in report.failed] == [CheckName.FORMAT]
    assert {c.status for c in report.checks[1:]} == {Status.SKIPPED}


def test_a_missing_field_is_named() -> None:
    document = honest_bundle()
    del document["shoe"]["events"][0]["hash"]
    assert "shoe.events[0].hash" in detail(verify_bundle(document), CheckName.FORMAT)


def test_an_unknown_hash_chain_fails_the_format_check() -> None:
    document = honest_bundle()
    document["hash_chain"]["name"] = "md5"
    assert failed(document) == {CheckName.FORMAT}


def test_malformed_event_data_fails_the_checks_that_read_it() -> None:
    document = honest_bundle()
    event_of(document, "round", "RoundSettled")["data"]["seats"] = "none"
    event_of(document, "round", "HandsDealt")["data"]["seats"][0]["hand"] = None
    report = verify_bundle(rechain(document))  # the summary cannot be rebuilt from nonsense
    assert report.status_of(CheckName.ROUND_CHAIN) is Status.PASS
    assert report.status_of(CheckName.SETTLEMENT) is Status.FAIL
    assert report.status_of(CheckName.ROUND_DEAL) is Status.FAIL
    assert "malformed event data" in detail(report, CheckName.ROUND_DEAL)


# --- the checker is pure ----------------------------------------------------------------

ALLOWED = (
    "casino.audit.bundle",
    "casino.audit.shoes",
    "casino.game",
    "casino.eventstore.canonical",
)
STANDARD_LIBRARY = {"__future__", "collections", "dataclasses", "enum", "functools", "typing"}


def test_the_checker_imports_only_the_game_core_and_the_canonical_hash() -> None:
    package = Path(__file__).resolve().parents[3] / "casino" / "audit" / "bundle"
    imported: set[str] = set()
    for module in [*package.glob("*.py"), package.parent / "shoes.py"]:
        for node in ast.walk(ast.parse(module.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                imported.add(node.module)
            elif isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
    ours = {name for name in imported if name.startswith("casino")}
    assert "casino.eventstore.canonical" in ours  # the scan saw the package
    assert {name for name in ours if not name.startswith(ALLOWED)} == set()
    assert {name.split(".")[0] for name in imported - ours} <= STANDARD_LIBRARY
