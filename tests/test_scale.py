"""Large sparse graphs (issue 32): the linear-size bounds, each against the exhaustive engine on
small random graphs and digraphs (the size thresholds lowered so that the large paths run),
and the large path's answers on families whose r* is known."""

import contextlib

import networkx as nx
import pytest
from conftest import disjoint_pairs, naive_max_s, topologies
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from robustgraph.certificate.proofs import theorem
from robustgraph.errors import GraphFormatError
from robustgraph.topology import Topology
from solvers import bounds, exhaustive, linear, portfolio, search
from solvers.errors import ParameterError
from solvers.types import Question, Request, Status
from solvers.witness import refutes_r


def _r(t: Topology) -> int:
    return exhaustive.solve(Request(t, Question.max_r())).value


@settings(max_examples=150, deadline=None)
@given(topologies(max_n=9))
def test_split_pairs_refute_what_they_claim_and_never_beat_the_truth(t):
    found = linear.split_pair(t.in_neighbors)
    if t.n < 2:
        assert found is None
        return
    value, w = found
    nb = t.in_neighbors
    assert w.s1 | w.s2 == frozenset(range(t.n)) and not w.s1 & w.s2
    assert refutes_r(nb, w.s1, w.s2, value + 1)
    assert value >= _r(t)


@settings(max_examples=150, deadline=None)
@given(topologies(max_n=9))
def test_linear_strong_components_give_the_source_components_of_the_definition(t):
    """A source component is a strong component that hears no node outside it: checked
    against networkx's strong components of the arcs j -> i (i hears j)."""
    g = nx.DiGraph()
    g.add_nodes_from(range(t.n))
    g.add_edges_from((j, i) for i, s in enumerate(t.in_neighbors) for j in s)
    expected = sorted(
        (
            frozenset(c)
            for c in nx.strongly_connected_components(g)
            if all(u in c for v in c for u in g.predecessors(v))
        ),
        key=min,
    )
    assert bounds.source_components(t.in_neighbors) == expected


def _dense_extension_cores(nb, r):
    """The greedy peeling of ``bounds.extension_cores`` written directly from its definition."""
    alive = set(range(len(nb)))
    cores = []
    for size in range(len(nb), max(2 * r - 1, 2) - 1, -1):
        if size <= bounds.EXTENSION_CORE_MAX:
            cores.append(frozenset(alive))
        eligible = [v for v in sorted(alive) if len(nb[v] & alive) >= r]
        if not eligible:
            break
        v = min(eligible, key=lambda v: (sum(v in nb[u] for u in alive), v))
        alive.remove(v)
    return cores[::-1]


@settings(max_examples=150, deadline=None)
@given(topologies(max_n=9), st.integers(1, 4))
def test_heap_extension_cores_follow_the_definition(t, r):
    assert bounds.extension_cores(t.in_neighbors, r) == _dense_extension_cores(t.in_neighbors, r)


@settings(max_examples=100, deadline=None)
@given(topologies(max_n=9), st.integers(1, 4), st.data())
def test_extension_closure_is_the_least_closed_superset(t, r, data):
    nb = t.in_neighbors
    seed = frozenset(data.draw(st.sets(st.integers(0, t.n - 1), max_size=t.n)))
    closure = bounds.extension_closure(nb, r, seed)
    assert seed <= closure
    assert all(len(nb[v] & closure) < r for v in set(range(t.n)) - closure)
    inside = set(seed)  # the definition: add any node hearing r members until none does
    while grow := [v for v in range(t.n) if v not in inside and len(nb[v] & inside) >= r]:
        inside.update(grow)
    assert closure == inside


