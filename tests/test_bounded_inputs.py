"""Every input bounded (issue 31) and no native parser crash (issue 30, item 1).

One test per row of issue 31's table (rows 4 and 7's theorem recognition are helper i32's), each
building the hostile input at a size that shows the bound: small budgets through their
environment variables where that shows the mechanism (``robustgraph/limits.py``). The NUL byte
goes in every position of a small file of each native format, read in one child process per
format, so a crash fails a test instead of killing the suite.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from cli_checks import assert_error
from click.testing import CliRunner

from robustgraph import generators as gen
from robustgraph import io, limits
from robustgraph.certificate import assurance, document
from robustgraph.certificate.certifier import certify
from robustgraph.certificate.claims import Claim
from robustgraph.certificate.document import Certificate, InvalidCertificate
from robustgraph.certificate.proofs import cnf, theorem
from robustgraph.cli import main
from robustgraph.errors import GraphFormatError
from robustgraph.topology import Topology

ROOT = Path(__file__).resolve().parent.parent
NATIVE = ("mtx", "gml", "pajek", "lgl", "graphml", "dot")
ISSUE30_MTX = (
    b"%%MatrixMarket matrix coordinate pattern symmetric\n% x\n8 8 13\n2 1\n4 1\n7 1\n8 1\n"
    b"4 2\n5 2\x007 2\n4 3\n6 3\n8 4\n8 5\n7 6\n8 7\n"
)


def _cli(*argv: str):
    return CliRunner().invoke(main, list(argv))


def _child(script: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")])}
    return subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, env=env,
        timeout=600, check=False,
    )


# ------------------------------------------------------------- issue 30: native parsers
def test_issue30_nul_byte_matrix_market_is_one_line_not_a_segfault(tmp_path):
    path = tmp_path / "nul.mtx"
    path.write_bytes(ISSUE30_MTX)
    done = _child("from robustgraph.cli.main import run; run()", "info", str(path))
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert done.stderr.strip() == (
        f"robustgraph: error: {path}: line 9: holds the control byte 0x00 (not a text file?); "
        "not read"
    )


_EVERY_POSITION = """
import sys, warnings
from robustgraph import io
from robustgraph.errors import GraphFormatError
from robustgraph.topology import Topology
fmt, folder = sys.argv[1], sys.argv[2]
ext = io.FORMATS[fmt].extensions[0]
g = Topology.from_edges([(0, 3), (3, 1), (1, 2), (2, 0), (0, 1), (4, 5)], nodes=range(7))
seed = f"{folder}/seed{ext}"
io.write(g, seed)
blob = open(seed, "rb").read()
path = f"{folder}/case{ext}"
for at in range(len(blob) + 1):
    for data in (blob[:at] + b"\\0" + blob[at:], blob[:at] + b"\\0" + blob[at + 1:]):
        open(path, "wb").write(data)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                io.read(path)
        except GraphFormatError as exc:
            assert "\\n" not in str(exc), exc
        else:
            raise SystemExit(f"read a file with a NUL byte at {at}")
print(len(blob) + 1)
"""


@pytest.mark.parametrize("fmt", NATIVE)
def test_a_nul_byte_anywhere_in_a_native_format_is_refused_in_one_line(tmp_path, fmt):
    """Inserted at, or written over, every position: refused with one line, in a child
    process so a native crash fails this test only."""
    done = _child(_EVERY_POSITION, fmt, str(tmp_path))
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert int(done.stdout) > 20


_READ_ONE = """
import sys
from robustgraph import io
from robustgraph.errors import GraphFormatError
try:
    io.read(sys.argv[1])
except GraphFormatError as exc:
    print(exc)
"""


@pytest.mark.parametrize("tail", [b"[", b":", b"x", b"&"])
def test_a_stray_last_byte_of_a_matrix_market_body_is_not_a_segfault(tmp_path, tail):
    """fast_matrix_market read past its buffer on '6 5[' without a final newline."""
    path = tmp_path / "g.mtx"
    path.write_bytes(
        b"%%MatrixMarket matrix coordinate pattern symmetric\n7 7 3\n2 1\n3 1\n6 5" + tail
    )
    done = _child(_READ_ONE, str(path))
    assert done.returncode == 0 and "bad token" in done.stdout  # a segfault is -11


# ------------------------------------------------------------ certificates with proofs
@pytest.fixture(scope="module")
def lrat_cert(tmp_path_factory):
    """A genuine LRAT-proved certificate on disk, its graph, and its proof file's path."""
    folder = tmp_path_factory.mktemp("lrat")
    t = gen.erdos_renyi_robust(24, 2, seed=3).topology
    io.write(t, folder / "g.json")
    cert = certify(t, Claim.r_robust(2), engines="portfolio", proof="lrat")
    cert.dump(folder / "g.cert.json")
    return folder, t, folder / cert.claims[0].checks[0].proof["file"]


