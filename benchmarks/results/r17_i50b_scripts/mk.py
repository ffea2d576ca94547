"""Write the graph files of the rows named on the command line, as vs_published builds them."""
import argparse, sys
from pathlib import Path
sys.path.insert(0, "/work/wt50b/benchmarks")
import vs_published as vp
rows = sys.argv[1].split(",")
seeds = sorted({r.rsplit("-", 1)[1] for r in rows})
a = argparse.Namespace(sizes="80", struct_sizes="80", probs="0.2", families="regular,regular-wide",
                       only=",".join(rows), seeds=",".join(seeds), er_seeds="1")
for fam, n, param, seed, path in vp._graphs(a, Path("/tmp/i50b/g")):
    print(path)
