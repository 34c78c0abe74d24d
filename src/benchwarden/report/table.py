"""One table model, rendered to the terminal (rich), Markdown or plain text.

Renderers receive an already-computed :class:`TableModel`; nothing here
computes statistics.  Cells are strings; alignment is per column.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from rich.table import Table as RichTable
from rich.text import Text

from benchwarden.report.escaping import visible


@dataclass(frozen=True)
class Column:
    title: str
    align: str = "left"  # "left" | "right"


@dataclass
class TableModel:
    columns: list[Column]
    rows: list[list[str]] = field(default_factory=list)
    title: str | None = None
    row_styles: list[str | None] = field(default_factory=list)

    def add(self, cells: list[str], style: str | None = None) -> None:
        if len(cells) != len(self.columns):
            raise ValueError(f"row has {len(cells)} cells, table has {len(self.columns)} columns")
        self.rows.append(cells)
        self.row_styles.append(style)


def to_rich(model: TableModel) -> RichTable:
    # Text() so that titles and cells are never interpreted as rich markup or emoji codes, and visible() so that
    # control characters cannot act on the terminal: benchmark names are user data.
    table = RichTable(title=Text(visible(model.title), style="table.title") if model.title else None, show_lines=False,
                      header_style="bold")
    for col in model.columns:
        table.add_column(col.title, justify="right" if col.align == "right" else "left", overflow="fold")
    for cells, style in zip(model.rows, model.row_styles):
        table.add_row(*[Text(visible(c)) for c in cells], style=style)
    return table


def _md_escape(cell: str) -> str:
    return visible(cell.replace("\n", " ")).replace("\\", "\\\\").replace("|", "\\|")


def to_markdown(model: TableModel) -> str:
    lines = []
    if model.title:
        lines.append(f"**{_md_escape(model.title)}**\n")
    lines.append("| " + " | ".join(_md_escape(c.title) for c in model.columns) + " |")
    lines.append("|" + "|".join("---:" if c.align == "right" else "---" for c in model.columns) + "|")
    for cells in model.rows:
        lines.append("| " + " | ".join(_md_escape(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"


def fmt_number(value: float | None, digits: int = 4) -> str:
    """Significant-digit formatting that stays readable from 1e-3 to 1e9 (``12.35``, ``1234``, ``0.001235``)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if value == 0:
        return "0"
    magnitude = int(math.floor(math.log10(abs(value))))
    if magnitude >= digits:
        return f"{value:,.0f}"
    decimals = max(0, digits - 1 - magnitude)
    return f"{value:.{decimals}f}"


def fmt_percent(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value * 100:.{digits}f}%"
