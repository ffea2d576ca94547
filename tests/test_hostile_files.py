"""Issue 41, rows 6-13: the last unbounded inputs (task files, certificates, graph files that
declare huge node counts, rosters, run sizes, full disks). Small budgets through their
environment variables where that shows the mechanism (``robustgraph/limits.py``)."""

from __future__ import annotations

import json

import pytest
from cli_checks import assert_error
from click.testing import CliRunner

from robustgraph import io, limits
from robustgraph.cli import main


def _cli(*argv: str):
    return CliRunner().invoke(main, list(argv))


# ----------------------------------------------------------------- row 8: declared node counts
def test_row8_the_node_budget_is_what_a_command_reads_within_10_s_and_300_mb():
    """Measured (docs/certificate.md, 'Input budgets'): 100,000 isolated nodes cost at most
    4.2 s and 194 MB (DOT, ``convert``) on a loaded 2-core machine; a million, 22 s and 590 MB."""
    assert limits.NODES.default == 100_000


@pytest.mark.parametrize("name, text", [
    ("g.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n1000000 1000000 0\n"),
    ("g.net", "*Vertices 1000000\n"),
])
def test_row8_a_tiny_file_declaring_a_million_nodes_is_refused(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    for command in (["info", str(path)], ["convert", str(path), str(tmp_path / "o.json")]):
        line = assert_error(_cli(*command))
        assert "declares 1,000,000 nodes, more than robustgraph reads (budget 100,000" in line
    assert not (tmp_path / "o.json").exists()


def _isolated(tmp_path, suffix: str, n: int):
    path = tmp_path / f"g.{suffix}"
    if suffix == "graphml":
        nodes = "".join(f'<node id="{i}"/>' for i in range(n))
        path.write_text('<?xml version="1.0"?><graphml xmlns="http://graphml.graphdrawing.org/'
                        f'xmlns"><graph edgedefault="undirected">{nodes}</graph></graphml>')
    elif suffix == "gml":
        path.write_text("graph [\n" + "".join(f"node [ id {i} ]\n" for i in range(n)) + "]\n")
    elif suffix == "dot":
        path.write_text("graph { rankdir=LR; node [shape=box]\n"
                        + "".join(f'"n {i}" [label=x];\n' for i in range(n)) + "}\n")
    elif suffix == "json":
        path.write_text(json.dumps({"nodes": [{"id": i} for i in range(n)], "links": []}))
    else:  # edge list, adjacency list: one node a line
        path.write_text("".join(f"{i}\n" for i in range(n)))
    return path


@pytest.mark.parametrize("suffix, what", [
    ("graphml", "may hold up to 3,000 nodes"), ("gml", "may hold up to 3,000 nodes"),
    ("json", "may hold up to 3,000 nodes"), ("adjlist", "holds 3,000 nodes"),
    ("dot", "its node IDs, before Graphviz: may hold up to 3,000 nodes"),
])
def test_row8_counted_nodes_are_refused_before_the_graph_is_parsed(
    tmp_path, monkeypatch, suffix, what
):
    path = _isolated(tmp_path, suffix, 3_000)
    monkeypatch.setenv("ROBUSTGRAPH_MAX_NODES", "1000")
    monkeypatch.setattr("robustgraph.io.graphml.igraph_read", None)  # never reached
    monkeypatch.setattr("robustgraph.io.gml.igraph_read", None)
    monkeypatch.setattr("robustgraph.io.nodelink.json", None)
    monkeypatch.setattr("robustgraph.io.adjlist.resolve_ambiguous", None)
    monkeypatch.setattr("robustgraph.io.dot._parse", None)
    line = assert_error(_cli("info", str(path)))
    assert what in line and "over" not in line.split(what)[0]


def test_row8_an_edge_list_stops_once_its_nodes_pass_the_budget(tmp_path, monkeypatch):
    path = _isolated(tmp_path, "edges", 50_000)
    monkeypatch.setenv("ROBUSTGRAPH_MAX_NODES", "1000")
    monkeypatch.setenv("ROBUSTGRAPH_MAX_EDGES", "100000")
    line = assert_error(_cli("info", str(path)))
    # the rest of the file is never parsed
    assert "by line 16385: holds more than 1,000 nodes (budget 1,000" in line


def test_row8_a_graph_within_the_budget_reads_as_before(tmp_path, monkeypatch):
    monkeypatch.setenv("ROBUSTGRAPH_MAX_NODES", "3000")
    for suffix in ("graphml", "gml", "json", "adjlist", "edges", "dot"):
        assert io.read(_isolated(tmp_path, suffix, 3_000)).n == 3_000


# ----------------------------------------------------------------- row 6: Parquet decoded bytes
def _parquet_bomb(path, rows: int, size: int, *, arrow_schema: bool = True):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    one = pa.array([0] * rows, pa.int32())
    table = pa.table({
        "id": pa.array([f"t{i}" for i in range(rows)]),
        "question": pa.DictionaryArray.from_arrays(one, pa.array(["x" * size])),
        "answer": pa.DictionaryArray.from_arrays(one, pa.array(["2"])),
    })
    pq.write_table(table, path, compression="zstd", store_schema=arrow_schema)
    return path


@pytest.mark.parametrize("arrow_schema", [True, False], ids=["arrow-schema", "plain"])
def test_row6_a_parquet_file_is_bounded_by_its_decoded_bytes(tmp_path, monkeypatch, arrow_schema):
    from protocol_runner.tasks.records import iter_records

    path = _parquet_bomb(tmp_path / "t.parquet", 5_000, 10_000, arrow_schema=arrow_schema)
    assert path.stat().st_size < 50_000  # 50 MB decoded
    monkeypatch.setenv("ROBUSTGRAPH_MAX_BYTES", str(2**20))
    with pytest.raises(limits.OverBudget, match="decoded bytes by row 64: .* over the bytes"):
        list(iter_records(path))
    monkeypatch.setenv("ROBUSTGRAPH_MAX_BYTES", str(64 * 2**20))
    first = next(iter_records(path))  # within the budget, read as before
    assert first[1]["question"] == "x" * 10_000 and first[0].endswith("row 0")


# ------------------------------------------------------- row 7: proof work per certificate
def _exhaustive_certificate(tmp_path, *claims):
    from robustgraph import generators as gen
    from robustgraph.certificate.certifier import certify

    graph = gen.k_circulant(10, 2)
    io.write(graph, tmp_path / "g.json")
    cert = certify(graph, *claims, engines="exhaustive", proof="exhaustive")
    cert.dump(tmp_path / "c.json")
    return json.loads((tmp_path / "c.json").read_text())


def test_row7_a_certificate_repeating_a_claim_is_rejected_before_any_proof(tmp_path, monkeypatch):
    from robustgraph.certificate.claims import Claim

    doc = _exhaustive_certificate(tmp_path, Claim.r_robust(2))
    doc["claims"] = doc["claims"] * 50
    (tmp_path / "c.json").write_text(json.dumps(doc))
    monkeypatch.setattr("robustgraph.certificate.assurance.check_proof", None)  # never reached
    result = _cli("verify", str(tmp_path / "c.json"), str(tmp_path / "g.json"))
    assert result.exit_code == 1, result.output
    assert "claim 2 (2-robust) repeats claim 1; a certificate states each claim once (49" in (
        result.output + result.stderr)


def test_row7_the_proof_work_is_summed_over_claims_and_budgeted(tmp_path, monkeypatch):
    from robustgraph.certificate.claims import Claim

    _exhaustive_certificate(tmp_path, Claim.r_robust(2), Claim.rs_robust(2, 2))
    command = ("verify", str(tmp_path / "c.json"), str(tmp_path / "g.json"))
    assert _cli(*command).exit_code == 0
    monkeypatch.setenv("ROBUSTGRAPH_MAX_PROOF_STEPS", str(2**10 + 1))  # one proof's 2^10, not two
    line = assert_error(_cli(*command))
    assert "the proof work of the certificate's 2 claim(s), summed" in line
    assert "2,048, over the proof steps budget" in line


def test_row7_certify_refuses_a_claim_given_twice():
    from robustgraph import generators as gen
    from robustgraph.certificate.certifier import certify
    from robustgraph.certificate.claims import Claim
    from robustgraph.errors import ParameterError

    with pytest.raises(ParameterError, match="the claim 2-robust is given twice"):
        certify(gen.k_circulant(6, 1), Claim.r_robust(2), Claim.r_robust(2), engines="exhaustive")


# ----------------------------------------------------------------- rows 9, 10: roster and run size
def test_row9_a_roster_file_larger_than_the_graph_needs_is_refused_before_parsing(
    tmp_path, monkeypatch
):
    from protocol_runner.run.roster import build_roster
    from robustgraph import generators as gen

    big = tmp_path / "big.yaml"
    big.write_text("agents:\n" + "".join(f"  - {{node: {i}, role: strong}}\n"
                                         for i in range(20_000)))
    many = tmp_path / "many.yaml"
    many.write_text("agents:\n" + "".join(f"  - {{node: {i % 7}, role: strong}}\n"
                                          for i in range(100)))
    monkeypatch.setattr("protocol_runner.run.strict_yaml.load", None)  # never reached
    with pytest.raises(limits.ParameterError, match="more than a roster of the graph's 7 agents"):
        build_roster(gen.gamma_merg(7), str(big))
    with pytest.raises(limits.ParameterError, match="lists 100 agents .'node' keys., more than"):
        build_roster(gen.gamma_merg(7), str(many))


def _small_run(tmp_path, *extra: str):
    return _cli("run", "--topology", "merg", "--n", "5", "--roster", "4S1A", "--F", "1",
                "--protocols", "sac", "--tasks", "arith:2", "--rounds", "1", "--no-plots",
                "-o", str(tmp_path / "out"), *extra)


def test_row10_one_budget_on_the_run_size_with_an_override(tmp_path):
    line = assert_error(_cli("run", "--topology", "merg", "--n", "7", "--roster", "6S1A",
                             "--tasks", "arith:100000", "--rounds", "1000", "--no-plots",
                             "-o", str(tmp_path / "huge")))
    assert "the run plans 7,003,500,000 LLM calls (7 agents x 100,000 tasks x 5 protocol(s)"\
        " x 2001 calls per agent for 1000 rounds), over the run budget of 100,000,000" in line
    assert not (tmp_path / "huge").exists()
    assert "plans 30 LLM calls" in assert_error(_small_run(tmp_path, "--max-calls", "29"))
    assert _small_run(tmp_path, "--max-calls", "30").exit_code == 0


# ----------------------------------------------------------------- row 11: a full disk
def _disk_full(monkeypatch):
    """Every flush to disk fails as on a full disk (``OSError(ENOSPC)``)."""
    import errno
    import os

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr("robustgraph.atomic.os.fsync", full)


@pytest.mark.parametrize("proof", ["exhaustive", "none"])
def test_row11_certify_on_a_full_disk_leaves_no_file_and_names_it(tmp_path, monkeypatch, proof):
    from robustgraph import generators as gen

    io.write(gen.k_circulant(8, 2), tmp_path / "g.json")
    (tmp_path / "out").mkdir()
    _disk_full(monkeypatch)
    target = tmp_path / "out" / "c.json"
    line = assert_error(_cli("certify", str(tmp_path / "g.json"), "--r", "2", "--engines",
                             "exhaustive", "--proof", proof, "-o", str(target)))
    assert line.endswith("out/c.json: No space left on device") or (
        proof == "exhaustive" and "No space left on device" in line and "out/" in line)
    assert list((tmp_path / "out").iterdir()) == []  # no 0-byte certificate, proof or temp file


def test_row11_a_graph_written_on_a_full_disk_leaves_the_old_file(tmp_path, monkeypatch):
    from robustgraph import generators as gen

    target = tmp_path / "g.json"
    io.write(gen.k_circulant(8, 2), target)
    before = target.read_bytes()
    _disk_full(monkeypatch)
    line = assert_error(_cli("generate", "merg", "--n", "7", "-o", str(target)))
    assert "g.json" in line and "No space left on device" in line
    assert target.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == [
        "g.json"]


@pytest.mark.parametrize("failure, named", [
    ("sqlite", "{out}/cache.sqlite or {out}/ledger.sqlite: database or disk is full (the run "
               "resumes where it stopped)"),
    ("write", "{out}: No space left on device"),
])
def test_row11_a_run_that_fills_the_disk_ends_in_one_line_naming_the_files(
    tmp_path, monkeypatch, failure, named
):
    import errno
    import os
    import sqlite3

    async def full(prepared, progress=None, hooks=()):
        if failure == "sqlite":
            raise sqlite3.OperationalError("database or disk is full")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))  # a write names no file

    monkeypatch.setattr("protocol_runner.run.runner.execute", full)
    line = assert_error(_small_run(tmp_path, "--commit-gate"))
    assert line == f"robustgraph: error: {named.format(out=tmp_path / 'out')}"


