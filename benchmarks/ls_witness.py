"""CP-SAT's violation local search as a witness heuristic: how soon it reaches our upper bound.

Issue 40, round 14 (i45a). For each graph of ``vs_published.py``'s families (made as that
script makes them), in this order, one process after another:

1. ``ours``: ``robustgraph robustness G --json --threads 1 --time-limit T`` in a child process;
   its final bounds [lo, U], its seconds, and when its steps reached U (``at U``: the cumulative
   seconds of the first bound step whose upper bound is U, and that step's name; ``model`` when
   a model solve found it, whose steps carry no start time);
2. ``ls``: the published model as printed (``milp_model.published_r``) on CP-SAT with one
   worker and ``use_ls_only`` (the violation local search, feasibility jump, alone; CP-SAT
   9.15's ``SatParameters``), stopped at the first solution of value <= U (``cpsat.run``'s
   ``stop_at``) or at ``--ls-cap``: its seconds, or ``>cap`` with the best value it found;
3. where U > lo or ours took more than ``--slow`` seconds: the decision ``t <= U - 1``
   (``published_r_below(U - 1)`` without its objective; infeasible proves r* >= U) at CP-SAT's
   default linearization and at ``linearization_level`` 2, and our strong probe at U
   (``milp_model.strong_r``, which runs at level 2) at the default level and at level 2, each
   to ``--probe-cap``: its outcome and seconds.

Not part of the test run; timings depend on the load printed beside each row::

    PYTHONPATH=. /work/venv/bin/python benchmarks/ls_witness.py --seeds 7591-7595
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

__all__ = ["main"]

HERE = Path(__file__).resolve().parent


def _seeds(text: str) -> str:
    """``A-B`` or ``A,B,...`` as a comma list."""
    if "-" in text:
        a, b = (int(x) for x in text.split("-"))
        return ",".join(str(s) for s in range(a, b + 1))
    return text


def _ours(path: Path, limit: float) -> tuple[dict, float]:
    """Our command at one thread; the r answer and its wall seconds."""
    command = str(Path(sys.executable).parent / "robustgraph")
    start = time.perf_counter()
    done = subprocess.run(
        [command, "robustness", str(path), "--json", "--threads", "1", "--time-limit", str(limit)],
        capture_output=True,
        text=True,
        timeout=limit + 30,
    )
    wall = time.perf_counter() - start
    return json.loads(done.stdout)["r"], wall


def _reached(steps: list[dict], upper: int) -> str:
    """When our steps first held ``upper``: cumulative seconds and the step's name."""
    for step in steps:
        if "step" in step and step.get("upper") == upper:
            return f"{step['seconds']:.2f} {step['step']}"
    return "model"


def _ls(nbrs, upper: int, cap: float) -> str:
    """The local search alone on the printed model, to the first value <= ``upper``."""
    from solvers import cpsat, milp_model

    model = milp_model.published_r(nbrs)
    model.tuning["cpsat"] = {"use_ls_only": True}
    out = cpsat.run(model, cap, 1, stop_at=upper)
    if out.status == "optimal" and out.native == "STOP_AT":
        return f"{out.seconds:.2f}"
    best = "-" if out.values is None else str(round(out.values[-1]))
    return f">{cap:g} (best {best})"


def _decision(model, level: int | None, cap: float) -> str:
    """A decision model at CP-SAT's default linearization (``level`` None) or at ``level``."""
    from solvers import cpsat

    model.tuning["cpsat"] = {} if level is None else {"linearization_level": level}
    out = cpsat.run(model, cap, 1)
    return f"{out.status[:5]} {out.seconds:.2f}"


def _probes(nbrs, upper: int, cap: float) -> list[str]:
    """Printed ``t <= upper - 1`` and strong probe at ``upper``, default level then level 2."""
    from solvers import milp_model

    cells = []
    for build in (
        lambda: _without_objective(milp_model.published_r_below(nbrs, upper - 1)),
        lambda: milp_model.strong_r(nbrs, upper),
    ):
        cells += [_decision(build(), None, cap), _decision(build(), 2, cap)]
    return cells


def _without_objective(model):
    """The decision version of a model: no objective."""
    model.objective = ()
    return model


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(HERE))
    import vs_published

    from robustgraph import io

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--families", default="er,digraph,regular,regular-wide,ws,rgg,sbm,clusters,kab,grid,kin"
    )
    ap.add_argument("--sizes", default="30,40,50,60", help="n of er, digraph")
    ap.add_argument("--probs", default="0.2,0.35,0.5")
    ap.add_argument("--struct-sizes", default="30,45,60,80")
    ap.add_argument("--seeds", default="7591", help="A-B or a comma list")
    ap.add_argument("--only", default=None)
    ap.add_argument("--time-limit", type=float, default=10.0, help="ours")
    ap.add_argument("--ls-cap", type=float, default=3.0)
    ap.add_argument("--probe-cap", type=float, default=4.0)
    ap.add_argument("--slow", type=float, default=0.5, help="probes where ours took longer")
    args = ap.parse_args(argv)
    seeds = _seeds(args.seeds)
    graphs = argparse.Namespace(
        sizes=args.sizes,
        probs=args.probs,
        er_seeds=seeds,
        struct_sizes=args.struct_sizes,
        families=args.families,
        seeds=seeds,
        only=args.only,
    )
    print(
        f"# load {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the start, "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
    )
    print(
        "| graph | ours [lo, U] s | ours at U | ls to U s | printed t<=U-1 default | "
        "printed lvl2 | strong U default | strong lvl2 | load |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        for _family, _n, _param, _seed, path in vs_published._graphs(graphs, Path(folder)):
            r, wall = _ours(path, args.time_limit)
            lo, up = r["lower"], r["upper"]
            nbrs = io.read(path).in_neighbors
            ls = _ls(nbrs, up, args.ls_cap) if up > 0 else "-"
            probes = ["-"] * 4
            if up > 0 and (lo < up or wall > args.slow):
                probes = _probes(nbrs, up, args.probe_cap)
            print(
                f"| {path.stem} | [{lo}, {up}] {wall:.2f} | {_reached(r['steps'], up)} | {ls} | "
                f"{' | '.join(probes)} | {os.getloadavg()[0]:.2f} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
