"""``casino webhooks`` on a database of the test's own (wired here through a parser of
its own until casino/cli/main.py adds it)."""

from __future__ import annotations

import json

import pytest

from casino.cli import webhooks
from casino.cli.args import Parser, UsageError
from tests.integration.webhooks.scene import Fresh, play

pytestmark = pytest.mark.integration


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    parser = Parser(prog="casino")
    webhooks.add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["webhooks", *argv])
    assert args.run(args) == 0
    return capsys.readouterr().out


def test_subscribe_list_deliveries_and_replay(
    fresh_casino: Fresh,
    fresh_database_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    casino, _ = fresh_casino
    play(casino, ("T1",), rounds=1)
    monkeypatch.setenv("DATABASE_URL", fresh_database_url)
    out = run(
        capsys, "subscribe", "--url", "https://t.example/h", "--tables", "T1",
        "--event-types", "RoundSettled,WagerPlaced", "--from-position", "0",
    )  # fmt: skip
    lines = dict(line.split(None, 1) for line in out.splitlines()[:2])
    subscription, secret = lines["id"], lines["secret"]
    assert secret.startswith("whsec_")
    listed = json.loads(run(capsys, "list", "--json"))
    assert [(s["id"], s["tables"], s["lag"]["pending"]) for s in listed] == [
        (subscription, ["T1"], 0)
    ]
    assert secret not in json.dumps(listed)
    assert "replaying" in run(capsys, "replay", subscription, "--from-position", "0")
    assert json.loads(run(capsys, "deliveries", subscription, "--json"))["deliveries"] == []
    assert "deactivated" in run(capsys, "deactivate", subscription)


def test_bad_input_is_a_one_line_usage_error(
    fresh_database_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", fresh_database_url)
    with pytest.raises(UsageError, match="url"):
        run(capsys, "subscribe", "--url", "ftp://nope")
    with pytest.raises(UsageError, match="subscription_id"):
        run(capsys, "deliveries", "sub_0000000000000000")
