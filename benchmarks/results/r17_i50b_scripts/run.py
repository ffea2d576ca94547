"""Interleaved: for each repeat, ours (robustness --json --time-limit 10) then cpsat2 script (or rotated)."""
import json, os, sys, time, subprocess, resource
sys.path.insert(0, "/work/wt50b/benchmarks")
import vs_published as vp
from pathlib import Path
rows = sys.argv[1].split(","); reps = int(sys.argv[2]); out = Path(sys.argv[3]); out.mkdir(exist_ok=True)
PY = "/work/venv/bin/python"
for rep in range(reps):
    for row in rows:
        path = Path(f"/tmp/i50b/g/{row}.json")
        sides = [("ours", vp._ours(path, ["--time-limit", "10"]), 2),
                 ("cpsat2", [PY, "/tmp/i50b/cplog.py", str(path), "2", "10"], 2)]
        if rep % 2: sides.reverse()
        for name, cmd, w in sides:
            load = vp._uptime()
            before = resource.getrusage(resource.RUSAGE_CHILDREN); t0 = time.perf_counter()
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
            wall = time.perf_counter() - t0; a = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = a.ru_utime - before.ru_utime + a.ru_stime - before.ru_stime
            (out / f"{row}.{name}.{rep}.txt").write_text(p.stdout)
            last = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
            if name == "ours":
                d = json.loads(p.stdout)["r"]; summ = {k: d.get(k) for k in ("value", "lower", "upper", "status", "seconds")}
            else:
                summ = json.loads(last)
            print(f"{row} {name} rep{rep} wall {wall:.2f} cpu {cpu:.2f} load {load} {json.dumps(summ)}", flush=True)
