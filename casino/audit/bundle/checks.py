"""Check a verification bundle from the bundle alone.

Each check is named (``CheckName``) and says why it passed or what it found. The chains
prove the bundle's events are whole and unaltered with respect to their hashes; they
are the log's own once a stream head's hash matches the live feed (``/v1/events``) or a
checkpoint the auditor kept, and the commitment matches the one the table received when
the round opened: a bundle forged whole would pass every check here. The other checks
then judge what the events say:
the commitment came before any wager, the revealed seed hashes to it, the re-derived
shoe holds exactly the dealt tiles, and the settlement is the game's rules applied to
them. The summary fields are proved against the events, never trusted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from casino.audit.bundle.assemble import dealt_seats
from casino.audit.bundle.chain import chain_break
from casino.audit.bundle.deal import round_deal
from casino.audit.bundle.facts import MALFORMED, BundleFacts
from casino.audit.bundle.format import (
    HASH_CHAIN,
    Bundle,
    BundleFormatError,
    DealtSeat,
    read_bundle,
)
from casino.audit.bundle.report import (
    SEED_NOT_REVEALED,
    BundleReport,
    Check,
    CheckName,
    Status,
)
from casino.audit.bundle.settlement import settlement
from casino.audit.shoes import (
    COMMITMENT_MISMATCH,
    MALFORMED_SEED,
    NOT_OPENED,
    UNSUPPORTED_ALGORITHM,
    Problem,
)
from casino.game.shoe import ALGORITHM

# The problems of ``casino.audit.shoes`` that the commitment check reports; the rest are
# the deal's.
_COMMITMENT_PROBLEMS = frozenset(
    {NOT_OPENED, UNSUPPORTED_ALGORITHM, MALFORMED_SEED, COMMITMENT_MISMATCH}
)


def verify_bundle(document: Any) -> BundleReport:
    """Every check of a bundle (parsed JSON, or a ``Bundle``)."""
    try:
        bundle = document if isinstance(document, Bundle) else read_bundle(document)
    except BundleFormatError as error:
        skipped = [
            Check(name, Status.SKIPPED, "the bundle is malformed")
            for name in CheckName
            if name is not CheckName.FORMAT
        ]
        return BundleReport((Check(CheckName.FORMAT, Status.FAIL, str(error)), *skipped))
    facts = BundleFacts(bundle)
    checks = tuple(_guarded(name, check, facts) for name, check in _CHECKS)
    return BundleReport(checks, facts.round_id, facts.shoe_id, bundle.checkpoint)


def _guarded(
    name: CheckName, check: Callable[[BundleFacts], tuple[Status, str]], facts: BundleFacts
) -> Check:
    try:
        status, detail = check(facts)
    except MALFORMED as error:
        return Check(name, Status.FAIL, f"malformed event data: {error!r}")
    return Check(name, status, detail)


def _format(facts: BundleFacts) -> tuple[Status, str]:
    bundle = facts.bundle
    stated = bundle.hash_chain or {}
    problems = [
        f"hash_chain.{key} is {stated.get(key)!r}, this checker knows {HASH_CHAIN[key]!r}"
        for key in ("name", "covers", "genesis_previous_hash")
        if bundle.hash_chain is not None and stated.get(key) != HASH_CHAIN[key]
    ]
    if bundle.shoe.algorithm != ALGORITHM:
        problems.append(f"shoe algorithm {bundle.shoe.algorithm!r}: this checker knows {ALGORITHM}")
    if problems:
        return Status.FAIL, "; ".join(problems)
    return (
        Status.PASS,
        f"{bundle.format} v{bundle.format_version}, {HASH_CHAIN['name']}, {ALGORITHM}",
    )


def _chain(stream: str) -> Callable[[BundleFacts], tuple[Status, str]]:
    def check(facts: BundleFacts) -> tuple[Status, str]:
        part = facts.bundle.round if stream == "round" else facts.bundle.shoe
        problem = chain_break(part.events, part.stream_id)
        if problem is not None:
            return Status.FAIL, problem
        count = len(part.events)
        return Status.PASS, (
            f"{count} events, versions 1-{count}: every hash recomputed and every link "
            "checked from the genesis hash"
        )

    return check


def _summary(facts: BundleFacts) -> tuple[Status, str]:
    """The bundle's summary fields say what the events say."""
    round_opened, shoe_opened = facts.round_opened, facts.shoe_opened
    if round_opened is None:
        return Status.FAIL, "the round's stream does not begin with RoundOpened"
    if shoe_opened is None:
        return Status.FAIL, "the shoe's stream does not begin with ShoeOpened"
    bundle, closed = facts.bundle, facts.shoe_closed
    shoe = shoe_opened.data
    stated_and_recorded: list[tuple[str, object, object]] = [
        ("round.round_id", bundle.round.round_id, round_opened.data["round_id"]),
        ("round.table_id", bundle.round.table_id, round_opened.data["table_id"]),
        ("shoe.shoe_id", bundle.shoe.shoe_id, round_opened.data["shoe_id"]),
        ("shoe.shoe_id", bundle.shoe.shoe_id, shoe["shoe_id"]),
        ("round.table_id", bundle.round.table_id, shoe["table_id"]),
        ("shoe.algorithm", bundle.shoe.algorithm, shoe["algorithm"]),
        ("shoe.commitment", bundle.shoe.commitment, shoe["commitment"]),
        ("shoe.client_seed", bundle.shoe.client_seed, shoe["client_seed"]),
        ("shoe.nonce", bundle.shoe.nonce, shoe["nonce"]),
        ("shoe.status", bundle.shoe.status, "live" if closed is None else "closed"),
        ("shoe.server_seed", bundle.shoe.server_seed,
         None if closed is None else closed.data["server_seed"]),
        ("shoe.tiles_dealt", bundle.shoe.tiles_dealt,
         sum(len(e.data["tiles"]) for e in facts.of_shoe("TilesDealt"))),
        ("dealt", bundle.dealt, _dealt_seats(facts)),
    ]  # fmt: skip
    stated_and_recorded += [
        (f"round event version {e.version}: round_id", facts.round_id, e.data["round_id"])
        for e in bundle.round.events
    ]
    stated_and_recorded += [
        (f"shoe event version {e.version}: shoe_id", facts.shoe_id, e.data["shoe_id"])
        for e in bundle.shoe.events
    ]
    for name, stated, recorded in stated_and_recorded:
        if stated != recorded:
            return Status.FAIL, f"{name} is {stated!r}, the events say {recorded!r}"
    return Status.PASS, "the round, shoe and dealt tiles stated agree with the events"


