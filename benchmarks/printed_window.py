"""Where ``portfolio.SWITCH_RULE``'s printed window ends: the published model's solves, timed.

Issue 40, round 14 (i44a). For each random d-regular graph (networkx ``random_regular_graph(d,
n, seed)``, as ``vs_published.py``'s ``regular`` and ``regular-wide`` families make them) the
quick bounds (``search.quick_r``) run as the portfolio runs them, then, in rotating order, on
CP-SAT with one worker in this process, each to ``--cap`` seconds:

- ``printed``: the model as printed (``milp_model.published_r``), the one-worker script's search
  and ``SWITCH_RULE``'s window; its time, and its state at ``--window`` seconds (from CP-SAT's
  solution and best-bound callbacks): the best objective value found by then (``inc``), the
  best proven bound (``bnd``) and the upper bound of the quick bounds (``up``);
- ``least``: least-first told the quick bounds and hinted with their pair, ``SWITCH_RULE``'s
  second slice alone;
- ``told inc``: least-first told the printed solve's incumbent at the window (as the bound,
  and its pair as the hint), a restart that keeps what the window found.

Wall seconds each (CPU of this process beside it). Not part of the test run::

    PYTHONPATH=. .venv/bin/python benchmarks/printed_window.py --degrees 6 --sizes 60,80,100 \\
        --seeds 7561-7566 --cap 5
"""

from __future__ import annotations

import argparse
import os
import time

__all__ = ["main"]


def _solve(model, cap: float, window: float) -> dict:
    """``model`` on CP-SAT (one worker, seed 0) to ``cap`` s: its status, wall and CPU seconds,
    and the best objective and bound reached by ``window`` s (None: none by then)."""
    from solvers import cpsat

    cmh = cpsat.load()
    params = cmh.SatParameters()
    params.num_workers = 1
    params.max_time_in_seconds = cap
    params.catch_sigint_signal = False
    seen = {"inc": None, "bnd": None, "values": None}
    start, cpu = time.perf_counter(), time.process_time()

    class Watch(cmh.SolutionCallback):
        def OnSolutionCallback(self) -> None:  # noqa: N802 (CP-SAT's name)
            if time.perf_counter() - start <= window:
                seen["inc"] = self.ObjectiveValue()
                seen["values"] = list(self.Response().solution)

    def bound(value: float) -> None:
        if time.perf_counter() - start <= window:
            seen["bnd"] = value

    solver = cmh.SolveWrapper()
    solver.set_parameters(params)
    watch = Watch()  # kept alive for the solve
    solver.add_solution_callback(watch)
    solver.add_best_bound_callback(bound)
    response = solver.solve(cpsat.proto(model))
    wall, used = time.perf_counter() - start, time.process_time() - cpu
    status = response.status.name
    return {"status": status, "wall": wall, "cpu": used, **seen}


def _graphs(degrees, sizes, seeds):
    import networkx as nx

    from robustgraph.topology import Topology

    for n in sizes:
        for seed in seeds:
            for d in degrees:
                g = nx.random_regular_graph(d, n, seed=seed % 2**32)
                yield f"regular-{n}-d{d}-{seed}", Topology.from_networkx(g)


def quick_start(topo):
    """The portfolio's start on ``topo``: ``search.quick_r``'s progress and its pair as a hint
    (``None`` when it holds none); shared with ``w60_configs.py``."""
    from solvers import search
    from solvers.types import Question, Request

    p = search.Progress(Request(topo, Question.max_r()), "portfolio", "strong", "portfolio")
    search.quick_r(p)
    return p, None if p.witness is None else (p.witness.s1, p.witness.s2)


def _row(name: str, topo, cap: float, window: float, k: int) -> str:
    from solvers import milp_model

    p, hint = quick_start(topo)
    if p.settled():
        return f"| {name} | settled by the quick bounds ({p.lower}) |"
    nb = topo.in_neighbors
    printed = milp_model.published_r(nb)
    models = {
        "printed": lambda: printed,
        "least": lambda: milp_model.published_r_below(nb, p.upper, hint, least=True),
    }
    names = list(models)[k % 2 :] + list(models)[: k % 2]
    got = {key: _solve(models[key](), cap, window) for key in names}
    pr, le = got["printed"], got["least"]
    inc = "-"
    if pr["values"] is not None:  # least-first told the window's incumbent, hinted with it
        pair = milp_model.pair_from_values(printed, pr["values"])
        told = milp_model.published_r_below(nb, round(pr["inc"]), pair, least=True)
        inc = _cell(_solve(told, cap, window))

    cell = _cell
    load = os.getloadavg()[0]
    return (
        f"| {name} | {p.lower}..{p.upper} | {cell(pr)} | {pr['inc']} | {pr['bnd']} "
        f"| {cell(le)} | {inc} | {load:.2f} |"
    )


def _cell(x: dict) -> str:
    """A solve's wall (CPU) seconds, ``>`` when it ended unsettled."""
    done = x["status"] in ("OPTIMAL", "INFEASIBLE")
    return f"{'' if done else '>'}{x['wall']:.2f} ({x['cpu']:.2f})"


def _seeds(text: str) -> list[int]:
    out = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--degrees", default="6", help="comma list of d")
    ap.add_argument("--sizes", default="60,80,100", help="comma list of n")
    ap.add_argument("--seeds", default="7561-7566", help="seeds: A-B or comma list")
    ap.add_argument("--cap", type=float, default=5.0, help="seconds per solve")
    ap.add_argument("--window", type=float, default=0.3, help="SWITCH_RULE's printed window")
    args = ap.parse_args(argv)
    degrees = [int(x) for x in args.degrees.split(",")]
    sizes = [int(x) for x in args.sizes.split(",")]
    now = time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())
    print(f"# load {os.getloadavg()[0]:.2f} at {now}")
    print(f"# CP-SAT, one worker, cap {args.cap:g} s; window {args.window:g} s")
    print("| graph | quick bounds | printed s (cpu) | inc at window | bnd at window "
          "| least-first s (cpu) | least-first told inc s (cpu) | load |")
    print("|---" * 8 + "|")
    for k, (name, topo) in enumerate(_graphs(degrees, sizes, _seeds(args.seeds))):
        print(_row(name, topo, args.cap, args.window, k), flush=True)
    print(f"# load {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
