"""Issue 44, item 7, and issue 41, item 12: figures that explain themselves.

- ``report --resamples 1`` (or 2) draws its figures (was ``'yerr' must not contain negative
  values``: a percentile interval from a handful of resamples need not hold its estimate);
- ``protocols.png``: each panel titled by its metric (both bore the graph's file name), the
  bars' legend entry an error bar (was a stray ``|``);
- a caption longer than the figure is wrapped, not left to widen the canvas (``topology.png``
  had a third of its width empty);
- a ``--allow-uncertified`` run says NOT certified on ``table1.md``, ``table1.tex``,
  ``table1.csv`` and the protocol and round figures, as the simulated label already did.
"""

from __future__ import annotations

import csv
import io
import struct

import pytest
from click.testing import CliRunner
from matplotlib.figure import Figure

import protocol_runner.analysis.figures as fig
from protocol_runner.analysis import plots
from protocol_runner.analysis.provenance import SIMULATED_BANNER, UNCERTIFIED_BANNER
from robustgraph.cli import main


def _invoke(args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def uncertified_run(tmp_path_factory):
    """A ring (1-robust) run with F = 1 under --allow-uncertified, figures off."""
    out = tmp_path_factory.mktemp("ring") / "ring"
    done = _invoke(["run", "--topology", "circulant:k=1", "--n", "6", "--F", "1",
                    "--roster", "5S1A", "--tasks", "arith:2", "--rounds", "1",
                    "--protocols", "sac,majority", "--seeds", "1-2", "--allow-uncertified",
                    "--no-plots", "-o", out])
    assert done.exit_code == 0, done.output
    return out


def _png_size(path) -> tuple[int, int]:
    data = path.read_bytes()
    return struct.unpack(">II", data[16:24])


@pytest.mark.parametrize("resamples", [1, 2])
def test_report_with_a_handful_of_resamples_draws_its_figures(uncertified_run, resamples):
    done = _invoke(["report", uncertified_run, "--resamples", resamples])
    assert done.exit_code == 0, done.output
    assert (uncertified_run / "protocols.png").is_file()


def test_uncertified_runs_say_so_on_the_tables_and_figures(uncertified_run):
    done = _invoke(["report", uncertified_run, "--resamples", 50])
    assert done.exit_code == 0, done.output
    for name in ("table1.md", "table1.tex"):
        text = " ".join((uncertified_run / name).read_text().split())
        assert "NOT certified: run with --allow-uncertified" in text, name
        assert "outside the F-local model" in text, name
    rows = list(csv.DictReader(io.StringIO((uncertified_run / "table1.csv").read_text())))
    assert rows and {row["label"] for row in rows} == {f"{SIMULATED_BANNER}; {UNCERTIFIED_BANNER}"}
    for stem in ("protocols", "rounds"):
        svg = (uncertified_run / f"{stem}.svg").read_text()
        assert "NOT certified" in svg and "outside the F-local model" in svg, stem


def test_protocol_panels_are_titled_by_metric_with_an_error_bar_legend(tmp_path):
    faa = {"value": 0.6, "low": 0.62, "high": 0.7, "n": 10}  # an interval missing its estimate
    panel = plots.Panel("merg7.json", {"": {"sac": {"FAA": faa, "BFTI": faa}}})
    with fig.layout("screen"):
        titles = []
        original = Figure.savefig

        def spy(self, *args, **kwargs):
            titles.extend(ax.get_title() for ax in self.axes)
            handles = self.legends[0].legend_handles
            assert all(getattr(h, "get_marker", lambda: None)() != "|" for h in handles)
            return original(self, *args, **kwargs)

        Figure.savefig = spy
        try:
            plots.plot_comparison([panel], _provenance(), tmp_path, ci="95% CI, percentile")
        finally:
            Figure.savefig = original
    assert titles[:2] == ["merg7.json: FAA", "BFTI"]


def _provenance():
    from protocol_runner.analysis.provenance import Provenance

    return Provenance(("arith:2",), ("simulated",), ("sim-strong",), ("4S2W1A",), ("fixed",),
                      (3,), (1,), (1,), (2,))


def test_a_long_caption_is_wrapped_to_the_figure(tmp_path):
    with fig.layout("screen"), fig.style():
        figure = Figure(figsize=(4, 3), layout="constrained")
        figure.subplots().plot([0, 1], [0, 1])
        fig.finish(figure, tmp_path, "long", "A heading", _provenance(),
                   notes=["a very long caption line " * 12])
    width, _ = _png_size(tmp_path / "long.png")
    assert width <= 4 * fig.DPI * 1.1  # the figure's own width, not the caption's
