"""The published MILP for r* (Usevitch & Panagou, Automatica 111, 2020), written from the paper.

    min t  s.t.  L b_k <= t 1 (k = 1, 2),  1 <= 1'b_k <= n - 1,  b_1 + b_2 <= 1,  b binary,

with the in-Laplacian L = D_in - A_in (row i: node i's in-neighbours). Solved by CP-SAT with one
worker or HiGHS with one thread. Reads a node-link JSON graph; prints r* and the solve seconds.
Independent of robustgraph: only json, ortools or highspy.

    python published.py GRAPH.json {cpsat,highs} [WORKERS [TIME_LIMIT]] [--progress]
    python published.py GRAPH.json cpsat-s R [WORKERS]

``cpsat-s R``: the second step of the same paper, s*_R for a given R, on CP-SAT:

    min y_1'1 + y_2'1  s.t.  L b_k - n y_k <= R - 1,  y_k <= b_k,  1'b_k - 1'y_k >= 1,
                             1 <= 1'b_k <= n - 1,  b_1 + b_2 <= 1,  b, y binary

(y_k marks the R-reachable nodes of S_k; neither set may be wholly R-reachable); the optimum is
s*_R, and an infeasible model means s*_R = n. Prints ``{"s": ...}``.

CP-SAT takes WORKERS workers (default 1). With TIME_LIMIT (seconds from the script's start: what
reading the graph and building the model took is taken off CP-SAT's limit), a solve that is not
proven optimal by then prints ``"r": null`` with its incumbent (``upper``)
and its proven bound (``lower``) instead of failing. With ``--progress`` (CP-SAT), each new
incumbent and each new proven bound is printed at once as a line ``{"lower": L, "upper": U}``,
so that a run stopped by a CPU cap (``RLIMIT_CPU``) still tells the bounds it reached; the
answer is the last line either way.
"""

import json
import math
import sys
import time


def in_neighbours(path):
    doc = json.load(open(path))
    nodes = [v["id"] for v in doc["nodes"]]
    index = {v: i for i, v in enumerate(nodes)}
    nbrs = [set() for _ in nodes]
    key = "edges" if "edges" in doc else "links"
    for e in doc[key]:
        u, v = index[e["source"]], index[e["target"]]
        nbrs[v].add(u)
        if not doc.get("directed", False):
            nbrs[u].add(v)
    return nbrs


class Progress:
    """With ``--progress``: prints the proven bounds as they move (one JSON line each)."""

    def __init__(self):
        self.lower, self.upper = 0, None

    def bound(self, value):
        if math.ceil(value - 1e-6) > self.lower:
            self.lower = math.ceil(value - 1e-6)
            self.show()

    def show(self):
        print(json.dumps({"lower": self.lower, "upper": self.upper}), flush=True)


def cpsat(nbrs, workers=1, limit=None, start=None, progress=None):
    from ortools.sat.python import cp_model

    n = len(nbrs)
    m = cp_model.CpModel()
    b = [[m.new_bool_var(f"b{k}_{i}") for i in range(n)] for k in range(2)]
    t = m.new_int_var(0, n, "t")
    for k in range(2):
        m.add(sum(b[k]) >= 1)
        m.add(sum(b[k]) <= n - 1)
        for i in range(n):  # (L b_k)_i = d_i b_ki - sum_{j in N_i} b_kj <= t
            m.add(len(nbrs[i]) * b[k][i] - sum(b[k][j] for j in nbrs[i]) <= t)
    for i in range(n):
        m.add(b[0][i] + b[1][i] <= 1)
    m.minimize(t)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = workers
    if limit is not None:
        solver.parameters.max_time_in_seconds = max(0.01, limit - (time.perf_counter() - start))
    callback = None
    if progress is not None:
        solver.best_bound_callback = progress.bound

        class Incumbent(cp_model.CpSolverSolutionCallback):
            def on_solution_callback(self):
                progress.upper = round(self.objective_value)
                progress.show()

        callback = Incumbent()
    status = solver.solve(m, callback)
    if limit is not None and status != cp_model.OPTIMAL:
        found = status == cp_model.FEASIBLE
        upper = round(solver.objective_value) if found else None
        return {"r": None, "lower": math.ceil(solver.best_objective_bound - 1e-6), "upper": upper}
    assert status == cp_model.OPTIMAL, solver.status_name(status)
    return round(solver.objective_value)


