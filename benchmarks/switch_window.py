"""``SWITCH_RULE``'s printed window at one thread, measured on the whole command, per window.

Issue 40, round 21 (i56a), a diagnosis for round 22 (docs/performance.md, "Issue 40, round 21:
the printed window at one thread and sparse (r, s) digraphs, a diagnosis for round 22 (i56a)").
At ``--threads 1`` a graph that skips the core search gets the published model as printed for a
short window, then least-first for the rest (``solvers.portfolio.SWITCH_RULE``, its slices
``SWITCH_SLICES``: 0.3 s printed). This script runs, per row and repeat, in an order rotated per
row and repeat:

- ``W=x`` for each window of ``--windows``: ``robustness FILE --json --time-limit CAP --threads 1``
  in a fresh process (this file with ``--as-cli x``) that sets ``SWITCH_SLICES`` to
  ``(("as-printed", x), ("least-first", None))`` before the command runs (the diagnosis only;
  the product is unchanged); the ``switch`` step records of its ``--json`` output show the window
  it really got (``seconds_given`` of the ``as-printed`` slice) and the bounds after it;
- ``script``: ``vs_published.py``'s one-worker CP-SAT script (``cpsat w1``), unchanged;

each under ``vs_published._timed``'s limits (CPU cap ``CAP``, wall ``CAP`` + 1 s). Graphs are
written exactly as ``vs_published.py`` writes them (its ``_graphs``). One line per run, then per
row: r* (proved by any side in any run), per side the runs proved and the median wall and CPU;
then per window: the r* = 4 rows where it beats ``W=0.3`` by more than 10% + 0.1 s (median wall),
the rows where it is slower than the script by more than 10% + 0.1 s (median wall or CPU, or not
proving in every run a row the script proves in every run), the seconds it adds on r* = 5 rows
(median wall against ``W=0.3``'s) and the rows it proves in every run. Not part of the test run::

    PYTHONPATH=. /work/venv/bin/python benchmarks/switch_window.py --folder /tmp/w56 \\
        --seeds 7827-7842 --windows 0.3,1.0,1.5,2.5 --reps 2

``--rs``: instead, on the (r, s) rows ``digraph-40-p0.2-S`` (``vs_published.py``'s ``digraph``
family, n = 40, p = 0.2, S in ``--seeds``), one run each of our ``--rs R`` command and its step
records (:func:`rs_steps`).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

__all__ = ["main"]

CAP = 10.0
"""Every command's ``--time-limit`` (ours) and CPU cap (the script), as the harness's ``--cap``."""

RS_CAP = 20.0
"""``--rs``: each (r, s) command's time limit (as ``vs_published.py --rs --cap 20``)."""


def as_cli(window: float, argv: list[str]) -> None:
    """The ``robustgraph`` program (``robustgraph.cli.main.run``) with ``argv``, after setting
    ``solvers.portfolio.SWITCH_SLICES``' printed window to ``window`` seconds."""
    from solvers import portfolio

    portfolio.SWITCH_SLICES = (("as-printed", window), ("least-first", None))
    from robustgraph.cli.main import run

    sys.argv = ["robustgraph", *argv]
    run()


def slower(a: float, b: float) -> bool:
    """``a`` slower than ``b`` by more than 10% + 0.1 s (the harness's margin)."""
    return a > 1.1 * b + 0.1


def seeds_of(text: str) -> list[int]:
    """``7827-7842`` or ``7827,7830``: the seeds."""
    if "-" in text:
        first, last = (int(x) for x in text.split("-"))
        return list(range(first, last + 1))
    return [int(x) for x in text.split(",")]