@contextlib.contextmanager
def _large_path():
    """Every graph of three or more nodes takes the portfolio's large path, without matrices."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(portfolio, "LARGE_N", 2)
        patch.setattr(portfolio, "CORES_MAX_N", 0)
        patch.setattr(portfolio, "EXHAUSTIVE_N", 1)
        patch.setattr(portfolio, "EXHAUSTIVE_S_N", 1)
        patch.setattr(bounds, "DENSE_MAX_N", 1)
        yield


@settings(max_examples=150, deadline=None)
@given(topologies(max_n=9), st.sampled_from([None, 1, 2, 3]))
def test_large_path_agrees_with_exhaustive_or_stays_bounded(t, target):
    q = Question.max_r() if target is None else Question.is_r_robust(target)
    with _large_path():
        res = portfolio.solve(Request(t, q))
    truth = _r(t)
    assert res.lower <= truth <= res.upper
    if res.witness is not None:
        assert refutes_r(t.in_neighbors, res.witness.s1, res.witness.s2, res.upper + 1)
    if res.status == Status.EXACT and target is None:
        assert res.value == truth
    if res.status == Status.EXACT and target is not None:
        assert (res.lower >= target) == (truth >= target)
    elif t.n > 2:
        assert res.params["steps"][-1]["step"] == "large"


def test_large_path_under_a_spent_deadline_claims_nothing_unproven():
    """A deadline already passed stops after the degree witness: r* = 3 is not claimed."""
    t = Topology.from_networkx(nx.circulant_graph(40, [1, 2, 3]))
    with _large_path():
        res = portfolio.solve(Request(t, Question.max_r(), time_limit=0.0))
    assert res.status != Status.EXACT
    assert res.lower <= 3 <= res.upper


@pytest.mark.parametrize(
    ("graph", "r"),
    [
        (nx.cycle_graph(3001), 1),
        (nx.path_graph(2500), 1),
        (nx.grid_2d_graph(50, 50), 1),
        (nx.grid_2d_graph(55, 55), 1),  # odd side: the middle cut falls inside a column
        (nx.circulant_graph(2100, [1, 2]), 2),
        (nx.disjoint_union(nx.cycle_graph(1500), nx.cycle_graph(1500)), 0),
    ],
)
def test_large_sparse_families_are_answered_exactly_in_linear_size(graph, r):
    t = Topology.from_networkx(nx.convert_node_labels_to_integers(graph))
    assert t.n > portfolio.LARGE_N
    res = portfolio.solve(Request(t, Question.max_r()))
    assert (res.status, res.value) == (Status.EXACT, r)
    assert res.params["steps"][-1]["step"] == "large"


def test_large_directed_cycle_has_a_rooted_out_branching_and_r_one():
    n = 2500
    t = Topology.from_edges([(i, (i + 1) % n) for i in range(n)], nodes=range(n), directed=True)
    res = portfolio.solve(Request(t, Question.max_r()))
    assert (res.status, res.value) == (Status.EXACT, 1)


def test_dense_bounds_refuse_or_skip_themselves_above_their_size(monkeypatch):
    monkeypatch.setattr(bounds, "DENSE_MAX_N", 5)
    cycle = Topology.from_networkx(nx.complete_graph(6)).in_neighbors
    assert bounds.spectral_lower(cycle, False) == 0  # skipped: nothing proven
    with pytest.raises(ParameterError, match="DENSE_MAX_N"):
        bounds.halves_pair(cycle)


def test_linear_r_notes_the_skipped_spectral_bound(monkeypatch):
    monkeypatch.setattr(bounds, "DENSE_MAX_N", 5)
    t = Topology.from_networkx(nx.complete_graph(8))
    p = search.Progress(Request(t, Question.max_r()), "portfolio", "strong", "test")
    search.linear_r(p)
    assert "spectral-skipped" in [s["step"] for s in p.steps]
    assert p.lower <= 4 <= p.upper


@settings(max_examples=150, deadline=None)
@given(topologies(max_n=8), st.integers(1, 3))
def test_recognised_theorems_are_checked_and_true(t, r):
    found = theorem.recognise(t.in_neighbors, r, 1)
    if found is not None:
        order, k = found["order"], found["k"]
        assert theorem.check(t.in_neighbors, r, 1, found["family"], order, k) is None
        assert _r(t) >= r
    if r == 1 and t.n >= 2:  # a rooted out-branching: exactly the 1-robust graphs
        assert (found is not None) == (_r(t) >= 1)
        assert theorem.has_root(t.in_neighbors) == (_r(t) >= 1)


def test_recognition_builds_no_family_graph_a_large_sparse_graph_cannot_contain(monkeypatch):
    """Issue 31 row 7: recognise built gamma_merg(n) for any n (exit 2 above 3,651 nodes, 0.9 GB
    at 3,000). Two 2,500-node cycles fit no family: nothing is built, and None comes back."""

    def refuse(*args, **kwargs):
        raise AssertionError("a family graph was built")

    monkeypatch.setattr(theorem.generators, "gamma_merg", refuse)
    monkeypatch.setattr(theorem.generators, "k_circulant", refuse)
    two = nx.disjoint_union(nx.cycle_graph(2500), nx.cycle_graph(2500))
    nb = Topology.from_networkx(two).in_neighbors
    assert theorem.recognise(nb, 1, 1) is None
    assert theorem.recognise(nb, 2, 1) is None
    cycle = Topology.from_networkx(nx.cycle_graph(5000)).in_neighbors
    assert theorem.recognise(cycle, 1, 1)["family"] == "rooted"


@pytest.mark.parametrize("n", [14, 15, 30, 31])
def test_generator_outputs_are_still_recognised(n):
    from robustgraph.generators import gamma_merg, k_circulant

    merg = gamma_merg(n).in_neighbors
    assert theorem.recognise(merg, (n + 1) // 2, 1)["family"] == "gamma-merg"
    assert theorem.recognise(k_circulant(n, 3).in_neighbors, 3, 1)["family"] == "circulant"


@settings(max_examples=100, deadline=None)
@given(topologies(max_n=7), st.integers(0, 3), st.sampled_from([None, 1, 3]))
def test_large_path_s_questions_never_claim_more_than_the_definition(t, r, s):
    """s*_r on the large path: checked witnesses only, against the naive s*_r."""
    q = Question.max_s(r) if s is None else Question.is_rs_robust(r, s)
    with _large_path():
        res = portfolio.solve(Request(t, q))
    truth = naive_max_s(t, r)
    assert res.lower <= truth <= res.upper
    if res.status == Status.EXACT and s is None:
        assert res.value == truth
    if res.status == Status.EXACT and s is not None:
        assert (res.lower >= s) == (truth >= s)


def test_large_s_question_answers_in_linear_memory():
    t = Topology.from_networkx(nx.cycle_graph(3000))
    res = portfolio.solve(Request(t, Question.max_s(2)))  # not 2-robust: s*_2 = 0
    assert (res.status, res.value) == (Status.EXACT, 0)
    assert res.params["steps"][-1]["step"] == "large"


def _hash_by_definition(t: Topology) -> str:
    """The content hash as its docstring defines it: the JSON of ``directed``, the sorted label
    texts and the sorted text pairs (an undirected edge as its sorted pair), SHA-256."""
    import hashlib
    import json

    if t.directed:
        edges = sorted([str(u), str(v)] for u, v in t.edges())
    else:
        edges = sorted(sorted([str(u), str(v)]) for u, v in t.edges())
    doc = {"directed": t.directed, "nodes": sorted(str(x) for x in t.labels), "edges": edges}
    blob = json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()
    return "sha256:" + hashlib.sha256(blob).hexdigest()


_LABELS = st.one_of(st.integers(-50, 50), st.text(st.sampled_from('ab9"\\é中 '), max_size=4))


@settings(max_examples=150, deadline=None)
@given(topologies(max_n=9), st.lists(_LABELS, min_size=9, max_size=9, unique_by=str), st.data())
def test_the_fast_content_hash_is_the_defined_one(t, labels, data):
    """Ranks sorted as integers order edges as the label texts do, whatever the labels (numbers
    that sort otherwise as text, quotes, non-ASCII) and the node order."""
    order = data.draw(st.permutations(range(t.n)))
    names = [labels[i] for i in order]
    edges = [(names[u], names[v]) for u, v in t.edge_indices()]
    try:
        g = Topology.from_edges(edges, nodes=names, directed=t.directed)
    except GraphFormatError:  # a label text the package refuses (e.g. not NFC): nothing to hash
        assume(False)
    assert g.content_hash == _hash_by_definition(g)
    shuffled = Topology.from_edges(edges[::-1], nodes=names[::-1], directed=t.directed)
    assert shuffled.content_hash == g.content_hash


def test_text_output_abbreviates_long_witness_sets_and_json_lists_them_whole(tmp_path):
    import json

    from click.testing import CliRunner

    from robustgraph.cli import main
    from robustgraph.cli.robustness import WITNESS_SHOWN

    n = 4 * WITNESS_SHOWN
    path = tmp_path / "cycle.edgelist"
    path.write_text("# undirected\n" + "".join(f"{i} {(i + 1) % n}\n" for i in range(n)))
    text = CliRunner().invoke(main, ["robustness", str(path)])
    assert text.exit_code == 0, text.output
    line = next(x for x in text.output.splitlines() if "witness:" in x)
    assert "more)" in line and "--json lists every node" in line
    assert len(line) < 400
    done = CliRunner().invoke(main, ["robustness", str(path), "--json"])
    w = json.loads(done.output)["r"]["witness"]
    assert sorted(w["s1"] + w["s2"]) == list(range(n))
    assert "more)" not in json.loads(done.output)["r"]["witness_text"]


def test_a_stopped_peeling_or_clique_search_proves_nothing_it_should_not():
    """Past 4096 nodes the peeling and the clique graph's construction ask ``stop``: stopped at
    once, the peeling keeps only stages it met (none here) and no clique seed is tried."""
    g = nx.barabasi_albert_graph(5000, 2, seed=3)  # every node after the first joins with 2
    g.add_edges_from([(0, 1), (1, 2), (0, 2)])  # a triangle to start from: 2-robust by extension
    nb = Topology.from_networkx(g).in_neighbors
    asked = []

    def stop():
        asked.append(True)
        return True

    full = bounds.extension_cores(nb, 2)
    assert full and bounds.extension_proves(nb, 2)
    assert bounds.extension_cores(nb, 2, stop=stop) == [] and asked
    assert list(bounds._clique_seeds(nb, 2, stop)) == []
    assert not bounds.extension_proves(nb, 2, stop=stop)


@settings(max_examples=60)
@given(topologies(max_n=7).filter(lambda g: g.n >= 2), st.integers(0, 4), st.randoms())
def test_peel_keeps_the_largest_sets_within_k(t, k, rnd):
    """Issue 40: ``linear.peel`` returns a pair of value at most k whenever any pair within the
    two sides has one (the peeled sets are the largest such), and only then."""
    from solvers.witness import reach

    nb = t.in_neighbors
    side = [rnd.random() < 0.5 for _ in range(t.n)]
    pair = linear.peel(nb, linear.out_neighbors(nb), side, k)
    exists = any(
        all(not side[v] for v in a) and all(side[v] for v in b)
        and max(reach(nb, frozenset(a)), reach(nb, frozenset(b))) <= k
        for a, b in disjoint_pairs(t.n)
    )
    assert (pair is not None) == exists
    if pair is not None:
        assert refutes_r(nb, pair.s1, pair.s2, k + 1)


def test_a_large_expander_gets_a_witness_below_its_degree():
    """Issue 40: a random 6-regular graph past 500 nodes ended at the degree witness (r* <= 6):
    the refined split collapses to one node on an expander. The large path now spends its
    rounds on the local search (a ball, a balanced refinement, peeling), which finds a checked
    pair of value 3 (r* <= 3, what the published model on CP-SAT found on 10^4 nodes)."""
    t = Topology.from_networkx(nx.random_regular_graph(6, 600, seed=4001))
    res = portfolio.solve(Request(t, Question.max_r()))
    assert res.status == Status.BOUNDED and res.upper <= 3
    assert refutes_r(t.in_neighbors, res.witness.s1, res.witness.s2, res.upper + 1)
    steps = [s.get("step") for s in res.params["steps"]]
    assert steps.count("local-search") == search.LOCAL_STARTS and steps[-1] == "large"
