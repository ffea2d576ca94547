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
- a title block (:class:`Provenance`) naming the task set, backend, model(s), roster, F, T,
  seeds and query counts, and the banner :data:`SIMULATED_BANNER` on the simulated backend.

Figures are drawn on matplotlib's Agg canvas directly (no pyplot, no global backend switch);
the style is a :func:`matplotlib.rc_context`, restored on exit.

References
----------
.. [1] M. Okabe and K. Ito, "Color Universal Design (CUD): how to make figures and
   presentations that are friendly to colorblind people", J*FLY, 2008.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

__all__ = [
    "DPI",
    "FORMATS",
    "OKABE_ITO",
    "SIMULATED_BANNER",
    "Provenance",
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

SIMULATED_BANNER = "simulated agents: not LLM results"
"""Printed on every figure (and table caption) whose numbers come from the simulated backend."""

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


def _seeds(seeds: Sequence[int]) -> str:
    values = sorted(set(seeds))
    if len(values) == 1:
        return f"seed {values[0]}"
    if values == list(range(values[0], values[-1] + 1)) and len(values) > 2:
        return f"{len(values)} seeds ({values[0]}-{values[-1]})"
    return f"{len(values)} seeds ({', '.join(map(str, values))})"


def _values(values: Sequence[Any]) -> str:
    unique = list(dict.fromkeys(str(v) for v in values if v is not None and v != ""))
    return "/".join(unique) if unique else "?"


@dataclass(frozen=True)
class Provenance:
    """What a figure's numbers rest on, for its title block.

    Each field holds every value that occurs (a sweep varies some): the task set spec(s),
    backend(s), model name(s), roster spec(s) with attack(s), F, T (rounds after the initial
    answers), seeds, and the query counts per protocol (``queries``: one count per
    protocol and cell).
    """

    task_sets: tuple[str, ...]
    backends: tuple[str, ...]
    models: tuple[str, ...]
    rosters: tuple[str, ...]
    attacks: tuple[str, ...]
    F: tuple[int, ...]  # noqa: N815 - the papers' name
    T: tuple[int, ...]  # noqa: N815
    seeds: tuple[int, ...]
    queries: tuple[int, ...]
    per: str = "protocol"

    @classmethod
    def of_run(cls, run: Mapping[str, Any], queries: Sequence[int]) -> Provenance:
        """From the ``run`` section of a run's ``summary.json`` and its per-protocol queries."""
        roster = run.get("roster") or {}
        seeds = run.get("seeds") or [run.get("seed")]
        return cls(
            task_sets=(str(run.get("task_set") or f"{run.get('tasks', '?')} tasks"),),
            backends=(str(run.get("backend") or "?"),),
            models=tuple(run.get("models") or ()),
            rosters=(str(roster.get("spec", "?")),),
            attacks=(str(roster["attack"]),) if roster.get("attack") else (),
            F=(run.get("F"),),
            T=(run.get("rounds"),),
            seeds=tuple(s for s in seeds if s is not None),
            queries=tuple(queries),
        )

    @classmethod
    def merge(cls, parts: Sequence[Provenance]) -> Provenance:
        """One provenance for several runs (a sweep's cells): every value that occurs."""

        def union(name: str) -> tuple[Any, ...]:
            return tuple(dict.fromkeys(v for p in parts for v in getattr(p, name)))

        fields = [name for name in cls.__dataclass_fields__ if name != "per"]
        return cls(**{name: union(name) for name in fields}, per="protocol and cell")

    @property
    def simulated(self) -> bool:
        """Whether any of the numbers come from the simulated backend."""
        return "simulated" in self.backends

    def lines(self) -> list[str]:
        """The title block: one line of what was run, one of its size (and the banner).

        Examples
        --------
        >>> p = Provenance(("arith:100",), ("simulated",), ("sim-strong", "sim-weak"),
        ...                ("4S2W1A",), ("fixed",), (3,), (6,), (1,), (100, 100))
        >>> p.lines()[0]
        'tasks arith:100 · simulated backend (sim-strong, sim-weak) · roster 4S2W1A, attack fixed'
        >>> p.lines()[1]
        'F = 3 · T = 6 rounds · seed 1 · 100 queries per protocol'
        >>> p.lines()[2]
        'simulated agents: not LLM results'
        """
        models = f" ({', '.join(self.models)})" if self.models else ""
        attack = f", attack {_values(self.attacks)}" if self.attacks else ""
        first = (
            f"tasks {_values(self.task_sets)} · {_values(self.backends)} backend{models} · "
            f"roster {_values(self.rosters)}{attack}"
        )
        counts = sorted(set(self.queries))
        if not counts:
            queries = "no queries"
        elif len(counts) == 1:
            queries = f"{counts[0]} queries per {self.per}"
        else:
            queries = f"{counts[0]}-{counts[-1]} queries per {self.per}"
        seeds = _seeds(self.seeds) if self.seeds else "seed ?"
        second = (
            f"F = {_values(self.F)} · T = {_values(self.T)} rounds · {seeds} · {queries}"
        )
        return [first, second] + ([SIMULATED_BANNER] if self.simulated else [])


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
