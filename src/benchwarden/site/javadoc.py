"""``benchwarden docs --javadoc DIR``: a *Performance* section in the Javadoc page of each documented Java method.

A ``[docs.methods]`` key in Javadoc's own notation, ``package.Class#method(Type, Type)`` (simple or qualified type
names, generics left out), names a method of an existing Javadoc HTML tree: the class page
``DIR/package/Class.html`` and, in it, the method's detail section (``<section class="detail" id="method(fq.Type)">``,
the layout of the standard doclet since JDK 17).  The section gets, just before its end, a block between two HTML
comments: for each benchmark bound to the method and each numeric parameter, the fitted complexity class with its
R² and exponent (:mod:`benchwarden.site.methods`), the machine and commit measured, a plot (inline SVG, text drawn
as paths: no script, no font, nothing fetched), and a link to the site's page of the method when ``--site`` is
given.  Nothing else in the file changes: the block is inserted into the page's text at the offset the HTML parser
reports, and a block written earlier (between the same comments) is replaced, so running it again is idempotent.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Sequence

import matplotlib
from matplotlib import ticker
from matplotlib.figure import Figure as MplFigure

from benchwarden.errors import BenchwardenError
from benchwarden.report import plots
from benchwarden.site.methods import PALETTE, AxisFit

START = "<!-- benchwarden-performance:start -->"
END = "<!-- benchwarden-performance:end -->"
_METHOD = re.compile(r"^(?P<cls>[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)#(?P<name>[A-Za-z_$][\w$]*)"
                     r"\((?P<params>[^()]*)\)$")


class JavadocError(BenchwardenError):
    """DIR is not a Javadoc HTML tree, or a page could not be read or written."""


@dataclass(frozen=True)
class JavadocMethod:
    """``cls``: the qualified class name (``pkg.Outer.Inner``); ``params``: the parameters' simple type names."""

    cls: str
    name: str
    params: tuple[str, ...]

    def pages(self, root: Path) -> list[Path]:
        """Candidate class pages: the package is the leading lower-case segments (``pkg/Outer.Inner.html``)."""
        parts = self.cls.split(".")
        split = next((i for i, p in enumerate(parts) if p[:1].isupper()), len(parts) - 1)
        return [root.joinpath(*parts[:split], ".".join(parts[split:]) + ".html")]

    def matches(self, element_id: str) -> bool:
        match = re.fullmatch(rf"{re.escape(self.name)}\((?P<params>[^()]*)\)", element_id)
        return match is not None and _simple(match.group("params")) == self.params


def _simple(params: str) -> tuple[str, ...]:
    """Simple type names of a parameter list: ``java.util.List<String>, int[]`` -> ``("List", "int[]")``."""
    text = re.sub(r"<[^<>]*>", "", params)
    while "<" in text:
        text = re.sub(r"<[^<>]*>", "", text)
    return tuple(p.strip().split(".")[-1].replace(" ", "") for p in text.split(",") if p.strip())


def parse_java_method(text: str) -> JavadocMethod | None:
    """The method a ``[docs.methods]`` key names in Javadoc notation, or None for other notations (Go, Python)."""
    match = _METHOD.match(text.strip())
    if not match:
        return None
    return JavadocMethod(match.group("cls"), match.group("name"), _simple(match.group("params")))


