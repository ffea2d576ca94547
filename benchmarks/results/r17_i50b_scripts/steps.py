"""Print ours' step records compactly (one line per run file)."""
import json, sys
for f in sys.argv[1:]:
    d = json.load(open(f))["r"]
    parts = []
    for s in d["steps"]:
        name = s.get("step") or s.get("model")
        extra = {k: v for k, v in s.items() if k not in ("step", "model", "lower", "upper")}
        parts.append(f"{name}{extra}")
    print(f.rsplit("/", 1)[-1], d["lower"], d["upper"], d["seconds"]); print("   " + "\n   ".join(parts))
