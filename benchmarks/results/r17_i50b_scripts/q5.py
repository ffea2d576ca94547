"""Scratch rows, interleaved (order rotates): ours (robustness --json --time-limit 10), the
published optimisation at 2 workers (cplog), and the prototype decision t <= PROBE at 2 workers."""
import json, sys, time, subprocess, resource
sys.path.insert(0, "/work/wt50b/benchmarks")
import vs_published as vp
from pathlib import Path
rows = sys.argv[1].split(","); reps = int(sys.argv[2]); out = Path(sys.argv[3]); out.mkdir(exist_ok=True)
PY = "/work/venv/bin/python"
for rep in range(reps):
    for j, row in enumerate(rows):
        path = f"/tmp/i50b/g/{row}.json"; probe = "3" if "-d8-" in row else "4"
        sides = [("ours", vp._ours(Path(path), ["--time-limit", "10"])),
                 ("opt2", [PY, "/tmp/i50b/cplog.py", path, "2", "10"]),
                 ("dec2", [PY, "/tmp/i50b/proto.py", path, "2", "10", probe, "plain"])]
        k = (rep + j) % 3; sides = sides[k:] + sides[:k]
        for name, cmd in sides:
            load = vp._uptime(); before = resource.getrusage(resource.RUSAGE_CHILDREN); t0 = time.perf_counter()
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
            wall = time.perf_counter() - t0; a = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = a.ru_utime - before.ru_utime + a.ru_stime - before.ru_stime
            (out / f"{row}.{name}.{rep}.txt").write_text(p.stdout + p.stderr)
            if name == "ours":
                d = json.loads(p.stdout)["r"]; res = json.dumps({k2: d.get(k2) for k2 in ("value", "lower", "upper", "status")})
                res += " steps " + "+".join(dict.fromkeys(s.get("step") or s.get("model", "?") for s in d["steps"]))
            else:
                found = [l for l in p.stdout.splitlines() if l.startswith("#") and ("best:" in l or "#Done" in l or l.startswith("#1 "))]
                res = p.stdout.strip().splitlines()[-1] + " | " + (found[-1][:90] if found else "")
            print(f"{row} {name} probe{probe} rep{rep} wall {wall:.2f} cpu {cpu:.2f} load {load} {res}", flush=True)
