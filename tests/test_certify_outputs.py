"""Issue 44, items 2 and 4: ``certify --cubes`` says what it split or why it split nothing, and
a refuted claim's summary shows the bound its witness proves, not ``r* >= 0 trivial``."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
from click.testing import CliRunner

from robustgraph.cli import main

ROOT = Path(__file__).resolve().parents[1]


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_cubes_runs_or_says_why_not(tmp_path):
    graph = tmp_path / "er.json"
    assert run("generate", "er", "--n", 16, "--r", 3, "--seed", 4, "-o", graph).exit_code == 0
    cheap = run("certify", graph, "--r", 3, "--cubes", 2, "--workers", 1, "-o", tmp_path / "a")
    assert cheap.exit_code == 0
    (line,) = [x for x in cheap.stdout.splitlines() if x.startswith("cubes ")]
    assert "none run: every lower bound has a cheaper proof (exhaustive)" in line
    split = run("certify", graph, "--r", 3, "--proof", "lrat", "--cubes", 2, "--workers", 1,
                "-o", tmp_path / "b")
    assert split.exit_code == 0 and "lrat (" in split.stdout
    assert "cubes    1 LRAT proof(s), each split by lookahead (3^2 = 9 open cubes" in split.stdout


def test_the_readme_cubes_command_makes_an_lrat_proof():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (line,) = [x for x in readme.splitlines() if "--cubes" in x and x.startswith("robustgraph")]
    assert "--proof lrat" in line


def test_a_refuted_claim_shows_its_witnessed_bound_not_a_trivial_lower_one(tmp_path):
    graph = tmp_path / "er40.graphml"  # the kind of graph: r* = 6, and 7 is refuted
    nx.write_graphml(nx.erdos_renyi_graph(40, 0.3, seed=3), graph)
    done = run("certify", graph, "--r", 7, "-o", tmp_path / "er40.cert.json")
    assert done.exit_code == 1
    assert "r* >= 0 trivial" not in done.stdout
    assert "bounds: r* <= 6 by the witness; no lower bound was needed to refute" in done.stdout


def test_smaller_first_hour_mistakes_get_one_clear_line(tmp_path):
    """Issue 44, item 10: an unknown engine fails before any progress line; verify with its
    arguments swapped, a GraphML file named .json and an empty file each say what is wrong."""
    graph, cert = tmp_path / "m9.json", tmp_path / "m9.cert.json"
    assert run("generate", "merg", "--n", 9, "-o", graph).exit_code == 0
    assert run("certify", graph, "--r", 2, "-o", cert).exit_code == 0
    gurobi = run("certify", graph, "--r", 2, "--engines", "gurobi", "-o", tmp_path / "x.json")
    assert gurobi.exit_code == 2 and gurobi.stderr.splitlines() == [
        "robustgraph: error: unknown engine 'gurobi'; choose from "
        "portfolio, exhaustive, cores, cpsat, highs, cbc"]
    swapped = run("verify", graph, cert)
    assert swapped.exit_code == 2
    assert "is a robustgraph certificate, not a graph (robustgraph verify takes CERT first" \
        in swapped.stderr
    nx.write_graphml(nx.cycle_graph(4), tmp_path / "g.json")
    xml = run("info", tmp_path / "g.json")
    assert xml.exit_code == 2 and "looks like XML (GraphML?): pass --format graphml" in xml.stderr
    (tmp_path / "empty.json").write_text("")
    empty = run("info", tmp_path / "empty.json")
    assert empty.exit_code == 2 and "the file is empty" in empty.stderr