def window_of(steps: list[dict]) -> str:
    """The printed window a run got and the bounds after it (``-``: no window ran)."""
    for s in steps:
        if s.get("step") == "switch" and s.get("config") == "as-printed":
            return (
                f"{s.get('seconds_given')}:[{s.get('lower')},{s.get('upper')}]@{s.get('seconds')}"
            )
    return "-"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--folder", default=None, help="where the graph files are written")
    ap.add_argument("--seeds", default="7827-7842")
    ap.add_argument("--windows", default="0.3,1.0,1.5,2.5")
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--rs", action="store_true", help="the (r, s) step records instead")
    ap.add_argument("--summary", default=None, metavar="LOG", help="summarise a (partial) log")
    args = ap.parse_args(argv)
    if args.summary:
        return from_log(Path(args.summary), args.reps)
    if args.folder is None:
        ap.error("--folder is needed to run")
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import vs_published as vp

    if args.rs:
        return rs_steps(vp, seeds_of(args.seeds), Path(args.folder))
    seeds = seeds_of(args.seeds)
    rows = [f"regular-wide-60-d10-{s}" for s in seeds]
    folder = Path(args.folder)
    graphs = harness_graphs(
        vp, folder, "60", "0.35", "regular-wide", ",".join(map(str, seeds)), "1001", ",".join(rows)
    )
    paths = {path.stem: path for *_, path in graphs}
    assert sorted(paths) == sorted(rows), sorted(paths)
    windows = args.windows.split(",")
    sides = [f"W={w}" for w in windows] + ["script"]
    print(f"# {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}, load {vp._uptime()}")
    print(f"# cap {CAP:g} s, reps {args.reps}, sides {sides}; " + " ".join(sys.argv))
    runs: dict[tuple[str, str], list[tuple[int | None, float, float]]] = {}
    for i, row in enumerate(rows):
        path = paths[row]
        for rep in range(args.reps):
            turn = (2 * i + rep) % len(sides)
            for side in sides[turn:] + sides[:turn]:
                load = vp._uptime()
                if side == "script":
                    got = vp._timed(vp.script_command("cpsat1", path), CAP, 1)
                    extra = ""
                else:
                    ours = vp._ours(path, ["--time-limit", f"{CAP:g}", "--threads", "1"])
                    command = [sys.executable, __file__, "--as-cli", side[2:], *ours[1:]]
                    got = vp._timed(command, CAP, 1)
                    steps = ((got[0] or {}).get("r") or {}).get("steps") or []
                    extra = f" window {window_of(steps)}"
                proved = vp._proved(got)
                runs.setdefault((row, side), []).append((proved, got[1], got[2]))
                print(
                    f"{row} {side} rep{rep} wall {got[1]:.2f} cpu {got[2]:.2f} r* {proved} "
                    f"bounds {vp._reached(got)}{extra} load {load}",
                    flush=True,
                )
    print(f"# end {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}, load {vp._uptime()}")
    summary(rows, sides, runs, args.reps)
    return 0


def summary(rows: list[str], sides: list[str], runs: dict, reps: int) -> None:
    """The per-row table and the per-window summary described in the module's docstring."""

    def stats(row: str, side: str) -> tuple[int, float, float]:
        got = runs[(row, side)]
        count = sum(p is not None for p, *_ in got)
        return count, statistics.median(w for _, w, _ in got), statistics.median(c for *_, c in got)

    star = {}
    print("| row | r* | " + " | ".join(f"{x} wall (cpu)" for x in sides) + " |")
    print("|---" * (len(sides) + 2) + "|")
    for row in rows:
        values = {p for side in sides for p, *_ in runs[(row, side)] if p is not None}
        star[row] = values.pop() if len(values) == 1 else ("?" if not values else sorted(values))
        cells = []
        for side in sides:
            count, wall, cpu = stats(row, side)
            mark = "" if count == reps else (">" if count == 0 else f"{count}/{reps} ")
            cells.append(f"{mark}{wall:.2f} ({cpu:.2f})")
        print(f"| {row} | {star[row]} | " + " | ".join(cells) + " |")
    base = sides[0]
    for side in sides[:-1]:
        gains, lost, added, proved = [], [], [], []
        for row in rows:
            count, wall, cpu = stats(row, side)
            s_count, s_wall, s_cpu = stats(row, "script")
            b_wall = stats(row, base)[1]
            if count == reps:
                proved.append(row)
            if star[row] == 4 and slower(b_wall, wall):
                gains.append(f"{row} ({b_wall:.2f} -> {wall:.2f})")
            if s_count == reps and (count < reps or slower(wall, s_wall) or slower(cpu, s_cpu)):
                lost.append(f"{row} ({wall:.2f}/{cpu:.2f} vs {s_wall:.2f}/{s_cpu:.2f})")
            if star[row] == 5:
                added.append(wall - b_wall)
        print(f"# {side}: r* = 4 rows faster than {base} by 10% + 0.1 s: {len(gains)} {gains}")
        print(f"# {side}: slower than the script (wall or cpu, or not proving): {len(lost)} {lost}")
        print(
            f"# {side}: on r* = 5 rows ({len(added)}) median wall minus {base}'s: sum "
            f"{sum(added):+.2f} s, median {statistics.median(added) if added else 0:+.2f} s"
        )
        print(f"# {side}: rows proved in every run: {len(proved)}")
    print(f"# script: rows proved in every run: {sum(stats(r, 'script')[0] == reps for r in rows)}")


