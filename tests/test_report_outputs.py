"""Every table and figure of a small run and a small sweep, read back: valid PNG/PDF/SVG, labels.

The SVG files keep their text as ``<text>`` elements (``svg.fonttype = "none"``), so the labels a
reader sees are checked by reading them; the PNGs by their header and resolution; the PDFs by
their header, trailer, one page and an embedded TrueType font.
"""

from __future__ import annotations

import csv
import doctest
import importlib
import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from PIL import Image

from protocol_runner.analysis.metrics import bootstrap_means, compute_metrics
from protocol_runner.analysis.pooled import pool_cells
from protocol_runner.analysis.provenance import SIMULATED_BANNER
from protocol_runner.analysis.report import load_results
from protocol_runner.analysis.tables import COLUMNS
from protocol_runner.protocols.attacks import OOD_DRAWS
from protocol_runner.run.sessions import SESSIONS_FILE
from protocol_runner.sweep.execute import run_sweep
from protocol_runner.sweep.spec import parse_spec
from robustgraph.cli import main
from robustgraph.executors import LocalExecutor
from robustgraph.io import read as io_read

RUN = [
    "run", "--topology", "merg", "--n", "7", "--roster", "5S1W1A",
    "--attack", "fixed", "--protocols", "sac,majority,crs", "--tasks", "arith:3",
    "--rounds", "2", "--seed", "1", "--commit-gate",
]  # fmt: skip
SVG = "{http://www.w3.org/2000/svg}"
CI = "95% CI, percentile; seeds resampled, then queries within each seed, with replacement"


def cli(*args: object):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output + (result.stderr or "")
    return result


def svg_texts(path: Path) -> list[str]:
    root = ET.parse(path).getroot()
    assert root.tag == f"{SVG}svg"
    return ["".join(e.itertext()) for e in root.iter(f"{SVG}text")]


def check_files(directory: Path, stem: str) -> list[str]:
    """The three files of a figure are valid; returns the SVG's texts."""
    with Image.open(directory / f"{stem}.png") as image:
        assert image.format == "PNG" and image.width > 1000
        assert tuple(round(d) for d in image.info["dpi"]) == (300, 300)
    pdf = (directory / f"{stem}.pdf").read_bytes()
    assert pdf.startswith(b"%PDF-") and pdf.rstrip().endswith(b"%%EOF")
    assert len(re.findall(rb"/Type /Page\b", pdf)) == 1 and b"/FontFile2" in pdf
    return svg_texts(directory / f"{stem}.svg")


def cost_of(output: str) -> str:
    return next(line for line in output.splitlines() if line.startswith("cost: "))


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("run") / "results"
    return out, cli(*RUN, "-o", out).stdout


def test_run_and_report_print_one_cost_line(run_dir):
    out, printed = run_dir
    line = cost_of(printed)
    assert re.fullmatch(
        r"cost: ([\d,]+) LLM requests = ([\d,]+) cache hits \+ ([\d,]+) shared \+ ([\d,]+) "
        r"backend calls; [\d,]+ tokens \([\d,]+ prompt \+ [\d,]+ completion\); wall time "
        r"[\d.]+ s", line)
    requests, hits, shared, calls = (
        int(x.replace(",", "")) for x in re.findall(r"[\d,]+(?= (?:LLM|cache|shared|backend))",
                                                    line))
    assert requests == hits + shared + calls and calls > 0
    records = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    sessions = [json.loads(x) for x in (out / "sessions.jsonl").read_text().splitlines()]
    outside = sum(s["outside_queries"]["requests"] for s in sessions)
    assert outside == OOD_DRAWS  # the fixed adversary's out-of-distribution answers (App. B.4)
    assert requests == sum(r["cost"]["llm_calls"] for r in records) + outside
    assert cost_of(cli("report", out, "--no-plots").stdout) == line  # the same line
    again = cli(*RUN, "-o", out, "--no-plots")  # resumes: nothing left to ask the backend
    assert len((out / SESSIONS_FILE).read_text().splitlines()) == 2
    resumed = cost_of(again.stdout)
    assert resumed.startswith(line.split("; ")[0]) and resumed.endswith("over 2 sessions")


