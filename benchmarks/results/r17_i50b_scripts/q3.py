"""Q3: does heuristics.search_r (long tabu) find value 3 (target 4) and when? One row, seeds."""
import sys, time, json
from robustgraph import io
from solvers import heuristics
path, budget = sys.argv[1], float(sys.argv[2]); seeds = [int(x) for x in sys.argv[3].split(",")]
nb = io.read(path).in_neighbors
for seed in seeds:
    t0 = time.perf_counter(); c0 = time.process_time()
    over = lambda: time.perf_counter() - t0 > budget
    v, w = heuristics.search_r(nb, iterations=int(sys.argv[4]), restarts=int(sys.argv[5]), seed=seed, target=4, stop=over)
    print(json.dumps({"graph": path.rsplit("/", 1)[1], "seed": seed, "iters": sys.argv[4], "restarts": sys.argv[5], "value": v, "wall": round(time.perf_counter() - t0, 2),
                      "cpu": round(time.process_time() - c0, 2), "sizes": [len(w.s1), len(w.s2)]}), flush=True)
