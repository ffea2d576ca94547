"""Fuzz the graph readers whose parsers are native code, each case where a crash is a finding.

The readers of Matrix Market (scipy's fast_matrix_market), GML, Pajek, LGL and GraphML (igraph's
C parsers) and DOT (Graphviz's cgraph, through pygraphviz) run C code on the bytes of a file. A
crash there kills the process (issue 30: a NUL byte made ``scipy.io.mmread`` segfault), so the
cases run in child processes, never in the caller or the test suite.

Each case writes a small valid file of the format (an undirected and a directed graph, labelled
where the format keeps labels), then flips, inserts and deletes 1-4 bytes or truncates it
(bytes drawn from a list of syntax characters, all control bytes and high bytes), and reads it
as undirected, directed and with the kind from the file. A case passes when every read returns
a graph or raises :class:`~robustgraph.errors.GraphFormatError` with one line; any other
exception is a finding, and so is a child that dies (signal) or makes no progress for
``--stall`` seconds. Cases are derived from ``(format, case number, --seed)``, so a finding is
re-run with ``--only FORMAT:CASE``.

A child runs a batch of cases and prints each case's number before running it: when it dies,
the last number printed is the case that killed it, which is recorded, and a fresh child goes
on with the next case. Not part of the test run (``tests/test_io.py`` keeps a small
deterministic corruption test, and ``tests/test_bounded_inputs.py`` the NUL byte in every
position). The figures in docs/certificate.md::

    nice -n 5 .venv/bin/python benchmarks/fuzz_native.py --cases 10000
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

__all__ = ["NATIVE", "corrupt", "main", "run_case"]

NATIVE = ("mtx", "gml", "pajek", "lgl", "graphml", "dot")
"""The formats whose reader runs a native parser on the file's bytes."""

_ALPHABET = (
    b" \n\t\r#{}[]()\"',;:%&<>/=-+.*019aeEnxyz?~\\"
    + bytes(range(0, 32))
    + b"\x7f\x80\xc3\xa9\xff"
)


def _seed_files(fmt: str, folder: Path) -> list[bytes]:
    """Valid files of ``fmt``: an undirected and (where the format holds one) a directed graph."""
    from robustgraph.io import FORMATS, write
    from robustgraph.topology import Topology

    undirected = Topology.from_edges(
        [(0, 3), (3, 1), (1, 2), (2, 0), (0, 1), (4, 5)], nodes=range(7), directed=False
    )
    directed = Topology.from_edges(
        [(0, 3), (3, 1), (1, 0), (2, 0), (1, 2), (5, 4), (4, 5)], nodes=range(7), directed=True
    )
    named = Topology.from_edges([("a", "b_c"), ("b_c", "d"), ("d", "a"), ("e", "a")])
    graphs = [undirected] + ([directed] if FORMATS[fmt].directed else [])
    graphs += [named] if FORMATS[fmt].labels else []
    out = []
    for k, graph in enumerate(graphs):
        path = folder / f"seed{k}{FORMATS[fmt].extensions[0]}"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            write(graph, path)
        out.append(path.read_bytes())
    return out


def corrupt(blob: bytes, rng: random.Random) -> bytes:
    """``blob`` with 1-4 random edits: set, insert or delete a byte, or truncate."""
    data = bytearray(blob)
    for _ in range(rng.randint(1, 4)):
        at = rng.randint(0, len(data))
        byte = _ALPHABET[rng.randrange(len(_ALPHABET))]
        op = rng.choice(("set", "set", "insert", "insert", "delete", "truncate"))
        if op == "insert" or not data:
            data[at:at] = bytes([byte])
        elif op == "set":
            data[min(at, len(data) - 1)] = byte
        elif op == "delete":
            del data[min(at, len(data) - 1)]
        else:
            del data[at:]
    return bytes(data)