# ----------------------------------------------------------------- row 13: smaller items
@pytest.mark.parametrize("char", ["\u202e", "\u200b", "\u2066", "\x07", "\ufeff"])
def test_row13_labels_with_control_or_format_characters_are_refused(tmp_path, char):
    path = tmp_path / "g.edges"
    path.write_text(f"# undirected\na{char}b c\nc d\n", encoding="utf-8")
    line = assert_error(_cli("info", str(path)))
    assert f"U+{ord(char):04X}" in line and char not in line  # escaped, never printed raw


def test_row13_an_explicit_zero_in_coordinate_layout_is_refused(tmp_path):
    path = tmp_path / "g.mtx"
    path.write_text("%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 2 1\n2 3 0\n")
    assert "entry (2, 3) is an explicit 0" in assert_error(_cli("info", str(path)))
    path.write_text("%%MatrixMarket matrix array integer general\n2 2\n0\n1\n0\n0\n")
    assert io.read(path).edges() == [(1, 0)]  # array layout: 0 is no edge


def test_row13_a_directory_and_a_bz2_bomb_name_what_to_change(tmp_path, monkeypatch):
    import bz2

    (tmp_path / "d.json").mkdir()
    assert assert_error(_cli("info", str(tmp_path / "d.json"))).endswith(
        "d.json: is a directory, not a regular file")
    (tmp_path / "g.edges.bz2").write_bytes(bz2.compress(b"\n" * (2 * 2**20)))
    monkeypatch.setenv("ROBUSTGRAPH_MAX_BYTES", str(2**20))  # binds before the inflated budget
    line = assert_error(_cli("info", str(tmp_path / "g.edges.bz2")))
    assert line.endswith("decompresses to more than 1,048,576 bytes; not read (budget 1,048,576; "
                         "raise it with ROBUSTGRAPH_MAX_BYTES)")
