"""The outcome of checking a bundle: one line per named check."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from casino.audit.bundle.format import BundleCheckpoint


class CheckName(StrEnum):
    """The checks, in the order they run and are reported."""

    FORMAT = "format"
    ROUND_CHAIN = "round_chain"
    SHOE_CHAIN = "shoe_chain"
    SUMMARY = "summary"
    COMMIT_BEFORE_BETS = "commit_before_bets"
    SEED_REVEALED = "seed_revealed"
    COMMITMENT = "commitment"
    SHOE_DEAL = "shoe_deal"
    ROUND_DEAL = "round_deal"
    SETTLEMENT = "settlement"


SEED_NOT_REVEALED = "seed not yet revealed: the commitment can be checked once the shoe closes"


class Status(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    SKIPPED = "skipped"  # nothing to check (a round never dealt), or a check it needs failed


@dataclass(frozen=True)
class Check:
    name: CheckName
    status: Status
    detail: str

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name.value, "status": self.status.value, "detail": self.detail}


@dataclass(frozen=True)
class BundleReport:
    checks: tuple[Check, ...]
    round_id: str | None = None
    shoe_id: str | None = None
    checkpoint: BundleCheckpoint | None = None

    @property
    def verified(self) -> bool:
        """Every check passed or had nothing to check; a live shoe's bundle is not verified
        (its seed is not revealed yet)."""
        return all(check.status is not Status.FAIL for check in self.checks)

    @property
    def failed(self) -> list[Check]:
        return [check for check in self.checks if check.status is Status.FAIL]

    def status_of(self, name: CheckName) -> Status:
        return next(check.status for check in self.checks if check.name == name)

    def as_json(self) -> dict[str, Any]:
        return {
            "verified": self.verified,
            "round_id": self.round_id,
            "shoe_id": self.shoe_id,
            "checkpoint": None if self.checkpoint is None else self.checkpoint.as_json(),
            "checks": [check.as_json() for check in self.checks],
        }
