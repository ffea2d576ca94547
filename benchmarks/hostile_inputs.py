"""Issues 31 and 41's hostile inputs at full size, each run through the CLI: exit, time, memory.

Builds every row of issue 31's table that this package's readers and checkers answer (rows 4 and
7's theorem recognition are solver work, measured in docs/performance.md) at the size the
issue reports, plus the red-team classes of issue 24 (a FIFO certificate, a gzip bomb) and the
rows of issue 41 (``41.N``: a hostile OpenAI-compatible endpoint on 127.0.0.1, from
``tests/hostile_endpoint.py``, with a second host on 127.0.0.2; Parquet, certificate, graph,
roster, run-size, full-disk and label inputs), runs ``robustgraph`` on each in a child process
under ``/usr/bin/time`` and an address-space cap of ``--memory`` GiB and a ``--timeout``, and
prints a table: exit code, wall seconds, peak memory, the first line of stderr (certification's
progress lines left out) and, for the endpoint rows, the requests that reached
127.0.0.2. Done means exit 2 (or 1 for a certificate its own proof contradicts, or a verify that
rejects) with one line, within 10 s and 300 MB (issue 41; 1 GB for issue 31), and no request to
a host not named. Not part of the test run; the tables are in docs/certificate.md and
docs/protocols.md::

    nice -n 5 .venv/bin/python benchmarks/hostile_inputs.py [--only 41]
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import resource
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["main"]


def _cert(folder: Path, graph: object, r: int, proof: str, name: str) -> dict:
    """Write ``graph`` and a genuine certificate of r-robustness with ``proof``; its JSON."""
    from robustgraph import io
    from robustgraph.certificate.certifier import certify
    from robustgraph.certificate.claims import Claim

    io.write(graph, folder / f"{name}.json")
    cert = certify(graph, Claim.r_robust(r), engines="portfolio", proof=proof)
    cert.dump(folder / f"{name}.cert.json")
    return json.loads((folder / f"{name}.cert.json").read_text())


def _save(folder: Path, name: str, doc: dict) -> list[str]:
    (folder / f"{name}.cert.json").write_text(json.dumps(doc))
    return ["verify", str(folder / f"{name}.cert.json"), str(folder / f"{name}.json")]


def _lrat_base(folder: Path) -> tuple[dict, Path]:
    from robustgraph import generators as gen

    doc = _cert(folder, gen.erdos_renyi_robust(24, 2, seed=3).topology, 2, "lrat", "lrat")
    return doc, folder / doc["claims"][0]["checks"][0]["proof"]["file"]


def _fifo_proof(folder: Path) -> list[str]:
    doc, proof = _lrat_base(folder)
    proof.unlink()
    os.mkfifo(proof)
    return _save(folder, "lrat", doc)


def _zero_proof(folder: Path) -> list[str]:
    doc, proof = _lrat_base(folder)
    proof.unlink()
    proof.symlink_to("/dev/zero")
    return _save(folder, "lrat", doc)


def _long_line_proof(folder: Path) -> list[str]:
    doc, proof = _lrat_base(folder)
    with gzip.open(proof, "wb") as out:  # 180 MB of one line, about 175 KB compressed
        for _ in range(180):
            out.write(b"1 " * 500_000)
    data = proof.read_bytes()
    doc["claims"][0]["checks"][0]["proof"].update(
        sha256=hashlib.sha256(data).hexdigest(), bytes=len(data)
    )
    return _save(folder, "lrat", doc)


def _fifo_certificate(folder: Path) -> list[str]:
    from robustgraph import generators as gen
    from robustgraph import io

    io.write(gen.gamma_merg(7), folder / "g.json")
    os.mkfifo(folder / "fifo.cert.json")
    return ["verify", str(folder / "fifo.cert.json"), str(folder / "g.json")]


def _lrat_swapped_in(folder: Path) -> list[str]:
    from robustgraph import generators as gen
    from robustgraph.certificate.proofs import cnf

    graph = gen.gamma_merg(400)
    doc = _cert(folder, graph, 200, "theorem", "merg")
    variables, clauses = cnf.size([len(nb) for nb in graph.in_neighbors], 200, 1)
    doc["claims"][0]["checks"][0]["proof"] = {
        "kind": "lrat", "encoding": cnf.ENCODING, "variables": variables, "clauses": clauses,
        "file": "lrat-" + "0" * 20 + ".lrat.gz", "sha256": "0" * 64, "bytes": 100, "steps": 10,
    }
    return _save(folder, "merg", doc)


def _mixed_labels(folder: Path) -> list[str]:
    from robustgraph import generators as gen

    doc = _cert(folder, gen.gamma_merg(20), 10, "theorem", "mixed")
    labels = [x for i in range(15_000) for x in (i, f"n{i}")]  # about 262 KB of labels
    doc["claims"][0]["checks"][0]["proof"]["order"] = labels
    return _save(folder, "mixed", doc)


def _isolated_nodes(folder: Path) -> list[str]:
    path = folder / "nodes.edges"
    with path.open("w") as out:
        out.write("# undirected\n")
        for start in range(0, 8_000_000, 100_000):
            out.write("".join(f"{i}\n" for i in range(start, start + 100_000)))
    return ["info", str(path)]


def _dot_product(folder: Path) -> list[str]:
    a = " ".join(f"a{i}" for i in range(4500))
    b = " ".join(f"b{i}" for i in range(4500))
    (folder / "product.dot").write_text(f"digraph {{ {{{a}}} -> {{{b}}} }}\n")
    return ["info", str(folder / "product.dot")]


def _sidecar_twice(folder: Path) -> list[str]:
    from robustgraph import io
    from robustgraph.topology import Topology

    path = folder / "twice.edges"
    io.write(Topology.from_edges([("a", "b"), ("b", "c")], directed=True), path)
    side = Path(str(path) + ".meta.json")
    doc = json.loads(side.read_text())
    doc["nodes"] = ["a", "b", "a", "c"]
    side.write_text(json.dumps(doc))
    return ["info", str(path)]


def _common_neighbour(folder: Path) -> list[str]:
    from robustgraph import generators as gen
    from robustgraph import io
    from robustgraph.topology import Topology

    n = 48_001
    edges = [(0, i) for i in range(1, n)] + [(i, i + 1) for i in range(1, n, 2)]
    graph = Topology.from_edges(edges, nodes=range(n))
    doc = _cert(folder, gen.gamma_merg(7), 1, "theorem", "cn")
    io.write(graph, folder / "cn.json")
    doc["graph"].update(hash=graph.content_hash, n=graph.n, m=graph.m)
    check = doc["claims"][0]["checks"][0]
    check["proof"] = {"kind": "theorem", "family": "common-neighbour",
                      "reference": "the common-neighbour lemma (robustgraph/design/starts.py, "
                      "docs/design.md)", "order": None, "k": None}
    return _save(folder, "cn", doc)


def _dot_tokens(folder: Path) -> list[str]:
    (folder / "tokens.dot").write_text("graph { " + "1a " * 330_000 + "}\n")
    return ["info", str(folder / "tokens.dot")]


def _long_edge_list(folder: Path) -> list[str]:
    path = folder / "long.edges"  # 3,000 x 2,000 distinct pairs, about 58 MB
    with path.open("w") as out:
        out.write("# undirected\n")
        for v in range(3_000, 5_000):
            out.write("".join(f"{u} {v}\n" for u in range(3_000)))
    return ["info", str(path)]


def _float_k(folder: Path) -> list[str]:
    from robustgraph import generators as gen

    doc = _cert(folder, gen.k_circulant(12, 3), 3, "theorem", "circ")
    doc["claims"][0]["checks"][0]["proof"]["k"] = 2.0
    return _save(folder, "circ", doc)


def _sidecar_nan(folder: Path) -> list[str]:
    from robustgraph import io
    from robustgraph.topology import Topology

    path = folder / "nan.edges"
    io.write(Topology.from_edges([("a", "b")], directed=True), path)
    side = Path(str(path) + ".meta.json")
    side.write_text(side.read_text().replace('"version": 1', '"version": NaN'))
    return ["info", str(path)]


def _bytes_edited(folder: Path) -> list[str]:
    doc, _ = _lrat_base(folder)
    doc["claims"][0]["checks"][0]["proof"]["bytes"] += 1
    return _save(folder, "lrat", doc)


def _gzip_bomb(folder: Path) -> list[str]:
    path = folder / "bomb.edges.gz"
    with gzip.open(path, "wb") as out:
        for _ in range(100):
            out.write(b"\n" * (1 << 20))
    return ["info", str(path)]


ENDPOINT: Any = None
"""The hostile endpoint of the ``41.1``-``41.5`` rows, started by :func:`main` when they run."""


def _run_at(mode: str, *extra: str) -> Callable[[Path], list[str]]:
    """``robustgraph run`` (5 agents, 2 tasks, SAC, 1 round) at the endpoint's ``mode``."""

    def build(folder: Path) -> list[str]:
        return ["run", "--topology", "merg", "--n", "5", "--roster", "4S1A", "--F", "1",
                "--protocols", "sac", "--tasks", "arith:2", "--rounds", "1", "--backend",
                "openai", "--base-url", ENDPOINT.url(mode), "--model", "sim-strong",
                "--api-key-env", "", "--max-retries", "0", "--no-plots",
                "-o", str(folder / "out"), *extra]

    return build


