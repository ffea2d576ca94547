"""Issue 43, items 3-4: ``design --s`` above r builds an (r, s)-robust graph, every exit code of
``design`` and ``augment`` is in ``--help``, and ``augment``'s one-edge answer is minimal."""

from __future__ import annotations

import json
import time

import pytest
from click.testing import CliRunner

from robustgraph import io
from robustgraph.certificate.document import Certificate
from robustgraph.cli import main
from robustgraph.design import augment, construction_edges, starts
from robustgraph.design import augmentation as augmentation_module
from robustgraph.design.common import to_topology
from robustgraph.design.minimality import prove_minimal
from robustgraph.design.search import Moves
from solvers.exhaustive import exact_s

# Degrees >= 2 everywhere, not 2-robust, and joining nodes 0 and 1 makes it 2-robust.
ONE_EDGE_SHORT = [(0, 4), (0, 5), (0, 6), (1, 5), (1, 7), (2, 3), (2, 4), (3, 4), (3, 7),
                  (4, 6), (4, 7), (5, 6)]


def _masks(edges: list[tuple[int, int]], n: int) -> list[int]:
    masks = [0] * n
    for u, v in edges:
        masks[u] |= 1 << v
        masks[v] |= 1 << u
    return masks


@pytest.mark.parametrize(("n", "r", "s"), [(9, 2, 3), (7, 2, 4), (6, 3, 6), (8, 1, 5)])
def test_construction_for_s_above_r_is_rs_robust(n: int, r: int, s: int) -> None:
    masks = starts.construction(n, r, s)
    assert all(not m >> v & 1 for v, m in enumerate(masks)), "no self-loops"
    assert starts.edge_count(masks, False) == construction_edges(n, r, s)
    assert exact_s(list(masks), r)[0] >= s


def test_cli_design_s_above_r_is_designed_and_certified(tmp_path) -> None:
    out = tmp_path / "g.json"
    args = ["design", "--n", "9", "--r", "2", "--s", "3", "--time-limit", "1", "-o", str(out)]
    result = CliRunner().invoke(main, [*args, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    graph = io.read(out)
    assert graph.m == data["edges"] <= data["construction"] == construction_edges(9, 2, 3)
    cert = Certificate.load(tmp_path / "g.cert.json")
    assert cert.verdict == "proven" and cert.verify(graph).valid


def test_cli_design_s_above_n_is_a_usage_error(tmp_path) -> None:
    args = ["design", "--n", "6", "--r", "2", "--s", "7", "-o", str(tmp_path / "g.json")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "s must be between 1 and n" in result.stderr


@pytest.mark.parametrize(("command", "codes"), [("design", "0123"), ("augment", "0123")])
def test_help_lists_every_exit_code(command: str, codes: str) -> None:
    text = CliRunner().invoke(main, [command, "--help"]).output
    listed = text[text.index("Exit codes:"):]
    for code in [*codes, "130"]:
        assert f"{code} " in listed, f"exit code {code} missing from {command} --help"


def test_design_no_graph_within_the_degree_cap_exits_1_as_documented(tmp_path) -> None:
    args = ["design", "--n", "9", "--r", "2", "--max-degree", "2", "--time-limit", "1"]
    result = CliRunner().invoke(main, [*args, "-o", str(tmp_path / "g.json")])
    assert result.exit_code == 1
    assert result.stderr.count("\n") <= 3 and "error:" in result.stderr
    assert "1 no graph found within --max-degree" in CliRunner().invoke(
        main, ["design", "--help"]).output.replace("\n", " ")


def test_one_added_edge_is_minimal_without_time_left() -> None:
    masks = _masks(ONE_EDGE_SHORT, 8)
    past = time.monotonic() - 1  # the search used the whole time limit
    proof = prove_minimal(masks, 1, Moves(2, False), deadline=past, not_robust=True)
    assert proof.proven and proof.lower_bound == 1


def test_augment_one_edge_is_proven_minimal_when_the_trim_uses_the_time(monkeypatch) -> None:
    def slow_trim(graph, rng, *, deadline, on_improve=None):
        while time.monotonic() <= deadline:
            time.sleep(0.01)
        return False

    monkeypatch.setattr(augmentation_module, "local_search", slow_trim)
    res = augment(to_topology(_masks(ONE_EDGE_SHORT, 8), False), 2, time_limit=0.3,
                  certify_result=False)
    assert len(res.added) == 1
    assert res.proven_minimal and res.minimality.lower_bound == 1
