"""The published model's configurations on 60-node regular graphs, one CP-SAT solve each, timed.

Issue 40, round 21 (i55a), the diagnosis of the random 10-regular graphs on 60 nodes (docs/
performance.md, "Issue 40, round 21: ..., built and tested (i55a)"). For each graph (built as
``vs_published.py`` builds ``regular-wide-60-d10-S``, ``regular-60-d8-S``: networkx
``random_regular_graph(d, n, seed)``) the quick bounds (``search.quick_r``) run as the portfolio
runs them, then each configuration below, in rotating order, in this process, to ``--cap`` s:

- ``printed1``: ``milp_model.published_r`` on one worker (the one-worker script's search);
- ``least1``: least-first told the quick upper bound, hinted with its pair (``SWITCH_RULE``'s
  second slice, the hinted lane);
- ``printed2``: the printed model, one solve with two workers (the two-worker script's search);
  the subsolver of its last improving solution (``by``) and when (``at``), from CP-SAT's log;
- ``lns1``: the printed model on one worker with ``use_lns_only`` (the second worker's LNS of the
  two-worker solve, alone): it proves nothing, so its time is that of its best solution;
- ``ls1``: the decision ``t <= upper - 1`` with ``use_ls_only`` (``AFTER_WAIT_RULE``'s second ask);
- ``low1``: the decision ``t <= lower`` (``AFTER_WAIT_RULE``'s first ask; infeasible raises lower);
- ``lsnext``: the decision ``t <= lower + 1`` with ``use_ls_only`` (after an infeasible ``low1``,
  the pair that would settle r* = lower + 1);
- ``decnext``: the decision ``t <= lower + 1``, least-first, CP-SAT's default search (one worker);
- ``lsopt``: the printed model (told ``t <= upper``, hinted with the quick pair) with
  ``use_ls_only`` on one worker: the local search that improves an incumbent, as the two-worker
  solve's ``ls`` subsolver does; it proves nothing, so its time is that of its best solution;
- ``lshint``: ``lsnext`` hinted with the quick pair.

Issue 40, round 22 (i57a): least-first (as ``least1``) in one solve on one worker with CP-SAT's
``interleave_search`` and one violation local search (``num_violation_ls`` = 1: without it the
one-worker interleaved search has no ``ls`` subsolver, OR-Tools 9.15):

- ``il``: every default subsolver interleaved (seven full ones, six LNS, ``ls``);
- ``illp``: ``filter_subsolvers`` = ``default_lp``, ``ls`` (the two-worker script's first worker
  and its local search);
- ``ilpr``: ``illp`` on the printed model (``printed1``'s).

``--configs`` picks some of them.

Cells: wall s (CPU s) and the outcome (``opt V``, ``inf``, ``sol V`` at the time it was found,
``>`` unsettled). Not part of the test run::

    PYTHONPATH=. .venv/bin/python benchmarks/w60_configs.py --rows d10:7801-7808 --cap 10
"""

from __future__ import annotations

import argparse
import os
import re
import time

__all__ = ["main"]

CONFIGS = (
    "printed1",
    "least1",
    "printed2",
    "lns1",
    "ls1",
    "low1",
    "lsnext",
    "decnext",
    "lsopt",
    "lshint",
    "il",
    "illp",
    "ilpr",
)

OBJECTIVE = ("printed1", "least1", "printed2", "lns1", "lsopt", "il", "illp", "ilpr")

INTERLEAVED = {"interleave_search": True, "num_violation_ls": 1}
"""Round 22's one-worker interleaved search with the ``ls`` subsolver."""

LP_AND_LS = {**INTERLEAVED, "filter_subsolvers": ["default_lp", "ls"]}

_SOLUTION = re.compile(r"^#(\d+)\s+([\d.]+)(m?s)\s+best:(\d+)\s.*?\s(\S+)\s*$")


def _solve(model, cap: float, workers: int, **tuning) -> dict:
    """``model`` on CP-SAT to ``cap`` s: status, wall and CPU s, objective, and from CP-SAT's log
    the last improving solution's subsolver and time."""
    from solvers import cpsat

    cmh = cpsat.load()
    params = cmh.SatParameters()
    params.num_workers = workers
    params.max_time_in_seconds = cap
    params.catch_sigint_signal = False
    params.log_search_progress = True
    params.log_to_stdout = False
    for key, value in tuning.items():
        if isinstance(value, list):
            getattr(params, key).extend(value)
        else:
            setattr(params, key, value)
    seen: dict = {"by": None, "at": None, "best": None}

    def log(line: str) -> None:
        for part in line.splitlines():
            m = _SOLUTION.match(part.strip())
            if m:
                at = float(m.group(2)) / (1000 if m.group(3) == "ms" else 1)
                seen.update(best=int(m.group(4)), at=at, by=m.group(5))

    solver = cmh.SolveWrapper()
    solver.set_parameters(params)
    solver.add_log_callback(log)
    start, cpu = time.perf_counter(), time.process_time()
    response = solver.solve(cpsat.proto(model))
    wall, used = time.perf_counter() - start, time.process_time() - cpu
    status = response.status.name
    value = round(response.objective_value) if status in ("OPTIMAL", "FEASIBLE") else None
    return {"status": status, "wall": wall, "cpu": used, "value": value, **seen}


