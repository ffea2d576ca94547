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
  :data:`SIMULATED_BANNER` on the simulated backend.

Figures are drawn on matplotlib's Agg canvas directly (no pyplot, no global backend switch);
the style is a :func:`matplotlib.rc_context`, restored on exit.

References
----------
.. [1] M. Okabe and K. Ito, "Color Universal Design (CUD): how to make figures and
   presentations that are friendly to colorblind people", J*FLY, 2008.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import matplotlib
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from protocol_runner.analysis.provenance import SIMULATED_BANNER, Provenance

__all__ = [
    "DPI",
    "FORMATS",
    "OKABE_ITO",
    "protocol_style",
    "save",
    "simulated_banner",
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
_METADATA = {"pdf": {"CreationDate": None, "ModDate": None}, "svg": {"Date": None}, "png": {}}


@contextlib.contextmanager
def style() -> Iterator[None]:
    """The house style as a temporary ``rcParams`` context (draw and save inside it)."""
    with matplotlib.rc_context(_RC):
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


def save(figure: Figure, directory: str | Path, stem: str) -> list[Path]:
    """Write ``figure`` as ``stem.png`` (300 dpi), ``stem.pdf`` and ``stem.svg`` in ``directory``.

    Call inside :func:`style` (the SVG keeps its text as text only then).

    Returns
    -------
    list of Path
        The three files, in :data:`FORMATS` order.
    """
    FigureCanvasAgg(figure)
    out = Path(directory)
    paths = []
    for fmt in FORMATS:
        path = out / f"{stem}.{fmt}"
        figure.savefig(path, format=fmt, dpi=DPI, metadata=_METADATA[fmt], bbox_inches="tight")
        paths.append(path)
    return paths


def title_block(figure: Figure, heading: str, provenance: Provenance) -> None:
    """Put ``heading`` and the provenance lines above the figure (the banner in bold)."""
    lines = provenance.lines()
    text = "\n".join([heading, *lines[:2]])
    figure.suptitle(text, fontsize=9, linespacing=1.4)
    if provenance.simulated:
        simulated_banner(figure)


def simulated_banner(figure: Figure) -> None:
    """Print :data:`SIMULATED_BANNER` in bold above the title (``save`` keeps it in the frame)."""
    figure.text(0.5, 1.0, SIMULATED_BANNER, ha="center", va="bottom", fontsize=10,
                fontweight="bold", color=OKABE_ITO["vermillion"])
