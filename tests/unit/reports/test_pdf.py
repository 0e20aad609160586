"""The settlement PDF: what finance reads on each page, read back out of the bytes."""

from __future__ import annotations

import copy
import io
from typing import Any

import pytest
from pypdf import PdfReader

from casino.reports.pdf import FRAME_WIDTH, render_settlement_pdf
from casino.reports.pdf_charts import value_axis_bounds
from casino.reports.pdf_format import money, percent, timestamp, z_score
from casino.reports.pdf_tables import grid

REPORT_ID = "3f2a9c4e5b6d47e8a1b2c3d4e5f60718"
HUGE = 2**53 - 1  # the largest integer a JSON reader keeps exact
LONG_REASON = (
    "dealer exposed the connector tile before the betting window closed; the pit boss "
    "stopped the round, every seat was refunded in full and the shoe was closed for audit"
)
EUR_HOLD_CHART = "Hold % by gaming day, EUR: actual vs theoretical"
POINT_TOTALS_CHART = "Distribution of point totals"


def bet_figures(
    wagers: int, handle: int, payouts: int, theoretical_win: str, hold: str | None
) -> dict[str, Any]:
    return {
        "wagers": wagers,
        "handle": handle,
        "payouts": payouts,
        "win": handle - payouts,
        "hold_pct": hold,
        "theoretical_win": theoretical_win,
        "theoretical_hold_pct": None if handle == 0 else "4.5321",
        "win_minus_theoretical": "-1200.25",
        "standard_deviation": "567812.00",
        "z_score": None if handle == 0 else "-0.123",
    }