def _copy(lrat_cert, tmp_path) -> tuple[Path, dict, Path]:
    folder, _, proof = lrat_cert
    doc = json.loads((folder / "g.cert.json").read_text())
    (tmp_path / "g.json").write_bytes((folder / "g.json").read_bytes())
    return tmp_path / "g.cert.json", doc, tmp_path / proof.name


def _save(target: Path, doc: dict) -> None:
    target.write_text(json.dumps(doc))


def test_row1_a_proof_file_that_is_a_fifo_or_dev_zero_is_refused(lrat_cert, tmp_path):
    target, doc, proof = _copy(lrat_cert, tmp_path)
    _save(target, doc)
    os.mkfifo(proof)
    result = _cli("verify", str(target), str(tmp_path / "g.json"))
    assert result.exit_code == 1 and "is a FIFO, not a regular file" in result.output
    proof.unlink()
    proof.symlink_to("/dev/zero")
    result = _cli("verify", str(target), str(tmp_path / "g.json"))
    assert result.exit_code == 1 and "is a character device, not a regular file" in result.output


def test_row1_a_certificate_that_is_a_fifo_is_refused(tmp_path):
    os.mkfifo(tmp_path / "c.json")
    with pytest.raises(Exception, match="is a FIFO, not a regular file"):
        Certificate.load(tmp_path / "c.json")


def _bomb(lrat_cert, tmp_path, data: bytes) -> Path:
    """The certificate with its proof file replaced by ``data`` gzipped, and the hash and size
    it records edited to match, as an attacker can."""
    target, doc, proof = _copy(lrat_cert, tmp_path)
    bomb = gzip.compress(data)
    proof.write_bytes(bomb)
    record = doc["claims"][0]["checks"][0]["proof"]
    record.update(sha256=hashlib.sha256(bomb).hexdigest(), bytes=len(bomb))
    _save(target, doc)
    return target


def test_row1_a_gzip_bomb_of_one_long_line_stops_at_the_line_budget(
    lrat_cert, tmp_path, monkeypatch
):
    """The line budget (here 10,000 bytes) stops it as it is decompressed."""
    target = _bomb(lrat_cert, tmp_path, b"1 " * 200_000 + b"\n")
    monkeypatch.setenv("ROBUSTGRAPH_MAX_LINE", "10000")
    line = assert_error(_cli("verify", str(target), str(tmp_path / "g.json")))
    assert "line 1 is longer than 10,000 bytes" in line and "ROBUSTGRAPH_MAX_LINE" in line


def test_row1_a_proof_of_many_short_lines_stops_at_the_text_budget(
    lrat_cert, tmp_path, monkeypatch
):
    target = _bomb(lrat_cert, tmp_path, b"c\n" * 100_000)
    monkeypatch.setenv("ROBUSTGRAPH_MAX_INFLATED", "50000")
    line = assert_error(_cli("verify", str(target), str(tmp_path / "g.json")))
    assert "holds more than 50,000 bytes of text" in line


def test_row2_an_lrat_proof_swapped_in_is_sized_before_any_cnf_is_encoded(monkeypatch):
    """A theorem-proved gamma-MERG edited to claim an LRAT proof: the closed-form size shows
    the mismatch (and the CNF budget the size) without encoding (encode must not run)."""
    t = gen.gamma_merg(40)
    doc = json.loads(certify(t, Claim.r_robust(20), engines="portfolio", proof="theorem").dumps())
    check = doc["claims"][0]["checks"][0]
    check["proof"] = {"kind": "lrat", "encoding": cnf.ENCODING, "variables": 1, "clauses": 1,
                      "file": "lrat-" + "0" * 20 + ".lrat.gz", "sha256": "0" * 64, "bytes": 10,
                      "steps": 1}

    def refuse(*_):
        raise AssertionError("encoded a CNF before the cheap checks")

    monkeypatch.setattr("robustgraph.certificate.proofs.checker.encode", refuse)
    report = Certificate.from_dict(doc).verify(t)
    assert not report.valid and "the graph's is" in report.reasons[0]
    variables, clauses = cnf.size([len(nb) for nb in t.in_neighbors], 20, 1)
    check["proof"].update(variables=variables, clauses=clauses)
    monkeypatch.setenv("ROBUSTGRAPH_MAX_CNF_CLAUSES", str(clauses - 1))
    with pytest.raises(limits.OverBudget, match="ROBUSTGRAPH_MAX_CNF_CLAUSES"):
        Certificate.from_dict(doc).verify(t)