def _cell(x: dict, objective: bool = True) -> str:
    s = x["status"]
    if s == "OPTIMAL" and objective:
        out = f"{x['wall']:.2f} ({x['cpu']:.2f}) opt {x['value']}"
    elif s in ("OPTIMAL", "FEASIBLE") and not objective:
        out = f"{x['wall']:.2f} ({x['cpu']:.2f}) sol"
    elif s == "INFEASIBLE":
        out = f"{x['wall']:.2f} ({x['cpu']:.2f}) inf"
    elif s == "FEASIBLE":
        out = f">{x['wall']:.2f} ({x['cpu']:.2f}) sol {x['value']} at {x['at']}"
    else:
        out = f">{x['wall']:.2f} ({x['cpu']:.2f}) unknown"
    if objective and x["by"] is not None and s in ("OPTIMAL", "FEASIBLE"):
        out += f" [{x['by']} {x['at']:.2f}]"
    return out


def _row(name: str, topo, cap: float, k: int, configs: tuple[str, ...]) -> str:
    from printed_window import quick_start

    from solvers import milp_model

    p, hint = quick_start(topo)
    if p.settled():
        return f"| {name} | settled by the quick bounds ({p.lower}) |"
    nb = topo.in_neighbors

    def decision(t: int, least: bool = False, pair=None):
        m = milp_model.published_r_below(nb, t, least=least)
        m.objective = ()
        if pair is not None:
            milp_model.hint_pair(m, pair)
        return m

    def least():
        return milp_model.published_r_below(nb, p.upper, hint, least=True)

    runs = {
        "printed1": lambda: _solve(milp_model.published_r(nb), cap, 1),
        "least1": lambda: _solve(least(), cap, 1),
        "printed2": lambda: _solve(milp_model.published_r(nb), cap, 2),
        "lns1": lambda: _solve(milp_model.published_r(nb), cap, 1, use_lns_only=True),
        "ls1": lambda: _solve(decision(p.upper - 1), cap, 1, use_ls_only=True),
        "low1": lambda: _solve(decision(p.lower), cap, 1),
        "lsnext": lambda: _solve(decision(p.lower + 1), cap, 1, use_ls_only=True),
        "decnext": lambda: _solve(decision(p.lower + 1, least=True), cap, 1),
        "lsopt": lambda: _solve(
            milp_model.published_r_below(nb, p.upper, hint), cap, 1, use_ls_only=True
        ),
        "lshint": lambda: _solve(decision(p.lower + 1, pair=hint), cap, 1, use_ls_only=True),
        "il": lambda: _solve(least(), cap, 1, **INTERLEAVED),
        "illp": lambda: _solve(least(), cap, 1, **LP_AND_LS),
        "ilpr": lambda: _solve(milp_model.published_r(nb), cap, 1, **LP_AND_LS),
    }
    order = configs[k % len(configs) :] + configs[: k % len(configs)]
    got = {key: runs[key]() for key in order}
    cells = [_cell(got[c], objective=c in OBJECTIVE) for c in configs]
    load = os.getloadavg()[0]
    return f"| {name} | {p.lower}..{p.upper} | " + " | ".join(cells) + f" | {load:.2f} |"


def _graphs(rows: str):
    """The rows of ``--rows``, each built by ``vs_published._structured`` (the harness's own
    builder), so that ``regular-wide-60-d10-S`` here is the harness's graph of that name."""
    import networkx as nx
    from vs_published import _structured

    from robustgraph.topology import Topology

    for part in rows.split(","):
        label, _, seeds = part.partition(":")
        lo, _, hi = seeds.partition("-")
        if label == "kin":  # vs_published.py's kin-60-k10-S
            family, n, wanted, name = "kin", 60, "k=10", "kin-60-k10"
        else:
            degree, _, size = label.partition("n")
            d, n = int(degree[1:]), int(size or 60)
            family = "regular-wide" if d in (6, 10) else "regular"
            wanted, name = f"d={d}", f"{family}-{n}-d{d}"
        for seed in range(int(lo), int(hi or lo) + 1):
            graph = dict(_structured(family, n, seed, first=False))[wanted]
            if isinstance(graph, nx.Graph):
                graph = Topology.from_networkx(nx.convert_node_labels_to_integers(graph))
            yield f"{name}-{seed}", graph


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", default="d10:7801-7808", help="dD[nN]:A-B or kin:A-B, ... (n 60)")
    ap.add_argument("--configs", default=",".join(CONFIGS), help="comma list of CONFIGS")
    ap.add_argument("--cap", type=float, default=10.0, help="seconds per solve")
    args = ap.parse_args(argv)
    now = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(f"# load {os.getloadavg()[0]:.2f} at {now}; CP-SAT, cap {args.cap:g} s per solve")
    configs = tuple(args.configs.split(","))
    print("| graph | quick | " + " | ".join(configs) + " | load |")
    print("|---" * (len(configs) + 3) + "|")
    for k, (name, topo) in enumerate(_graphs(args.rows)):
        print(_row(name, topo, args.cap, k, configs), flush=True)
    print(f"# load {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