def cpsat_s(nbrs, r, workers=1):
    from ortools.sat.python import cp_model

    n = len(nbrs)
    m = cp_model.CpModel()
    b = [[m.new_bool_var(f"b{k}_{i}") for i in range(n)] for k in range(2)]
    y = [[m.new_bool_var(f"y{k}_{i}") for i in range(n)] for k in range(2)]
    for k in range(2):
        m.add(sum(b[k]) >= 1)
        m.add(sum(b[k]) <= n - 1)
        m.add(sum(b[k]) - sum(y[k]) >= 1)
        for i in range(n):  # (L b_k)_i >= R forces y_ki = 1
            m.add(len(nbrs[i]) * b[k][i] - sum(b[k][j] for j in nbrs[i]) - n * y[k][i] <= r - 1)
            m.add(y[k][i] <= b[k][i])
    for i in range(n):
        m.add(b[0][i] + b[1][i] <= 1)
    m.minimize(sum(y[0]) + sum(y[1]))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = workers
    status = solver.solve(m)
    if status == cp_model.INFEASIBLE:
        return n
    assert status == cp_model.OPTIMAL, solver.status_name(status)
    return min(n, round(solver.objective_value))


def highs(nbrs):
    import highspy
    import numpy as np

    n = len(nbrs)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    inf = highspy.kHighsInf
    nv = 2 * n + 1  # b_1 (0..n-1), b_2 (n..2n-1), t (2n)
    lower = np.zeros(nv)
    upper = np.ones(nv)
    upper[-1] = n
    cost = np.zeros(nv)
    cost[-1] = 1
    h.addVars(nv, lower, upper)
    h.changeColsCost(nv, np.arange(nv, dtype=np.int32), cost)
    h.changeColsIntegrality(
        nv, np.arange(nv, dtype=np.int32), np.array([highspy.HighsVarType.kInteger] * nv)
    )
    for k in range(2):
        base = k * n
        idx = np.arange(base, base + n, dtype=np.int32)
        h.addRow(1, n - 1, n, idx, np.ones(n))
        for i in range(n):
            cols = [base + i] + [base + j for j in nbrs[i]] + [2 * n]
            vals = [len(nbrs[i])] + [-1.0] * len(nbrs[i]) + [-1.0]
            h.addRow(-inf, 0, len(cols), np.array(cols, dtype=np.int32), np.array(vals))
    for i in range(n):
        h.addRow(-inf, 1, 2, np.array([i, n + i], dtype=np.int32), np.array([1.0, 1.0]))
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal, h.getModelStatus()
    return round(h.getInfo().objective_function_value)


if __name__ == "__main__":
    start = time.perf_counter()
    progress = Progress() if "--progress" in sys.argv else None
    sys.argv = [a for a in sys.argv if a != "--progress"]
    graph, engine = sys.argv[1], sys.argv[2]
    nbrs = in_neighbours(graph)
    if engine == "cpsat-s":
        workers = int(sys.argv[4]) if len(sys.argv) > 4 else 1
        s_star = cpsat_s(nbrs, int(sys.argv[3]), workers)
        print(json.dumps({"s": s_star, "seconds": round(time.perf_counter() - start, 4)}))
        sys.exit(0)
    if engine == "cpsat":
        workers = int(sys.argv[3]) if len(sys.argv) > 3 else 1
        limit = float(sys.argv[4]) if len(sys.argv) > 4 else None
        r = cpsat(nbrs, workers, limit, start, progress)
    else:
        r = highs(nbrs)
    found = r if isinstance(r, dict) else {"r": r}
    print(json.dumps({**found, "seconds": round(time.perf_counter() - start, 4)}))
