"""One table model, rendered to the terminal (rich), Markdown or plain text.

Renderers receive an already-computed :class:`TableModel`; nothing here
computes statistics.  Cells are strings; alignment is per column.

In the terminal a table fits the width it is given (:func:`fit`), so it stays readable at 80 columns:
numbers never wrap; the names column is shortened first (its common prefix moved to a note, then
:func:`benchwarden.report.names.shorten`); then columns marked droppable are left out, lowest ``drop``
first, and a note names them; if it still does not fit, each row becomes a block ("vertical layout":
the name, then ``column value`` pairs). Markdown tables are never shortened.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterator

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.table import Table as RichTable
from rich.text import Text

from benchwarden.report.escaping import visible
from benchwarden.report.names import common_prefix, shorten_all

#: names are shortened to this width before any column is dropped, and to the minimum only after
COMFORTABLE_NAME_WIDTH = 40
MIN_NAME_WIDTH = 24


@dataclass(frozen=True)
class Column:
    title: str
    align: str = "left"  # "left" | "right"
    names: bool | None = None  # holds names that may be shortened to fit; None: a column titled "benchmark" does
    drop: int | None = None  # may be left out when the table does not fit; lower values go first

    @property
    def holds_names(self) -> bool:
        return self.names if self.names is not None else self.title == "benchmark"


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


@dataclass(frozen=True)
class Layout:
    """What :func:`fit` decided: the columns kept (indices into the model), the cells to show, notes."""

    columns: tuple[int, ...]
    rows: tuple[tuple[str, ...], ...]
    notes: tuple[str, ...] = ()
    vertical: bool = False


def table_width(widths: list[int]) -> int:
    """Cells a rich table with the default box and padding needs: ``│ a │ b │`` = 1 + Σ(w + 3)."""
    return 1 + sum(w + 3 for w in widths)


def fit(model: TableModel, width: int) -> Layout:
    """How ``model`` is shown in ``width`` terminal cells (pure).

    In order, until the table fits: the names column loses its common prefix; names are shortened to
    :data:`COMFORTABLE_NAME_WIDTH`; droppable columns go, lowest ``drop`` first; names are shortened down to
    :data:`MIN_NAME_WIDTH`. A table that still does not fit is laid out vertically with every column.
    """
    rows = [[visible(c) for c in row] for row in model.rows]
    keep = list(range(len(model.columns)))
    notes: list[str] = []
    name_cols = [i for i, c in enumerate(model.columns) if c.holds_names] if rows else []

    def widths() -> list[int]:
        return [max([cell_len(model.columns[i].title), *(cell_len(r[i]) for r in rows)]) for i in keep]

    def too_wide() -> bool:
        return table_width(widths()) > width

    if not too_wide():
        return Layout(tuple(keep), tuple(tuple(r) for r in rows))
    for i in name_cols:
        prefix = common_prefix([r[i] for r in rows])
        if prefix:
            rows = [[*r[:i], r[i][len(prefix):], *r[i + 1:]] for r in rows]
            notes.append(f"{model.columns[i].title} names without their common prefix {prefix!r}")
    full = {i: [r[i] for r in rows] for i in name_cols}

    def shrink_names(floor: int) -> None:
        for i in name_cols:
            if not too_wide():
                return
            current = max(cell_len(r[i]) for r in rows)
            target = max(floor, width - (table_width(widths()) - current))
            short = shorten_all(full[i], target) if target < current else None
            if short is not None:
                for r, n in zip(rows, short):
                    r[i] = n

    shrink_names(COMFORTABLE_NAME_WIDTH)
    droppable = sorted((c.drop, i) for i, c in enumerate(model.columns) if c.drop is not None)
    dropped: list[str] = []
    while too_wide() and droppable:
        _, i = droppable.pop(0)
        keep.remove(i)
        dropped.append(model.columns[i].title)
    shrink_names(MIN_NAME_WIDTH)
    if too_wide():  # vertical: every column, full names, the names column first
        first = next((i for i, c in enumerate(model.columns) if c.holds_names), 0)
        order = (first, *(i for i in range(len(model.columns)) if i != first))
        return Layout(order, tuple(tuple(visible(r[i]) for i in order) for r in model.rows), vertical=True)
    if dropped:
        notes.append(f"not shown at this width: {', '.join(dropped)} (a wider terminal or --json shows them)")
    return Layout(tuple(keep), tuple(tuple(r[i] for i in keep) for r in rows), tuple(notes))


class FittedTable:
    """A :class:`TableModel` as a rich renderable that fits whatever width it is rendered at."""

    def __init__(self, model: TableModel):
        self.model = model

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        layout = fit(self.model, options.max_width)
        if layout.vertical:
            yield from self._vertical(layout, options.max_width)
            return
        # Text() so that titles and cells are never interpreted as rich markup or emoji codes, and visible() so
        # that control characters cannot act on the terminal: benchmark names are user data.
        table = RichTable(title=Text(visible(self.model.title), style="table.title") if self.model.title else None,
                          caption=Text("\n".join(layout.notes), style="table.caption") if layout.notes else None,
                          caption_justify="left", show_lines=False, header_style="bold")
        for i in layout.columns:
            col = self.model.columns[i]
            table.add_column(col.title, justify="right" if col.align == "right" else "left",
                             no_wrap=not col.holds_names, overflow="fold" if col.holds_names else "ellipsis")
        for cells, style in zip(layout.rows, self.model.row_styles):
            table.add_row(*[Text(c) for c in cells], style=style)
        yield table

    def _vertical(self, layout: Layout, width: int) -> Iterator[Text]:
        """One block per row: the name on its own line, then ``title value`` pairs packed into lines."""
        if self.model.title:
            yield Text(visible(self.model.title), style="table.title")
        for cells, style in zip(layout.rows, self.model.row_styles):
            yield Text(cells[0], style=style or "bold")
            line = "  "
            for column, cell in zip(layout.columns[1:], cells[1:]):
                item = f"{self.model.columns[column].title} {cell}"
                if line.strip() and cell_len(line) + 3 + cell_len(item) > width:
                    yield Text(line, style=style or "")
                    line = "  "
                line += (" · " if line.strip() else "") + item
            if line.strip():
                yield Text(line, style=style or "")


def to_rich(model: TableModel) -> FittedTable:
    """The terminal rendering of ``model``: a rich renderable that fits the console width (see :func:`fit`)."""
    return FittedTable(model)


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
    if math.isinf(value):  # only a damaged store holds one (tests/unit/cli/test_hostile_inputs.py): shown, not fatal
        return "∞" if value > 0 else "-∞"
    magnitude = int(math.floor(math.log10(abs(value))))
    if magnitude >= digits:
        return f"{value:,.0f}"
    decimals = max(0, digits - 1 - magnitude)
    return f"{value:.{decimals}f}"


def fmt_time(value_ns: float) -> str:
    """A time for tables: ``1.234µs``, ``12.35ms``; ``-`` for NaN, ``∞`` for infinite bounds."""
    if math.isnan(value_ns):
        return "-"
    if math.isinf(value_ns):
        return "∞" if value_ns > 0 else "-∞"
    for unit, factor in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if abs(value_ns) >= factor:
            return f"{fmt_number(value_ns / factor)}{unit}"
    return f"{fmt_number(value_ns)}ns"


def fmt_percent(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value * 100:.{digits}f}%"
