"""The house style of every figure: palette, fonts, titles, and PNG + PDF + SVG at 300 dpi.

Every figure of :mod:`protocol_runner.analysis.plots` and
:mod:`protocol_runner.analysis.sweep_plots` is drawn inside :func:`style` and written by
:func:`save`, so all of them share:

- the Okabe-Ito palette [1]_ (distinguishable under the common colour-vision deficiencies and
  in greyscale together with the per-protocol markers and line styles of :func:`protocol_style`);
- text kept as text in the SVG (``svg.fonttype = "none"``) and TrueType fonts in the PDF
  (``pdf.fonttype = 42``), so labels can be searched, edited and checked;
- no timestamps in the PDF and SVG and a fixed SVG id salt, so the same data give the same
  vector files;
- a title block (:class:`~protocol_runner.analysis.provenance.Provenance`) naming the task
  set, backend, model(s), roster, F, T, seeds and query counts, and the banner
  :data:`SIMULATED_BANNER` on the simulated backend; the same text in the files' metadata
  (PDF Title, Subject and Keywords; SVG Title and Description; PNG text chunks).

Two layouts (:func:`layout`, chosen by ``robustgraph report --style``): ``screen`` (the
default: sizes that grow with the panels, the title block and banner in the figure) and
``paper``: the width of one column (:data:`COLUMN_WIDTH`, 3.5 in) or of a two-column page
(:data:`PAGE_WIDTH`, 7 in), at most :data:`PAGE_HEIGHT` tall, print-size fonts, and no title
block: the heading, provenance and the "simulated" statement go to ``STEM.caption.txt`` and
the metadata instead, as a camera-ready figure takes its caption from the paper.

Figures are drawn on matplotlib's Agg canvas directly (no pyplot, no global backend switch);
the style is a :func:`matplotlib.rc_context`, restored on exit.

References
----------
.. [1] M. Okabe and K. Ito, "Color Universal Design (CUD): how to make figures and
   presentations that are friendly to colorblind people", J*FLY, 2008.
"""

from __future__ import annotations

import contextlib
import io
import textwrap
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

import matplotlib
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from protocol_runner.analysis.provenance import SIMULATED_BANNER, UNCERTIFIED_BANNER, Provenance
from robustgraph.atomic import write_atomic

__all__ = [
    "CAPTION_SUFFIX",
    "COLUMN_WIDTH",
    "DPI",
    "FORMATS",
    "OKABE_ITO",
    "PAGE_HEIGHT",
    "PAGE_WIDTH",
    "STYLES",
    "Layout",
    "current",
    "finish",
    "fit",
    "layout",
    "protocol_style",
    "save",
    "simulated_banner",
    "size",
    "style",
    "title_block",
]

DPI = 300
"""Resolution of the PNG files (the vector files are resolution-free)."""

FORMATS = ("png", "pdf", "svg")
"""Every figure is written in each of these formats, same stem."""

OKABE_ITO = {
    "blue": "#0072B2",
    "orange": "#E69F00",
    "vermillion": "#D55E00",
    "green": "#009E73",
    "sky": "#56B4E9",
    "purple": "#CC79A7",
    "yellow": "#F0E442",
    "black": "#000000",
}
"""The eight Okabe-Ito colours [1]_."""

_PROTOCOLS = {  # fixed per protocol, so one protocol looks the same in every figure
    "sac": ("blue", "o", "-"),
    "cpwbft": ("vermillion", "s", "--"),
    "crs": ("green", "^", "-."),
    "judge": ("purple", "v", ":"),
    "majority": ("orange", "D", "--"),
    "debate": ("sky", "P", "-."),
}
_SPARE = (("black", "X", ":"), ("yellow", "*", "-"), ("purple", "h", "--"))

_RC = {
    "svg.fonttype": "none",
    "svg.hashsalt": "robustgraph",
    "pdf.fonttype": 42,
    "font.family": "DejaVu Sans",
    "font.size": 8.5,
    "axes.titlesize": 9,
    "axes.labelsize": 8.5,
    "legend.fontsize": 8,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.6,
    "lines.linewidth": 1.4,
    "lines.markersize": 4.5,
    "errorbar.capsize": 3,
}
_PAPER_RC = {  # print size: 7 pt text is the usual floor of a two-column proceedings page
    "font.size": 7,
    "axes.titlesize": 7.5,
    "axes.labelsize": 7,
    "legend.fontsize": 6.5,
    "xtick.labelsize": 6.5,
    "ytick.labelsize": 6.5,
    "lines.linewidth": 1.0,
    "lines.markersize": 3.5,
    "errorbar.capsize": 2,
    "axes.linewidth": 0.6,
    "xtick.major.width": 0.6,
    "ytick.major.width": 0.6,
}
_METADATA = {"pdf": {"CreationDate": None, "ModDate": None}, "svg": {"Date": None}, "png": {}}

