"""Our ``robustness`` command under two checkouts, interleaved, on vs_published.py's graphs.

A rule change in ``solvers/`` is kept only if no row gets slower; this prints, per graph and
per ``--threads`` value, each checkout's wall and CPU seconds (its own and its children's) and
the bounds it reached, the two checkouts run one after the other on every graph (the order
swapped from graph to graph), each stopped at ``--cap`` (``vs_published._timed``). The summary
gives the median old/new wall ratio over the rows both checkouts proved, and the rows slower
by more than 10% + 0.1 s (``vs_published._slower``) in wall or CPU. Not part of the test run.
Issue 40, round 9 (i40v)::

    PYTHONPATH=. .venv/bin/python benchmarks/robustness_before_after.py --old /tmp/base \\
        --new . --cap 10 --struct-sizes 60,80 --seeds 7381,7382 --families sbm,ws

``--rs`` times ``robustness FILE --rs R`` instead, at R = r* found first by the old checkout
(untimed; a graph whose r* it does not settle within ``--cap`` is skipped), and the bounds and
"proved" columns are those of s*_R (issue 40, rounds 31-32).

``--rule`` names the rule whose use the "rule" column reports (``heuristic-first``: round 9's
``portfolio.HEURISTIC_FIRST_RULE``; ``cores-bisect``: round 13's ``CORES_BISECT_RULE``;
``cores-s``: rounds 31-32's ``CORES_S_RULE``, the climb ran; ``pool-s``: round 32's
``POOL_S_RULE``, the new run's heuristic (r, s) pair better than the old's);
``--sbm-shapes`` as in ``vs_published.py``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import vs_published as vs  # noqa: E402  (the graphs, the timer and the noise margin)

__all__ = ["main"]


def _run(tree: str, path: Path, cap: float, threads: int, rs: int | None = None) -> vs.Timed:
    """Our command from checkout ``tree`` (first on ``PYTHONPATH``) on ``path``; with ``rs``,
    ``--rs rs``, its s*_R answer in the place of the r answer (``vs._proved`` and
    ``vs._reached`` read ``"r"``)."""
    os.environ["PYTHONPATH"] = tree
    extra = [] if rs is None else ["--rs", str(rs)]
    cmd = vs._ours(path, ["--time-limit", str(cap), "--threads", str(threads), *extra])
    data, wall, cpu, code = vs._timed(cmd, cap, threads)
    if rs is not None and data:
        data = {**data, "r": data.get("s"), "r_star": data.get("r")}
    return data, wall, cpu, code


def _big_r(tree: str, path: Path, cap: float) -> int | None:
    """r* by checkout ``tree``'s default command (untimed), or None when not exact."""
    r = (_run(tree, path, cap, vs.DEFAULT_THREADS)[0] or {}).get("r") or {}
    return r.get("value") if r.get("status") == "exact" else None


def _steps(got: vs.Timed) -> list[dict]:
    """The steps of the run's r* solve (its ``--json`` output), or none."""
    r = (got[0] or {}).get("r")
    return list(r.get("steps", [])) if isinstance(r, dict) else []


def _early(got: vs.Timed) -> bool:
    """True when the run took the heuristic pair before the skip decision
    (``portfolio.HEURISTIC_FIRST_RULE``): its ``heuristic`` step comes before any
    ``extension`` step (``search.more_r`` runs the extension bound first)."""
    steps = [s.get("step") for s in _steps(got)]
    if "heuristic" not in steps:
        return False
    return "extension" not in steps or steps.index("heuristic") < steps.index("extension")


def _bisected(got: vs.Timed) -> bool:
    """True when the run's core search bisected over k (``portfolio.CORES_BISECT_RULE``)."""
    return any(s.get("step") == "cores" and s.get("bisect") for s in _steps(got))


def _heuristic(got: vs.Timed) -> int | None:
    """The value of the run's heuristic pair (its ``heuristic`` step), if it ran."""
    return next((s.get("value") for s in _steps(got) if s.get("step") == "heuristic"), None)


def _pooled(new: vs.Timed, old: vs.Timed) -> bool:
    """True when the new run's heuristic (r, s) pair is better than the old run's
    (``portfolio.POOL_S_RULE``; ``--rs``)."""
    a, b = _heuristic(new), _heuristic(old)
    return a is not None and (b is None or a < b)


def _climbed(got: vs.Timed) -> bool:
    """True when the (r, s) run's climb ran (``portfolio.CORES_S_RULE``; ``--rs``)."""
    return any(s.get("step") == "cores-s" for s in _steps(got))


