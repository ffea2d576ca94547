"""``report --style paper``: figures that go straight into a paper (issue 33).

Each figure of a small run is rendered at one column (3.5 in) and at two (7 in) and read back:
the PDF page and the PNG are that wide and at most a page tall, the PDF embeds its fonts
(TrueType, ``pdf.fonttype = 42``: a ``/FontFile2`` stream per font, and ``pdffonts`` says
``emb yes`` where poppler is installed), the SVG's text holds no run spec string and no title
block, and the provenance with the "simulated" statement is in the caption file and in the
PDF's metadata.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner
from PIL import Image

from protocol_runner.analysis.figures import CAPTION_SUFFIX, COLUMN_WIDTH, PAGE_HEIGHT, PAGE_WIDTH
from protocol_runner.analysis.provenance import SIMULATED_BANNER
from robustgraph.cli import main

SVG = "{http://www.w3.org/2000/svg}"
STEMS = ("rounds", "protocols", "commit_gate", "topology")
SPEC = re.compile(r"\b(merg|complete|er|pa|circulant|k-in)(:\S*)? n=\d+|\b(er|pa):r=\d")
"""A run's topology spec as recorded (``er:r=2 n=5``): never a title in a paper figure."""


def _cli(*args: object):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output + (result.stderr or "")
    return result


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("paper") / "run"
    _cli("run", "--topology", "er:r=3", "--n", "7", "--roster", "5S1W1A",
         "--attack", "fixed", "--protocols", "sac,cpwbft,judge", "--tasks", "arith:3",
         "--rounds", "2", "--seed", "1", "--commit-gate", "--no-plots", "-o", out)
    return out


def _render(run_dir: Path, tmp_path: Path, columns: int) -> Path:
    out = tmp_path / f"columns-{columns}"
    shutil.copytree(run_dir, out)
    _cli("report", out, "--resamples", 100, "--style", "paper", "--columns", columns)
    return out


def _pdf_size(pdf: bytes) -> tuple[float, float]:
    box = re.search(rb"/MediaBox \[\s*([\d.]+) ([\d.]+) ([\d.]+) ([\d.]+)\s*\]", pdf)
    assert box is not None
    x0, y0, x1, y1 = (float(v) for v in box.groups())
    return (x1 - x0) / 72, (y1 - y0) / 72


def _svg_texts(path: Path) -> list[str]:
    return ["".join(e.itertext()) for e in ET.parse(path).getroot().iter(f"{SVG}text")]


@pytest.mark.parametrize("columns", [1, 2])
def test_paper_figures_fit_the_column_embed_fonts_and_carry_no_spec_strings(
    run_dir, tmp_path, columns
):
    out = _render(run_dir, tmp_path, columns)
    width = COLUMN_WIDTH if columns == 1 else PAGE_WIDTH
    for stem in STEMS:
        pdf = (out / f"{stem}.pdf").read_bytes()
        page_width, page_height = _pdf_size(pdf)
        assert page_width == pytest.approx(width, abs=0.01), stem
        assert 1.0 < page_height <= PAGE_HEIGHT + 0.01, stem
        with Image.open(out / f"{stem}.png") as image:
            assert image.width == round(300 * width), stem
        fonts = len(re.findall(rb"/FontFile2\b", pdf))
        assert fonts >= 1 and fonts == len(re.findall(rb"/Type /Font\b", pdf)) - len(
            re.findall(rb"/Subtype /Type0\b", pdf)), stem  # every simple font embedded
        if shutil.which("pdffonts"):
            listing = subprocess.run(["pdffonts", str(out / f"{stem}.pdf")],
                                     capture_output=True, text=True, check=True).stdout
            emb = [re.search(r"\s(yes|no)\s+(yes|no)\s+(yes|no)\s+\d+\s+\d+\s*$", row)
                   for row in listing.splitlines()[2:]]  # columns emb, sub, uni, object ID
            assert emb and all(m is not None and m.group(1) == "yes" for m in emb), listing
        texts = _svg_texts(out / f"{stem}.svg")
        assert texts, stem
        spec = [t for t in texts if SPEC.search(t)]
        assert not spec, (stem, spec)
        assert SIMULATED_BANNER not in texts and not any("queries per" in t for t in texts)
        caption = (out / f"{stem}{CAPTION_SUFFIX}").read_text(encoding="utf-8")
        assert SIMULATED_BANNER in caption and "simulated backend" in caption, stem
        assert "T = 2 rounds · seed 1" in caption
        assert f"/Keywords ({SIMULATED_BANNER})".encode() in pdf, stem  # the PDF's metadata
        assert b"/Subject (" in pdf, stem


def test_paper_figures_name_things_for_readers_and_share_axes(run_dir, tmp_path):
    out = _render(run_dir, tmp_path, 2)
    protocols = _svg_texts(out / "protocols.svg")
    assert protocols.count("SAC") == 2 and protocols.count("CP-WBFT") == 2
    assert protocols.count("judge only") == 1  # on the FAA axis only: it has no BFTI
    assert "ER (r = 3): FAA" in protocols  # the row's graph before its first metric
    rounds = _svg_texts(out / "rounds.svg")
    assert "band and bars: 95% CI" in rounds  # the method is in the caption file
    assert "Intervals: 95% CI" in (out / f"rounds{CAPTION_SUFFIX}").read_text(encoding="utf-8")
    topology = _svg_texts(out / "topology.svg")
    assert not any(t.startswith("certified") for t in topology)  # in the caption instead
    caption = (out / f"topology{CAPTION_SUFFIX}").read_text(encoding="utf-8")
    assert re.search(r"^certified \d-robust \(r\* = \d\); tolerates F = \d", caption, re.M), caption


def test_screen_style_keeps_the_title_block(run_dir, tmp_path):
    out = tmp_path / "screen"
    shutil.copytree(run_dir, out)
    _cli("report", out, "--resamples", 100)
    texts = _svg_texts(out / "protocols.svg")
    assert SIMULATED_BANNER in texts and not (out / f"protocols{CAPTION_SUFFIX}").exists()
    assert b"/Subject (" in (out / "protocols.pdf").read_bytes()  # the metadata in both styles