def run_case(fmt: str, case: int, seed: int, seeds: list[bytes], folder: Path) -> str | None:
    """Read case ``case`` of ``fmt`` three ways; None when it behaves, else what went wrong."""
    from robustgraph.errors import GraphFormatError
    from robustgraph.io import FORMATS, read

    rng = random.Random(f"{seed}:{fmt}:{case}")
    blob = corrupt(seeds[rng.randrange(len(seeds))], rng)
    path = folder / f"case{FORMATS[fmt].extensions[0]}"
    path.write_bytes(blob)
    for directed in (None, True, False):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                read(path, directed=directed)
        except GraphFormatError as exc:
            if "\n" in str(exc):
                return f"a multi-line error: {str(exc)[:200]!r}"
        except Exception as exc:  # noqa: BLE001 - every other exception is a finding
            return f"{type(exc).__name__}: {str(exc)[:200]}"
    return None


def _child(fmt: str, start: int, stop: int, seed: int, stall: float) -> None:
    """Run cases ``start..stop-1``, printing ``run N`` before and ``bad N why`` after each; a
    case that takes over ``stall`` seconds ends the child (faulthandler prints where it hung)."""
    import faulthandler

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        seeds = _seed_files(fmt, folder)
        for case in range(start, stop):
            faulthandler.dump_traceback_later(stall, exit=True)
            print(f"run {case}", flush=True)
            problem = run_case(fmt, case, seed, seeds, folder)
            if problem:
                print(f"bad {case} {problem}", flush=True)


def _fuzz(fmt: str, cases: int, seed: int, batch: int, stall: float) -> dict[str, object]:
    """Run ``cases`` cases of ``fmt`` in children of ``batch`` cases; the findings."""
    findings: list[str] = []
    children = 0
    start = time.perf_counter()
    case = 0
    while case < cases:
        stop = min(cases, case + batch)
        children += 1
        proc = subprocess.Popen(
            [sys.executable, __file__, "--stall", str(stall), "--child", fmt, str(case),
             str(stop), str(seed)],
            stdout=subprocess.PIPE,
            text=True,
        )
        last = case - 1
        assert proc.stdout is not None
        for line in proc.stdout:
            kind, number, *rest = line.rstrip("\n").split(" ", 2)
            if kind == "run":
                last = int(number)
            elif kind == "bad":
                findings.append(f"{fmt}:{number}: {rest[0] if rest else ''}")
        code = proc.wait()
        if code == 0:
            case = stop
            continue
        if last < case:  # it died before its first case: the harness itself is broken
            raise SystemExit(f"fuzz_native: the {fmt} child failed to start (exit {code})")
        findings.append(f"{fmt}:{last}: the child died or stalled (exit {code}) on this case")
        case = last + 1
    seconds = time.perf_counter() - start
    return {"format": fmt, "cases": cases, "children": children, "findings": findings,
            "seconds": seconds}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=10_000, help="cases per format")
    parser.add_argument("--formats", default=",".join(NATIVE), help="comma-separated formats")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch", type=int, default=2_000, help="cases per child process")
    parser.add_argument("--stall", type=float, default=60.0, help="seconds a case may take")
    parser.add_argument("--only", help="re-run one case, FORMAT:CASE, in this process")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        fmt, start, stop, seed = args.child
        _child(fmt, int(start), int(stop), int(seed), args.stall)
        return 0
    if args.only:
        fmt, case = args.only.split(":")
        with tempfile.TemporaryDirectory() as tmp:
            seeds = _seed_files(fmt, Path(tmp))
            print(run_case(fmt, int(case), args.seed, seeds, Path(tmp)) or "no finding")
        return 0
    print(f"load: {os.getloadavg()[0]:.2f} (1 min); seed {args.seed}; {args.cases:,} cases per "
          "format, 3 reads each", file=sys.stderr)
    print("| format | cases | reads | child processes | findings | seconds | cases/s |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    total = 0
    for fmt in args.formats.split(","):
        done = _fuzz(fmt, args.cases, args.seed, args.batch, args.stall)
        found = done["findings"]
        total += len(found)
        print(
            f"| {fmt} | {done['cases']:,} | {3 * done['cases']:,} | {done['children']} | "
            f"{len(found)} | {done['seconds']:.0f} | {done['cases'] / done['seconds']:.0f} |",
            flush=True,
        )
        for line in found:
            print(f"  finding {line}", file=sys.stderr, flush=True)
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