def _unset_key(folder: Path) -> list[str]:
    argv = _run_at("ok")(folder)
    argv[argv.index("--api-key-env") + 1] = "ROBUSTGRAPH_BENCH_UNSET_KEY"
    return argv


def _parquet_bomb(folder: Path, limit: str = "") -> list[str]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = 200_000
    one = pa.array([0] * rows, pa.int32())
    pq.write_table(pa.table({
        "id": pa.array(range(rows), pa.int32()),
        "question": pa.DictionaryArray.from_arrays(one, pa.array(["x" * 1_000_000])),
        "answer": pa.DictionaryArray.from_arrays(one, pa.array(["2"])),
    }), folder / "t.parquet", compression="zstd")
    return ["run", "--topology", "merg", "--n", "5", "--roster", "4S1A", "--F", "1",
            "--protocols", "sac", "--rounds", "1", "--no-plots", "-o", str(folder / "out"),
            "--tasks", f"jsonl:{folder / 't.parquet'}{limit}"]


def _repeated_claim(folder: Path) -> list[str]:
    from robustgraph import generators as gen

    doc = _cert(folder, gen.k_circulant(20, 3), 3, "exhaustive", "c20")
    doc["claims"] = doc["claims"] * 1000
    return _save(folder, "c20", doc)


def _declared(name: str, text: str, command: str = "info") -> Callable[[Path], list[str]]:
    def build(folder: Path) -> list[str]:
        (folder / name).write_text(text)
        out = [str(folder / "out.json")] if command == "convert" else []
        return [command, str(folder / name), *out]

    return build