def figures(rounds: int, win: int, hold: str | None = "4.6700") -> dict[str, Any]:
    """Figures whose handle is split 80/20 between the main bet and Doubles."""
    handle = 26_437_200 if hold is not None else 0
    main = bet_figures(rounds * 3, handle * 4 // 5, handle * 4 // 5 - win, "98000.10", hold)
    doubles = bet_figures(rounds, handle // 5, handle // 5, "25000.00", hold)
    return {
        "rounds": rounds,
        "seats": rounds * 3,
        "main": main,
        "doubles": doubles,
        "handle": handle,
        "payouts": handle - win,
        "win": win,
        "hold_pct": hold,
        "theoretical_win": "123456.78",
        "theoretical_hold_pct": None if handle == 0 else "4.5321",
        "win_minus_theoretical": "1111100.22",
        "standard_deviation": "567812.00",
        "z_score": None if handle == 0 else "-0.123",
        "voids": 1,
        "voided_refunds": 2000,
        "corrections": 1,
        "corrections_net": -500,
        "adjusted_win": win - 500,
    }


def currency_section(currency: str, win: int) -> dict[str, Any]:
    return {
        "currency": currency,
        "totals": figures(400, win),
        "tables": [
            {"table_id": "t-1", "main_paytable": 1, "doubles_paytable": 2, **figures(250, 700)},
            {"table_id": "t-2", "main_paytable": 3, "doubles_paytable": 1, **figures(150, -300)},
        ],
        "paytables": [
            {"bet": "main", "paytable": 1, **bet_figures(750, 900_000, 850_000, "40500", "5.5556")},
            {
                "bet": "doubles",
                "paytable": 2,
                **bet_figures(250, 50_000, 52_000, "2000", "-4.0000"),
            },
        ],
        "days": [
            {"gaming_day": "2026-11-20", **figures(220, 5_000, "5.1200")},
            {"gaming_day": "2026-11-21", **figures(180, -2_000, "-1.3000")},
        ],
    }


def adjustment(kind: str, reason: str, refunded: int, reclaimed: int) -> dict[str, Any]:
    return {
        "kind": kind,
        "round_id": f"round-{kind}-0001",
        "table_id": "t-1",
        "currency": "EUR",
        "at": "2026-11-20T09:12:00+00:00",
        "gaming_day": "2026-11-20",
        "actor": f"admin:ops-{1 if kind == 'void' else 2}",
        "reason": reason,
        "refunded": refunded,
        "reclaimed": reclaimed,
    }


def point_total(total: int) -> dict[str, Any]:
    """Hands rising with the total, 1,230 in all, against a flat 1/41."""
    return {
        "total": total,
        "hands": 10 + total,
        "observed": f"{(10 + total) / 1230:.6f}",
        "expected": f"{1 / 41:.6f}",
    }


def settlement_report() -> dict[str, Any]:
    return {
        "report": "settlement",
        "report_id": REPORT_ID,
        "software": {"name": "casino", "version": "0.1.0"},
        "generated_at": "2026-11-22T06:01:02.123456+00:00",
        "filters": {
            "requested": {"from": "2026-11-20", "to": "2026-11-21"},
            "period": {"start": "2026-11-20T06:00:00+00:00", "end": "2026-11-22T06:00:00+00:00"},
            "table_id": None,
            "gaming_day": {"start_hour": 6, "time_zone": "Europe/Malta"},
        },
        "no_activity": False,
        "currencies": [currency_section("EUR", 1_234_567), currency_section("GBP", -98_765)],
        "point_totals": [point_total(total) for total in range(41)],
        "adjustments": [
            adjustment("void", LONG_REASON, 2000, 0),
            adjustment("correction", "wrong payout on seat 2", 0, 500),
        ],
    }


def no_activity_report() -> dict[str, Any]:
    report = settlement_report()
    report.update(no_activity=True, currencies=[], point_totals=[], adjustments=[])
    return report


def pages_text(pdf: bytes) -> list[str]:
    return [page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages]


def flat(text: str) -> str:
    """Text with every run of whitespace one space: wrapped lines read as one."""
    return " ".join(text.split())


@pytest.fixture(scope="module")
def pdf() -> bytes:
    return render_settlement_pdf(settlement_report())


@pytest.fixture(scope="module")
def pages(pdf: bytes) -> list[str]:
    return pages_text(pdf)


# --- the document -------------------------------------------------------------------------


def test_is_a_pdf_and_the_same_report_gives_the_same_bytes(pdf: bytes) -> None:
    assert pdf.startswith(b"%PDF-")
    assert pdf.rstrip().endswith(b"%%EOF")
    assert render_settlement_pdf(settlement_report()) == pdf


def test_a_different_report_gives_different_bytes(pdf: bytes) -> None:
    report = settlement_report()
    report["currencies"][0]["totals"]["win"] = 1_234_568
    assert render_settlement_pdf(report) != pdf


def test_every_page_has_the_footer(pages: list[str]) -> None:
    assert len(pages) >= 4
    for number, text in enumerate(pages, start=1):
        assert f"casino 0.1.0 \u00b7 report {REPORT_ID} \u00b7 page {number}" in text


# --- page 1 -------------------------------------------------------------------------------


def test_page_one_has_the_title_software_and_filters(pages: list[str]) -> None:
    first = pages[0]
    assert "Settlement report" in first
    assert "casino 0.1.0" in first
    assert "generated 2026-11-22 06:01:02 UTC" in first
    assert "2026-11-20 to 2026-11-21" in first
    assert "2026-11-20 06:00:00 UTC" in first
    assert "2026-11-22 06:00:00 UTC" in first
    assert "all tables" in first
    assert "starts 06:00, Europe/Malta" in first


def test_page_one_has_the_totals_of_each_currency_in_major_units(pages: list[str]) -> None:
    first = pages[0]
    assert "12,345.67 EUR" in first  # win
    assert "-987.65 GBP" in first
    assert "264,372.00 EUR" in first  # handle, total
    assert "211,497.60 EUR" in first  # handle, main bet
    assert "52,874.40 EUR" in first  # handle, Doubles
    assert "1,234.57 EUR" in first  # theoretical win, from "123456.78" minor units
    assert "11,111.00 EUR" in first  # win - theoretical, from "1111100.22"
    assert "5,678.12 EUR" in first  # standard deviation
    assert "12,340.67 EUR" in first  # adjusted win
    assert "4.67%" in first and "4.53%" in first
    assert "-0.12" in first
    for label in (
        "Rounds",
        "Seats",
        "Payouts",
        "Hold %",
        "Theoretical hold %",
        "z-score",
        "Voids",
        "Voided refunds",
        "Corrections",
        "Adjusted win",
    ):
        assert label in first
    assert "Win \u2212 theoretical" in first


# --- the breakdowns -----------------------------------------------------------------------


def test_each_currency_has_its_tables_paytables_and_gaming_days(pages: list[str]) -> None:
    for currency in ("EUR", "GBP"):
        page = next(text for text in pages if f"{currency}: breakdown" in text)
        assert f"{currency}: per table, handle and win" in page
        assert f"{currency}: per paytable" in page
        assert "t-1" in page and "t-2" in page
        assert "Main" in page and "Doubles" in page
        assert "2026-11-20" in page and "2026-11-21" in page
        assert f"7.00 {currency}" in page  # table t-1's win
        assert f"-3.00 {currency}" in page  # table t-2's win
        assert "5.56%" in page and "-4.00%" in page  # the paytables' hold


# --- the charts ---------------------------------------------------------------------------


def test_the_charts_have_titles_axis_labels_and_legends(pages: list[str]) -> None:
    text = "\n".join(pages)
    assert EUR_HOLD_CHART in text
    assert "Hold % by gaming day, GBP: actual vs theoretical" in text
    assert POINT_TOTALS_CHART in text
    for label in (
        "Gaming day",
        "Actual hold %",
        "Theoretical hold %",
        "Point total",
        "Share of hands (%)",
        "Observed share of hands",
        "Expected (exact)",
    ):
        assert label in text


def test_value_axis_bounds_hold_zero_and_every_value_in_round_steps() -> None:
    assert value_axis_bounds([-3.2, 7.9]) == (-5.0, 10.0, 2.5)
    assert value_axis_bounds([0.8, 3.3]) == (0.0, 4.0, 1.0)
    assert value_axis_bounds([]) == (0.0, 1.0, 0.2)


# --- voids and corrections ----------------------------------------------------------------


def test_voids_and_corrections_are_listed_with_who_and_why(pages: list[str]) -> None:
    text = next(text for text in pages if "Voids and corrections" in text)
    assert "admin:ops-1" in text and "admin:ops-2" in text
    assert "round-void-0001" in text and "round-correction-0001" in text
    assert "Void" in text and "Correction" in text
    assert "2026-11-20 09:12:00 UTC" in text
    assert "20.00 EUR" in text and "5.00 EUR" in text
    assert LONG_REASON in flat(text)
    assert not any(LONG_REASON in line for line in text.splitlines())  # it wraps


# --- edge cases ---------------------------------------------------------------------------


def test_no_activity_says_so_and_has_no_charts() -> None:
    pdf = render_settlement_pdf(no_activity_report())
    assert pdf.startswith(b"%PDF-")
    pages = pages_text(pdf)
    text = "\n".join(pages)
    assert "No Activity" in text
    assert "Settlement report" in text and "starts 06:00, Europe/Malta" in text
    assert f"casino 0.1.0 \u00b7 report {REPORT_ID} \u00b7 page 1" in text
    assert "Hold % by gaming day" not in text
    assert POINT_TOTALS_CHART not in text
    assert "Totals by currency" not in text
    assert render_settlement_pdf(no_activity_report()) == pdf


def huge(figures: dict[str, Any]) -> None:
    for key in ("handle", "payouts", "win", "voided_refunds", "corrections_net", "adjusted_win"):
        figures[key] = HUGE
    for key in ("theoretical_win", "win_minus_theoretical", "standard_deviation"):
        figures[key] = f"{HUGE}.99"


def test_huge_amounts_render_exactly() -> None:
    report = settlement_report()
    for section in report["currencies"]:
        for figures in (section["totals"], *section["tables"], *section["days"]):
            huge(figures)
    text = "\n".join(pages_text(render_settlement_pdf(report)))
    assert "90,071,992,547,409.91 EUR" in text
    assert "90,071,992,547,409.92 EUR" in text  # "9007199254740991.99" minor, rounded


def test_a_grid_of_huge_amounts_fits_the_page_width() -> None:
    amount = money(-HUGE, "EUR")
    rows = [["Table", *(f"Column {n}" for n in range(11))], ["t-1", *([amount] * 11)]]
    assert sum(grid(rows, FRAME_WIDTH)._colWidths) <= FRAME_WIDTH


def test_zero_handle_shows_undefined_ratios() -> None:
    report = settlement_report()
    section = report["currencies"][0]
    section["totals"] = figures(0, 0, hold=None)
    section["days"] = [
        {"gaming_day": day, **figures(0, 0, hold=None)} for day in ("2026-11-20", "2026-11-21")
    ]
    first, *rest = pages_text(render_settlement_pdf(report))
    assert "n/a" in first
    assert EUR_HOLD_CHART in "\n".join(rest)


def test_a_month_of_days_and_totals_without_hands_are_charted() -> None:
    report = settlement_report()
    report["currencies"][0]["days"] = [
        {"gaming_day": f"2026-10-{day:02d}", **figures(100, 500 * (day % 7 - 3))}
        for day in range(1, 32)
    ]
    report["currencies"][1]["days"] = report["currencies"][1]["days"][:1]
    for entry in report["point_totals"]:
        entry.update(hands=0, observed=None)
    text = "\n".join(pages_text(render_settlement_pdf(report)))
    assert "2026-10-31" in text
    assert EUR_HOLD_CHART in text and POINT_TOTALS_CHART in text


# --- the values ---------------------------------------------------------------------------


def test_money_is_major_units_with_separators_and_the_currency() -> None:
    assert money(1_234_567, "EUR") == "12,345.67 EUR"
    assert money(-5, "GBP") == "-0.05 GBP"
    assert money(0, "EUR") == "0.00 EUR"
    assert money(HUGE, "EUR") == "90,071,992,547,409.91 EUR"
    assert money("123456.78", "EUR") == "1,234.57 EUR"
    assert money("-50.5", "EUR") == "-0.51 EUR"  # half away from zero


def test_money_takes_each_currencys_decimals() -> None:
    assert money(1_234_567, "JPY") == "1,234,567 JPY"  # yen have no minor unit
    assert money(1_234_567, "KWD") == "1,234.567 KWD"  # a thousand fils to the dinar
    assert money("1234.5", "JPY") == "1,235 JPY"
    assert money(-1, "BHD") == "-0.001 BHD"


def test_ratios_and_times_as_shown() -> None:
    assert percent("4.6750") == "4.68%"
    assert percent("-0.0040") == "0.00%"  # no negative zero
    assert percent(None) == "n/a"
    assert z_score("-0.123") == "-0.12"
    assert z_score(None) == "n/a"
    assert timestamp("2026-11-20T09:12:00.5+00:00") == "2026-11-20 09:12:00 UTC"
    assert timestamp("2026-11-20T10:12:00+01:00") == "2026-11-20 10:12:00 +01:00"


def test_markup_in_the_data_is_shown_as_text() -> None:
    report = copy.deepcopy(settlement_report())
    report["adjustments"][1]["reason"] = "payout <b>doubled</b> & refunded"
    text = flat("\n".join(pages_text(render_settlement_pdf(report))))
    assert "payout <b>doubled</b> & refunded" in text
