from __future__ import annotations

import json
import subprocess
import sys

import pytest

from casino.cli.main import main
from casino.game.odds import odds_report, shoe_without_faces
from casino.game.tiles import face_index

CHECK_SEED = bytes(range(32)).hex()
CHECK_COMMITMENT = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        status = main(list(argv))
    except SystemExit as exit_:
        status = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


def test_odds_json_has_the_documented_shape(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "odds", "--json")
    assert status == 0
    data = json.loads(out)
    assert set(data) == {"main", "doubles"}
    assert set(data["main"]) == {"1", "2", "3", "4", "5"}
    assert set(data["doubles"]) == {"1", "2", "3", "4"}
    for entry in data["main"].values():
        assert set(entry) == {"rtp", "house_edge", "totals"}
        assert list(entry["totals"]) == [str(t) for t in range(0, 45, 5)]
        assert entry["rtp"] + entry["house_edge"] == pytest.approx(1.0)
    for entry in data["doubles"].values():
        assert list(entry["events"]) == [
            "maiden",
            "double_doubles",
            "four_doubles",
            "three_doubles",
            "two_doubles",
            "lose",
        ]
    assert data["main"]["1"]["totals"]["40"] == pytest.approx(1 / 367_290)
    assert data["main"]["1"]["house_edge"] == float(odds_report().main[1].house_edge)


def test_odds_with_removed_faces(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "odds", "--json", "--removed", "6-6,3-6,2-3")
    assert status == 0
    faces = [face_index((6, 6)), face_index((3, 6)), face_index((2, 3))]
    expected = odds_report(shoe_without_faces(faces)).as_json()
    assert json.loads(out) == json.loads(json.dumps(expected))
    assert json.loads(out) != odds_report().as_json()


def test_odds_tables_are_readable(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "odds")
    assert status == 0
    assert "shoe of 56 tiles" in out
    assert "house edge" in out
    assert "maiden" in out
    assert "1 in 367,290" in out


@pytest.mark.parametrize(
    ("removed", "message"),
    [
        ("9-9", "not a domino face"),
        ("6-6,6-6,6-6", "removed more than 2 times"),
        ("6-6,,3-3", "malformed list"),
        ("", "malformed list"),
        ("6-6;3-3", "not a domino face"),
    ],
)
def test_bad_removed_lists_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str], removed: str, message: str
) -> None:
    status, out, err = run(capsys, "odds", "--removed", removed)
    assert status == 2
    assert out == ""
    assert message in err
    assert len(err.strip().splitlines()) == 1


def test_shoe_verify_json_reproduces_the_check_vector(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(
        capsys,
        "shoe",
        "verify",
        "--server-seed",
        CHECK_SEED,
        "--client-seed",
        "table-7",
        "--nonce",
        "0",
        "--json",
    )
    assert status == 0
    data = json.loads(out)
    assert data["commitment"] == CHECK_COMMITMENT
    assert data["order"][:12] == [18, 28, 1, 37, 14, 23, 29, 19, 31, 52, 8, 3]
    assert sorted(data["order"]) == list(range(56))
    assert "matches" not in data


def test_shoe_verify_checks_a_given_commitment(capsys: pytest.CaptureFixture[str]) -> None:
    args = [
        "shoe",
        "verify",
        "--server-seed",
        CHECK_SEED,
        "--client-seed",
        "table-7",
        "--nonce",
        "0",
    ]
    status, out, _ = run(capsys, *args, "--commitment", CHECK_COMMITMENT.upper(), "--json")
    assert (status, json.loads(out)["matches"]) == (0, True)
    status, out, _ = run(capsys, *args, "--commitment", "0" * 64, "--json")
    assert (status, json.loads(out)["matches"]) == (1, False)
    status, out, _ = run(capsys, *args, "--commitment", CHECK_COMMITMENT)
    assert status == 0
    assert "MATCHES" in out
    assert "    0    18   3-3    0" in out  # position, tile id, face, set
    assert len([line for line in out.splitlines() if line[:8].strip().isdigit()]) == 56


@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [
        ("--server-seed", "00", "64 hex digits"),
        ("--server-seed", "zz" * 32, "64 hex digits"),
        ("--nonce", "-1", "non-negative integer"),
        ("--nonce", "one", "non-negative integer"),
        ("--commitment", "abc", "64 hex digits"),
    ],
)
def test_shoe_verify_bad_input_exits_2(
    capsys: pytest.CaptureFixture[str], flag: str, value: str, message: str
) -> None:
    args = {"--server-seed": CHECK_SEED, "--client-seed": "t", "--nonce": "0"}
    args[flag] = value
    argv = ["shoe", "verify"] + [item for pair in args.items() for item in pair]
    status, out, err = run(capsys, *argv)
    assert status == 2
    assert out == ""
    assert message in err
    assert len(err.strip().splitlines()) == 1


def test_the_console_script_reports_errors_without_a_traceback() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "casino.cli.main", "odds", "--removed", "x"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith("error: --removed:")
