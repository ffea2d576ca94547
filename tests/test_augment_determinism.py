"""Issue 30, item 6: ``augment`` gives one graph one answer whatever its file's node order, and
says whether the count is proven minimal or the best found (checked by brute force)."""

from __future__ import annotations

import itertools
import json
import random
import time

import networkx as nx
import pytest
from click.testing import CliRunner

import robustgraph as rg
from robustgraph import io
from robustgraph.cli import main
from robustgraph.design.minimality import prove_minimal
from robustgraph.design.search import Moves
from robustgraph.topology import Topology


def _graph() -> nx.Graph:
    g = nx.gnm_random_graph(12, 16, seed=3)
    return nx.relabel_nodes(g, {i: f"v{i}" for i in g})


def _shuffled(g: nx.Graph, seed: int) -> Topology:
    """The same graph with its nodes and edges listed in another order."""
    rng = random.Random(seed)
    nodes, edges = list(g.nodes()), list(g.edges())
    rng.shuffle(nodes)
    rng.shuffle(edges)
    h = nx.Graph()
    h.add_nodes_from(nodes)
    h.add_edges_from((v, u) if rng.random() < 0.5 else (u, v) for u, v in edges)
    return rg.as_topology(h)


def _added(result) -> frozenset:
    return frozenset(frozenset(map(str, e)) for e in result.added)


def test_node_order_does_not_change_the_answer():
    g = _graph()
    orders = [_shuffled(g, seed) for seed in range(4)]
    assert len({t.content_hash for t in orders}) == 1
    assert len({t.labels for t in orders}) == 4  # four different node orders
    results = [rg.augment(t, 3, time_limit=60, certify_result=False) for t in orders]
    assert len({_added(res) for res in results}) == 1
    assert len({(res.proven_minimal, res.minimality.lower_bound) for res in results}) == 1


def test_graph_files_of_one_graph_get_one_answer(tmp_path):
    """The issue's case: GraphML, DOT and an edge list of one graph (GraphML used to add 5
    edges where DOT and CSV added 4)."""
    g = _graph()
    answers = set()
    for seed, name in enumerate(["g.graphml", "g.gml", "g.txt"]):
        io.write(_shuffled(g, seed), tmp_path / name)
        done = CliRunner().invoke(
            main, ["augment", str(tmp_path / name), "--r", "2", "--time-limit", "60",
                   "-o", str(tmp_path / f"out-{name}.json"), "--json"],
        )
        assert done.exit_code == 0, done.output
        data = json.loads(done.stdout)
        assert data["minimal"] in ("proven", "best found") and data["minimal_reason"]
        answers.add((frozenset(frozenset(map(str, e)) for e in data["added"]), data["minimal"]))
    assert len(answers) == 1


def _fewest(t: Topology, r: int, max_degree: int | None = None) -> int:
    """Brute force: the fewest non-edges whose addition makes ``t`` r-robust."""
    key = (lambda u, v: (u, v)) if t.directed else (lambda u, v: (min(u, v), max(u, v)))
    present = set(t.edge_indices())
    pool = sorted({key(u, v) for u in range(t.n) for v in range(t.n) if u != v} - present)
    for k in range(len(pool) + 1):
        for extra in itertools.combinations(pool, k):
            g = Topology.from_edges(list(present) + list(extra), directed=t.directed,
                                    nodes=range(t.n))
            if max_degree is not None and max(g.in_degrees) > max_degree:
                continue
            if rg.is_r_robust(g, r, engine="exhaustive"):
                return k
    raise AssertionError("no augmentation")


CASES = [
    ("cycle6-r2", Topology.from_edges([(i, (i + 1) % 6) for i in range(6)]), 2, None),
    ("path5-r2", Topology.from_edges([(i, i + 1) for i in range(4)]), 2, None),
    ("star6-r3", Topology.from_edges([(0, i) for i in range(1, 6)]), 3, None),
    ("dicycle5-r2", Topology.from_edges([(i, (i + 1) % 5) for i in range(5)], directed=True), 2,
     None),
    ("cycle7-r2-cap3", Topology.from_edges([(i, (i + 1) % 7) for i in range(7)]), 2, 3),
]


@pytest.mark.parametrize(("name", "t", "r", "cap"), CASES, ids=[c[0] for c in CASES])
def test_proven_minimal_agrees_with_brute_force(name, t, r, cap):
    result = rg.augment(t, r, max_degree=cap, time_limit=60, certify_result=False)
    fewest = _fewest(t, r, cap)
    assert result.proven_minimal, result.minimality
    assert len(result.added) == fewest == result.minimality.lower_bound


def test_a_count_above_the_minimum_is_never_called_minimal():
    """Told the search found one edge more than the minimum, the proof finds the smaller
    augmentation instead of confirming the count."""
    t = Topology.from_edges([(i, (i + 1) % 6) for i in range(6)])
    fewest = _fewest(t, 2)
    masks = list(t.in_masks)
    deadline = time.monotonic() + 600
    over = prove_minimal(masks, fewest + 1, Moves(2, False), deadline=deadline)
    assert over.proven and over.lower_bound == fewest and len(over.better) == fewest
    exact = prove_minimal(masks, fewest, Moves(2, False), deadline=deadline)
    assert exact.proven and exact.better is None
    unchecked = prove_minimal(masks, fewest, Moves(2, False), deadline=deadline, max_sets=0)
    assert not unchecked.proven and unchecked.lower_bound <= fewest