def test_run_figures_are_valid_and_labelled(run_dir):
    out, _ = run_dir
    cli("report", out, "--resamples", 200)
    provenance = [
        "tasks arith:3 · simulated backend (sim-strong, sim-weak) · roster 5S1W1A, attack fixed",
        "F = 2 · T = 2 rounds · seed 1 · 3 queries per protocol",
        SIMULATED_BANNER,
    ]
    rounds = check_files(out, "rounds")
    for label in ["Weak agents (W)", "Strong agents (S)", "final", "SAC", "majority", "CrS",
                  "accuracy (% of agents correct)", "round t (0: initial answers; final: FAA)",
                  f"band and bars: {CI}", *provenance]:
        assert label in rounds, label
    protocols = check_files(out, "protocols")
    for label in ["FAA (% of agents correct)", "BFTI = FAA − IAA (percentage points)",
                  "protocol", "gamma-MERG: FAA", "BFTI", f"error bars: {CI}", *provenance]:
        assert label in protocols, label
    assert rounds.count("SAC") == 1 and protocols.count("SAC") == 2  # legend; two panels' ticks
    assert "merg n=7" not in rounds + protocols  # the run's spec string, never a title
    topology = check_files(out, "topology")
    assert "gamma-MERG: graph, n = 7, m = 18" in topology and SIMULATED_BANNER in topology
    for label in provenance:  # the title block of the other figures: tasks, models, F, T, ...
        assert label in topology, label
    assert "topology.json" not in " ".join(topology)  # the user's graph, not the file
    caption = next(t for t in topology if t.startswith("certified"))
    assert caption.startswith("certified 4-robust (r* = 4); tolerates F = 3 Byzantine")
    joined = " ".join(topology)  # the caption is wrapped to the figure's width (issue 44)
    assert "this run, F = 2: certified (the certificate proves 4-robustness (" in joined
    assert re.search(r"proof checked\); F = 2 needs 3; byzantine set checked: adversaries \{",
                     joined), topology
    for label in ["strong agent (5)", "weak agent (1)", "adversary (1; attack fixed)"]:
        assert label in topology, label
    gate = check_files(out, "commit_gate")
    for label in ["Commits (% of queries)", "Escalations (% of queries)",
                  "Aborts (% of queries)", "False commits (% of commits)",
                  "evidence-diversity gate", "plain 2f+1 quorum", f"error bars: {CI}",
                  "Commit gate decisions per protocol (quorum 2f+1)"]:
        assert label in gate, label


def test_run_table_in_three_formats(run_dir):
    out, _ = run_dir
    summary = json.loads((out / "summary.json").read_text())
    markdown = (out / "table1.md").read_text()
    assert markdown.startswith(
        "| Topology | Protocol | IAA | FAA | BFTI | RA | W IAA→FAA | S IAA→FAA | H-Majority |"
    )
    assert "Simulated agents: not LLM results." in markdown and "95% confidence" in markdown
    latex = (out / "table1.tex").read_text()
    for part in (r"\begin{tabular}{llrrrrrrr}", r"\toprule", r"\midrule", r"\bottomrule",
                 r"W IAA$\to$FAA", r"{\scriptsize [", r"95\% confidence"):
        assert part in latex, part
    rows = list(csv.DictReader(io.StringIO((out / "table1.csv").read_text())))
    assert [r["protocol"] for r in rows] == ["sac", "majority", "crs"]
    keys = [k for column in COLUMNS for k in column.keys]
    for row in rows:
        metrics = summary["protocols"][row["protocol"]]["metrics"]
        assert row["topology"] == "merg n=7"
        for key in keys:
            for part, suffix in (("value", ""), ("low", "_low"), ("high", "_high")):
                assert float(row[key + suffix]) == pytest.approx(100 * metrics[key][part],
                                                                 abs=0.006)


