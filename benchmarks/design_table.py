"""Measured table of `robustgraph design` over a grid of (n, r): designed edges vs the
preferential-attachment construction C(2r-1, 2) + r(n - 2r + 1) and the lower bounds.

Every row is certified by the exact engines (the portfolio unless --engines says otherwise);
the last line is the average ratio designed / construction over the rows. Defaults are the grid
of the design issue (n = 10..30, every r from 2 to ceil(n/2) - 1); CPU is shared, so narrow the
grid and the time budget from the command line:

    python benchmarks/design_table.py --n 10:30 --time-limit 10
    python benchmarks/design_table.py --n 14 --r 4 --time-limit 5 --format markdown
    python benchmarks/design_table.py --n 14 --r 4 --figure docs/img/design_n14_r4.png

Two more tables (issue 43):

    python benchmarks/design_table.py --minima 4:12 --minimal-time-limit 900 --format markdown
        every r per n: the design, then the proven minimum (formula or LRAT certificate,
        checked by our own checker) with its proof time, or the proven bound when time ran out;
    python benchmarks/design_table.py --minima 11 --r 5 --minimal-parts 3 --minimal-time-limit 2400
        the same with each proof written as 2^3 part files (lrat-parts), each within the default
        input budgets where one file is not;
    python benchmarks/design_table.py --minima 12 --r 5 --minimal-climb --minimal-progress
        the same, each level from the closed-form bound up certified before the next, so that
        a run the time limit stops still prints the highest level proven; with
        --minimal-out DIR it writes its pair clauses there when it ends, and a later run with
        --minimal-resume DIR starts from them (where the split does not apply: below);
    python benchmarks/design_table.py --minima 12 --r 3 --minimal-climb --minimal-split on
        each level refuted case by case, one case per degree sequence (a degree-split proof;
        --minimal-split auto, the default, splits from n = 12 on); --minimal-seed all or
        violated seeds each case with the pair clauses of the cases before it; with the split,
        --minimal-out DIR writes each case as soon as it is refuted (DIR/nN_rR.cases/) and
        --minimal-resume DIR takes the cases found there first, so a stopped run resumes;
        a second run on the same DIR with --minimal-reverse takes each level's cases from the
        last, and each run takes up the cases the other stored before it reaches them (two
        processes, one store);
    python benchmarks/design_table.py --minima 4:8 --s all --minimal-time-limit 120
        the same for (r, s)-robustness, every r and s = 2..n (LeBlanc et al. 2013, Def. 7);
    python benchmarks/design_table.py --frontier 20,50,100 --r 2:5 --format markdown
        the design, the best proven lower bound and their ratio, beside the preferential-
        attachment construction (PA) and the gamma-MERG (defined at r = ceil(n/2) only);
    python benchmarks/design_table.py --random-starts 20,50 --r 2:5 --time-limit 12
        the same local search from random 2r-regular graphs, against the design;
    python benchmarks/design_table.py --search-time 20,50 --r 2,3 --search-times 20,60,180
        certified design edges against the search's time limit, interleaved per seed;
    python benchmarks/design_table.py --sat-search 20:2:31 --hubs 4 --middle 4 --case-time-limit 60
        the minimality prover's SAT loop as a search, one degree sequence at a time (at most
        --hubs degrees >= r + 2, --middle degrees r + 1, the rest r): per case an r-robust
        graph (then certified by the portfolio) or a checked refutation or a time-out;
        --light or --no-leaf-edges: the lighter CNF, whose "no model" is unchecked; --degrees
        '7 7 7 7 3 3;...' only these cases (the degrees above r).

Not part of the test run.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

from robustgraph import io
from robustgraph.certificate.proofs import minimality as mp
from robustgraph.design import bounds, design
from robustgraph.design.common import to_topology
from robustgraph.design.minimum import SPLIT_FROM, MinimumResult, overflow, prove_minimum
from robustgraph.design.starts import construction
from robustgraph.generators import gamma_merg_edge_count, max_robustness
from robustgraph.topology import Topology


def _span(text: str) -> list[int]:
    """``10:30`` (inclusive), ``14`` or ``10,12,14``."""
    if ":" in text:
        lo, hi = text.split(":")
        return list(range(int(lo), int(hi) + 1))
    return [int(x) for x in text.split(",")]


def grid(ns: list[int], rs: list[int] | None) -> list[tuple[int, int]]:
    """(n, r) pairs: every r in 2..ceil(n/2) - 1, or the given rs where they fit."""
    cells = []
    for n in ns:
        top = math.ceil(n / 2) - 1
        for r in rs if rs else range(2, top + 1):
            if 1 <= r <= math.ceil(n / 2):
                cells.append((n, r))
    return cells


def figure(path: str, n: int, r: int, designed: Topology) -> None:
    """Draw the construction and the designed graph side by side (nodes of degree above r on an
    inner ring, the rest outside), with their edge counts."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import networkx as nx

    reference = to_topology(construction(n, r), False)
    fig, axes = plt.subplots(1, 2, figsize=(10, 5))
    for ax, (title, topo) in zip(
        axes, [("construction", reference), ("designed", designed)], strict=True
    ):
        g = topo.to_networkx()
        deg = dict(g.degree())
        inner = [v for v in g if deg[v] > r]
        outer = [v for v in g if deg[v] <= r]
        pos = nx.shell_layout(g, [inner, outer] if inner and outer else None)
        nx.draw_networkx_edges(g, pos, ax=ax, alpha=0.35, width=0.8)
        nx.draw_networkx_nodes(
            g, pos, ax=ax, node_size=160, node_color=[deg[v] for v in g], cmap="viridis"
        )
        ax.set_title(f"{title}: {topo.m} edges, {r}-robust (n = {n})")
        ax.set_axis_off()
    fig.suptitle("colour: degree; inner ring: degree above r", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _print_row(row: list, fmt: str) -> None:
    if fmt == "markdown":
        print("| " + " | ".join(str(x) for x in row) + " |", flush=True)
    else:
        print(" ".join(f"{x!s:>12}" for x in row), flush=True)


def _print_header(header: list[str], fmt: str) -> None:
    if fmt == "markdown":
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
    else:
        print(" ".join(f"{h:>12}" for h in header))


def _minimum_cell(proof: MinimumResult) -> tuple[str, str]:
    """The minimum (or ``[bound, design]``) and how it was proven, for the --minima tables;
    ``lrat, budgets raised`` (or ``lrat-parts, ...``) when a proof file is over the default input
    budgets, so that it checks only with them raised (the run's environment raised them)."""
    if not proof.minimum:
        return f"[{proof.lower_bound}, {proof.edges}]", "bound only"
    kind = proof.document["proof"]
    if kind["kind"] == "formula":
        return str(proof.edges), kind["formula"]
    over = any(overflow(data, default=True) > 1 for data in proof.files.values())
    return str(proof.edges), f"{kind['kind']}, budgets raised" if over else kind["kind"]


def _write_pair(folder: Path, stem: str, topology: Topology, proof: MinimumResult) -> None:
    """With --minimal-out: the design as ``STEM.json`` and its bound's certificate (with its
    proof files) as ``STEM.min.json``, for ``robustgraph verify STEM.min.json STEM.json``."""
    folder.mkdir(parents=True, exist_ok=True)
    io.write(topology, str(folder / f"{stem}.json"))
    proof.dump(folder / f"{stem}.min.json")
    (folder / f"{stem}.pairs.gz").write_bytes(mp.write_pairs(proof.clauses))


def _splits(n: int, r: int, args: argparse.Namespace) -> bool:
    """Whether prove_minimum splits this cell by degree sequence (its ``split`` rule)."""
    chosen = {"auto": n >= SPLIT_FROM, "on": True, "off": False}[args.minimal_split]
    return chosen and r >= 2 and not (args.minimal_parts or args.minimal_cubes)


def _resume(n: int, r: int, args: argparse.Namespace) -> dict:
    """The options of prove_minimum that --minimal-out, --minimal-resume and --minimal-seed
    give: with the split, the seeding and the case store (the resume folder, else the out
    folder); without it, the pair clauses a stopped run wrote to DIR/nN_rR.pairs.gz."""
    if _splits(n, r, args):
        return {"seed": args.minimal_seed, "store": args.minimal_resume or args.minimal_out,
                "reverse": args.minimal_reverse}
    path = Path(args.minimal_resume or "") / f"n{n}_r{r}.pairs.gz"
    if not args.minimal_resume or not path.is_file():
        return {}
    return {"known": mp.parse_pairs(path.read_bytes(), str(path))}


def _progress(n: int, r: int, args: argparse.Namespace):
    """With --minimal-progress, a printer of prove_minimum's progress lines to stderr."""
    if not args.minimal_progress:
        return None
    return lambda line: print(f"n = {n}, r = {r}: {line}", file=sys.stderr, flush=True)


def minima(ns: list[int], args: argparse.Namespace) -> int:
    """For every n and r = 1..ceil(n/2): design, then prove the count minimal (or find fewer)."""
    _print_header(["n", "r", "design", "minimum", "proof", "pairs", "proof_s", "proof_cpu_s",
                   "design_s"], args.format)
    unproven = 0
    for n in ns:
        for r in range(1, max_robustness(n) + 1):
            if args.r and r not in _span(args.r):
                continue
            res = design(n, r, time_limit=args.time_limit, seed=args.seed, certify_result=False)
            t0, c0 = time.monotonic(), time.process_time()
            proof = prove_minimum(n, r, res.edges, time_limit=args.minimal_time_limit,
                                  cubes=args.minimal_cubes, parts=args.minimal_parts,
                                  climb=args.minimal_climb, progress=_progress(n, r, args),
                                  **_resume(n, r, args),
                                  split={"auto": None, "on": True, "off": False}[
                                      args.minimal_split])
            seconds, cpu = time.monotonic() - t0, time.process_time() - c0
            if args.minimal_out:
                _write_pair(Path(args.minimal_out), f"n{n}_r{r}", res.topology, proof)
            value, how = _minimum_cell(proof)
            unproven += not proof.minimum
            row = [n, r, res.edges, value, how, proof.pairs, f"{seconds:.1f}", f"{cpu:.1f}",
                   f"{res.seconds:.1f}"]
            if args.format == "jsonl":
                print(json.dumps({"n": n, "r": r, "design": res.edges, "minimum": proof.edges,
                                  "lower_bound": proof.lower_bound, "proven": proof.minimum,
                                  "proof": how, "pairs": proof.pairs,
                                  "proof_seconds": round(seconds, 2),
                                  "proof_cpu_seconds": round(cpu, 2), "note": proof.note}),
                      flush=True)
            else:
                _print_row(row, args.format)
    return 0 if unproven == 0 else 1


def minima_rs(ns: list[int], args: argparse.Namespace) -> int:
    """For every n, r = 1..ceil(n/2) and s = 2..n: design an (r, s)-robust graph, then prove its
    count minimal (or find fewer): the (r, s) part of ``--minima``."""
    _print_header(["n", "r", "s", "design", "minimum", "proof", "pairs", "proof_s",
                   "proof_cpu_s"], args.format)
    unproven = 0
    for n in ns:
        for r in range(1, max_robustness(n) + 1):
            for s in range(2, n + 1):
                res = design(n, r, s=s, time_limit=args.time_limit, seed=args.seed,
                             certify_result=False)
                t0, c0 = time.monotonic(), time.process_time()
                proof = prove_minimum(n, r, res.edges, s=s, time_limit=args.minimal_time_limit)
                seconds, cpu = time.monotonic() - t0, time.process_time() - c0
                value, how = _minimum_cell(proof)
                unproven += not proof.minimum
                if args.format == "jsonl":
                    print(json.dumps({"n": n, "r": r, "s": s, "design": res.edges,
                                      "minimum": proof.edges, "lower_bound": proof.lower_bound,
                                      "proven": proof.minimum, "proof": how,
                                      "pairs": proof.pairs, "proof_seconds": round(seconds, 2),
                                      "proof_cpu_seconds": round(cpu, 2),
                                      "note": proof.note}), flush=True)
                else:
                    _print_row([n, r, s, res.edges, value, how, proof.pairs, f"{seconds:.1f}",
                                f"{cpu:.1f}"], args.format)
    return 0 if unproven == 0 else 1


def frontier(ns: list[int], rs: list[int], args: argparse.Namespace) -> int:
    """The design against the best proven lower bound, beside PA and the gamma-MERG.

    ``certified_lower`` is the bound the design's minimality certificate (NAME.min.json)
    states, ``proven_lower`` the best bound of docs/theory.md section 4
    (:func:`robustgraph.design.bounds.lower_bound`), and ``bound`` names it; the checker of
    minimality certificates knows every such bound as a formula, so the two are equal.
    """
    _print_header(["n", "r", "design", "certified_lower", "proven_lower", "bound", "ratio", "PA",
                   "gamma-MERG", "start", "search_s", "certified"], args.format)
    for n in ns:
        for r in rs:
            res = design(n, r, time_limit=args.time_limit, seed=args.seed,
                         certify_time_limit=args.certify_time_limit)
            named = bounds.proven_bounds(n, r)
            best = max(named, key=named.__getitem__)
            merg = gamma_merg_edge_count(n) if r == max_robustness(n) else "-"
            row = [n, r, res.edges, res.lower_bound, named[best], best,
                   f"{res.edges / named[best]:.3f}", res.construction, merg, res.start,
                   f"{res.seconds:.1f}", res.certificate.verdict if res.certificate else "-"]
            if args.format == "jsonl":
                print(json.dumps({**res.to_dict(), "proven_lower": named[best], "bound": best}),
                      flush=True)
            else:
                _print_row(row, args.format)
    return 0


def search_time(ns: list[int], rs: list[int], args: argparse.Namespace) -> int:
    """Edges against search time (issue 43): ``design`` with each time limit of
    ``--search-times``, interleaved per (seed, n, r) so that every budget meets the same load,
    seeds ``--seed`` .. ``--seed + --seeds - 1``. Every row is certified; ``used_s`` is the
    search time actually used (a search that stalls stops early)."""
    limits = [float(x) for x in args.search_times.split(",")]
    _print_header(["n", "r", "seed", "time_limit", "design", "start", "used_s", "certified"],
                  args.format)
    for seed in range(args.seed, args.seed + args.seeds):
        for n in ns:
            for r in rs:
                for limit in limits:
                    res = design(n, r, time_limit=limit, seed=seed,
                                 certify_time_limit=args.certify_time_limit)
                    _print_row([n, r, seed, f"{limit:g}", res.edges, res.start,
                                f"{res.seconds:.1f}",
                                res.certificate.verdict if res.certificate else "-"],
                               args.format)
    return 0


def random_starts(ns: list[int], rs: list[int], args: argparse.Namespace) -> int:
    """Evidence for docs/design.md ("Which side is loose?"): the same certified local search
    started from random 2r-regular graphs (networkx, seeds 0..seeds-1) that the exact oracle
    proves r-robust, instead of from the hub designs. Prints the edges reached per seed
    ('x': the oracle found a witness, or no answer within --time-limit) and the design's count
    with the same budget.
    The graphs are proven r-robust by the oracle at every step, not certified."""
    import random

    import networkx as nx

    from robustgraph.design.oracle import find_pair
    from robustgraph.design.search import DesignGraph, Moves, local_search

    _print_header(["n", "r", "degree", "from_random", "design"], args.format)
    for n in ns:
        for r in rs:
            reached = []
            for seed in range(args.seeds):
                masks = [0] * n
                for u, v in nx.random_regular_graph(2 * r, n, seed=seed).edges():
                    masks[u] |= 1 << v
                    masks[v] |= 1 << u
                limit = time.monotonic() + args.time_limit
                if find_pair(masks, r, budget=2_000_000, deadline=limit) is not None:
                    reached.append("x")  # a witness, or undecided in the time
                    continue
                graph = DesignGraph(masks, Moves(r, False))
                stop = time.monotonic() + args.time_limit
                local_search(graph, random.Random(seed), deadline=stop)
                reached.append(str(graph.count()))
            res = design(n, r, time_limit=args.time_limit, seed=args.seed, certify_result=False)
            _print_row([n, r, 2 * r, " ".join(reached), res.edges], args.format)
    return 0


def sat_search(spec: str, args: argparse.Namespace) -> int:
    """Point 8 of docs/design.md ("Which side is loose?"): an r-robust graph on n nodes with
    ``edges`` edges searched by the counterexample-guided SAT loop over the restricted degree
    sequences (:mod:`robustgraph.design.sat_search`), one case at a time, each within
    --case-time-limit. Prints a row per case (the degrees above r, status, seconds, pair
    clauses, LRAT steps of the checked refutation; --light: "no model" is the solver's word
    about the restricted class, not checked) and a summary; a graph found is certified
    by the portfolio and written to --sat-out if given. Exit 0 when one is found, 1 if not."""
    from robustgraph.design.bounds import check_target
    from robustgraph.design.common import certify_design
    from robustgraph.design.sat_search import (
        restricted_search,
        restricted_sequences,
        search_sequence,
    )
    from robustgraph.errors import ParameterError

    try:
        n, r, edges = (int(x) for x in spec.split(":"))
        check_target(n, r)
        if r < 2:
            raise ParameterError("r must be >= 2")
        cases = list(restricted_sequences(n, r, edges, hubs=args.hubs, middle=args.middle,
                                          top=args.top))
        if args.degrees:
            chosen = [tuple(int(d) for d in part.split()) for part in args.degrees.split(";")]
            chosen = [tuple(sorted(c, reverse=True)) + (r,) * (n - len(c)) for c in chosen]
            cases = [c for c in chosen if c in cases]
            if len(cases) != len(chosen):
                raise ParameterError("--degrees: each case needs degrees > r summing to "
                                     "2 EDGES with the rest r, within --hubs and --middle")
    except (ValueError, ParameterError) as exc:
        print(f"design_table.py: --sat-search N:R:EDGES: {exc}", file=sys.stderr)
        return 2
    if args.order == "balanced":
        cases.sort(key=lambda d: (d[0], d))
    _print_header(["case", "degrees>r", "status", "seconds", "pairs", "steps"], args.format)
    counts: dict[str, int] = {}
    began = time.monotonic()
    for k, degrees in enumerate(cases, 1):
        if args.light or args.no_leaf_edges:
            out = restricted_search(n, r, degrees, time_limit=args.case_time_limit,
                                    leaf_edges=not args.no_leaf_edges)
        else:
            out = search_sequence(n, r, degrees, time_limit=args.case_time_limit)
        status = out.status if out.status in ("robust", "none", "no model") else "stopped"
        counts[status] = counts.get(status, 0) + 1
        _print_row([k, " ".join(str(d) for d in degrees if d > r), status, f"{out.seconds:.1f}",
                    out.pairs, out.steps], args.format)
        if out.masks is not None:
            topology = to_topology(out.masks, False)
            cert = certify_design(topology, r, time_limit=args.certify_time_limit)
            print(f"found: {topology.m} edges, certificate {cert.verdict}", flush=True)
            if args.sat_out:
                io.write(topology, args.sat_out)
            return 0
    print(f"n = {n}, r = {r}, {edges} edges, hubs <= {args.hubs}, degree r + 1 <= "
          f"{args.middle}, degrees <= {args.top or n - 1}: {len(cases)} degree sequences, "
          + ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
          + f", wall {time.monotonic() - began:.0f} s", flush=True)
    return 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--n", default="10:30", help="node counts: 10:30, 14 or 10,20,30")
    ap.add_argument("--r", default=None,
                    help="targets (default: 2..ceil(n/2)-1 per n; with --minima: only these r)")
    ap.add_argument("--time-limit", type=float, default=10.0, help="search seconds per instance")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--engines", default="portfolio", help="certifying engines, comma-separated")
    ap.add_argument("--certify-time-limit", type=float, default=300.0)
    ap.add_argument("--format", choices=["text", "markdown", "jsonl"], default="text")
    ap.add_argument("--figure", default=None, help="PNG of the first cell: construction vs design")
    ap.add_argument("--minima", default=None, help="node counts for the proven-minima table")
    ap.add_argument("--minimal-time-limit", type=float, default=600.0,
                    help="seconds per minimality proof (--minima)")
    ap.add_argument("--minimal-climb", action="store_true",
                    help="with --minima: refute one level at a time from the closed-form bound "
                         "up, so that a run stopped by the time limit keeps the highest level "
                         "it certified")
    ap.add_argument("--minimal-progress", action="store_true",
                    help="with --minima: progress lines (level, pair clauses, candidates/s, CPU) "
                         "on stderr")
    ap.add_argument("--minimal-out", default=None, metavar="DIR",
                    help="with --minima (not --s): write each design and its lower bound's "
                         "certificate to DIR (n{N}_r{R}.json, n{N}_r{R}.min.json), and the "
                         "pair clauses the search held (n{N}_r{R}.pairs.gz); with the split, "
                         "each case as it is refuted (n{N}_r{R}.cases/)")
    ap.add_argument("--minimal-resume", default=None, metavar="DIR",
                    help="with --minima (not --s): start each search from the pair clauses "
                         "an earlier --minimal-out DIR wrote, where there are any; with the "
                         "split, from the cases refuted and stored there (new ones stored too)")
    ap.add_argument("--minimal-seed", choices=["off", "all", "violated"], default="off",
                    help="with the split: seed each case with every pair clause of the cases "
                         "before it (all), or with those its models violate (violated)")
    ap.add_argument("--minimal-reverse", action="store_true",
                    help="with the split and a store: take each level's cases from the last, "
                         "so that this run and one without it share the store's cases")
    ap.add_argument("--minimal-split", choices=["auto", "on", "off"], default="auto",
                    help="split each level's refutation by degree sequence (a degree-split "
                         "proof): auto = from n = 12 on, where it was measured cheaper")
    ap.add_argument("--minimal-cubes", type=int, default=0,
                    help="with --minima: refute each CNF by cube and conquer on 2^K cubes "
                         "(design/minimum_cubes.py; 0: one CaDiCaL run)")
    ap.add_argument("--minimal-parts", type=int, default=0,
                    help="with --minima: write each proof as 2^K part files, one per cube on K "
                         "edge variables (an lrat-parts proof, each part within the budgets)")
    ap.add_argument("--s", default=None, choices=["all"],
                    help="with --minima: the (r, s) table, every s = 2..n")
    ap.add_argument("--frontier", default=None, help="node counts for the gap table")
    ap.add_argument("--random-starts", default=None,
                    help="node counts: local search from random 2r-regular graphs vs the design")
    ap.add_argument("--seeds", type=int, default=3,
                    help="random graphs per cell (--random-starts), seeds per cell (--search-time)")
    ap.add_argument("--search-time", default=None,
                    help="node counts: certified design edges against --search-times")
    ap.add_argument("--search-times", default="20,60,180",
                    help="comma-separated search time limits (--search-time)")
    ap.add_argument("--sat-search", default=None, metavar="N:R:EDGES",
                    help="the SAT loop as a search for an r-robust graph with EDGES edges")
    ap.add_argument("--hubs", type=int, default=4, help="--sat-search: most degrees >= r + 2")
    ap.add_argument("--middle", type=int, default=4, help="--sat-search: most degrees r + 1")
    ap.add_argument("--case-time-limit", type=float, default=60.0,
                    help="--sat-search: seconds per degree sequence")
    ap.add_argument("--order", choices=["lex", "balanced"], default="lex",
                    help="--sat-search: descending lexicographic, or smallest top degree first")
    ap.add_argument("--light", action="store_true",
                    help="--sat-search: the light CNF (no proof: 'no model' is unchecked)")
    ap.add_argument("--no-leaf-edges", action="store_true",
                    help="--sat-search: the light CNF without edges between degree-r nodes")
    ap.add_argument("--top", type=int, default=None, help="--sat-search: the largest degree")
    ap.add_argument("--degrees", default=None,
                    help="--sat-search: only these cases, e.g. '7 7 7 7 3 3;8 7 7 6 3 3' "
                         "(the degrees above r; the rest are r)")
    ap.add_argument("--sat-out", default=None, help="--sat-search: write a graph found here")
    args = ap.parse_args(argv)
    if args.sat_search:
        return sat_search(args.sat_search, args)
    if args.minima:
        if args.s:
            return minima_rs(_span(args.minima), args)
        return minima(_span(args.minima), args)
    if args.random_starts:
        return random_starts(_span(args.random_starts),
                             _span(args.r) if args.r else [2, 3, 4, 5], args)
    if args.search_time:
        return search_time(_span(args.search_time), _span(args.r) if args.r else [2, 3], args)
    if args.frontier:
        return frontier(_span(args.frontier), _span(args.r) if args.r else [2, 3, 4, 5], args)

    cells = grid(_span(args.n), _span(args.r) if args.r else None)
    engines = tuple(e.strip() for e in args.engines.split(",") if e.strip())
    header = [
        "n",
        "r",
        "construction",
        "designed",
        "ratio",
        "lower",
        "start",
        "search_s",
        "certify_s",
        "certified",
    ]
    if args.format == "markdown":
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
    elif args.format == "text":
        print(" ".join(f"{h:>12}" for h in header))
    ratios, certified = [], 0
    began = time.monotonic()
    for n, r in cells:
        res = design(
            n,
            r,
            time_limit=args.time_limit,
            seed=args.seed,
            engines=engines,
            certify_time_limit=args.certify_time_limit,
        )
        if args.figure and (n, r) == cells[0]:
            figure(args.figure, n, r, res.topology)
        ratio = res.edges / res.construction
        ratios.append(ratio)
        certified += res.certified
        row = [
            n,
            r,
            res.construction,
            res.edges,
            f"{ratio:.3f}",
            res.lower_bound,
            res.start,
            f"{res.seconds:.1f}",
            f"{res.certify_seconds:.1f}",
            res.certificate.verdict if res.certificate else "-",
        ]
        if args.format == "markdown":
            print("| " + " | ".join(str(x) for x in row) + " |", flush=True)
        elif args.format == "jsonl":
            print(json.dumps(res.to_dict()), flush=True)
        else:
            print(" ".join(f"{x!s:>12}" for x in row), flush=True)
    mean = sum(ratios) / len(ratios) if ratios else float("nan")
    summary = (
        f"{len(cells)} instances, average designed/construction = {mean:.4f}, "
        f"certified {certified}/{len(cells)}, wall {time.monotonic() - began:.0f} s"
    )
    print(summary if args.format != "jsonl" else json.dumps({"summary": summary}))
    return 0 if certified == len(cells) else 1


if __name__ == "__main__":
    sys.exit(main())