def _dealt_seats(facts: BundleFacts) -> tuple[DealtSeat, ...]:
    hands = facts.of_round("HandsDealt")
    return dealt_seats(hands[0].data["seats"]) if hands else ()


def _commit_before_bets(facts: BundleFacts) -> tuple[Status, str]:
    round_opened, shoe_opened = facts.round_opened, facts.shoe_opened
    if round_opened is None or shoe_opened is None:
        return Status.FAIL, "the round or the shoe has no opening event"
    committed = shoe_opened.data["commitment"]
    if round_opened.data["commitment"] != committed:
        return Status.FAIL, (
            f"the round announced commitment {round_opened.data['commitment']}, "
            f"the shoe committed to {committed}"
        )
    wagers = facts.of_round("WagerPlaced")
    if not wagers:
        return Status.PASS, "the round announced the shoe's commitment; no wager was placed"
    first = min(wagers, key=lambda w: w.position)
    if shoe_opened.position >= first.position:
        return Status.FAIL, (
            f"ShoeOpened is at log position {shoe_opened.position}, after the first wager "
            f"(log position {first.position})"
        )
    # The hashed evidence is the round's own chain: RoundOpened (version 1) carries the
    # commitment, and every wager comes later in it. Log positions are not hashed: they
    # confirm the order in the log, as context.
    return Status.PASS, (
        f"the round's first event announced commitment {committed} before any wager in its "
        f"hashed chain; ShoeOpened is at log position {shoe_opened.position}, the first "
        f"wager at {first.position}"
    )


def _seed_revealed(facts: BundleFacts) -> tuple[Status, str]:
    closed = facts.shoe_closed
    if closed is None:
        return Status.FAIL, SEED_NOT_REVEALED
    if closed is not facts.bundle.shoe.events[-1] or len(facts.of_shoe("ShoeClosed")) > 1:
        return Status.FAIL, "ShoeClosed is not the shoe's one last event"
    return Status.PASS, (
        f"revealed in ShoeClosed (shoe version {closed.version}, log position {closed.position})"
    )


def _shoe_problems(facts: BundleFacts, commitment: bool) -> tuple[Status, str]:
    verdict = facts.verdict
    if verdict is None:
        return Status.SKIPPED, "needs the server seed, which the shoe has not revealed"
    problems = [p for p in verdict.problems if (p.reason in _COMMITMENT_PROBLEMS) == commitment]
    if problems:
        return Status.FAIL, "; ".join(_describe(p) for p in problems)
    if verdict.order is None:  # the seed is unusable: reported by the commitment check
        return Status.SKIPPED, "the shoe cannot be re-derived without a well-formed seed"
    if commitment:
        return Status.PASS, "SHA-256 of the revealed server seed equals the commitment"
    deals = facts.of_shoe("TilesDealt")
    dealt = sum(len(e.data["tiles"]) for e in deals)
    return Status.PASS, (
        f"the shoe re-derived from seed, client seed and nonce gives all {dealt} tiles of "
        f"its {len(deals)} TilesDealt, dealt in sequence from position 0"
    )


def _describe(problem: Problem) -> str:
    at = "" if problem.position is None else f" at shoe position {problem.position}"
    return f"{problem.reason}{at}: expected {problem.expected!r}, found {problem.found!r}"


_CHECKS: tuple[tuple[CheckName, Callable[[BundleFacts], tuple[Status, str]]], ...] = (
    (CheckName.FORMAT, _format),
    (CheckName.ROUND_CHAIN, _chain("round")),
    (CheckName.SHOE_CHAIN, _chain("shoe")),
    (CheckName.SUMMARY, _summary),
    (CheckName.COMMIT_BEFORE_BETS, _commit_before_bets),
    (CheckName.SEED_REVEALED, _seed_revealed),
    (CheckName.COMMITMENT, lambda facts: _shoe_problems(facts, commitment=True)),
    (CheckName.SHOE_DEAL, lambda facts: _shoe_problems(facts, commitment=False)),
    (CheckName.ROUND_DEAL, round_deal),
    (CheckName.SETTLEMENT, settlement),
)