def from_log(log: Path, reps: int) -> int:
    """:func:`summary` of the run lines of a log this script printed (a stopped run's complete
    rows: those with ``reps`` runs of every side), sides in their first order of appearance."""
    runs: dict[tuple[str, str], list[tuple[int | None, float, float]]] = {}
    for line in log.read_text().splitlines():
        words = line.split()
        if len(words) > 8 and words[3] == "wall" and words[7] == "r*":
            proved = None if words[8] == "None" else int(words[8])
            runs.setdefault((words[0], words[1]), []).append(
                (proved, float(words[4]), float(words[6]))
            )
    sides = sorted({side for _, side in runs}, key=lambda x: (x == "script", x))
    rows = list(dict.fromkeys(row for row, _ in runs))
    rows = [r for r in rows if all(len(runs.get((r, x), [])) == reps for x in sides)]
    summary(rows, sides, runs, reps)
    return 0


def harness_graphs(
    vp, folder: Path, n: str, prob: str, family: str, seeds: str, er_seeds: str, only=None
):
    """The graphs ``vs_published.py`` builds for these options, written under ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    spec = argparse.Namespace(
        sizes=n,
        struct_sizes=n,
        probs=prob,
        families=family,
        seeds=seeds,
        er_seeds=er_seeds,
        only=only,
    )
    return vp._graphs(spec, folder)


def rs_steps(vp, seeds: list[int], folder: Path) -> int:
    """Where our (r, s) command's time goes on ``digraph-40-p0.2-S`` (``--rs``): per seed, R =
    r* from ``robustness FILE --json --time-limit RS_CAP`` (not timed), then one run of
    ``robustness FILE --json --rs R --time-limit RS_CAP`` (default threads), its wall and CPU,
    and the step records of its ``s`` answer (name or model, seconds since the start, bounds)."""
    graphs = harness_graphs(vp, folder, "40", "0.2", "digraph", "1001", ",".join(map(str, seeds)))
    print(f"# {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}, load {vp._uptime()}")
    for *_, path in graphs:
        first = vp._timed(vp._ours(path, ["--time-limit", f"{RS_CAP:g}"]), RS_CAP, 2)
        r = (first[0] or {}).get("r") or {}
        if r.get("status") != "exact":
            print(f"{path.stem} r* not exact {vp._reached(first)}")
            continue
        extra = ["--rs", str(r["value"]), "--time-limit", f"{RS_CAP:g}"]
        got = vp._timed(vp._ours(path, extra), RS_CAP, 2)
        s = (got[0] or {}).get("s") or {}
        steps = " ".join(
            f"{x.get('step') or x.get('model', '?')}@{x.get('seconds')}[{x.get('lower')},"
            f"{x.get('upper')}]"
            for x in s.get("steps", [])
        )
        print(
            f"{path.stem} R {r['value']} s {s.get('status')}:{s.get('value')} wall {got[1]:.2f} "
            f"cpu {got[2]:.2f} load {vp._uptime()} steps {steps}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--as-cli":
        as_cli(float(sys.argv[2]), sys.argv[3:])
    raise SystemExit(main())