def _million(suffix: str) -> Callable[[Path], list[str]]:
    def build(folder: Path) -> list[str]:
        n, path = 1_000_000, folder / f"m.{suffix}"
        if suffix == "dot":
            path.write_text("graph {\n" + "".join(f"{i};\n" for i in range(n)) + "}\n")
        elif suffix == "graphml":
            path.write_text('<?xml version="1.0"?><graphml xmlns="http://graphml.graphdrawing.org/'
                            'xmlns"><graph edgedefault="undirected">'
                            + "".join(f'<node id="{i}"/>' for i in range(n)) + "</graph></graphml>")
        else:
            path.write_text(json.dumps({"nodes": [{"id": i} for i in range(n)], "links": []}))
        return ["info", str(path)]

    return build


def _big_roster(folder: Path) -> list[str]:
    (folder / "r.yaml").write_text(
        "agents:\n" + "".join(f"  - {{node: {i}, role: strong}}\n" for i in range(1_000_000)))
    return ["run", "--topology", "merg", "--n", "7", "--roster", str(folder / "r.yaml"),
            "--no-plots", "-o", str(folder / "out")]


def _huge_run(folder: Path) -> list[str]:
    return ["run", "--topology", "merg", "--n", "7", "--roster", "6S1A", "--tasks",
            "arith:100000", "--rounds", "1000", "--no-plots", "-o", str(folder / "out")]


