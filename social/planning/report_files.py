"""A workspace's report as files (workspaces.md section 4): CSV, one row per published record,
and a PDF a client reads, made with fpdf2 (pure Python: nothing to install on the system).

The PDF is written in the PDF's standard Helvetica, which holds Latin-1: typographic quotes and
dashes become their plain forms, and any other character outside Latin-1 (an emoji, a script
of its own) a `?`. The JSON and the CSV keep every character."""

import csv
import io
from typing import Any

from fpdf import FPDF
from fpdf.enums import XPos, YPos

from core.times import iso
from social.networks import NETWORKS
from social.planning.reports import COUNTERS, Figures, PublishedRow, Report

CSV_COLUMNS = (
    "publishedAt",
    "scheduledAt",
    "onTime",
    "provider",
    "postId",
    "recordId",
    "url",
    "content",
    *COUNTERS,
    "engagement",
)
# A cell a spreadsheet would run as a formula (CSV injection): shown as text instead.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: str) -> str:
    return f"'{value}" if value.startswith(FORMULA_STARTS) else value


def report_csv(rows: list[PublishedRow]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for row in rows:
        record = row.record
        writer.writerow(
            [
                iso(record.published_at),
                iso(record.scheduled_time),
                "yes" if row.on_time else "no",
                record.provider,
                str(record.post_id),
                str(record.pk),
                _cell(record.url),
                _cell(row.content),
                *(row.counters[name] for name in COUNTERS),
                row.engagement,
            ]
        )
    return out.getvalue()


# --- PDF -----------------------------------------------------------------------------------------

PLAIN = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u2013": "-",
        "\u2014": "-",
        "\u2026": "...",
        "\u2022": "-",
        "\u00a0": " ",
        "\u2009": " ",
        "\u20ac": "EUR",
    }
)
FONT = "Helvetica"
CONTENT_CHARS = 160


def latin1(text: str) -> str:
    """What Helvetica can show of `text` (the module's docstring)."""
    return text.translate(PLAIN).encode("latin-1", "replace").decode("latin-1")


def network_name(provider: str) -> str:
    return NETWORKS[provider].name if provider in NETWORKS else provider


def _rate(figures: Figures) -> str:
    rate = figures.on_time_rate
    return "-" if rate is None else f"{rate * 100:.0f}%"


def _failed(figures: Figures) -> str:
    return ", ".join(f"{name}: {count}" for name, count in sorted(figures.failed.items())) or "-"


class _Document(FPDF):
    def footer(self) -> None:
        self.set_y(-12)
        self.set_font(FONT, size=8)
        self.cell(0, 8, f"Page {self.page_no()}", align="C")


def _heading(pdf: FPDF, text: str) -> None:
    pdf.ln(4)
    pdf.set_font(FONT, "B", 12)
    pdf.cell(0, 8, latin1(text), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.set_font(FONT, size=9)


def _table(pdf: FPDF, header: list[str], rows: list[list[str]], widths: tuple[int, ...]) -> None:
    with pdf.table(col_widths=widths, text_align="LEFT", line_height=5) as table:
        heading = table.row()
        for name in header:
            heading.cell(name)
        for values in rows:
            row = table.row()
            for value in values:
                row.cell(latin1(value))


FIGURE_HEADER = [
    "Network",
    "Published",
    "On time",
    "Impressions",
    "Reactions",
    "Comments",
    "Shares",
    "Clicks",
    "Failed",
]


def _figure_row(name: str, figures: Figures) -> list[str]:
    return [
        name,
        str(figures.published),
        _rate(figures),
        *(str(figures.counters[counter]) for counter in COUNTERS),
        _failed(figures),
    ]


def report_pdf(report: Report, *, workspace_name: str, generated: Any) -> bytes:
    """The report as a PDF of A4 pages: the period, the totals, each network, the top posts
    and the approvals' turnaround."""
    pdf = _Document(format="A4")
    pdf.set_title(latin1(f"Report: {workspace_name}"))
    pdf.set_creator("Freelancer Growth Platform")
    pdf.set_auto_page_break(auto=True, margin=16)
    pdf.add_page()
    pdf.set_font(FONT, "B", 16)
    pdf.cell(0, 10, latin1(f"Report: {workspace_name}"), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.set_font(FONT, size=10)
    period = report.period
    pdf.cell(
        0,
        6,
        f"From {period.first.isoformat()} to {period.last.isoformat()} "
        f"({period.zone}), both days included",
        new_x=XPos.LMARGIN,
        new_y=YPos.NEXT,
    )
    pdf.cell(0, 6, f"Made {iso(generated)}", new_x=XPos.LMARGIN, new_y=YPos.NEXT)

    totals = report.totals
    _heading(pdf, "In total")
    lines = [
        f"Published: {totals.published}",
        f"On time (within 60 s of their time): {_rate(totals)}",
        *(f"{name.capitalize()}: {totals.counters[name]}" for name in COUNTERS),
        f"Failed: {_failed(totals)}",
        "Approval turnaround (median): "
        + ("-" if report.approval_median_hours is None else f"{report.approval_median_hours} h"),
    ]
    for line in lines:
        pdf.cell(0, 5, latin1(line), new_x=XPos.LMARGIN, new_y=YPos.NEXT)

    _heading(pdf, "Per network")
    if report.networks:
        rows = [_figure_row(network_name(p), f) for p, f in report.networks.items()]
        _table(pdf, FIGURE_HEADER, rows, (26, 18, 16, 22, 20, 20, 16, 16, 36))
    else:
        pdf.cell(
            0,
            5,
            "Nothing was published or failed in this period.",
            new_x=XPos.LMARGIN,
            new_y=YPos.NEXT,
        )

    _heading(pdf, "Top posts by engagement")
    if report.top_posts:
        rows = []
        for top in report.top_posts:
            text = " ".join(top.content.split())
            if len(text) > CONTENT_CHARS:
                text = text[: CONTENT_CHARS - 3].rstrip() + "..."
            rows.append([network_name(top.provider), str(top.engagement), text, top.url])
        _table(pdf, ["Network", "Engagement", "Post", "Link"], rows, (26, 22, 82, 60))
    else:
        pdf.cell(
            0,
            5,
            "No engagement was read for this period's posts yet.",
            new_x=XPos.LMARGIN,
            new_y=YPos.NEXT,
        )
    return bytes(pdf.output())
