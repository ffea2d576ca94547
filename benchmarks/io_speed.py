"""Read times of our graph readers against the library readers, per format, on one large graph.

The graph is G(n, m) = G(20,000, 200,000) (networkx ``gnm_random_graph``, seed 1). Each format's
file is written once (by the library's writer where one exists, else ours), then read
``--repeat`` times by our :func:`robustgraph.io.read` and by the library reader, interleaved
(ours, library, ours, library, ...), so load on the shared machine hits both alike. The table
gives the medians and ``ratio = ours / library``; the target is ratio <= 1.5 for every format.

Ours does more than the library: the bounds (file size, node count, depth, label length), the
self-loop / duplicate-edge checks and the label checks are inside our time. The Topology's
in-neighbour sets are built on first use (``Topology._assemble``), so ``ours+sets`` also times
that first use: what a robustness engine pays once. The library column is the fastest library
reader for the format that yields a graph; for Matrix Market, ``scipy.io.mmread`` yields a sparse
matrix only (a lower bar than a graph), so three more rows add the graph objects a user would
build from it (a CSR array, as ``scipy.sparse.csgraph`` takes; an igraph Graph; a networkx
Graph). For DOT the lower bar is pygraphviz's parse alone (``AGraph.read``, an object that
answers nothing about the graph until walked); networkx's ``read_dot`` is what a networkx user
calls.
Not part of the test run::

    nice -n 10 .venv/bin/python benchmarks/io_speed.py --repeat 3
"""

from __future__ import annotations

import argparse
import io as _io
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import igraph as ig
import networkx as nx
import numpy as np
import pygraphviz
import scipy.io
import scipy.sparse

from robustgraph import io
from robustgraph.topology import Topology

__all__ = ["main"]


def _nx_write(writer: Callable[..., Any], **kw: Any) -> Callable[[nx.Graph, Path], None]:
    return lambda g, path: writer(g, path, **kw)


def _ig_write(method: str) -> Callable[[nx.Graph, Path], None]:
    def write(g: nx.Graph, path: Path) -> None:
        h = ig.Graph.from_networkx(g)
        h.vs["name"] = [str(x) for x in h.vs["_nx_name"]]
        getattr(h, method)(str(path))

    return write


def _ours(g: nx.Graph, path: Path) -> None:
    io.write(Topology.from_networkx(g), path)


def _json_write(g: nx.Graph, path: Path) -> None:
    path.write_text(json.dumps(nx.node_link_data(g, edges="edges")))


def _mtx_write(g: nx.Graph, path: Path) -> None:
    scipy.io.mmwrite(path, nx.to_scipy_sparse_array(g, format="coo"), symmetry="symmetric")


def _mtx_igraph(path: Path) -> ig.Graph:
    coo = scipy.sparse.coo_array(scipy.io.mmread(path))
    lower = coo.row >= coo.col  # one triangle of the symmetric matrix, as a graph holds it
    edges = np.column_stack([coo.row[lower], coo.col[lower]]).tolist()
    return ig.Graph(n=coo.shape[0], edges=edges)


def _agraph(path: Path) -> pygraphviz.AGraph:
    graph = pygraphviz.AGraph()
    graph.read(str(path))
    return graph


# format: (file name, writer, library reader name, library reader, our read options)
CASES: dict[str, tuple[str, Callable[..., None], str, Callable[[Path], Any], dict]] = {
    "edgelist": (
        "g.edgelist",
        _nx_write(nx.write_edgelist, data=False),
        "networkx read_edgelist",
        nx.read_edgelist,
        {"directed": False},
    ),
    "csv": (
        "g.csv",
        _nx_write(nx.write_edgelist, data=False, delimiter=","),
        "networkx read_edgelist(',')",
        lambda p: nx.read_edgelist(p, delimiter=","),
        {"directed": False},
    ),
    "adjlist": (
        "g.adjlist",
        _nx_write(nx.write_adjlist),
        "networkx read_adjlist",
        nx.read_adjlist,
        {"directed": False},
    ),
    "graphml": (
        "g.graphml",
        _nx_write(nx.write_graphml),
        "igraph Read_GraphML",
        lambda p: ig.Graph.Read_GraphML(str(p)),
        {},
    ),
    "gml": ("g.gml", _nx_write(nx.write_gml), "igraph Read_GML",
            lambda p: ig.Graph.Read_GML(str(p)), {}),
    "json": (
        "g.json",
        _json_write,
        "networkx node_link_graph",
        lambda p: nx.node_link_graph(json.loads(p.read_text()), edges="edges"),
        {},
    ),
    "graph6": ("g.g6", _ours, "networkx read_graph6", nx.read_graph6, {}),
    "sparse6": ("g.s6", _nx_write(nx.write_sparse6, header=False), "networkx read_sparse6",
                nx.read_sparse6, {}),
    "mtx": ("g.mtx", _mtx_write, "scipy mmread (a matrix)", scipy.io.mmread, {}),
    "mtx-csr": ("g.mtx", _mtx_write, "scipy mmread + tocsr (a scipy.sparse.csgraph graph)",
                lambda p: scipy.io.mmread(p).tocsr(), {}),
    "mtx-igraph": ("g.mtx", _mtx_write, "scipy mmread + igraph Graph(n, edges)", _mtx_igraph, {}),
    "mtx-graph": ("g.mtx", _mtx_write, "scipy mmread + nx.from_scipy_sparse_array",
                  lambda p: nx.from_scipy_sparse_array(scipy.io.mmread(p)), {}),
    "dot": ("g.dot", _nx_write(nx.nx_agraph.write_dot), "pygraphviz AGraph.read (parse only)",
            _agraph, {}),
    "dot-nx": ("g.dot", _nx_write(nx.nx_agraph.write_dot), "networkx read_dot (pygraphviz)",
               nx.nx_agraph.read_dot, {}),
    "pajek": ("g.net", _ig_write("write_pajek"), "igraph Read_Pajek",
              lambda p: ig.Graph.Read_Pajek(str(p)), {}),
    "gexf": ("g.gexf", _nx_write(nx.write_gexf), "networkx read_gexf", nx.read_gexf, {}),
    "lgl": ("g.lgl", _ig_write("write_lgl"), "igraph Read_Lgl",
            lambda p: ig.Graph.Read_Lgl(str(p), directed=False), {"directed": False}),
}