STYLES = ("screen", "paper")
"""The layouts of :func:`layout` (``robustgraph report --style``)."""
COLUMN_WIDTH = 3.5
"""Inches: one column of a two-column page (``--style paper --columns 1``)."""
PAGE_WIDTH = 7.0
"""Inches: the text width of a two-column page (``--style paper``, the default width)."""
PAGE_HEIGHT = 9.0
"""Inches: the most a paper figure takes, a page's text height."""
CAPTION_SUFFIX = ".caption.txt"
"""``STEM.caption.txt``: the heading, provenance and "simulated" statement of a paper figure."""


@dataclass(frozen=True)
class Layout:
    """The figures' layout: ``style`` one of :data:`STYLES`; ``columns`` (1 or 2) the paper
    width in columns of a two-column page."""

    style: str = "screen"
    columns: int = 2

    @property
    def paper(self) -> bool:
        return self.style == "paper"

    @property
    def width(self) -> float:
        """The paper width in inches."""
        return COLUMN_WIDTH if self.columns == 1 else PAGE_WIDTH


_SCREEN = Layout()
_LAYOUT: ContextVar[Layout] = ContextVar("robustgraph_figure_layout", default=_SCREEN)


@contextlib.contextmanager
def layout(style: str = "screen", columns: int = 2) -> Iterator[Layout]:
    """Draw the figures made inside the block in ``style`` at ``columns`` column(s) wide.

    Examples
    --------
    >>> with layout("paper", columns=1) as chosen:
    ...     current().width
    3.5
    >>> current().style
    'screen'
    """
    if style not in STYLES or columns not in (1, 2):
        raise ValueError(f"figure layout {style!r} at {columns} column(s) is not one we draw")
    token = _LAYOUT.set(Layout(style, columns))
    try:
        yield _LAYOUT.get()
    finally:
        _LAYOUT.reset(token)


def current() -> Layout:
    """The layout in force (:func:`layout`; ``screen`` outside any)."""
    return _LAYOUT.get()


def size(screen: tuple[float, float], rows: int, row: tuple[float, float],
         extra: float = 0.45) -> tuple[float, float]:
    """A figure's size in inches: ``screen`` on screen; on paper the layout's width, and
    ``rows`` rows of ``row[0]`` (one column wide) or ``row[1]`` (two) inches plus ``extra``
    for the legend, at most :data:`PAGE_HEIGHT`.

    Examples
    --------
    >>> with layout("paper"):
    ...     size((9.0, 12.0), 4, (1.4, 1.9))
    (7.0, 8.05)
    >>> with layout("paper", columns=1):
    ...     size((9.0, 12.0), 8, (1.4, 1.9))
    (3.5, 9.0)
    """
    chosen = current()
    if not chosen.paper:
        return screen
    height = rows * row[chosen.columns - 1] + extra
    return chosen.width, round(min(PAGE_HEIGHT, height), 2)


@contextlib.contextmanager
def style() -> Iterator[None]:
    """The house style as a temporary ``rcParams`` context (draw and save inside it); print
    sizes in the paper layout."""
    rc = {**_RC, **_PAPER_RC} if current().paper else _RC
    with matplotlib.rc_context(rc):
        yield


def protocol_style(protocol: str, index: int = 0) -> dict[str, str]:
    """Colour, marker and line style of ``protocol``: fixed for the known protocols.

    ``index`` (the protocol's position in the figure) picks a spare style for unknown names.

    Examples
    --------
    >>> protocol_style("sac")
    {'color': '#0072B2', 'marker': 'o', 'linestyle': '-'}
    """
    colour, marker, line = _PROTOCOLS.get(protocol, _SPARE[index % len(_SPARE)])
    return {"color": OKABE_ITO[colour], "marker": marker, "linestyle": line}


def _metadata(fmt: str, heading: str, about: Sequence[str]) -> dict[str, str | None]:
    """The files' own record of what the figure shows and rests on (every style)."""
    if not heading:
        return dict(_METADATA[fmt])
    text = "; ".join(about)
    keywords = "; ".join(b for b in (SIMULATED_BANNER, UNCERTIFIED_BANNER) if b in about)
    keywords = keywords or "robustgraph"
    keys = {
        "pdf": {"Title": heading, "Subject": text, "Keywords": keywords, "Creator": "robustgraph"},
        "svg": {"Title": heading, "Description": text, "Creator": "robustgraph"},
        "png": {"Title": heading, "Description": text, "Software": "robustgraph"},
    }[fmt]
    return {**_METADATA[fmt], **keys}