def test_sweep_table_and_figures_pool_seeds(tmp_path):
    spec = parse_spec({
        "name": "tiny", "protocols": ["sac", "majority"],
        "grid": {"topology": ["merg", "complete"], "n": 7, "roster": "5S1W1A",
                 "tasks": "arith:3", "rounds": 1, "seed": [1, 2]},
        "options": {"plots": False, "resamples": 200, "concurrency": 8, "commit_gate": True},
    })  # fmt: skip
    run_sweep(spec, tmp_path, executor=LocalExecutor(workers=1), progress=False)
    (tmp_path / "plots" / "faa_by_seed.png").write_bytes(b"old")  # an older version's figure
    printed = cli("report", tmp_path, "--resamples", 200).stdout
    assert sorted(p.name for p in (tmp_path / "plots").iterdir()) == sorted(
        f"{stem}.{fmt}" for stem in ("protocols", "rounds", "commit_gate")
        for fmt in ("png", "pdf", "svg"))
    ci = "95% CI, two-level percentile bootstrap over seeds, then queries"
    provenance = ["F = 2 · T = 1 rounds · 2 seeds (1, 2) · 3 queries per protocol and cell",
                  "tasks arith:3 · simulated backend (sim-strong, sim-weak) · roster 5S1W1A, "
                  "attack fixed", SIMULATED_BANNER]
    rows = ["gamma-MERG", "complete"]
    texts = check_files(tmp_path / "plots", "protocols")
    titles = [f"{row}: FAA" for row in rows]  # each row's graph before its first metric
    for label in [*titles, "FAA (% of agents correct)", f"error bars: {ci}", *provenance]:
        assert label in texts, label
    assert "seed" not in texts  # seeds are pooled, never an axis
    rounds = check_files(tmp_path / "plots", "rounds")  # every protocol on one panel per row
    for label in [*rows, "Weak agents (W)", "Strong agents (S)", "final", "SAC", "majority",
                  "accuracy (% of agents correct)", "round t (0: initial answers; final: FAA)",
                  f"band and bars: {ci}", *provenance]:
        assert any(label in t for t in rounds), label
    assert sum("gamma-MERG" in t for t in rounds) == 2 and rounds.count("SAC") == 1  # W, S; legend
    gate = check_files(tmp_path / "plots", "commit_gate")
    for label in [*rows, "Commits (% of queries)", "Escalations (% of queries)",
                  "Aborts (% of queries)", "False commits (% of commits)",
                  "evidence-diversity gate", "plain 2f+1 quorum", f"error bars: {ci}",
                  "Commit gate decisions per protocol (quorum 2f+1)", *provenance]:
        assert label in gate, label
    assert gate.count("gamma-MERG") == 4  # one row of four panels per topology
    counts = [t for t in gate if re.fullmatch(r"\d+/\d+", t)]
    assert counts and all(int(t.split("/")[1]) <= 6 for t in counts)  # 2 seeds x 3 queries
    rows_csv = list(csv.DictReader(io.StringIO((tmp_path / "table1.csv").read_text())))
    assert [(r["topology"], r["protocol"]) for r in rows_csv] == [
        ("merg", "sac"), ("merg", "majority"), ("complete", "sac"), ("complete", "majority")]
    assert all(r["FAA_n"] == "6" for r in rows_csv)  # 2 seeds x 3 queries
    assert "| merg | sac |" in printed and "2 seed(s) per row pooled" in printed
    files = [tmp_path / "table1.tex", *sorted((tmp_path / "plots").iterdir())]
    before = [path.read_bytes() for path in files]
    cli("report", tmp_path, "--resamples", 200)
    assert [path.read_bytes() for path in files] == before  # no timestamps: the same bytes


def test_pooled_rows_match_one_summary_over_the_seeds(tmp_path):
    """A sweep's pooled row is the summary of its seeds' records together (as run --seeds)."""
    spec = parse_spec({
        "protocols": ["sac"], "grid": {"topology": "merg", "n": 5, "roster": "3S1W1A",
                                        "tasks": "arith:3", "rounds": 2, "seed": [1, 2]},
        "options": {"plots": False, "resamples": 100, "concurrency": 8},
    })  # fmt: skip
    summary = run_sweep(spec, tmp_path, executor=LocalExecutor(workers=1), progress=False).summary
    [row] = pool_cells(summary, tmp_path, resamples=300)
    records = [r for cell in summary["cells"]
               for r in load_results(tmp_path / cell["directory"]).records]
    direct = compute_metrics(records, resamples=300, seed=0)["sac"].to_json()
    assert row.seeds == ("1", "2") and row.queries == 6 and row.data == direct
    assert len(row.data["rounds"]["strong"]) == 3  # rounds 0..T, pooled with their intervals


def test_two_level_intervals_see_the_spread_between_seeds():
    rng = np.random.default_rng(5)
    seeds = [(rng.random((40, 1)) < p).astype(float) for p in (0.2, 0.5, 0.8)]
    pooled = bootstrap_means(seeds, resamples=2000, seed=1)[0]
    flat = bootstrap_means(np.vstack(seeds), resamples=2000, seed=1)[0]
    assert pooled.value == pytest.approx(flat.value) and pooled.n == flat.n == 120
    assert pooled.high - pooled.low > 2 * (flat.high - flat.low)
    same = bootstrap_means([seeds[1]] * 3, resamples=2000, seed=1)[0]
    assert same.low < same.value < same.high


