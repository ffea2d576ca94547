"""``write_summary`` and ``robustgraph report``: summary files, plots, truncated lines, errors."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from matplotlib.image import imread
from record_fakes import turns

from protocol_runner.analysis.metrics import METRICS
from protocol_runner.analysis.report import (
    TruncatedResultsWarning,
    load_results,
    summary_markdown,
    write_summary,
)
from protocol_runner.analysis.topology_plot import ROLE_STYLE, find_topology
from protocol_runner.run.records import Cost, Decision, QueryRecord
from robustgraph import io
from robustgraph.certificate.certifier import certify
from robustgraph.certificate.claims import Claim
from robustgraph.cli import main
from robustgraph.errors import ParameterError
from robustgraph.topology import Topology

NODES = [f"n{i}" for i in range(5)]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def record(protocol: str, task: int, *flags: str, run_id: str = "run-a") -> QueryRecord:
    rounds = tuple(turns(f) for f in flags)
    return QueryRecord(
        query_id=f"{protocol}/t{task}",
        run_id=run_id,
        protocol=protocol,
        task_id=f"t{task}",
        task_index=task,
        task_kind="math",
        reference="7",
        seed=3,
        F=1,
        roster={"spec": "2S2W1A", "n": 5, "attack": "fixed"},
        rounds=rounds,
        final=rounds[-1],
        decision=Decision("7", True) if protocol == "majority" else None,
        cost=Cost(llm_calls=5, cache_hits=1, prompt_tokens=40, completion_tokens=4, wall_s=0.5),
    )


# SAC, over all five agents (the paper's definition): IAA = (1/5 + 3/5 + 2/5 + 0)/4 = 30%,
# FAA = (3/5 + 1/5 + 4/5 + 3/5)/4 = 55%, BFTI = +25, RA = 3/4 (plurality: t3 3 right vs 2),
# H-Majority = 2/4 (t3: 2 right vs 2 wrong among the honest is a tie: wrong),
# W 12.5 -> 25, S 62.5 -> 87.5. Majority vote: every agent's answer is its round-0 answer.
RECORDS = [
    record("debate", 0, "TTFFF", "TTTTF"),
    record("sac", 2, "TTFFF", "TTTFT"),
    record("sac", 0, "TFFFF", "TTTFF"),
    record("majority", 0, "TTTFF"),
    record("sac", 1, "TTTFF", "TFFFF"),
    record("sac", 3, "FFFFF", "TTFFT"),
    record("majority", 1, "FTFFF"),
]
SAC_ROW = "| – | sac | 30.0 ["  # Table 1's row starts: topology (no config: unknown), protocol
SAC_VALUES = ("55.0 [", "+25.0 [", "75.0 [", "12.5 [", "62.5 [", "50.0 [")  # FAA .. H-Majority
FIGURES = ("rounds", "protocols", "topology")
TABLES = ("table1.md", "table1.tex", "table1.csv")


def figure_files(*stems: str) -> tuple[str, ...]:
    return tuple(f"{stem}.{fmt}" for stem in stems for fmt in ("png", "pdf", "svg"))


def write_records(directory: Path, records: list[QueryRecord], tail: str = "") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "results.jsonl"
    path.write_text("".join(r.line() for r in records) + tail, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def graph() -> Topology:
    return Topology.from_edges(itertools.combinations(NODES, 2))


@pytest.fixture(scope="module")
def certificate(graph):
    return certify(graph, Claim.tolerance(1, "sac"), engines="exhaustive")


@pytest.fixture
def results(tmp_path, graph, certificate) -> Path:
    directory = tmp_path / "results"
    write_records(directory, RECORDS)
    io.write(graph, directory / "topology.json")
    certificate.dump(directory / "certificate.json")
    return directory


def run(*args: str):
    """``report`` in an 80-column terminal."""
    return CliRunner().invoke(main, ["report", *map(str, args)], env={"COLUMNS": "80"})


def one_line_error(result) -> str:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("robustgraph: error: "), result.stderr
    return lines[0]


# ----------------------------------------------------------------------------- summary files
def test_summary_files_hold_the_hand_computed_numbers(results):
    summary = write_summary(results, resamples=300)
    assert summary.files == ("summary.json", "summary.md", *TABLES, *figure_files(*FIGURES))
    assert {p.name for p in results.iterdir()} == {
        "results.jsonl",
        "topology.json",
        "certificate.json",
        *summary.files,
    }
    doc = json.loads((results / "summary.json").read_text())
    assert list(doc) == [
        "format", "schema", "run", "bootstrap", "protocols", "cost", "warnings", "files",
    ]  # fmt: skip
    assert list(doc["protocols"]) == ["sac", "majority", "debate"]
    sac = doc["protocols"]["sac"]["metrics"]
    assert list(sac) == list(METRICS)
    assert {k: (v["value"] if v else None) for k, v in sac.items()} == pytest.approx({
        "IAA": 0.3, "FAA": 0.55, "BFTI": 0.25, "RA": 0.75, "H_Majority": 0.5,
        "W_IAA": 0.125, "W_FAA": 0.25, "S_IAA": 0.625, "S_FAA": 0.875,
        "IAA_H": 0.375, "FAA_H": 0.5625, "BFTI_H": 0.1875,
        "RA_first": 0.75, "H_Majority_first": 0.75,
        "RA_strict": 0.75, "H_Majority_strict": 0.5, "decision": None,
    })  # fmt: skip
    assert list(sac["IAA"]) == ["value", "low", "high", "n"]
    assert doc["protocols"]["majority"]["metrics"]["decision"]["value"] == 1.0
    assert doc["run"] == {
        "run_id": "run-a", "seed": 3, "F": 1,
        "roster": {"spec": "2S2W1A", "n": 5, "attack": "fixed"},
        "seeds": [3], "tasks": 4, "task_kinds": ["math"], "records": 7,
    }  # fmt: skip
    assert doc["bootstrap"]["seed"] == 3  # the run's seed by default
    assert doc["cost"]["llm_requests"] == 35 and doc["cost"]["cache_hits"] == 7
    assert doc["cost"]["backend_calls"] is None and doc["cost"]["sessions"] == 0  # no log
    assert doc["warnings"] == []
    markdown = (results / "summary.md").read_text()
    header = "| Topology | Protocol | IAA | FAA | BFTI | RA | W IAA→FAA | S IAA→FAA | H-Majority |"
    assert header in markdown
    sac = next(line for line in markdown.splitlines() if line.startswith(SAC_ROW))
    cells = sac.split(" | ")[3:]
    assert all(cell.startswith(v) for cell, v in zip(cells, SAC_VALUES, strict=True))
    assert "] → 25.0 [" in cells[3] and "] → 87.5 [" in cells[4]  # W and S: IAA → FAA
    assert "| – | majority | 40.0 [" in markdown
    assert "| majority | 100.0 | [100.0, 100.0] |" in markdown  # decision accuracy
    assert "| sac | W | 12.5 | 25.0 |" in markdown  # per-round accuracy
    assert markdown == summary_markdown(summary)


def test_summary_is_the_same_every_time(results):
    write_summary(results, plots=False, resamples=200)
    first = [(results / n).read_bytes() for n in ("summary.json", "summary.md")]
    write_summary(results, plots=False, resamples=200)
    assert [(results / n).read_bytes() for n in ("summary.json", "summary.md")] == first
    shuffled = write_summary(results, plots=False, resamples=200, seed=4)
    assert shuffled.bootstrap_seed == 4


def _has_colour(image: np.ndarray, hex_colour: str) -> bool:
    rgb = np.array([int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)])
    return bool((np.abs(image[..., :3] - rgb).max(axis=-1) < 0.02).any())


def test_topology_png_shows_every_role_colour(results):
    write_summary(results, resamples=100)
    assert (results / "topology.png").read_bytes()[:8] == PNG_MAGIC
    topology = imread(results / "topology.png")
    assert topology.ndim == 3 and topology.shape[0] > 600 and topology.shape[1] > 600
    assert all(_has_colour(topology, colour) for colour, _ in ROLE_STYLE.values())


def test_topology_plot_uses_only_a_certificate_of_the_same_graph(results):
    found, note = find_topology(results)
    assert note is None
    assert found.name == "topology.json"  # no config.json: the file is all there is
    assert found.certified_r() == (3, 3)  # K5: the certificate's check proved r* = 3 exactly
    assert found.caption().startswith("certified 3-robust (r* = 3); tolerates F = 2 Byzantine")
    other = Topology.from_edges([("n0", "n1"), ("n1", "n2")])
    certify(other, Claim.r_robust(1), engines="exhaustive").dump(results / "certificate.json")
    found, _ = find_topology(results)
    assert found.certificate is None and found.caption().startswith("no certificate")


def test_without_a_graph_file_the_topology_plot_is_skipped_with_a_note(tmp_path):
    directory = tmp_path / "bare"
    write_records(directory, RECORDS)
    summary = write_summary(directory, resamples=50)
    assert summary.files == ("summary.json", "summary.md", *TABLES,
                             *figure_files("rounds", "protocols"))
    assert len(summary.warnings) == 1 and "topology plot skipped" in summary.warnings[0]


def test_config_gives_the_gate_verdict_the_protocol_order_and_the_file_names(tmp_path, graph):
    directory = tmp_path / "configured"
    write_records(directory, RECORDS)
    io.write(graph, directory / "graph.graphml")
    gate = {"certified": False, "reason": "the certificate proves only 1-robustness"}
    config = {
        "run_id": "run-a",
        "run": {"protocols": ["debate", "sac", "majority"], "topology": {"n": 5, "m": 10}},
        "certificate": {"file": "certificate.json", "verdict": "refuted"},
        "gate": gate,
        "files": {"topology": "graph.graphml", "certificate": "certificate.json"},
    }
    (directory / "config.json").write_text(json.dumps(config))
    summary = write_summary(directory, plots=False, resamples=50)
    assert list(summary.protocols) == ["debate", "sac", "majority"]
    assert summary.run["gate"] == gate
    markdown = (directory / "summary.md").read_text()
    assert "Topology (n = 5, m = 10): **NOT certified** (run with --allow-uncertified)" in markdown
    found, _ = find_topology(directory, config)
    assert found.name == "graph.graphml"
    assert "NOT certified (the certificate proves only 1-robustness)" in found.caption()
    config["topology_source"] = "deployed.graphml"  # what the user passed to --graph
    (directory / "config.json").write_text(json.dumps(config))
    assert find_topology(directory, config)[0].title().startswith("deployed.graphml: graph, n = 5")
    assert "(NOT certified)" in run(directory, "--no-plots", "--resamples", 20).stdout
    config["run_id"] = "run-z"
    (directory / "config.json").write_text(json.dumps(config))
    assert "is of run 'run-z'" in one_line_error(run(directory))
    (directory / "config.json").write_text("{")
    assert "config.json: not valid JSON" in one_line_error(run(directory))


def test_protocols_without_rounds_are_reported_but_not_plotted(tmp_path):
    judge = QueryRecord(
        "judge/t0", "run-a", "judge", "t0", 0, "math", "7", 3, 1, {"spec": "2S2W1A"},
        (), turns("TTTTT"), Decision("7", True),
    )  # fmt: skip
    directory = tmp_path / "judge"
    write_records(directory, [judge])
    summary = write_summary(directory, resamples=20)
    assert summary.files == ("summary.json", "summary.md", *TABLES, *figure_files("protocols"))
    assert summary.warnings[0].endswith("per-round figure skipped")
    assert (
        "| – | judge | – | 100.0 [100.0, 100.0] | – | 100.0 [100.0, 100.0] | "
        "– → 100.0 [100.0, 100.0] | – → 100.0 [100.0, 100.0] | 100.0 [100.0, 100.0] |"
        in (directory / "summary.md").read_text()
    )


# ----------------------------------------------------------------------------- robust reading
def test_truncated_last_line_is_skipped_with_a_warning(tmp_path):
    directory = tmp_path / "killed"
    write_records(directory, RECORDS, tail=record("sac", 9, "TTTTT").line()[:70])
    with pytest.warns(TruncatedResultsWarning, match=r"results.jsonl:8: skipped a truncated"):
        summary = write_summary(directory, plots=False, resamples=50)
    assert summary.run["records"] == len(RECORDS)
    assert summary.protocols["sac"].queries == 4
    assert "truncated" in json.loads((directory / "summary.json").read_text())["warnings"][0]
    assert SAC_ROW in (directory / "summary.md").read_text()


def test_malformed_lines_and_mixed_runs_are_errors(tmp_path):
    directory = tmp_path / "bad"
    path = write_records(directory, RECORDS[:1])
    path.write_text(path.read_text() + "{not json\n" + RECORDS[1].line())
    with pytest.raises(ParameterError, match=r"results.jsonl:2: not a result record"):
        load_results(directory)
    path.write_text(RECORDS[0].line() + '{"schema": 1}\n' + RECORDS[1].line())
    with pytest.raises(ParameterError, match=r":2: not a result record"):
        load_results(directory)
    path.write_text(RECORDS[0].line() + '{"schema": 1, "query_id": "sac/t9"}\n')
    with pytest.raises(ParameterError, match=r":2: not a result record"):
        load_results(directory)  # a complete JSON line is not a truncated one
    write_records(directory, [RECORDS[0], record("sac", 5, "TTTTT", run_id="run-b")])
    with pytest.raises(ParameterError, match="2 different runs"):
        load_results(directory)


# ----------------------------------------------------------------------------- CLI
def test_cli_prints_the_table_and_writes_the_files(results):
    result = run(results, "--resamples", 100)
    assert result.exit_code == 0, result.stderr
    assert "H-Majority" in result.stdout and "sac" in result.stdout and "+25.0" in result.stdout
    assert "…" not in result.stdout  # nothing cut off in an 80-column terminal
    assert "[10, 50]" in result.stdout  # intervals as [low, high] (not 10–50)
    assert "cost: 35 LLM requests, 7 cache hits; backend calls, tokens and wall time not " in (
        result.stdout)
    assert result.stderr == ""
    assert (results / "topology.svg").exists() and (results / "table1.tex").exists()


def test_cli_json_matches_summary_json_and_no_plots_writes_none(tmp_path):
    directory = tmp_path / "fresh"
    write_records(directory, RECORDS)
    result = run(directory, "--json", "--no-plots", "--resamples", 100)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == json.loads((directory / "summary.json").read_text())
    assert not list(directory.glob("*.png")) and not list(directory.glob("*.svg"))
    assert (directory / "table1.csv").exists()  # tables are not plots


def test_cli_warns_on_a_truncated_line_and_succeeds(tmp_path):
    directory = tmp_path / "killed"
    write_records(directory, RECORDS, tail='{"schema": 1, "query_id": "sac/t')
    result = run(directory, "--no-plots", "--resamples", 50)
    assert result.exit_code == 0, result.stderr
    warnings = result.stderr.strip().splitlines()
    assert len(warnings) == 1 and warnings[0].startswith("robustgraph: warning: ")
    assert "truncated last line" in warnings[0]


def test_cli_errors_are_one_line_exit_2(tmp_path):
    assert "no such results directory" in one_line_error(run(tmp_path / "missing"))
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    assert "not a directory" in one_line_error(run(a_file))
    assert "no results.jsonl" in one_line_error(run(tmp_path))
    empty = tmp_path / "empty"
    write_records(empty, [])
    assert "no complete query record" in one_line_error(run(empty))
    only_partial = tmp_path / "partial"
    write_records(only_partial, [], tail='{"schema": 1, "qu')
    assert "no complete query record" in one_line_error(run(only_partial))
    malformed = tmp_path / "malformed"
    write_records(malformed, RECORDS[:2]).write_text("[1, 2]\n" + RECORDS[0].line())
    assert "results.jsonl:1: not a result record" in one_line_error(run(malformed))
    assert "resamples" in one_line_error(run(malformed, "--resamples", 0))


def test_one_graph_with_agents_placed_per_seed_gets_a_panel_per_placement(tmp_path, graph):
    from dataclasses import replace

    from protocol_runner.analysis.topology_plot import RunGraph, plot_topology, topology_panels
    from protocol_runner.run.records import Turn

    def placed(seed: int, roles: tuple[str, ...]) -> QueryRecord:
        answer = tuple(Turn(i, f"n{i}", role, "7", True) for i, role in enumerate(roles))
        return replace(RECORDS[1], seed=seed, rounds=(answer,), final=answer)

    one = ("strong", "strong", "weak", "weak", "adversary")
    other = ("adversary", "strong", "strong", "weak", "weak")
    graphs = [RunGraph(graph, "K5.json", None, seed=s) for s in (1, 2)]
    assert len(topology_panels(graphs, [placed(1, one), placed(2, one)])) == 1  # drawn once
    panels = topology_panels(graphs, [placed(1, one), placed(2, other)])
    assert [(g.seed, roles["n0"]) for g, roles in panels] == [(1, "strong"), (2, "adversary")]
    plot_topology(panels, tmp_path)
    svg = (tmp_path / "topology.svg").read_text()
    for label in ("K5.json: graph, n = 5, m = 10; agents placed per seed (2 seeds)",
                  ">seed 1<", ">seed 2<", "no certificate: robustness not certified"):
        assert label in svg, label