def _full_disk(folder: Path) -> list[str]:
    from robustgraph import generators as gen
    from robustgraph import io

    io.write(gen.k_circulant(12, 3), folder / "g.json")
    return ["certify", str(folder / "g.json"), "--r", "3", "--engines", "exhaustive", "--proof",
            "exhaustive", "-o", "/dev/full"]


def _full_disk_graph(folder: Path) -> list[str]:
    from robustgraph import generators as gen
    from robustgraph import io

    io.write(gen.k_circulant(12, 3), folder / "g.json")
    return ["convert", str(folder / "g.json"), "/dev/full", "--to", "json"]


def _fifo_batch(folder: Path) -> list[str]:
    os.mkfifo(folder / "p.json")
    return ["certify", "--batch", str(folder / "*.json"), "--max", "--workers", "1",
            "-o", str(folder / "certs")]


def _rtl_label(folder: Path) -> list[str]:
    (folder / "g.edges").write_text("# undirected\na\u202eb c\nc d\n", encoding="utf-8")
    return ["info", str(folder / "g.edges")]


def _directory(folder: Path) -> list[str]:
    (folder / "d.json").mkdir()
    return ["info", str(folder / "d.json")]


def _bz2_bomb(folder: Path) -> list[str]:
    import bz2

    (folder / "g.edges.bz2").write_bytes(bz2.compress(b"\n" * (100 << 20)))
    return ["info", str(folder / "g.edges.bz2")]


MTX_ZERO = "%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 2 1\n2 3 0\n"

ISSUE41: list[tuple[str, str, Callable[[Path], list[str]]]] = [
    ("41.1", "gzip reply inflating to 1 GiB", _run_at("chat-gzip-bomb")),
    ("41.1", "deflate reply inflating to 1 GiB on /models", _run_at("deflate-bomb")),
    ("41.1", "reply in 'br', never offered", _run_at("chat-br")),
    ("41.2", "chunked 1 GiB gzip reply, no length", _run_at("chat-chunked-bomb")),
    ("41.2", "endless chunked /models", _run_at("endless")),
    ("41.2", "endless chunked replies, --concurrency 8 --timeout 5",
     _run_at("chat-endless", "--concurrency", "8", "--timeout", "5")),
    ("41.2", "slow-loris replies, --timeout 0.5", _run_at("chat-slow-loris", "--timeout", "0.5")),
    ("41.3", "307 to another host (127.0.0.2)", _run_at("chat-redirect")),
    ("41.3", "redirect loop on /models", _run_at("loop")),
    ("41.5", "--api-key-env naming an unset variable", _unset_key),
    ("41.6", "1.8 KB Parquet: a 1 MB string in 200k rows", _parquet_bomb),
    ("41.6", "the same, LIMIT 5", lambda folder: _parquet_bomb(folder, ":5")),
    ("41.7", "one exhaustive claim (n = 20) 1,000 times", _repeated_claim),
    ("41.8", "80-byte Matrix Market of 10^6 nodes (info)",
     _declared("g.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n"
                        "1000000 1000000 0\n")),
    ("41.8", "29-byte Pajek *Vertices 1000000 (convert)",
     _declared("g.net", "*Vertices 1000000\n", "convert")),
    ("41.8", "DOT of 10^6 isolated nodes", _million("dot")),
    ("41.8", "GraphML of 10^6 isolated nodes", _million("graphml")),
    ("41.8", "JSON of 10^6 isolated nodes", _million("json")),
    ("41.9", "roster of 10^6 agents, 7-node graph", _big_roster),
    ("41.10", "7 agents x arith:100000 x 1000 rounds x 5 protocols", _huge_run),
    ("41.11", "certify -o /dev/full (ENOSPC)", _full_disk),
    ("41.11", "convert -o /dev/full (ENOSPC)", _full_disk_graph),
    ("41.13", "certify --batch whose glob matches only a FIFO", _fifo_batch),
    ("41.13", "label with U+202E", _rtl_label),
    ("41.13", "Matrix Market explicit 0", _declared("z.mtx", MTX_ZERO)),
    ("41.13", "info on a directory", _directory),
    ("41.13", "bz2 bomb (100 MiB of newlines)", _bz2_bomb),
]