class _Section(HTMLParser):
    """The offsets of the start tag and of the end tag of the ``<section>`` whose id the method matches."""

    def __init__(self, method: JavadocMethod, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.method = method
        self.lines = [0]
        for line in text.splitlines(keepends=True):
            self.lines.append(self.lines[-1] + len(line))
        self.depth = 0
        self.start: int | None = None
        self.end: int | None = None

    def _offset(self) -> int:
        line, column = self.getpos()
        return self.lines[line - 1] + column

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag != "section" or self.end is not None:
            return
        if self.depth:
            self.depth += 1
        elif self.start is None and self.method.matches(dict(attrs).get("id") or ""):
            self.start = self._offset()
            self.depth = 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "section" and self.depth and self.end is None:
            self.depth -= 1
            if self.depth == 0:
                self.end = self._offset()


def insert_section(text: str, method: JavadocMethod, block: str) -> str | None:
    """``text`` with ``block`` (between the START/END comments) at the end of the method's detail section, where a
    block of an earlier run is replaced; None when the page has no such section.  Nothing else changes."""
    parser = _Section(method, text)
    parser.feed(text)
    parser.close()
    if parser.start is None or parser.end is None:
        return None
    section = text[parser.start:parser.end]
    old, old_end = section.find(START), section.find(END)
    if old != -1 and old_end > old:
        cut = old_end + len(END)
        cut += 1 if section[cut:cut + 1] == "\n" else 0
        section = section[:old] + block + section[cut:]
    else:
        section += block
    return text[:parser.start] + section + text[parser.end:]


def fit_svg(fits: Sequence[AxisFit]) -> str:
    """The means against the parameter with each fitted curve, as inline SVG (log–log over a wide range)."""
    import numpy as np

    with matplotlib.rc_context(plots.PLOT_STYLE):
        fig = MplFigure(figsize=(4.6, 2.6))
        ax = fig.add_subplot()
        for number, line in enumerate(fits):
            color = PALETTE[number % len(PALETTE)]
            ax.plot(line.n, line.mean_ns, "o", color=color, label=line.label if line.others else None, markersize=4)
            if line.fit:
                dense = np.geomspace(min(line.n), max(line.n), 60)
                ax.plot(dense, line.fit.best.predict(dense), "--", color=color, linewidth=1)
        if max(max(f.n) for f in fits) / min(min(f.n) for f in fits) >= 20:
            for axis, scale in ((ax.xaxis, ax.set_xscale), (ax.yaxis, ax.set_yscale)):
                scale("log")
                # plain labels: math text is off (names stay text), so the default 10^k labels would show as markup
                axis.set_major_locator(ticker.LogLocator(subs=(1.0, 3.0)))
                axis.set_major_formatter(ticker.FuncFormatter(lambda value, _: f"{value:g}"))
                axis.set_minor_formatter(ticker.NullFormatter())
        ax.set_xlabel(fits[0].axis)
        ax.set_ylabel("time per operation (ns/op)")
        if any(line.others for line in fits):
            ax.legend(frameon=False, fontsize=7)
        return plots.figure_to_svg(fig)


def block_html(method: str, sections: Sequence[tuple[str, list[AxisFit], list[tuple[str, str]]]],
               site_link: str | None) -> str:
    """The Performance block: per benchmark, its fits per axis (text and plot) and where they were measured."""
    e = html.escape
    parts = [START, '<div class="benchwarden-performance" style="margin:1em 0;padding:0.5em 1em;'
             'border-left:3px solid #4c72b0;background:#f6f8fa">', "<h4>Performance</h4>"]
    for benchmark, fits, measured in sections:
        where = "; ".join(f"{e(machine)} at commit <code>{e(commit)}</code>" for commit, machine in measured)
        parts.append(f"<p>Measured by <code>{e(benchmark)}</code>{' on ' + where if where else ''}.</p>")
        if not fits:
            parts.append("<p>No numeric parameter with two or more measured values.</p>")
        axes: dict[str, list[AxisFit]] = {}
        for line in fits:
            axes.setdefault(line.axis, []).append(line)
        for lines in axes.values():
            items = "".join(f"<li>{e(line.label) + ': ' if line.others else ''}{e(line.summary())}</li>"
                            for line in lines)
            parts.append(f"<ul>{items}</ul><figure style=\"margin:0\">{fit_svg(lines)}</figure>")
    if site_link:
        parts.append(f'<p><a href="{e(site_link, quote=True)}">All measurements of {e(method)} on the benchwarden '
                     "site</a></p>")
    parts += ["</div>", END, ""]
    return "\n".join(parts)


def check_tree(root: Path) -> None:
    """JavadocError unless ``root`` looks like the output of the standard doclet (an index and an element list)."""
    if not root.is_dir():
        raise JavadocError(f"--javadoc {root}: not a folder")
    if not (root / "index.html").is_file() or not any((root / n).is_file() for n in ("element-list",
                                                                                      "package-list")):
        raise JavadocError(f"--javadoc {root}: not a Javadoc HTML tree (no index.html and element-list)")
