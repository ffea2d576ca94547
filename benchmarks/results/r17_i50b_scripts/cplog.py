"""The published model exactly as benchmarks/published_milp.py builds it, 2 workers, limit,
with log_search_progress; prints the log, then a JSON line."""
import json, sys, time
sys.path.insert(0, "/work/wt50b/benchmarks")
start = time.perf_counter()
from published_milp import in_neighbours
from ortools.sat.python import cp_model
nbrs = in_neighbours(sys.argv[1]); workers = int(sys.argv[2]); limit = float(sys.argv[3])
n = len(nbrs); m = cp_model.CpModel()
b = [[m.new_bool_var(f"b{k}_{i}") for i in range(n)] for k in range(2)]
t = m.new_int_var(0, n, "t")
for k in range(2):
    m.add(sum(b[k]) >= 1); m.add(sum(b[k]) <= n - 1)
    for i in range(n):
        m.add(len(nbrs[i]) * b[k][i] - sum(b[k][j] for j in nbrs[i]) <= t)
for i in range(n):
    m.add(b[0][i] + b[1][i] <= 1)
m.minimize(t)
s = cp_model.CpSolver(); s.parameters.num_workers = workers
s.parameters.log_search_progress = True
s.parameters.max_time_in_seconds = limit - (time.perf_counter() - start)
st = s.solve(m)
print(json.dumps({"status": s.status_name(st), "obj": s.objective_value if st in (cp_model.OPTIMAL, cp_model.FEASIBLE) else None,
                  "bound": s.best_objective_bound, "seconds": round(time.perf_counter() - start, 3)}))
