"""The published (r, s) model's two configurations alone on sparse digraphs, beside our command.

Issue 40, round 22 (i57b), a diagnosis for round 23 (docs/performance.md, "Issue 40, round 22:
the printed (r, s) configuration on sparse digraphs, a diagnosis for round 23 (i57b)"). Round
21's registered (r, s) run lost ``digraph-40-p0.2-7140`` and i56a's scratch rows 7827 (R = 2) and
7830 (R = 1), each time in the least-first (r, s) solve of ``portfolio._published_s_slice``,
where the model as printed is the faster configuration (``BOTH_S_RULE`` gives it 0.3 s beside
least-first, from 0.1 s on and only at R >= ``BOTH_S_MIN_R`` = 2). Per row (``digraph-N-p0.2-S``
as ``vs_published.py --rs`` builds it, R = r* from ``robustness FILE --json --time-limit CAP``,
not timed, as the harness finds it), in an order rotated per row and repeat:

- ``ours``: ``robustness FILE --json --rs R --time-limit CAP`` (default threads, as
  ``vs_published.compare_rs`` calls it, under its ``_timed`` limits) and its ``s`` step records;
- ``script``: the published (r, s) model on CP-SAT with one worker (``published_milp.py FILE
  cpsat-s R``, the harness's baseline, unchanged);
- ``printed`` and ``least``: in this process, the portfolio's (r, s) start (the known lower bound
  s*_R >= 1 of R = r*, ``portfolio._bounds_s``' heuristic pair), then one
  ``search.published_s_slice`` with one CP-SAT worker, as printed (``least=False``) or
  least-first (``least=True``), for up to CAP s: the slice the portfolio runs, alone. The line
  gives the slice's wall and CPU time (the start's apart, ``pre``);
- ``mirror`` (only with ``--sides``): ours' command in a fresh process (this file with
  ``--as-mirror``) that first swaps ``first_proof.CONFIGS`` (the printed configuration gets the
  whole slice, least-first the window beside it) and sets ``portfolio.BOTH_S_MIN_R`` to 1: the
  schedule ``(0.3, 0.1, 1, "printed")`` of :func:`replay`, run (the diagnosis only; the product
  is unchanged); ``mirror0``: the same with ``BOTH_S_MIN_R`` left at 2 and ``BOTH_S_DELAY`` set
  to 0 (``(0.3, 0.0, 2, "printed")``).

Cheap features per row (known before the slice, never the answer): n, m, density, R, the
heuristic's upper bound, in- and out-degree least, most and spread. ``--summary LOG`` prints the
per-row medians and replays schedules of the two configurations from the ``printed`` and
``least`` times (:func:`replay`). Not part of the test run::

    PYTHONPATH=. /work/venv/bin/python benchmarks/rs_configs.py --folder /tmp/r57b \\
        --seeds 7931-7945 --sizes 40,30 --reps 2 --until 05:11
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

__all__ = ["main", "replay"]

CAP = 20.0
"""Every solve's limit: ours' ``--time-limit``, the script's CPU cap, each configuration's slice."""

SLICE = 0.5 * CAP
"""What our command's published (r, s) slice gets under ``--time-limit CAP``, about
``portfolio.PUBLISHED_S_SHARE`` of it: :func:`replay` counts a configuration slower than this as
not proving within the slice."""

SIDES = ("ours", "script", "printed", "least")
"""The sides of every row (``mirror``, with ``--sides``, is extra)."""

MAIN = (0.3, 0.1, 2, "least")
"""``BOTH_S_RULE`` as on main: (``BOTH_S_WINDOW``, ``BOTH_S_DELAY``, ``BOTH_S_MIN_R``, the
configuration that gets the whole slice)."""

SCHEDULES = (
    MAIN,
    (0.3, 0.1, 1, "least"),
    (1.0, 0.1, 1, "least"),
    (1.0, 0.1, 2, "least"),
    (2.0, 0.1, 1, "least"),
    (5.0, 0.1, 1, "least"),
    (CAP, 0.1, 1, "least"),
    (CAP, 0.0, 1, "least"),
    (0.0, 0.1, 1, "printed"),
    (0.3, 0.1, 1, "printed"),
    (0.5, 0.1, 1, "printed"),
    (0.3, 0.1, 2, "printed"),
)
"""The schedules :func:`replay` compares: (window, delay, least R, the configuration of the whole
slice); the other configuration runs beside it for the window."""


def slower(a: float, b: float) -> bool:
    """``a`` slower than ``b`` by more than 10% + 0.1 s (the harness's margin)."""
    return a > 1.1 * b + 0.1


def features(topo, r: int) -> dict:
    """The row's cheap features: size, density, degree spread (before any (r, s) search)."""
    ins = [len(x) for x in topo.in_neighbors]
    outs = [0] * len(ins)
    for x in topo.in_neighbors:
        for j in x:
            outs[j] += 1
    n, m = len(ins), sum(ins)
    return {
        "n": n,
        "m": m,
        "density": round(m / (n * (n - 1)), 3),
        "R": r,
        "in": f"{min(ins)}-{max(ins)}/{statistics.pstdev(ins):.2f}",
        "out": f"{min(outs)}-{max(outs)}/{statistics.pstdev(outs):.2f}",
    }


def alone(topo, r: int, least: bool) -> dict:
    """The portfolio's (r, s) start on ``topo`` at R = ``r`` = r*, then one published (r, s)
    slice in one configuration for up to :data:`CAP` s (module docstring)."""
    from solvers import portfolio, search
    from solvers.types import Question, Request

    started, cpu0 = time.perf_counter(), time.process_time()
    request = Request(topo, Question.max_s(r), None, 1, known_lower=1)  # R = r* >= 1
    p = search.Progress(request, "diagnosis", "strong", "diagnosis")
    p.prove_lower(1)
    portfolio._bounds_s(p)
    heuristic = p.upper
    pre, pre_cpu = time.perf_counter() - started, time.process_time() - cpu0
    wall = cpu = 0.0
    outcome = "heuristic"
    if not p.settled():
        run = portfolio._cpsat_workers(portfolio.PUBLISHED_S_WORKERS)
        start, cpu1 = time.perf_counter(), time.process_time()
        search.published_s_slice(p, run, CAP, least=least)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu1
        outcome = p.steps[-1].get("outcome", "?")
    return {
        "wall": wall,
        "cpu": cpu,
        "s": p.lower if p.settled() else None,
        "bounds": f"[{p.lower},{p.upper}]",
        "extra": f"pre {pre:.2f} ({pre_cpu:.2f}) heuristic {heuristic} outcome {outcome}",
    }


def steps_of(s: dict) -> str:
    """Our ``s`` answer's step records, one word each: name[:config][:outcome]@seconds."""
    words = []
    for x in s.get("steps", []):
        name = x.get("step") or x.get("model", "?")
        tags = [str(x[k]) for k in ("config", "outcome", "proved_by") if x.get(k) is not None]
        words.append(":".join([name, *tags]) + f"@{x.get('seconds')}")
    return " ".join(words)


MIRRORS = {"mirror": (0.1, 1), "mirror0": (0.0, 2)}
"""The swapped schedules run whole: side -> (``BOTH_S_DELAY``, ``BOTH_S_MIN_R``)."""


def as_mirror(side: str, argv: list[str]) -> None:
    """The ``robustgraph`` program with ``argv`` after swapping the two configurations of
    ``first_proof.published_s_both`` and setting ``portfolio.BOTH_S_DELAY`` and
    ``BOTH_S_MIN_R`` as :data:`MIRRORS` gives them for ``side``."""
    from solvers import first_proof, portfolio

    first_proof.CONFIGS = first_proof.CONFIGS[::-1]
    portfolio.BOTH_S_DELAY, portfolio.BOTH_S_MIN_R = MIRRORS[side]
    from robustgraph.cli.main import run

    sys.argv = ["robustgraph", *argv]
    run()


def command(vp, side: str, path: Path, r: int) -> dict:
    """One timed run of ``ours``, a mirror (:data:`MIRRORS`) or ``script``
    (``vs_published._timed``)."""
    if side == "ours" or side in MIRRORS:
        cmd = vp._ours(path, ["--rs", str(r), "--time-limit", f"{CAP:g}"])
        if side in MIRRORS:
            cmd = [sys.executable, __file__, "--as-mirror", side, *cmd[1:]]
        data, wall, cpu, _ = vp._timed(cmd, CAP, vp.DEFAULT_THREADS)
        s = (data or {}).get("s") or {}
        value = s.get("value") if s.get("status") == "exact" else None
        bounds = f"[{s.get('lower')},{s.get('upper')}]"
        return {"wall": wall, "cpu": cpu, "s": value, "bounds": bounds, "extra": steps_of(s)}
    data, wall, cpu, code = vp._timed(
        [sys.executable, str(vp.BASELINE), str(path), "cpsat-s", str(r)], CAP, 1
    )
    value = (data or {}).get("s") if code is not None else None
    return {"wall": wall, "cpu": cpu, "s": value, "bounds": "-", "extra": ""}


def rows_of(vp, folder: Path, sizes: list[str], seeds: str) -> list[tuple[str, Path]]:
    """The rows ``digraph-N-p0.2-S``, sizes interleaved per seed, written as the harness does."""
    from switch_window import harness_graphs

    graphs = harness_graphs(vp, folder, ",".join(sizes), "0.2", "digraph", "1001", seeds)
    paths = {path.stem: path for *_, path in graphs}
    names = [f"digraph-{n}-p0.2-{s}" for s in seeds.split(",") for n in sizes]
    return [(name, paths[name]) for name in names]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--folder", default=None, help="where the graph files are written")
    ap.add_argument("--seeds", default=None, help="7931-7945 or 7931,7933 (summary: only these)")
    ap.add_argument("--sizes", default="40,30")
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--first-rep", type=int, default=0, help="number of the first repeat")
    ap.add_argument("--sides", default=",".join(SIDES), help="comma list of SIDES, mirror")
    ap.add_argument("--until", default=None, metavar="HH:MM", help="start no run after (UTC)")
    ap.add_argument("--summary", default=None, metavar="LOG", help="summarise a (partial) log")
    args = ap.parse_args(argv)
    if args.summary:
        from switch_window import seeds_of

        seeds = None if args.seeds is None else set(seeds_of(args.seeds))
        return summary(Path(args.summary).read_text().splitlines(), seeds)
    if args.folder is None or args.seeds is None:
        ap.error("--folder and --seeds are needed to run")
    here = Path(__file__).resolve().parent
    sys.path.insert(0, str(here))
    import vs_published as vp
    from switch_window import seeds_of

    from robustgraph import io

    seeds = ",".join(map(str, seeds_of(args.seeds)))
    rows = rows_of(vp, Path(args.folder), args.sizes.split(","), seeds)
    print(f"# {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}, load {vp._uptime()}")
    sides = tuple(args.sides.split(","))
    print(f"# cap {CAP:g} s, reps {args.reps}, sides {sides}; " + " ".join(sys.argv), flush=True)
    found: dict[str, int | None] = {}

    def late() -> bool:
        return args.until is not None and time.strftime("%H:%M", time.gmtime()) >= args.until

    for rep in range(args.first_rep, args.first_rep + args.reps):
        for i, (row, path) in enumerate(rows if rep % 2 == 0 else rows[::-1]):
            if late():
                print(f"# stopped at {time.strftime('%H:%M:%S UTC', time.gmtime())} (--until)")
                return 0
            if row not in found:  # R = r* as the harness finds it, not timed
                cmd = vp._ours(path, ["--time-limit", f"{CAP:g}"])
                got = vp._timed(cmd, CAP, vp.DEFAULT_THREADS)
                r = (got[0] or {}).get("r") or {}
                found[row] = r.get("value") if r.get("status") == "exact" else None
                if found[row] is not None:
                    feats = features(io.read(path), found[row])
                    print(f"# {row} " + " ".join(f"{k}={v}" for k, v in feats.items()))
            r = found[row]
            if r is None:
                print(f"# {row} r* not exact within {CAP:g} s: skipped", flush=True)
                continue
            turn = (i + rep) % len(sides)
            for side in sides[turn:] + sides[:turn]:
                if late():
                    break
                load = vp._uptime().split()[0]
                if side in ("printed", "least"):
                    got = alone(io.read(path), r, least=side == "least")
                else:
                    got = command(vp, side, path, r)
                print(
                    f"{row} {side} rep{rep} wall {got['wall']:.2f} cpu {got['cpu']:.2f} "
                    f"s* {got['s']} R {r} bounds {got['bounds']} load {load} | {got['extra']}",
                    flush=True,
                )
    print(f"# end {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}, load {vp._uptime()}")
    return 0


def parse(lines: list[str]) -> tuple[dict, dict, dict]:
    """The run lines of a log: ``{(row, side): [(s, wall, cpu, extra)]}``, each row's R and its
    features line (``{row: "n=.. m=.. ..."}``)."""
    runs: dict[tuple[str, str], list] = {}
    big_r: dict[str, int] = {}
    feats: dict[str, str] = {}
    for line in lines:
        words = line.split()
        if len(words) > 2 and words[0] == "#" and words[2].startswith("n="):
            feats[words[1]] = " ".join(w for w in words[2:] if not w.startswith("R="))
        elif len(words) > 10 and words[1] in (*SIDES, *MIRRORS) and words[3] == "wall":
            s = None if words[8] == "None" else int(words[8])
            big_r[words[0]] = int(words[10])
            extra = line.partition(" | ")[2]
            runs.setdefault((words[0], words[1]), []).append(
                (s, float(words[4]), float(words[6]), extra)
            )
    return runs, big_r, feats


def replay(least: float, printed: float, r: int, schedule: tuple) -> tuple[float, float]:
    """Wall and CPU seconds of the published (r, s) slice under ``schedule`` = (window, delay,
    least R, main), from each configuration's time alone (``CAP``: not proved): the ``main``
    configuration (``least`` or ``printed``) for the slice (:data:`SLICE` s), the other beside it
    from ``delay`` for ``window`` s (at most to the slice's end) where R >= least R, the first
    proof stopping the other (``first_proof.published_s_both``, main = ``least``); one worker
    each. Below the least R, least-first alone (as on main)."""
    window, delay, min_r, main = schedule
    if r < min_r:
        return min(least, SLICE), min(least, SLICE)
    first, beside = (least, printed) if main == "least" else (printed, least)
    first, window = min(first, SLICE), min(window, SLICE - delay)
    beside_end = delay + beside if beside <= window else float("inf")
    end = min(first, beside_end)
    beside_ran = max(0.0, min(end, delay + window) - delay)
    return end, end + beside_ran


def summary(lines: list[str], seeds: set[int] | None = None) -> int:
    """Per row (of ``seeds`` only, if given) the median of each side, who wins, and the schedules
    of :data:`SCHEDULES` replayed (:func:`replay`) against ours as measured and the script."""
    runs, big_r, feats = parse(lines)
    rows = [
        r
        for r in dict.fromkeys(row for row, _ in runs)
        if all((r, x) in runs for x in SIDES)
        and (seeds is None or int(r.rsplit("-", 1)[1]) in seeds)
    ]
    med: dict[tuple[str, str], tuple] = {}
    for row in rows:
        for side in [x for x in (*SIDES, *MIRRORS) if (row, x) in runs]:
            got = runs[(row, side)]
            proved = [s for s, *_ in got if s is not None]
            med[(row, side)] = (
                proved[0] if proved else None,
                statistics.median(w for _, w, _, _ in got),
                statistics.median(c for _, _, c, _ in got),
                f"{len(proved)}/{len(got)}",
            )
    print(
        "| row | R | s* | features | heuristic | ours | script | printed alone | least alone "
        "| faster config |"
    )
    print("|---" * 10 + "|")
    star = {}
    for row in rows:
        values = {med[(row, x)][0] for x in SIDES} - {None}
        star[row] = values.pop() if len(values) == 1 else ("?" if not values else sorted(values))
        cells = []
        for side in SIDES:
            s, wall, cpu, count = med[(row, side)]
            mark = "" if s is not None else ">"
            cells.append(f"{mark}{wall:.2f} ({cpu:.2f}) {count}")
        p, q = med[(row, "printed")][1], med[(row, "least")][1]
        best = "printed" if slower(q, p) else "least" if slower(p, q) else "tie"
        heuristic = runs[(row, "least")][0][3].partition("heuristic ")[2].split(" ")[0]
        head = f"| {row} | {big_r[row]} | {star[row]} | {feats.get(row, '-')} | {heuristic} | "
        print(head + " | ".join(cells) + f" | {best} |")
    print(
        "\n| schedule (window, delay, least R, main) | rows slower than the script | rows slower "
        "than main's replay | CPU s added over main (sum) | wall s saved over main (sum) |"
    )
    print("|---" * 5 + "|")
    for schedule in SCHEDULES:
        lost, worse, added, saved = [], [], 0.0, 0.0
        for row in rows:
            if star[row] == "?":
                continue
            r = big_r[row]
            times = [
                med[(row, x)][1] if med[(row, x)][0] is not None else CAP
                for x in ("least", "printed")
            ]
            base_w, base_c = replay(*times, r, MAIN)
            new_w, new_c = replay(*times, r, schedule)
            wall = med[(row, "ours")][1] - base_w + new_w
            cpu = med[(row, "ours")][2] - base_c + new_c
            _, s_wall, s_cpu, _ = med[(row, "script")]
            if slower(wall, s_wall) or slower(cpu, s_cpu):
                lost.append(f"{row} ({wall:.2f}/{cpu:.2f} vs {s_wall:.2f}/{s_cpu:.2f})")
            if slower(new_w, base_w) or slower(new_c, base_c):
                worse.append(row)
            added += new_c - base_c
            saved += base_w - new_w
        print(
            f"| {schedule} | {len(lost)}: {'; '.join(lost)} | {len(worse)}: {', '.join(worse)} "
            f"| {added:+.2f} | {saved:+.2f} |"
        )
    for side in MIRRORS:
        mirrored(rows, med, side)
    return 0


def mirrored(rows: list[str], med: dict, side: str) -> None:
    """The runs of the mirror ``side``, where there are any: per row the medians of ours, the
    mirror and the script, and the rows where each of ours and the mirror is slower than the
    script, and the mirror slower or faster than ours, by more than 10% + 0.1 s (wall or CPU)."""
    rows = [row for row in rows if (row, side) in med]
    if not rows:
        return
    print(f"\n| row | ours | {side} | script | {side} vs ours |")
    print("|---" * 5 + "|")
    tally: dict[str, list[str]] = {"ours": [], "mirror": [], "worse": [], "better": []}
    for row in rows:
        (_, ow, oc, on), (_, mw, mc, mn), (_, sw, sc, sn) = (
            med[(row, x)] for x in ("ours", side, "script")
        )
        if slower(ow, sw) or slower(oc, sc):
            tally["ours"].append(row)
        if slower(mw, sw) or slower(mc, sc):
            tally["mirror"].append(row)
        verdict = "same"
        if slower(mw, ow) or slower(mc, oc):
            tally["worse"].append(row)
            verdict = "slower"
        elif slower(ow, mw) or slower(oc, mc):
            tally["better"].append(row)
            verdict = "faster"
        cells = [f"{w:.2f} ({c:.2f}) {n}" for w, c, n in ((ow, oc, on), (mw, mc, mn), (sw, sc, sn))]
        print(f"| {row} | " + " | ".join(cells) + f" | {verdict} |")
    for key, text in (
        ("ours", "ours slower than the script"),
        ("mirror", f"{side} slower than the script"),
        ("worse", f"{side} slower than ours"),
        ("better", f"{side} faster than ours"),
    ):
        print(f"# {text} (wall or CPU, 10% + 0.1 s): {len(tally[key])} {tally[key]}")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--as-mirror":
        as_mirror(sys.argv[2], sys.argv[3:])
    raise SystemExit(main())