def _floor(graph: nx.Graph, tmp: Path, repeat: int) -> None:
    """Where our time goes where a floor is in question (GraphML, Matrix Market): the library's
    parse and each step ours adds, as the fastest of ``repeat`` interleaved runs."""
    from robustgraph.edge_arrays import igraph_edge_arrays, invalid_edges
    from robustgraph.io._common import count_values, read_bytes

    graphml, mtx = tmp / "floor.graphml", tmp / "floor.mtx"
    nx.write_graphml(graph, graphml)
    _mtx_write(graph, mtx)
    parsed = ig.Graph.Read_GraphML(str(graphml))
    data = read_bytes(mtx)
    coo = scipy.sparse.coo_array(scipy.io.mmread(mtx))
    rows, cols = coo.row[coo.row >= coo.col], coo.col[coo.row >= coo.col]
    steps = {
        "graphml: igraph Read_GraphML": lambda: ig.Graph.Read_GraphML(str(graphml)),
        "graphml: its edges as arrays": lambda: igraph_edge_arrays(parsed),
        "graphml: bounded read": lambda: read_bytes(graphml),
        "graphml: ours": lambda: io.read(graphml),
        "mtx: scipy mmread": lambda: scipy.io.mmread(mtx),
        "mtx: bounded read": lambda: read_bytes(mtx),
        "mtx: value count": lambda: count_values(data),
        "mtx: nonzero and triangle": lambda: coo.row[(coo.data != 0) & (coo.row >= coo.col)],
        "mtx: duplicate check": lambda: invalid_edges(
            rows.astype("int64"), cols.astype("int64"), graph.number_of_nodes(), False
        ),
        "mtx: ours": lambda: io.read(mtx),
    }
    best = dict.fromkeys(steps, float("inf"))
    for _ in range(repeat):  # interleaved, so a change of load hits every step alike
        for name, call in steps.items():
            best[name] = min(best[name], _time(call))
    for name, seconds in best.items():
        print(f"# floor {name:28} {seconds * 1000:8.1f} ms (fastest of {repeat})", flush=True)


def _time(call: Callable[[], Any]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--m", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--formats", default=",".join(CASES), help="comma-separated subset")
    parser.add_argument("--floor", action="store_true", help="also time the steps of ours")
    args = parser.parse_args(argv)
    graph = nx.gnm_random_graph(args.n, args.m, seed=1)
    print(f"# G(n={args.n}, m={args.m}) seed 1; {args.repeat} interleaved reads each; "
          f"python {platform.python_version()}, networkx {nx.__version__}, igraph "
          f"{ig.__version__}, scipy {scipy.__version__}; load {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores", flush=True)
    print(f"{'format':10} {'ours s':>8} {'ours+sets':>9} {'library s':>9} {'ratio':>6}  "
          "library reader", flush=True)
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.formats.split(","):
            file, writer, lib_name, lib_read, options = CASES[name]
            path = Path(tmp) / file
            writer(graph, path)
            ours, sets, lib = [], [], []
            for _ in range(args.repeat):
                ours.append(_time(lambda: io.read(path, **options)))  # noqa: B023
                lib.append(_time(lambda: lib_read(path)))  # noqa: B023
                sets.append(_time(lambda: io.read(path, **options).in_neighbors))  # noqa: B023
            back = io.read(path, **options)
            assert (back.n, back.m) == (args.n, args.m), (name, back.n, back.m)
            a, c, b = statistics.median(ours), statistics.median(sets), statistics.median(lib)
            worst = max(worst, a / b)
            print(f"{name:10} {a:8.3f} {c:9.3f} {b:9.3f} {a / b:6.2f}  {lib_name}", flush=True)
        if args.floor:
            _floor(graph, Path(tmp), args.repeat)
    print(f"# worst ratio {worst:.2f} (target <= 1.5); load {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.stdout = _io.TextIOWrapper(sys.stdout.buffer, line_buffering=True)
    raise SystemExit(main())
