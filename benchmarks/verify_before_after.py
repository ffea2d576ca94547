"""Time ``Certificate.load`` + ``verify`` of genuine certificates under two checkouts, interleaved.

Issue 31's budgets and cheap-first checks must not slow a genuine certificate by more than 10%.
The certificates are those of docs/certificate.md's proof-cost table (benchmarks/proof_cost.py's
suite: theorem, construction and LRAT proofs; the dense ER n = 30 LRAT proof has 24,265 steps),
made once by the checkout under test and written to a folder. Each repetition then runs one
child process per checkout, alternating, that loads and verifies every certificate from disk
(each once, in file order, after a warm-up pass over all of them, so imports are not timed) and
prints the CPU seconds (``time.process_time``: on a shared machine, wall time measures the
neighbours); the table gives the median per certificate and checkout. Not part of
the test run. The figure in the issue 31 report::

    nice -n 5 .venv/bin/python benchmarks/verify_before_after.py --old /tmp/base --new . --reps 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

__all__ = ["main"]

_MAKE = """
import sys
from pathlib import Path
sys.path.insert(0, "benchmarks")
from proof_cost import _suite
from robustgraph import io
from robustgraph.certificate.certifier import certify
from robustgraph.certificate.claims import Claim
folder = Path(sys.argv[1])
for k, (name, graph, r, mode) in enumerate(_suite()):
    io.write(graph, folder / f"g{k}.json")
    cert = certify(graph, Claim.r_robust(r), engines="portfolio", proof=mode)
    cert.dump(folder / f"g{k}.cert.json")
    print(k, name, mode)
"""

_TIME = """
import sys, time, json
from pathlib import Path
from robustgraph import io
from robustgraph.certificate.document import Certificate
folder = Path(sys.argv[1])
out = {}
for cert in sorted(folder.glob("g*.cert.json")):  # warm-up: imports, schema, caches
    Certificate.load(cert).verify(io.read(folder / cert.name.replace(".cert", "")))
for cert in sorted(folder.glob("g*.cert.json")):
    graph = io.read(folder / cert.name.replace(".cert", ""))
    start = time.process_time()
    report = Certificate.load(cert).verify(graph)
    out[cert.name] = time.process_time() - start
    assert report.valid, report.reasons
print(json.dumps(out))
"""


def _run(code: str, script: str, *args: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(Path(code).resolve())}
    done = subprocess.run(
        [sys.executable, "-c", script, *args], cwd=code, env=env, capture_output=True, text=True,
        check=True,
    )
    return done.stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", required=True, help="checkout before the change")
    parser.add_argument("--new", default=".", help="checkout after the change")
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        names = _run(args.new, _MAKE, tmp).splitlines()
        times: dict[str, dict[str, list[float]]] = {"old": {}, "new": {}}
        for _ in range(args.reps):
            for side in ("old", "new"):
                code = args.old if side == "old" else args.new
                for cert, seconds in json.loads(_run(code, _TIME, tmp)).items():
                    times[side].setdefault(cert, []).append(seconds)
    print(f"load: {os.getloadavg()[0]:.2f} (1 min); {args.reps} repetitions, medians of CPU s",
          file=sys.stderr)
    print("| certificate | proof | before (s) | after (s) | after / before |")
    print("| --- | --- | --- | --- | --- |")
    total = {"old": 0.0, "new": 0.0}
    for k, line in enumerate(names):
        cert = f"g{k}.cert.json"
        old, new = (statistics.median(times[side][cert]) for side in ("old", "new"))
        total["old"] += old
        total["new"] += new
        _, name, mode = line.split(" ", 2)
        print(f"| {name} | {mode} | {old:.4f} | {new:.4f} | {new / old:.2f} |")
    print(f"| all | | {total['old']:.3f} | {total['new']:.3f} | "
          f"{total['new'] / total['old']:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
