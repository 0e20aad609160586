"""How the settlement PDF writes its values and text: money, ratios, times, fonts, styles.

Money arrives in integer minor units (or, for theoretical figures, decimal strings of
minor units), shown in major units with the currency's ISO 4217 decimals. Ratios arrive as
decimal strings, or null where they are undefined (no handle, no variance).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from functools import cache
from pathlib import Path

import reportlab
from reportlab.lib import colors
from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

from casino.reports.currencies import minor_unit_exponent

# Bitstream Vera ships inside reportlab, so the output does not depend on the host's
# fonts; unlike the standard PDF fonts it has the minus sign (U+2212) of "win - theo.".
FONT = "CasinoReportSans"
FONT_BOLD = "CasinoReportSans-Bold"
_FONT_FILES = {FONT: "Vera.ttf", FONT_BOLD: "VeraBd.ttf"}

MINUS_SIGN = "\u2212"  # typographic, for labels only: numbers keep the ASCII hyphen
UNDEFINED = "n/a"  # a ratio with nothing to divide by (no handle, no variance)
HEADER_FILL = colors.HexColor("#dde3ea")
STRIPE_FILL = colors.HexColor("#f4f6f8")
RULE_COLOR = colors.HexColor("#9aa5b1")

_CENT = Decimal("0.01")


def _to_cents(value: Decimal) -> Decimal:
    # Adding zero turns a negative zero ("-0.00" from a tiny negative) into a plain zero.
    return value.quantize(_CENT, rounding=ROUND_HALF_UP) + 0


@cache
def register_fonts() -> None:
    """Registers the report's fonts once per process (reportlab's registry is global)."""
    font_folder = Path(reportlab.__file__).parent / "fonts"
    for name, file_name in _FONT_FILES.items():
        pdfmetrics.registerFont(TTFont(name, str(font_folder / file_name)))


def text_width(text: str, size: float, bold: bool = False) -> float:
    register_fonts()
    width: float = pdfmetrics.stringWidth(text, FONT_BOLD if bold else FONT, size)
    return width


# --- values -----------------------------------------------------------------------------


def money(minor_units: int | str, currency: str) -> str:
    """12,345.67 EUR from 1234567: exact for any integer, half-up for decimal strings.

    Negative amounts keep the ASCII hyphen-minus, so figures copied out of the PDF still
    parse as numbers in a spreadsheet.
    """
    places = minor_unit_exponent(currency)
    major = Decimal(minor_units).scaleb(-places).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP)
    return f"{major + 0:,.{places}f} {currency}"  # + 0: no "-0.00" from a tiny negative


def count(number: int) -> str:
    return f"{number:,}"


def percent(ratio: str | None) -> str:
    """A percentage given as a decimal string ("4.6700"), shown to two places."""
    if ratio is None:
        return UNDEFINED
    return f"{_to_cents(Decimal(ratio)):,.2f}%"


def z_score(value: str | None) -> str:
    if value is None:
        return UNDEFINED
    return f"{_to_cents(Decimal(value)):.2f}"


def ratio_as_float(ratio: str | None) -> float | None:
    """For plotting only: the figures themselves stay decimal."""
    return None if ratio is None else float(ratio)


def timestamp(iso: str) -> str:
    """2026-11-22 06:01:02 UTC: to the second, with the offset the report gave."""
    moment = datetime.fromisoformat(iso)
    shown = moment.strftime("%Y-%m-%d %H:%M:%S")
    offset = moment.utcoffset()
    if offset is None:
        return shown
    if offset == timedelta(0):
        return f"{shown} UTC"
    return f"{shown} {moment.isoformat()[-6:]}"


# --- text styles --------------------------------------------------------------------------


def _style(name: str, size: float, bold: bool = False, space_after: float = 4) -> ParagraphStyle:
    register_fonts()
    return ParagraphStyle(
        name,
        fontName=FONT_BOLD if bold else FONT,
        fontSize=size,
        leading=size * 1.25,
        spaceAfter=space_after,
        keepWithNext=bold,  # a heading never ends a page without what it heads
    )


@cache
def styles() -> dict[str, ParagraphStyle]:
    return {
        "title": _style("title", 20, bold=True, space_after=6),
        "heading": _style("heading", 13, bold=True, space_after=6),
        "subheading": _style("subheading", 10.5, bold=True, space_after=4),
        "body": _style("body", 9),
        "cell": _style("cell", 7, space_after=0),
        "statement": _style("statement", 30, bold=True, space_after=10),
    }
