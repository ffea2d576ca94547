"""Scratch: swap-then-trim on a repaired design. For each edge e (sorted), remove it, take the
search's witness, and for each fix f (any score) with G-e+f r-robust, trim; accept if fewer."""
import sys, time
from robustgraph.design import repaired, starts
from robustgraph.design.augmentation import _fixes
from robustgraph.design.search import DesignGraph, Moves
n, r, k, seed = map(int, sys.argv[1:5])
passes = int(sys.argv[5]) if len(sys.argv) > 5 else 1
TOL = int(sys.argv[6]) if len(sys.argv) > 6 else 0
t0 = time.time()
m = repaired.repaired_design(n, r, k, seed=seed)
cnt = starts.edge_count(m, False)
print("build", cnt, round(time.time()-t0, 2), flush=True)
never = lambda: False
searches = 0
for p in range(passes):
    improved = False
    g = DesignGraph(list(m), Moves(r=r, directed=False))
    for e in sorted(g.edges()):
        if not (m[e[0]] >> e[1] & 1):
            continue
        g = DesignGraph(list(m), Moves(r=r, directed=False))
        g.set_edge(*e, False)
        pair = repaired._witness(g.masks, r, never); searches += 1
        if pair is None:
            print("removable?!", e); continue
        sc = _fixes(g, pair); top = max(s for s, _ in sc)
        fixes = sorted({f for s, f in sc if s >= top - TOL} - {e})
        print("edge", e, "fixes", len(fixes), round(time.time()-t0, 1), flush=True)
        for f in fixes:
            h = DesignGraph(list(g.masks), Moves(r=r, directed=False))
            h.set_edge(*f, True)
            if repaired._witness(h.masks, r, never) is not None:
                searches += 1; continue
            searches += 1
            repaired._trim(h, r, never)
            c = starts.edge_count(h.masks, False)
            if c < cnt:
                print("IMPROVED", e, f, c, round(time.time()-t0, 1), flush=True)
                m, cnt, improved = h.masks, c, True
                break
    print("pass", p, cnt, "searches", searches, round(time.time()-t0, 1), flush=True)
    if not improved:
        break
