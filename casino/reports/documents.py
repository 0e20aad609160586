"""A report as a document: JSON, CSV (one row per table and paytable pair) or PDF.

The PDF renderer is imported when a PDF is made: reportlab would otherwise add a sixth
of a second to the start of every ``casino`` command and every API and Celery worker.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from casino.reports.settlement import NO_ACTIVITY

FORMATS = ("json", "csv", "pdf")
MEDIA_TYPES = {"json": "application/json", "csv": "text/csv; charset=utf-8",
               "pdf": "application/pdf"}  # fmt: skip

_BET_COLUMNS = ("wagers", "handle", "payouts", "win", "hold_pct", "theoretical_win",
                "theoretical_hold_pct", "standard_deviation", "z_score")  # fmt: skip
_ROW_COLUMNS = ("rounds", "seats", "handle", "payouts", "win", "hold_pct", "theoretical_win",
                "theoretical_hold_pct", "win_minus_theoretical", "standard_deviation",
                "z_score", "voids", "voided_refunds", "corrections", "corrections_net",
                "adjusted_win")  # fmt: skip
# Each row says which report it comes from: a CSV travels alone, into spreadsheets.
_REPORT_COLUMNS = ("report_id", "generated_at", "software_version", "period_start",
                   "period_end", "table_filter", "gaming_day_start_hour",
                   "gaming_day_time_zone")  # fmt: skip
CSV_HEADER = (
    *_REPORT_COLUMNS, "currency", "table_id", "main_paytable", "doubles_paytable",
    *(f"main_{c}" for c in _BET_COLUMNS), *(f"doubles_{c}" for c in _BET_COLUMNS),
    *_ROW_COLUMNS, "note",
)  # fmt: skip


@dataclass(frozen=True)
class Document:
    content: bytes
    media_type: str
    file_name: str


def render(report: Mapping[str, Any], format_name: str) -> Document:
    name = f"{report['report']}-report-{report['report_id']}.{format_name}"
    if format_name == "json":
        content = orjson.dumps(report, option=orjson.OPT_INDENT_2)
    elif format_name == "csv":
        content = settlement_csv(report).encode()
    elif format_name == "pdf":
        from casino.reports.pdf import render_settlement_pdf  # noqa: PLC0415 (see above)

        content = render_settlement_pdf(report)
    else:
        raise ValueError(f"a report is made as one of {', '.join(FORMATS)}, not {format_name!r}")
    return Document(content, MEDIA_TYPES[format_name], name)


def settlement_csv(report: Mapping[str, Any]) -> str:
    filters = report["filters"]
    about = [
        report["report_id"], report["generated_at"], report["software"]["version"],
        filters["period"]["start"], filters["period"]["end"], filters["table_id"] or "",
        filters["gaming_day"]["start_hour"], filters["gaming_day"]["time_zone"],
    ]  # fmt: skip
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_HEADER)
    for section in report["currencies"]:
        for row in section["tables"]:
            writer.writerow([
                *about, section["currency"], row["table_id"], row["main_paytable"],
                row["doubles_paytable"], *(_blank(row["main"][c]) for c in _BET_COLUMNS),
                *(_blank(row["doubles"][c]) for c in _BET_COLUMNS),
                *(_blank(row[c]) for c in _ROW_COLUMNS), "",
            ])  # fmt: skip
    if report["no_activity"]:
        writer.writerow([*about, *[""] * (len(CSV_HEADER) - len(about) - 1), NO_ACTIVITY])
    return out.getvalue()


def _blank(value: Any) -> Any:
    return "" if value is None else value