def test_random_graph_per_seed_gets_one_panel_per_draw(tmp_path):
    out = tmp_path / "er"
    cli("run", "--topology", "er:r=3", "--n", "7", "--roster", "5S1W1A",
        "--protocols", "sac,majority", "--tasks", "arith:2", "--rounds", "1",
        "--seeds", "1,2", "-o", out)
    hashes = {(out / f"seed-{s}" / "topology.json").read_bytes() for s in (1, 2)}
    assert len(hashes) == 2  # a random family: one graph per seed
    result = cli("report", out, "--resamples", 50)
    assert "topology plot skipped" not in result.output + (result.stderr or "")
    texts = check_files(out, "topology")
    assert "ER (r = 3): 2 random draws of the graph (one per seed), n = 7" in texts, texts
    sizes = [io_read(out / f"seed-{s}" / "topology.json").m for s in (1, 2)]
    assert [t for t in texts if t.startswith("seed ")] == [
        f"seed {s}: m = {m}" for s, m in zip((1, 2), sizes, strict=True)]
    per_seed = [t for t in texts if re.fullmatch(r"certified \d+-robust \(r\* (=|>=) \d+\)", t)]
    assert len(per_seed) == 2  # each draw's own certified r under its panel
    start = next(i for i, t in enumerate(texts) if t.startswith("certified r "))
    caption = " ".join(texts[start:start + 3])  # wrapped to the figure's width (issue 44)
    assert re.match(r"certified r (= \d+ on each of|from \d+ to \d+ over) the 2 seeds' "
                    r"graphs; every one tolerates F = \d+ Byzantine neighbours per agent "
                    r"under SAC \(F-local, needs \(F\+1\)-robust\)", caption), caption
    assert "this run, F = 2: certified on 2 of 2 seeds' graphs" in texts
    for label in ["strong agent (5)", "weak agent (1)", "adversary (1; attack fixed)",
                  SIMULATED_BANNER]:
        assert label in texts, label


def test_a_directory_of_runs_gets_one_table_over_them(run_dir, tmp_path):
    out, _ = run_dir
    cli(*RUN[:2], "complete", *RUN[3:], "-o", tmp_path / "b-complete", "--no-plots")
    cli(*RUN, "-o", tmp_path / "a-merg", "--no-plots")  # runs on the cache of no other dir
    result = cli("report", tmp_path, "--no-plots", "--resamples", 100, "--json")
    doc = json.loads(result.stdout)
    assert list(doc["runs"]) == ["a-merg", "b-complete"] and doc["files"] == [
        "table1.md", "table1.tex", "table1.csv"]
    rows = list(csv.DictReader(io.StringIO((tmp_path / "table1.csv").read_text())))
    assert [(r["topology"], r["protocol"]) for r in rows] == [
        (t, p) for t in ("merg n=7", "complete n=7") for p in ("sac", "majority", "crs")]
    faa = COLUMNS[1].keys[0]
    same = json.loads((out / "summary.json").read_text())["protocols"]["sac"]["metrics"][faa]
    assert float(rows[0][faa]) == pytest.approx(100 * same["value"], abs=0.006)  # same run
    assert (tmp_path / "a-merg" / "table1.md").exists()  # each run keeps its own files
    doc = json.loads(cli("report", tmp_path, "--resamples", 100, "--json").stdout)
    assert doc["files"][3:] == [f"{stem}.{fmt}" for stem in ("protocols", "rounds", "commit_gate")
                                for fmt in ("png", "pdf", "svg")]
    rounds = check_files(tmp_path, "rounds")  # a row of W/S panels per run, protocols on each
    for label in ["gamma-MERG", "complete", "Weak agents (W)", "Strong agents (S)", "final",
                  "SAC", "majority", "CrS", "queries per protocol and topology",
                  SIMULATED_BANNER]:
        assert any(label in t for t in rounds), label
    assert sum("gamma-MERG" in t for t in rounds) == 2 and rounds.count("SAC") == 1
    gate = check_files(tmp_path, "commit_gate")  # a row of the four outcomes per run
    assert gate.count("gamma-MERG") == 4 and gate.count("complete") == 4


@pytest.mark.parametrize("module", [
    "protocol_runner.analysis.cost", "protocol_runner.analysis.figures",
    "protocol_runner.analysis.names",
    "protocol_runner.analysis.plots", "protocol_runner.analysis.pooled",
    "protocol_runner.analysis.provenance", "protocol_runner.analysis.sweep_plots",
    "protocol_runner.analysis.tables", "protocol_runner.analysis.topology_plot",
])  # fmt: skip
def test_docstring_examples_run(module):
    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0