RULES = {
    "cores-s": lambda new, old: _climbed(new),
    "heuristic-first": lambda new, old: _early(new),
    "cores-bisect": lambda new, old: _bisected(new),
    "pool-s": _pooled,
}
"""``--rule``: what the "rule" column says of the new run (given the old run too)."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", required=True, help="checkout before the change")
    parser.add_argument("--new", default=".", help="checkout after the change")
    parser.add_argument("--cap", type=float, default=10.0, help="--time-limit of every run")
    parser.add_argument("--threads", default="1,2", help="comma list of --threads values")
    parser.add_argument("--sizes", default="30,50")
    parser.add_argument("--probs", default="0.2,0.35,0.5")
    parser.add_argument("--er-seeds", default="7388")
    parser.add_argument("--struct-sizes", default="60,80")
    parser.add_argument("--families", default="sbm")
    parser.add_argument("--seeds", default="7386")
    parser.add_argument("--only", default="")
    parser.add_argument("--sbm-shapes", default=vs.SBM_SHAPES, help="sbm's BLOCKS:P:Q,...")
    parser.add_argument("--rule", choices=sorted(RULES), default="heuristic-first")
    parser.add_argument("--rs", action="store_true", help="s*_R at R = r* (round 31)")
    parser.add_argument(
        "--scripts", default="", help="also the published scripts, e.g. cpsat1,highs1,cpsat2"
    )
    args = parser.parse_args(argv)
    if args.rs and args.scripts:
        parser.error("--scripts times r* scripts; it cannot be combined with --rs")
    trees = {"old": str(Path(args.old).resolve()), "new": str(Path(args.new).resolve())}
    for tree in trees.values():  # else a checkout without bytecode pays its compile every run
        vs.compile_checkout(Path(tree))
    threads = [int(t) for t in args.threads.split(",")]
    scripts = [name for name in args.scripts.split(",") if name]
    start = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(f"# {os.cpu_count()} cores; load {vs._uptime()} at the start, {start}")
    print(f"# old {trees['old']}, new {trees['new']}, --cap {args.cap:g}, threads {threads}")
    if args.rs:
        print("# --rs: robustness FILE --rs R at R = r* (old checkout's, untimed); bounds on s*_R")
    extra = "".join(f" {name} |" for name in scripts)
    print(
        "| graph | threads | old wall (cpu) | new wall (cpu) | old bounds | new bounds | rule |"
        + extra
        + (" vs scripts old / new |" if scripts else "")
    )
    print("|---" * (7 + len(scripts) + bool(scripts)) + "|")
    ratios, slower, k = [], [], 0
    behind = {"old": [], "new": []}
    took = RULES[args.rule]
    with tempfile.TemporaryDirectory() as folder:
        for _family, _n, _param, _seed, path in vs._graphs(args, Path(folder)):
            big_r = _big_r(trees["old"], path, args.cap) if args.rs else None
            if args.rs and big_r is None:
                print(f"# {path.stem}: r* not settled within --cap by the old checkout, skipped")
                continue
            runs = [(side, t) for t in threads for side in ("old", "new")] + scripts
            shift = k % len(runs)
            k += 1
            got = {}
            for run in runs[shift:] + runs[:shift]:  # interleaved: the order rotates
                got[run] = (
                    _script(run, path, args.cap)
                    if run in scripts
                    else _run(trees[run[0]], path, args.cap, run[1], big_r)
                )
            cells = "".join(f" {got[x][1]:.2f} ({got[x][2]:.2f}) |" for x in scripts)
            for t in threads:
                old, new = got[("old", t)], got[("new", t)]
                against = _against(t, {x: got[x] for x in scripts})
                kinds = {side: against(got[(side, t)]) for side in ("old", "new")}
                for side, kind in kinds.items():
                    if kind in ("slower", "lost"):
                        behind[side].append(f"{path.stem} (threads {t})")
                print(
                    f"| {path.stem} | {t} | {old[1]:.2f} ({old[2]:.2f}) | {new[1]:.2f} "
                    f"({new[2]:.2f}) | {vs._reached(old)} | {vs._reached(new)} | "
                    f"{'yes' if took(new, old) else '-'} |"
                    + cells
                    + (f" {kinds['old']} / {kinds['new']} |" if scripts else ""),
                    flush=True,
                )
                if vs._proved(new) is not None and vs._proved(old) is not None:
                    ratios.append(old[1] / new[1])
                lost = vs._proved(old) is not None and vs._proved(new) is None
                if lost or vs._slower(new[1], old[1]) or vs._slower(new[2], old[2]):
                    slower.append(f"{path.stem} (threads {t})")
    print(f"# load {vs._uptime()} at the end, {time.strftime('%H:%M UTC', time.gmtime())}")
    if ratios:
        mid = statistics.median(ratios)
        print(f"# median old/new wall {mid:.2f} on {len(ratios)} rows both proved")
    print(f"# new slower by more than 10% + 0.1 s, or bounded where old proved: {slower or 'none'}")
    for side in ("old", "new") if scripts else ():
        rows = behind[side]
        print(f"# {side} slower than the scripts or bounded where one proved: {len(rows)} {rows}")
    return 0


def _script(name: str, path: Path, cap: float) -> vs.Timed:
    """One published script of ``vs_published.py``'s ``--workers`` comparisons on ``path``."""
    return vs._timed(vs.script_command(name, path), cap, vs.WORKERS[name])


def _against(threads: int, scripts: dict[str, vs.Timed]):
    """How a run at ``threads`` fared against the scripts of its comparison (``vs.COMPARISONS``:
    one thread against the one-worker scripts, two against the two-worker one) that ran:
    ``vs._outcome``'s kind, or ``-`` when none of them ran."""
    _label, _ours, names = vs.COMPARISONS[0 if threads == 1 else 1]
    mine = {name: got for name, got in scripts.items() if name in names}

    def kind(ours: vs.Timed) -> str:
        return vs._outcome(ours, mine)[0] if mine else "-"

    return kind


if __name__ == "__main__":
    sys.exit(main())