@pytest.mark.parametrize("seed", range(6))
def test_the_closed_form_cnf_size_is_the_encoded_one(seed):
    rng = random.Random(seed)
    n = rng.randint(2, 14)
    t = gen.erdos_renyi(n, rng.choice([0.2, 0.5, 0.9]), seed=seed, directed=bool(seed % 2))
    nbrs = cnf.canonical_in_neighbors(t)
    for r in range(1, 4):
        for s in range(1, 4):
            made = cnf.encode(nbrs, r, s)
            assert cnf.size([len(nb) for nb in nbrs], r, s) == (made.variables, len(made.clauses))


def test_row3_label_lists_are_checked_for_duplicates_in_linear_time(monkeypatch):
    """A long order mixing strings and numbers: jsonschema compared every pair (67 s for
    262 KB). Equality is now never called pairwise; duplicates by type and value are caught."""
    import jsonschema._utils as utils

    calls = []
    monkeypatch.setattr(utils, "equal", lambda a, b: calls.append(1) or a == b)
    t = gen.gamma_merg(20)
    doc = json.loads(certify(t, Claim.r_robust(10), engines="portfolio", proof="theorem").dumps())
    proof = doc["claims"][0]["checks"][0]["proof"]
    proof["order"] = [x for i in range(3_000) for x in (i, f"s{i}")]
    assert not Certificate.from_dict(doc).verify(t).valid  # 6,000 labels on 20 nodes: read
    assert len(calls) < 100
    errors = list(document._unique_items(document._validator(), True, [1, "1", True, 1.0], {}))
    assert [e.message for e in errors] == ["has the item 1.0 twice (items must be unique)"]
    assert not list(document._unique_items(document._validator(), True, [1, "1", True], {}))


def test_row5_edge_list_of_many_isolated_nodes_is_refused_before_parsing(tmp_path, monkeypatch):
    path = tmp_path / "g.edges"
    path.write_text("# undirected\n" + "".join(f"{i}\n" for i in range(5_000)))
    monkeypatch.setenv("ROBUSTGRAPH_MAX_NODES", "1000")
    monkeypatch.setenv("ROBUSTGRAPH_MAX_EDGES", "1000")
    monkeypatch.setattr("robustgraph.io.edgelist.data_lines", None)  # never reached
    line = assert_error(_cli("info", str(path)))
    assert "holds 5,002 lines, more than a graph within the budgets needs (2,000" in line


def test_row5_an_adjacency_list_is_refused_by_its_value_count(tmp_path, monkeypatch):
    path = tmp_path / "g.adjlist"
    path.write_text("# undirected\n" + "0 " + " ".join(str(i) for i in range(1, 3_000)) + "\n")
    monkeypatch.setenv("ROBUSTGRAPH_MAX_NODES", "500")
    monkeypatch.setenv("ROBUSTGRAPH_MAX_EDGES", "500")
    assert "holds 3,002 values" in assert_error(_cli("info", str(path)))


def test_row5_counted_nodes_and_edges_are_bounded_not_only_declared(tmp_path, monkeypatch):
    path = tmp_path / "g.csv"
    io.write(gen.k_circulant(300, 2), path)  # 601 lines: within the line bound below
    monkeypatch.setenv("ROBUSTGRAPH_MAX_NODES", "1000")
    monkeypatch.setenv("ROBUSTGRAPH_MAX_EDGES", "599")
    line = assert_error(_cli("info", str(path)))
    assert "holds 600 edges, more than robustgraph reads (budget 599" in line
    monkeypatch.setenv("ROBUSTGRAPH_MAX_EDGES", "1000")
    monkeypatch.setenv("ROBUSTGRAPH_MAX_NODES", "299")
    assert "holds 300 nodes" in assert_error(_cli("info", str(path)))


def test_row5_a_dot_edge_statement_is_bounded_as_it_expands(tmp_path):
    """{a0..a4499} -> {b0..b4499}: 52 KB, 20 million edges; refused before Graphviz runs."""
    path = tmp_path / "g.dot"
    a = " ".join(f"a{i}" for i in range(4500))
    b = " ".join(f"b{i}" for i in range(4500))
    path.write_text(f"digraph {{ {{{a}}} -> subgraph s {{{b}}} }}\n")
    line = assert_error(_cli("info", str(path)))
    assert "may hold up to 20,250,000 edges" in line and "ROBUSTGRAPH_MAX_EDGES" in line
    path.write_text("digraph { {a b} -> {c d} -> e }\n")
    assert io.read(path).m == 6