ROWS: list[tuple[str, str, Callable[[Path], list[str]]]] = [
    ("1", "proof file is a FIFO", _fifo_proof),
    ("1", "proof file is a symlink to /dev/zero", _zero_proof),
    ("1", "proof file: gzip of one 180 MB line", _long_line_proof),
    ("2", "LRAT proof swapped in, gamma-MERG n = 400", _lrat_swapped_in),
    ("3", "262 KB order mixing strings and numbers", _mixed_labels),
    ("5", "edge list of 8 M isolated nodes (55 MB)", _isolated_nodes),
    ("5", "52 KB DOT expanding to 20 M edges", _dot_product),
    ("6", "sidecar listing a node twice", _sidecar_twice),
    ("8", "common-neighbour certificate, n = 48,001", _common_neighbour),
    ("9", "990 KB of DOT tokens '1a '", _dot_tokens),
    ("9", "edge list of 6 M edges (51 MB)", _long_edge_list),
    ("10", "theorem proof with k: 2.0", _float_k),
    ("11", "sidecar with NaN", _sidecar_nan),
    ("12", "LRAT proof's recorded bytes edited", _bytes_edited),
    ("24", "certificate that is a FIFO", _fifo_certificate),
    ("24", "gzip bomb (100 MiB of newlines)", _gzip_bomb),
    *ISSUE41,
]


def _limit(gib: float) -> Callable[[], None]:
    def apply() -> None:
        cap = int(gib * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    return apply


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memory", type=float, default=3.0, help="address-space cap, GiB")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per row")
    parser.add_argument("--only", default=None, metavar="ISSUE",
                        help="only the rows of this issue (31, 24 or 41)")
    args = parser.parse_args(argv)
    rows = [r for r in ROWS if args.only is None or _issue(r[0]) == args.only]
    print(f"load: {os.getloadavg()[0]:.2f} (1 min)", file=sys.stderr)
    print("| row | input | exit | seconds | peak MB | stderr | to 127.0.0.2 |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    global ENDPOINT
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from hostile_endpoint import OTHER_HOST, HostileEndpoint, bomb

    for coding in ("gzip", "deflate"):  # compressed once, before any row is timed
        bomb(1 << 30, coding)
    with HostileEndpoint(bomb_bytes=1 << 30, drip_s=0.1) as ENDPOINT:
        for row, what, build in rows:
            _row(row, what, build, args, ENDPOINT.requests_to(OTHER_HOST))
    return 0


def _issue(row: str) -> str:
    return row.split(".")[0] if "." in row else ("24" if row == "24" else "31")


_PROGRESS = ("robustgraph: run: ", "robustgraph: certify: ")


def _row(row: str, what: str, build: Callable[[Path], list[str]], args: Any,
         other: list) -> None:
    """Run one row in a child process and print its line of the table; ``other`` is the live
    list of requests that reached 127.0.0.2."""
    before = len(other)
    with tempfile.TemporaryDirectory() as tmp:
        argv_ = build(Path(tmp))
        timing = Path(tmp) / "time.txt"
        try:
            done = subprocess.run(
                ["/usr/bin/time", "-f", "%e %M", "-o", str(timing), sys.executable, "-c",
                 "from robustgraph.cli.main import run; run()", *argv_],
                capture_output=True, text=True, timeout=args.timeout,
                preexec_fn=_limit(args.memory), check=False,
            )
        except subprocess.TimeoutExpired:
            print(f"| {row} | {what} | timeout | > {args.timeout:g} | | | |", flush=True)
            return
        seconds, kb = timing.read_text().split()[-2:]
        lines = [x for x in done.stderr.splitlines()  # certification's progress left out
                 if x.strip() and not x.startswith(_PROGRESS)]
        first = lines[0] if len(lines) == 1 else f"{len(lines)} lines: {lines[:1]}"
        if done.returncode == 1:
            first = next((x for x in done.stdout.splitlines() if "proof" in x), first)
        first = first.replace(tmp, "...").replace("|", "/")[:150]
        reached = len(other) - before if row.startswith("41.") else ""
        print(f"| {row} | {what} | {done.returncode} | {float(seconds):.1f} | "
              f"{int(kb) // 1024} | {first} | {reached} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
