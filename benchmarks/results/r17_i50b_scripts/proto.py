"""Q4 prototype (throwaway): the published model as a DECISION at t <= PROBE (no objective),
2 workers, log_search_progress; when feasible, then the decision at t <= PROBE - 1 (the lower
bound) in the time left. MODE: plain | hint (hint = heuristics.search_r's best pair)."""
import json, sys, time
sys.path.insert(0, "/work/wt50b/benchmarks")
start = time.perf_counter()
from published_milp import in_neighbours
from ortools.sat.python import cp_model
path, workers, limit, probe, mode = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
nbrs = in_neighbours(path); n = len(nbrs)


def decide(t, hint=None):
    m = cp_model.CpModel()
    b = [[m.new_bool_var(f"b{k}_{i}") for i in range(n)] for k in range(2)]
    for k in range(2):
        m.add(sum(b[k]) >= 1); m.add(sum(b[k]) <= n - 1)
        for i in range(n):
            m.add(len(nbrs[i]) * b[k][i] - sum(b[k][j] for j in nbrs[i]) <= t)
    for i in range(n):
        m.add(b[0][i] + b[1][i] <= 1)
    if hint is not None:
        for i in range(n):
            m.add_hint(b[0][i], i in hint.s1); m.add_hint(b[1][i], i in hint.s2)
    s = cp_model.CpSolver(); s.parameters.num_workers = workers
    s.parameters.log_search_progress = True
    s.parameters.max_time_in_seconds = max(0.01, limit - (time.perf_counter() - start))
    st = s.solve(m)
    sizes = [sum(s.value(x) for x in b[k]) for k in range(2)] if st in (cp_model.OPTIMAL, cp_model.FEASIBLE) else None
    return {"t": t, "status": s.status_name(st), "sizes": sizes, "at": round(time.perf_counter() - start, 3)}


hint = None
if mode == "hint":
    from robustgraph import io
    from solvers import heuristics
    v, hint = heuristics.search_r(io.read(path).in_neighbors, seed=0)
    print(json.dumps({"hint_value": v, "at": round(time.perf_counter() - start, 3)}))
first = decide(probe, hint)
out = {"upper": first}
if first["status"] == "OPTIMAL":
    out["lower"] = decide(probe - 1)
out["seconds"] = round(time.perf_counter() - start, 3)
print(json.dumps(out))
