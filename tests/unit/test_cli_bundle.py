"""``casino shoe verify --bundle``: the report, the exit status, and bad input."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from casino.audit.bundle.report import SEED_NOT_REVEALED, CheckName
from tests.unit.audit.bundle_builders import event_of, honest_bundle
from tests.unit.test_cli import run


def _write(tmp_path: Path, document: object) -> str:
    path = tmp_path / "round.json"
    path.write_text(json.dumps(document))
    return str(path)


def test_an_honest_bundle_verifies(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, out, err = run(capsys, "shoe", "verify", "--bundle", _write(tmp_path, honest_bundle()))
    assert (status, err) == (0, "")
    assert out.strip().endswith("VERIFIED: every check passed")
    for name in CheckName:
        assert f"PASS  {name.value}" in out


def test_the_json_report_names_every_check(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = _write(tmp_path, honest_bundle())
    status, out, _ = run(capsys, "shoe", "verify", "--bundle", path, "--json")
    report = json.loads(out)
    assert status == 0 and report["verified"] is True
    assert [c["name"] for c in report["checks"]] == [name.value for name in CheckName]
    assert {c["status"] for c in report["checks"]} == {"pass"}
    assert (report["round_id"], report["shoe_id"], report["checkpoint"]) == ("R1", "S1", None)


def test_a_tampered_bundle_exits_1_naming_the_check(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    document = honest_bundle()
    event_of(document, "round", "RoundSettled")["data"]["payouts"] += 1
    status, out, _ = run(capsys, "shoe", "verify", "--bundle", _write(tmp_path, document))
    assert status == 1
    assert "FAIL  round_chain" in out
    assert "NOT VERIFIED" in out


def test_a_live_shoe_exits_1_saying_the_seed_is_not_revealed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = _write(tmp_path, honest_bundle(closed=False))
    status, out, _ = run(capsys, "shoe", "verify", "--bundle", path)
    assert status == 1
    assert SEED_NOT_REVEALED in out
    status, out, _ = run(capsys, "shoe", "verify", "--bundle", path, "--json")
    assert status == 1 and json.loads(out)["verified"] is False


def test_the_bundle_can_come_from_standard_input(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = json.dumps(honest_bundle()).encode()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
    status, out, _ = run(capsys, "shoe", "verify", "--bundle", "-", "--json")
    assert status == 0 and json.loads(out)["verified"] is True


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--bundle", "{missing}"], "cannot read"),
        (["--bundle", "{not_json}"], "is not JSON"),
        (["--bundle", "{bundle}", "--nonce", "0"], "give the bundle alone"),
        (["--bundle", "{bundle}", "--commitment", "0" * 64], "give the bundle alone"),
        (["--client-seed", "t", "--nonce", "0"], "or --bundle FILE"),
        ([], "or --bundle FILE"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], message: str
) -> None:
    (tmp_path / "not.json").write_text("{ not json")
    files = {
        "missing": str(tmp_path / "missing.json"),
        "not_json": str(tmp_path / "not.json"),
        "bundle": _write(tmp_path, honest_bundle()),
    }
    status, out, err = run(capsys, "shoe", "verify", *[a.format(**files) for a in argv])
    assert (status, out) == (2, "")
    assert message in err
    assert len(err.strip().splitlines()) == 1


def test_a_json_document_that_is_not_a_bundle_fails_the_format_check(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, out, _ = run(capsys, "shoe", "verify", "--bundle", _write(tmp_path, {"a": 1}))
    assert status == 1
    assert "FAIL  format" in out
