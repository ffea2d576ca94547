"""Q4 interleaved: published optimisation (cplog, 2 workers) vs decision t<=PROBE plain vs hinted."""
import json, sys, time, subprocess, resource
sys.path.insert(0, "/work/wt50b/benchmarks")
import vs_published as vp
from pathlib import Path
rows = sys.argv[1].split(","); reps = int(sys.argv[2]); out = Path(sys.argv[3]); out.mkdir(exist_ok=True)
probe = sys.argv[4]; PY = "/work/venv/bin/python"
for rep in range(reps):
    for row in rows:
        path = f"/tmp/i50b/g/{row}.json"
        sides = [("opt2", [PY, "/tmp/i50b/cplog.py", path, "2", "10"]),
                 ("dec2", [PY, "/tmp/i50b/proto.py", path, "2", "10", probe, "plain"]),
                 ("dec2hint", [PY, "/tmp/i50b/proto.py", path, "2", "10", probe, "hint"])]
        sides = sides[rep % 3:] + sides[:rep % 3]
        for name, cmd in sides:
            load = vp._uptime(); before = resource.getrusage(resource.RUSAGE_CHILDREN); t0 = time.perf_counter()
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
            wall = time.perf_counter() - t0; a = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = a.ru_utime - before.ru_utime + a.ru_stime - before.ru_stime
            (out / f"{row}.{name}.{rep}.txt").write_text(p.stdout + p.stderr)
            found = [l for l in p.stdout.splitlines() if l.startswith("#") and ("best:" in l or "#Done" in l)]
            print(f"{row} {name} rep{rep} wall {wall:.2f} cpu {cpu:.2f} load {load} {p.stdout.strip().splitlines()[-1]} | {found[-1] if found else ''}", flush=True)
