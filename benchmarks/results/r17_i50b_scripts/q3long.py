"""Q3: long_search_r as the product calls it (seconds budget), value and wall."""
import sys, time, json
from robustgraph import io
from solvers import heuristics
path, budget = sys.argv[1], float(sys.argv[2])
nb = io.read(path).in_neighbors
for seed in (0, 1):
    t0 = time.perf_counter()
    got = heuristics.long_search_r(nb, budget, seed=seed)
    print(json.dumps({"graph": path.rsplit("/", 1)[1], "fn": "long_search_r", "budget": budget, "seed": seed,
                      "value": got and got[0], "wall": round(time.perf_counter() - t0, 2)}), flush=True)
