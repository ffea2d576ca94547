"""Issue 44, item 5: a certificate's witness is a function of the graph (its content hash), not
of the order a file lists the nodes in, and it is printed sorted."""

from __future__ import annotations

import json
import random

import networkx as nx
from click.testing import CliRunner

from robustgraph import Topology
from robustgraph.certificate import Claim, certify
from robustgraph.certificate.witness import canonical, label_key
from robustgraph.cli import main


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def _witnesses(path) -> list:
    doc = json.loads(path.read_text())
    return [check["witness"] for claim in doc["claims"] for check in claim["checks"]]


def test_graphml_and_a_shuffled_edge_list_give_one_witness(tmp_path):
    g = nx.erdos_renyi_graph(40, 0.3, seed=3)  # r* = 6: --r 7 is refuted by a witness
    nx.write_graphml(g, tmp_path / "g.graphml")
    edges = list(g.edges())
    random.Random(5).shuffle(edges)
    (tmp_path / "g.txt").write_text("# undirected\n" + "".join(f"{u} {v}\n" for u, v in edges))
    outputs, witnesses = [], []
    for name in ("g.graphml", "g.txt"):
        cert = tmp_path / f"{name}.cert.json"
        done = run("certify", tmp_path / name, "--r", 7, "-o", cert)
        assert done.exit_code == 1
        outputs.append(done.stdout.splitlines()[1])
        witnesses.append(_witnesses(cert))
    assert witnesses[0] == witnesses[1] and witnesses[0][0] is not None
    assert outputs[0] == outputs[1]
    s1 = outputs[0].partition("S1 = {")[2].partition("}")[0].split(", ")
    assert s1 == sorted(s1, key=int)  # printed sorted


def test_the_certificate_does_not_depend_on_node_order():
    g = nx.circulant_graph(11, [1, 2])  # 3-robust at most: r = 4 is refuted
    rng = random.Random(1)
    results = set()
    for _ in range(4):
        nodes = list(g.nodes())
        rng.shuffle(nodes)
        h = nx.Graph()
        h.add_nodes_from(nodes)
        h.add_edges_from(g.edges())
        cert = certify(Topology.from_networkx(h), Claim.r_robust(4), engines="exhaustive")
        assert cert.verdict == "refuted"
        results.add(json.dumps([c.witness.to_dict() for c in cert.claims[0].checks]))
    assert len(results) == 1


def test_canonical_keeps_the_graph_and_orders_labels_by_value():
    t = Topology.from_edges([(10, 2), (2, "a"), ("a", 10), (1, 2)])
    c = canonical(t)
    assert c.labels == (1, 2, 10, "a") and c.content_hash == t.content_hash
    assert canonical(c) is c and c == Topology.from_edges(c.edges(), nodes=c.labels)
    assert sorted(["x", 9, "10", 100], key=label_key) == [9, "10", 100, "x"]