def save(figure: Figure, directory: str | Path, stem: str, *, heading: str = "",
         about: Sequence[str] = ()) -> list[Path]:
    """Write ``figure`` as ``stem.png`` (300 dpi), ``stem.pdf`` and ``stem.svg`` in ``directory``.

    Call inside :func:`style` (the SVG keeps its text as text only then). ``heading`` and the
    lines ``about`` go into each file's metadata. On paper the bounding box is the figure's
    own (the chosen width), not cropped to the ink. Each file is rendered in memory, then
    written whole or not at all (:func:`robustgraph.atomic.write_atomic`: a full disk raises
    ``OSError`` naming the file and leaves the previous one).

    Returns
    -------
    list of Path
        The three files, in :data:`FORMATS` order.
    """
    FigureCanvasAgg(figure)
    out = Path(directory)
    box = None if current().paper else "tight"
    paths = []
    for fmt in FORMATS:
        path = out / f"{stem}.{fmt}"
        rendered = io.BytesIO()
        figure.savefig(rendered, format=fmt, dpi=DPI, metadata=_metadata(fmt, heading, about),
                       bbox_inches=box)
        write_atomic(path, rendered.getvalue())
        paths.append(path)
    return paths


def finish(figure: Figure, directory: str | Path, stem: str, heading: str,
           provenance: Provenance | None, *, notes: Sequence[str] = ()) -> list[Path]:
    """Title and save ``figure``: on screen the title block above it (``notes``, e.g. a
    graph's certified r, under it); on paper no title, and ``STEM.caption.txt`` holding the
    heading, ``notes`` and provenance (with the "simulated" statement where it applies).

    Returns
    -------
    list of Path
        The three figure files, then on paper the caption file.
    """
    about = [*notes, *(provenance.lines() if provenance is not None else [])]
    if not current().paper:
        if provenance is None:
            figure.suptitle(heading, fontsize=10)
        else:
            title_block(figure, heading, provenance)
        if notes:
            figure.supxlabel("\n".join(fit(notes, figure, 8)), fontsize=8, linespacing=1.4)
        return save(figure, directory, stem, heading=heading, about=about)
    paths = save(figure, directory, stem, heading=heading, about=about)
    caption = Path(directory) / f"{stem}{CAPTION_SUFFIX}"
    write_atomic(caption, ("\n".join([f"{heading}.", *about]) + "\n").encode("utf-8"))
    return [*paths, caption]


def fit(lines: Sequence[str], figure: Figure, fontsize: float) -> list[str]:
    """``lines`` wrapped at word boundaries to the figure's width at ``fontsize`` points.

    A line wider than the figure made ``bbox_inches="tight"`` widen the canvas to hold it,
    leaving the panels in part of it and the rest empty (``topology.png``, issue 44). The width
    of a character is taken as 0.55 em (prose in DejaVu Sans measured 0.51 em), so that a
    wrapped line fits.

    Examples
    --------
    >>> fit(["a " * 40], Figure(figsize=(2, 1)), 8)[:2]
    ['a a a a a a a a a a a a a a a a', 'a a a a a a a a a a a a a a a a']
    """
    chars = max(20, int(figure.get_figwidth() * 72 / (0.55 * fontsize)))
    out: list[str] = []
    for line in lines:
        out += textwrap.wrap(line, chars, break_long_words=False) or [""]
    return out


def title_block(figure: Figure, heading: str, provenance: Provenance) -> None:
    """Put ``heading`` and the provenance lines above the figure (the banner in bold)."""
    lines = provenance.lines()
    text = "\n".join(fit([heading, *lines[:2]], figure, 9))
    figure.suptitle(text, fontsize=9, linespacing=1.4)
    if provenance.banners():
        simulated_banner(figure, "\n".join(fit(provenance.banners(), figure, 10)))


def simulated_banner(figure: Figure, text: str = SIMULATED_BANNER) -> None:
    """Print ``text`` (:data:`SIMULATED_BANNER`, and the NOT certified banner where it applies)
    in bold above the title (``save`` keeps it in the frame)."""
    figure.text(0.5, 1.0, text, ha="center", va="bottom", fontsize=10,
                fontweight="bold", color=OKABE_ITO["vermillion"])
