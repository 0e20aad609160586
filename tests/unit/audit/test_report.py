"""The audit over plain shoes: failing shoes are listed and kept out of the statistics."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from casino.audit import shoes
from casino.audit.rng import audit_shoes
from casino.audit.statistics import Status
from tests.unit.audit.builders import closed_shoe


def honest(count: int) -> list[shoes.ClosedShoe]:
    return [closed_shoe(i, rounds=(1 + i % 7,)) for i in range(count)]


def test_honest_shoes_make_a_clean_report() -> None:
    audit = audit_shoes(honest(300), 300)
    assert audit.ok and audit.failures == []
    assert (audit.shoes_closed, audit.shoes_verified, audit.shoes_failed) == (300, 300, 0)
    assert audit.hands == sum(1 + i % 7 for i in range(300))
    assert Status.FAIL not in {t.status for t in audit.tests}
    assert audit.batch_shoes == 20


def test_a_failing_shoe_is_listed_and_left_out_of_the_statistics() -> None:
    shoes_ = honest(30)
    shoes_[7] = replace(shoes_[7], commitment="0" * 64)
    audit = audit_shoes(shoes_, 30)
    assert not audit.ok
    assert [(f.shoe_id, f.problems[0].reason) for f in audit.failures] == [
        ("honest-7", shoes.COMMITMENT_MISMATCH)
    ]
    assert audit.shoes_verified == 29
    assert audit.tests[0].sample_size["shoes"] == 29


def test_the_report_as_json() -> None:
    audit = audit_shoes(honest(25), 25, significance=0.01)
    shown = json.loads(json.dumps(audit.as_json()))
    assert shown["ok"] is True and shown["significance"] == 0.01
    assert shown["shoes"] == {"closed": 25, "open": 0, "verified": 25, "failed": 0,
                              "failures_listed": 0}  # fmt: skip
    assert [t["name"] for t in shown["tests"]] == [
        "position_by_tile",
        "adjacent_pairs",
        "doubles_per_hand",
        "point_totals",
        "doubles_events",
        "second_level_position_by_tile",
        "second_level_adjacent_pairs",
    ]
    for test in shown["tests"]:
        assert set(test) == {
            "name", "status", "method", "binning", "statistic", "degrees_of_freedom",
            "p_value", "significance", "sample_size", "note",
        }  # fmt: skip
        assert test["significance"] == 0.01


def test_a_significance_level_is_a_probability() -> None:
    with pytest.raises(ValueError, match="between 0 and 1"):
        audit_shoes([], 0, significance=1.5)
