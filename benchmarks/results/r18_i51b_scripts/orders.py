"""Scratch: repaired builds with trim orders other than sorted(edges)."""
import sys, time, random
from robustgraph.design import repaired, starts
from robustgraph.design.augmentation import _fixes
from robustgraph.design.search import DesignGraph, Moves
from solvers import cores

def trim(graph, r, order):
    never = lambda: False
    seen = []
    for u, v in order:
        graph.set_edge(u, v, False)
        masks = graph.masks
        if any(masks[x].bit_count() < r for x in (u, v)):
            graph.set_edge(u, v, True); continue
        hit = next((i for i, p in enumerate(seen) if repaired._holds(masks, r, p)), None)
        if hit is not None:
            seen.insert(0, seen.pop(hit)); graph.set_edge(u, v, True); continue
        pair = repaired._witness(masks, r, never)
        if pair is not None:
            seen.insert(0, pair); graph.set_edge(u, v, True)

def build(n, r, k, seed, name):
    rng = random.Random(seed)
    g = DesignGraph(repaired.skeleton(n, r, k, rng), Moves(r=r, directed=False))
    never = lambda: False
    while (pair := repaired._witness(g.masks, r, never)) is not None:
        fixes = _fixes(g, pair); best = max(s for s, _ in fixes)
        g.set_edge(*rng.choice([e for s, e in fixes if s == best]), True)
    deg = [x.bit_count() for x in g.masks]
    es = sorted(g.edges())
    orders = {
        "sorted": es,
        "reverse": es[::-1],
        "degdesc": sorted(es, key=lambda e: (-(deg[e[0]] + deg[e[1]]), e)),
        "degasc": sorted(es, key=lambda e: (deg[e[0]] + deg[e[1]], e)),
        "mindesc": sorted(es, key=lambda e: (-min(deg[e[0]], deg[e[1]]), e)),
        "leaffirst": sorted(es, key=lambda e: (e[0] < k, e)),
    }
    trim(g, r, orders[name])
    return starts.edge_count(g.masks, False)

n, r = int(sys.argv[1]), int(sys.argv[2])
ks = [int(x) for x in sys.argv[3].split(",")]
seeds = range(int(sys.argv[4]))
names = sys.argv[5].split(",")
t0 = time.time()
best = {}
for k in ks:
    for s in seeds:
        row = [build(n, r, k, s, nm) for nm in names]
        print(k, s, *row, flush=True)
        for nm, c in zip(names, row):
            best.setdefault(nm, []).append(c)
for nm in names:
    b = best[nm]; print(nm, "min", min(b), "count<=125", sum(c <= 125 for c in b), "mean", round(sum(b)/len(b), 2))
print("secs", round(time.time() - t0, 1))