def test_row6_a_sidecar_listing_a_node_twice_is_one_line(tmp_path):
    path = tmp_path / "g.edges"
    io.write(Topology.from_edges([("a", "b"), ("b", "c")], directed=True), path)
    side = Path(str(path) + ".meta.json")
    doc = json.loads(side.read_text())
    doc["nodes"] = ["a", "b", "a", "c"]
    side.write_text(json.dumps(doc))
    assert "lists the node 'a' twice" in assert_error(_cli("info", str(path)))


def test_row7_a_family_graph_is_not_built_when_the_edge_count_rules_it_out(monkeypatch):
    """A 5,000-node cycle claimed to contain the gamma-MERG (6 million edges): refused from
    the closed-form count, the family graph never built."""
    monkeypatch.setattr(gen, "gamma_merg", None)
    ring = gen.k_circulant(5_000, 1)
    problem = theorem.check(ring.in_neighbors, 2, 1, "gamma-merg", list(range(5_000)), None)
    edges = gen.gamma_merg_edge_count(5_000)
    assert f"has {edges:,} edges, more than this graph's 5,000" in problem


def test_row8_the_common_neighbour_check_is_refused_over_the_steps_budget():
    """n = 2,001 (a windmill: 1,000 hubs meeting at one centre): 6.3e7 word operations."""
    n = 2_001
    nbrs = [set() for _ in range(n)]
    for i in range(1, n):
        nbrs[0].add(i), nbrs[i].add(0)
    for i in range(1, n, 2):
        nbrs[i].add(i + 1), nbrs[i + 1].add(i)
    problem = theorem.check([frozenset(x) for x in nbrs], 1, 1, "common-neighbour", None, None)
    assert "over the proof-steps budget" in problem and "ROBUSTGRAPH_MAX_PROOF_STEPS" in problem


def test_row9_dot_numbers_run_into_letters_are_refused_before_graphviz(tmp_path):
    path = tmp_path / "g.dot"
    path.write_text("graph { " + "1a " * 1_000 + "}\n")
    assert "'1a' runs a number into letters" in assert_error(_cli("info", str(path)))
    path.write_text('graph { "1a" -- b; c [width=1.5] }\n')
    assert io.read(path).n == 3


def test_row9_a_long_edge_list_is_refused_by_its_line_count(tmp_path, monkeypatch):
    path = tmp_path / "g.edges"
    path.write_text("# directed\n" + "".join(f"{i} {i + 1}\n" for i in range(3_000)))
    monkeypatch.setenv("ROBUSTGRAPH_MAX_EDGES", "1000")
    monkeypatch.setenv("ROBUSTGRAPH_MAX_NODES", "1000")
    assert "holds 3,002 lines" in assert_error(_cli("info", str(path)))


@pytest.mark.parametrize("field,value", [("k", 2.0), ("lower", 3.0)])
def test_row10_numeric_fields_must_be_json_integers(field, value):
    t = gen.k_circulant(12, 3)
    doc = json.loads(certify(t, Claim.r_robust(3), engines="portfolio", proof="theorem").dumps())
    check = doc["claims"][0]["checks"][0]
    (check["proof"] if field == "k" else check)[field] = value
    with pytest.raises(InvalidCertificate, match="does not match the schema"):
        Certificate.from_dict(doc)


@pytest.mark.parametrize("edit", ['"directed": true, "directed": false', '"version": NaN'])
def test_row11_sidecars_are_strict_json(tmp_path, edit):
    path = tmp_path / "g.edges"
    io.write(Topology.from_edges([("a", "b")], directed=True), path)
    side = Path(str(path) + ".meta.json")
    key = edit.split(":")[0]
    text = side.read_text()
    start = text.index(key)
    end = text.index(",", start)
    side.write_text(text[:start] + edit + text[end:])
    with pytest.raises(GraphFormatError, match="not strict JSON"):
        io.read(path)


def test_row12_an_lrat_proofs_recorded_bytes_are_compared(lrat_cert, tmp_path):
    target, doc, proof = _copy(lrat_cert, tmp_path)
    proof.write_bytes(lrat_cert[2].read_bytes())
    doc["claims"][0]["checks"][0]["proof"]["bytes"] += 1
    _save(target, doc)
    report = Certificate.load(target).verify(lrat_cert[1])
    assert not report.valid and "bytes, not" in report.reasons[0]


def test_the_run_gate_checks_each_proof_once(lrat_cert, monkeypatch):
    from protocol_runner.run.cert_gate import check_gate, obtain_certificate

    folder, t, _ = lrat_cert
    calls = []
    real = assurance._check_bounds
    monkeypatch.setattr(assurance, "_check_bounds", lambda c, g: calls.append(1) or real(c, g))
    certificate, _ = obtain_certificate(t, 0, path=folder / "g.cert.json")
    assert check_gate(certificate, t, 1).certified
    assert len(calls) == 1
