"""The default engine: cheap proven bounds first, an exact engine only for the remaining gap.

One module: its steps share one deadline, one progress record and the lane's life cycle, and
the order of the steps is the engine; split apart, each part would take that state as arguments.

Order of work for r* (each step only if the question is still open and time is left):

Above :data:`LARGE_N` nodes, questions get the linear-size bounds of
:func:`solvers.search.linear_r` (s*_r: the witnesses of :func:`solvers.search.linear_s`) only;
an r question then spends the rest of its deadline on the local witness search and the
extension bound (:func:`solvers.search.spend_large`). Otherwise:

0. the core search (``solvers.cores``: branch and bound, plain Python, no numpy) for up to
   :data:`CORES_SECONDS` of CPU (less for small, large, dense and regular graphs:
   ``_cores_budget``; above :data:`CORES_LONG_N` nodes its probes bisect over k,
   :data:`CORES_BISECT_RULE`), up to :data:`CORES_MAX_N` nodes: it answers every sparse
   irregular graph of the benchmarks up to 100 nodes and most dense ones up to 40, importing no
   numpy and no solver; otherwise its proven bounds and witness go on to the next steps;
1. the exhaustive subset DP when n <= :data:`EXHAUSTIVE_N` (exact, under half a second;
   :data:`EXHAUSTIVE_S_N` for s*_r);
2. the quick bounds of :func:`solvers.search.quick_r`: rooted check (exact for r* = 0),
   degree and halves witnesses, the circulant lower bound (:mod:`solvers.circulant`: r* of
   C_100(1..16) in 0.1 s, where every model and the core search took 8 s or more), the
   spectral lower bound;
3. while the upper bound is at most :data:`PUBLISHED_MAX_UPPER` (:data:`LANE_MAX_UPPER` when
   the in-degrees all equal: :func:`_published_max_upper`; above it, the heuristic witness
   search first, :data:`HEURISTIC_FIRST_RULE`), slices of the published model
   (Usevitch & Panagou 2020), :data:`HIGHS_SLICE` seconds on HiGHS, then
   :data:`PUBLISHED_SLICE` on CP-SAT, each told the bounds and the witness so far
   (:func:`solvers.search.published_slice`):
   it settles sparse and low-r* graphs far sooner than the strong model (ER(40, 0.3): about
   1 s against over 100 s), so the portfolio is never much slower than the published model;
4. the dearer bounds of :func:`solvers.search.more_r`: extension lower bound, vertex-cut and
   heuristic witnesses (the heuristic only if step 3 did not run it);
5. the strong decision model on the best available model engine (CP-SAT, else HiGHS, else
   CBC), probing at the upper bound, with the time left; with ``threads >= 2``, a race
   (``solvers.race``): CP-SAT and HiGHS on the strong loop, one core each, sharing bounds, the
   first proof wins; under a time limit a stalled top probe hands over to the long witness
   search and probes from below, as with one thread (``solvers.search``), so a time-out
   reports bounds as tight.

With two or more threads, an r question above the subset DP's range (and up to :data:`LARGE_N`
nodes) whose least in-degree is at most :data:`LANE_MAX_UPPER` also gets the published model on
CP-SAT (one worker, the rest of the time limit) in a child process (``solvers.lane``): on a
two-core machine it runs on the second core while steps 2-5 run on the first with one thread
fewer. The published model never runs twice at once: in step 3 the first core runs no slice
of it and waits for the lane instead. An undirected 4-regular graph above :data:`CORES_LONG_N`
nodes gets neither the core search nor a lane: its hinted CP-SAT slice runs here with every
thread (:data:`FOUR_REGULAR_RULE`). A graph that skips the core search for its symmetry
(:func:`_symmetric`) starts the lane after the quick bounds, told the upper bound and hinted
with its pair; its child process is started before them (:data:`LANE_WARM_RULE`), and the
first core runs the published model as printed beside it when the machine has a core to spare
(:data:`BESIDE_LANE_RULE`); with one thread such a graph's published slice is cut into a short
printed window and a least-first rest (:data:`SWITCH_RULE`; at degree 10 and more above 64
nodes a long printed window, :data:`WIDE_SWITCH_RULE`). A lane started at once
is dropped after half a second on a machine with no core to spare (:data:`LANE_BUSY_RULE`). When the
first core's steps end with the question open and time left, the lane
keeps that time (``lane-rest``). The first side to prove r* wins: the lane's proof halts the
first core (``Progress.halt``, and a stop for its running solve); the first core's ends the
lane. Issue 32's random 8-regular graph
on 60 nodes: the published model on CP-SAT proves r* = 4 in 2.4-2.8 s, the sequence alone took
11.3 s. The lane's pair is checked and only its proven dual bound is kept, as for every model.

For s*_r: exhaustive for small n, otherwise the core search's decision of r-robustness
(s*_r >= 1, or s*_r = 0 with its pair; skipped when ``Request.known_lower`` already proves
s*_r >= 1, as ``robustness --rs R`` tells it once r* >= R is proven: ``solvers.after_r``),
heuristic pairs (:data:`POOL_S_RULE`), a 0.3 s head of the published (r, s) slice below, the core
search with exception nodes climbing from a proven s*_r >= 1 where the bounds are at most two
apart and while a level is affordable (:data:`CORES_S_RULE`, ``solvers.cores_s``), the
published (r, s) model on CP-SAT for half the time left (:data:`PUBLISHED_S_SHARE`; its swap
symmetry broken, :data:`LEAST_FIRST_S_RULE`; with two threads the model as printed beside it for
:data:`BOTH_S_WINDOW` seconds from :data:`BOTH_S_DELAY` on, :data:`BOTH_S_RULE`; told
``s <= upper``, the search ended by a pair that meets the proven lower bound) and the strong
(r, s) model. Every bound is proven, every
witness checked; on a time limit the result is ``bounded``. No solver package is imported before
a model is solved.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from solvers import cores, idle
from solvers import lane as lane_module
from solvers.interrupt import StopSignal
from solvers.types import Question, Request, Result, Status, Witness

if TYPE_CHECKING:
    import subprocess

    from solvers import search

__all__ = [
    "NAME",
    "CORES_MAX_N",
    "CORES_SECONDS",
    "CORES_LARGE_N",
    "CORES_LONG_N",
    "CORES_DENSE",
    "CORES_SHORT_SECONDS",
    "CORES_GLANCE_SECONDS",
    "CORES_REGULAR_DEGREE",
    "CORES_BISECT_RULE",
    "FOUR_REGULAR_RULE",
    "LANE_WARM_RULE",
    "BESIDE_LANE_RULE",
    "BESIDE_LANE_BUSY",
    "LANE_BUSY_RULE",
    "LANE_BUSY_AFTER",
    "SWITCH_RULE",
    "KIN_LEAST_FIRST_RULE",
    "SWITCH_SLICES",
    "WIDE_SWITCH_RULE",
    "WIDE_DEGREE",
    "WIDE_PRINTED_SHARE",
    "WIDE_HEAD_WORK",
    "WIDE_HEAD_BELOW",
    "WIDE_LANE_RULE",
    "AFTER_WAIT_RULE",
    "AFTER_WAIT_LOWER_SECONDS",
    "AFTER_WAIT_LS_SECONDS",
    "WALK_PROBE_RULE",
    "WALK_LANE_RULE",
    "WALK_BUSY_RULE",
    "WALK_WIDE_RULE",
    "WALK_WIDE_SECONDS",
    "WALK_BUSY_SECONDS",
    "WALK_LANE_AFTER",
    "WALK_LANE_SECONDS",
    "WALK_SECONDS",
    "PROBE_SECONDS",
    "WALK_ROUNDS",
    "WALK_CPU_RULE",
    "WALK_WALL_FACTOR",
    "WALK_MAX_DEGREE",
    "LEAST_FIRST_S_RULE",
    "BOTH_S_RULE",
    "BOTH_S_WINDOW",
    "BOTH_S_DELAY",
    "BOTH_S_MIN_R",
    "POOL_S_RULE",
    "LEAST_FIRST_RULE",
    "EXHAUSTIVE_N",
    "EXHAUSTIVE_S_N",
    "PUBLISHED_MAX_UPPER",
    "HEURISTIC_FIRST_RULE",
    "LARGE_N",
    "HIGHS_SLICE",
    "PUBLISHED_SLICE",
    "REGULAR_SHARE",
    "REGULAR_ALONE_SHARE",
    "REGULAR_SLICE",
    "PUBLISHED_S_SLICE",
    "PUBLISHED_S_SHARE",
    "PUBLISHED_S_WORKERS",
    "CORES_S_RULE",
    "CORES_S_HEAD",
    "CORES_S_SECONDS",
    "CORES_S_SHARE",
    "CORES_S_MAX_SETS",
    "CORES_S_MAX_GAP",
    "LANE_MAX_UPPER",
    "available",
    "solve",
    "exact_backend",
]

NAME = "portfolio"

EXHAUSTIVE_N = 25
"""Up to this many nodes the subset DP answers outright (r* of a 25-node graph: about 0.4 s)."""

EXHAUSTIVE_S_N = 23
"""Up to this many nodes the subset DP answers s*_r questions (above, the path of the larger
graphs: the core search's r-robustness, heuristic pairs, the published (r, s) slice, the strong
loop). Issue 40, at r = r* on ER graphs and digraphs (one run each, load 8): at 24-25 nodes the
DP took 0.56-1.7 s where that path took 0.02-0.25 s (the published (r, s) model alone
0.08-0.5 s); at 23 nodes (ER(23, 1/2)) the DP 0.25 s, the path 0.57 s."""

HIGHS_SLICE = 1.5
"""Seconds the published model gets on HiGHS first (cheap to start; settles sparse graphs)."""

CORES_MAX_N = 500
"""Above this many nodes (:data:`LARGE_N`) the core search is not tried. Up to 100 nodes it
proved r* of 32 of the 36 structured graphs of ``benchmarks/vs_published.py`` at n = 80-100 in
0.001-0.18 s (random 4-regular seed 1001: 0.9 s), where the best published script took
0.2-1.9 s; at 200-500 nodes it proved r* of PA (r = 3) and 2-D grids, and of random geometric
graphs of radius 0.15 at 200 and 300 nodes, in 0.003-0.02 s, and settled none of Watts-Strogatz
(k = 6), random 4-regular, or the random geometric graph on 500 nodes in 3 s (2026-12-02)."""

CORES_SECONDS = 6.0
"""CPU seconds the core search may take from 26 to :data:`CORES_LONG_N` nodes: it proves r* of
ER(40, 1/2) and digraph G(40, 1/2) in 0.3-1.6 s where the strong model on CP-SAT takes 3-10 s,
digraph G(40, 0.3) seed 1003 (r* = 7) in about 5.5 s, where no model proved it in 30 s, and
ER(50, 0.35), digraph G(50, 0.2) and G(60, 0.2) (seed 1001) in 1.6-2.1 s, where the best
published script took 1.4-8.5 s."""

CORES_LONG_N = 64
"""Above this many nodes the core search gets :data:`CORES_SHORT_SECONDS` only."""

CORES_LARGE_N = 48
"""Above this many nodes dense graphs get :data:`CORES_GLANCE_SECONDS` only
(:data:`CORES_DENSE`) and regular ones of a degree above :data:`CORES_REGULAR_DEGREE` none."""

CORES_DENSE = 0.4
"""Above :data:`CORES_LARGE_N` nodes a graph that holds more than this share of the n (n - 1)
arcs gets :data:`CORES_GLANCE_SECONDS` only: the tree of dense ER(50-60, p >= 1/2) is far too
big, but the core search proves r* of gamma-MERG and K_{n/3, 2n/3} of 80-100 nodes in
0.005-0.03 s, where the best published script took 1.6-4.7 s."""

CORES_REGULAR_DEGREE = 4
"""Above :data:`CORES_LARGE_N` nodes an undirected regular graph of a higher degree skips the
core search: it settled none of the random 8-regular or k-circulant graphs (k = n/6) of 80-100
nodes in 3 s (random 4-regular: 3 of 4 in 0.01-0.9 s), and the 0.25 s it spent there delayed
the hinted published slice that settles them (``_published_slices``), and changed its hint:
on the random 8-regular graph on 80 nodes of networkx seed 1002, 17 s instead of 0.6 s."""

CORES_BISECT_RULE = "above CORES_LONG_N nodes: the core search bisects over k for r*"
"""Issue 40, round 13 (i43a): an r* question on more than :data:`CORES_LONG_N` nodes (core
budget :data:`CORES_SHORT_SECONDS`) runs the core search's probes at the middle of its bounds
(``cores.search_r``'s ``bisect``) instead of from the degree bound down. Round 12's one-worker
row ``sbm-80-3-p0.6-q0.05-7122`` (three blocks, r* = 6, degree bound 11): the search for a pair
at k = 10 alone took 0.93 s, every other k 0.001-0.13 s (k = 6: 0.02 s; none at k = 5: 0.13 s),
so the 0.5 s budget ran out with [0, 11], and ``--threads 1`` took 0.97 s (the heuristic pair
and the published slice then proved r* = 6) against the one-worker script's 0.43 s. On scratch
stochastic block models (seeds 7501-7506, n = 60, 80, 100; 2, 3 and 4 blocks; p/q = 0.5/0.05,
0.6/0.05, 0.5/0.1, 0.7/0.05; 72 graphs, the core search alone, 3 s each, load 4;
docs/performance.md, "Issue 40, round 13: one thread on stochastic block models (i43a)") the
bisecting search was the faster on 11 of the 12 three-block p = 0.6 graphs above 64 nodes
(e.g. 0.54 -> 0.02 s, 1.6 -> 0.37 s, unsettled in 3 s -> 0.22 s; the twelfth +0.004 s), within
0.013 s on the other shapes' graphs it settled, and left unsettled none that the descending
search settled. Whole commands, held out (seeds 7507-7510 and the family list at 7507, main
against this rule, registered before they ran): ``--threads 1`` slower than the one-worker
script on 7 rows against main's 9, slower than main on one family-list row (bounded on both
sides). Up to :data:`CORES_LONG_N` nodes the
search keeps its order: there its budget is :data:`CORES_SECONDS`, and on the rows it leaves
open (ER(50, 0.35-0.5)) the descending order's upper bound was the lower (9 against 11)."""

LEAST_FIRST_RULE = "in-degrees all equal: the published model on CP-SAT with least_first"
"""Issue 40, round 4: on a graph whose in-degrees all equal (:func:`_in_regular`) the published
model on CP-SAT (the slice, :func:`_published_slices`, and the lane, :func:`_start_lane`) has the
S1/S2 swap symmetry broken (``milp_model.least_first``): CP-SAT finds the optimum of such a graph
at once and spends its time proving the lower bound, where the swap doubles the search.
Scratch seeds 7231-7240 (one worker, the hinted model alone; docs/performance.md, "Issue 40,
round 4"): random 6-regular graphs of 80 nodes 12.6 -> 7.2 s in all (faster on 7 of 8),
``generate k-in`` n = 60, k = 10 12.5 -> 8.4 s (5 of 6), random 8-regular graphs of 60 nodes
8.9 -> 6.0 s (3 of 4). Other graphs keep the published model as
printed (not measured with it; HiGHS neither)."""

LANE_WARM_RULE = "a graph that skips the core search: the lane's child starts before the bounds"
"""Issue 40, round 5: with two threads, the lane of a graph that skips the core search
(:func:`_symmetric`: regular graphs of a degree above :data:`CORES_REGULAR_DEGREE` and k-in
digraphs above :data:`CORES_LARGE_N` nodes) waits for the quick bounds, which it is told, so
its child process (``lane.spawn``) is started first, at the top of :func:`_solve`: its
interpreter and CP-SAT import run beside this process's bounds instead of after them
(:func:`_hinted_lane`). On scratch graphs (random 6-regular, n = 80, and a k-in digraph, n = 80,
k = 10, seeds 7261-7290) this process had used 0.09 s of CPU when :func:`_solve` started and 0.16 s
when the lane was started, and the child needs 0.17-0.19 s of CPU to import CP-SAT: on two free
cores about 0.07 s comes off the wall time; on a busy machine (load 6) no change was measured
(docs/performance.md, "What changed in round 5"). Round 7: the child imports no numpy
(``milp_model.laplacian_row``): its start-up took 0.14 s of wall and 0.11 s of CPU instead of
0.27 s and 0.19 s (median of 12 each, load 2.7): ready about 0.1 s sooner."""

BESIDE_LANE_RULE = "a graph that skips the core search, two threads: the printed model beside"
"""Issue 40, round 6: with two threads, a graph that skips the core search (:func:`_symmetric`)
has its lane run the published model on CP-SAT told the quick bounds, hinted with their pair and
least-first (:data:`LEAST_FIRST_RULE`); the first core, which until round 5 waited idle for it
(:data:`REGULAR_SHARE` of the time left), spends that wait on the published model exactly as
printed (``milp_model.published_r``: no bound, no hint, no symmetry broken; one CP-SAT worker, in
a thread at nice 19: ``solvers.idle``), a second, different configuration of the model, when the
machine has a core to spare (:data:`BESIDE_LANE_BUSY`), then waits for the lane only for what is
left of it. The first proof wins. CP-SAT's time on the two configurations differs by up to 8x
either way from graph to graph (round 6, scratch seeds 7291-7310, the model alone, one worker:
random 10-regular, n = 60, the lane's configuration 5.4 s where the printed one took 1.3 s on
seed 7293, 2.7 s against 7.7 s on 7292), so on a free core the two together take about the
smaller of the two. Round 8: the printed model starts as soon as the lane does (it waited 1 s
for the lane until round 7, to measure the machine meanwhile; ``idle.CpuSample`` now measures
it over the quick bounds, this process and the child not counted): at the round-7 test seed the
idle two-thread row of a random 10-regular graph on 80 nodes (r* = 4) took 1.59 s against the
two-worker script's 0.68 s, and a second solve that starts after 1 s cannot beat that
(docs/performance.md, "Issue 40, round 8 (i40w)")."""

BESIDE_LANE_BUSY = 0.5
"""At most this many cores kept busy by other processes (on average, from the lane's child's
spawn to the end of the quick bounds, ``idle.CpuSample``) for :data:`BESIDE_LANE_RULE`'s second
solve to start: on an idle two-core machine the others keep about 0 busy, with a second
benchmark beside it about 1 or more. At nice 19 the second solve still took 0.26-0.64 CPU s from
the lane on a busy machine (round 6, scratch, load 2.2-3.7: 4-34% slower on the 5 hard rows both
settled; docs/performance.md)."""

LANE_BUSY_RULE = "two threads, a lane started at once: dropped when no core is to spare"
"""Issue 40, round 8: a lane started beside the core search (every graph with a lane but those
of :func:`_symmetric`) is stopped after :data:`LANE_BUSY_AFTER` seconds, unless it has proven
r*, when other processes kept more than :data:`BESIDE_LANE_BUSY` cores busy meanwhile
(``idle.CpuSample``; this process and the child not counted): the first core then runs the
published slices itself (step ``lane-dropped``), as ``--threads 1`` does. With a second busy
session the kernel gives this one about one core (autogroups, docs/performance.md "The
machine"), which the lane and the first core then split, each at half speed: at the round-7
test seed, ER(50, 0.35) beside a second benchmark ended bounded [6, 8] at 10 s with two threads
where ``--threads 1`` proved r* in 6.18 s. On scratch seeds 7351-7354 (ER graphs and digraphs,
n = 50, p = 0.35, the harness's five commands, machine at load 5.5-6.2 from other sessions;
docs/performance.md, "Issue 40, round 8 (i40w)") ``--threads 1`` proved r* on 3 rows where two
threads ended bounded at 10 s (1.57, 7.33 and 2.10 s), two threads beat one on none; both used
about the same CPU time (4.3-5.3 s in 9.5-9.6 s of wall on the rows both left bounded)."""

LANE_BUSY_AFTER = 0.5
"""Seconds of the lane's life over which :data:`LANE_BUSY_RULE` measures the machine."""

SWITCH_RULE = "a graph that skips the core search, one thread: printed briefly, then least-first"
"""Issue 40, round 8: without a lane (``--threads 1``), a graph that skips the core search
(:func:`_symmetric`) gets its published slice on CP-SAT (:data:`REGULAR_ALONE_SHARE` of the time
left) in the slices of :data:`SWITCH_SLICES` instead of least-first alone
(:data:`LEAST_FIRST_RULE`): the two configurations of :data:`BESIDE_LANE_RULE` on one core, the
printed one first for a short window. Argued on scratch seeds 7351-7362 (docs/performance.md,
"Issue 40, round 8 (i40w)"; each configuration alone, CP-SAT with one worker, 72 random 8- and
10-regular graphs and k-in digraphs of k = 10, n = 60 and 80, 35 settled by either): least-first
was the faster by more than 10% + 0.1 s on 28, the printed model on 2 (0.20 against 0.83 CPU s,
and 3.14 s against unsettled); no cheap feature told them apart (r* = 3 or 4 on both kinds).
Replayed from those times (a restarted slice settles when it is at least as long as its
configuration's time alone) against a proxy of the one-worker script (the printed model plus
its start-up), least-first alone is slower on 2 rows; a printed window of 0.3 s first on 1 (the
3.14 s row, which no schedule that gives least-first most of the time can win), 9.0 CPU s more in
all (+24%); alternating slices of doubling length, either first, on 9-23 rows; both at once on
one core (half each) on 7; least-first, printed and least-first again, 0.3 s each, on 3 (k-in
digraphs, where least-first almost always wins)."""

SWITCH_SLICES = (("as-printed", 0.3), ("least-first", None))
""":data:`SWITCH_RULE`'s slices in order: the configuration and its seconds (the last: the rest
of the slice)."""

WIDE_SWITCH_RULE = "one thread, regular, degree >= 8, n > 64: a long printed window"
"""Issue 40, round 10 (i40a): with one thread, an undirected regular graph of more than
:data:`CORES_LONG_N` nodes and a degree of at least :data:`WIDE_DEGREE` gets its published slice as
least-first for :data:`WIDE_HEAD_WORK` of CP-SAT's work (round 11, below degree
:data:`WIDE_HEAD_BELOW` only), then the model as printed for :data:`WIDE_PRINTED_SHARE` of what
is left, then least-first (hinted, told the bound
and pair held before the printed window, as :data:`SWITCH_RULE` tells it) for the rest, instead of
:data:`SWITCH_SLICES`' 0.3 s printed window. On such graphs the two configurations win about equally
often and neither often: CP-SAT with one worker, each configuration alone (docs/performance.md,
"Issue 40, round 10: the 10-regular row (i40a)"; random 10-regular graphs on 80 nodes, scratch seeds
7411-7424 and round 9's lost row ``regular-wide-80-d10-7117``) proved r* = 4 as printed in 2.4, 2.4
and 8.2 CPU s where least-first had not in 6-14 s, least-first in 0.15, 0.26 and 2.0 s where the
printed model had not, and both one graph (0.89 and 0.52 s). The one-worker script of the published
model is the printed configuration, started afresh, so a printed window that starts first and lasts
about as long as the script may run keeps ``--threads 1`` level with it wherever it proves r*: our
start-up before the slice was about 0.4 CPU s shorter than the script's. A least-first window of 0.5
s before it (a version dropped) left ours level with the script in CPU time, and slower in wall time
on two of the three rows it proved at load 2-3 (docs/performance.md). Least-first's fast wins come
after the printed window, late; its slower wins are lost, on rows where the script proves nothing
either. At 60 nodes (least-first the faster on every 10-regular row either settled in round 8, and
on round 9's ``regular-wide-60-d10-7117``: 0.62 s against the script's 2.16 s) and at degree 8
(least-first the faster on 14 rows of 16 in round 8) the 0.3 s printed window stayed in round 10.

Round 11 (i41a; docs/performance.md, "Issue 40, round 11: the regular rows (i41a)"): degree 8 too
(:data:`WIDE_DEGREE`; round 10's test pair lost ``regular-80-d8-7119``, r* = 3, which the printed
model proves in 0.65 CPU s and least-first not in 4 s), and least-first first for
:data:`WIDE_HEAD_WORK`: on random 8-regular graphs of 80 nodes (scratch seeds 7428-7450) most of
least-first's wins where the printed model is slow take 0.01-0.12 of CP-SAT's deterministic seconds
(0.06-0.17 CPU s), so a head window that short settles them and costs a printed win at most that,
inside the margin of our shorter start-up."""

WIDE_HEAD_WORK = 0.2
"""CP-SAT deterministic seconds (``max_deterministic_time``, its own work measure: about a CPU
second each on these models, the same on an idle or a busy machine) of the least-first head
window of :data:`WIDE_SWITCH_RULE` and, on a busy machine, :data:`WIDE_LANE_RULE`."""

WIDE_HEAD_BELOW = 10
"""The head window (:data:`WIDE_HEAD_WORK`) runs on graphs of a degree below this only: at
degree 10 the one-worker script proved none of least-first's fast wins of round 10 (i40a), and
on scratch ``regular-wide-80-d10-7464`` (r* = 4, the printed model's win) the head cost 0.2-0.4
CPU s and made both thread counts slower than round 10's code by more than 10% + 0.1 s in wall
(docs/performance.md, "Issue 40, round 11: the regular rows (i41a)")."""

WIDE_DEGREE = 8
"""The least degree that gets :data:`WIDE_SWITCH_RULE` and :data:`WIDE_LANE_RULE`."""

WIDE_LANE_RULE = "two threads, regular, degree >= 8, n > 64: the lane printed, least-first beside"
"""Issue 40, round 10 (i40a): with two threads, the graphs of :data:`WIDE_SWITCH_RULE` swap
:data:`BESIDE_LANE_RULE`'s two configurations: the lane runs the published model as printed (no
bound, no hint, no symmetry broken: the one-worker script's search), and the first core, when
the machine has a core to spare, runs least-first beside it (told the quick bounds, hinted with
their pair). On an idle machine both run as before, each on its core; on a busy one only the
lane runs, now the printed model, which on these graphs proved r* of 4 of 15 scratch graphs in
0.9-8.2 CPU s alone where least-first proved 4 others (docs/performance.md, "Issue 40, round 10:
the 10-regular row (i40a)"). With a second benchmark beside it, ``regular-wide-80-d10-7416``
(scratch) ended bounded at 10 s with least-first alone in the lane where the two-worker CP-SAT
script proved r* = 4 in 8.8 s; the printed model alone proves it in 2.4 CPU s. Round 11: degree 8
too (:data:`WIDE_DEGREE`), and on a busy machine the first core of a graph of a degree below
:data:`WIDE_HEAD_BELOW` still runs least-first for :data:`WIDE_HEAD_WORK` of CP-SAT's work, at
normal priority, beside the lane (the fast least-first
wins of :data:`WIDE_SWITCH_RULE`; the two-worker script races two searches on a busy machine)."""

WIDE_PRINTED_SHARE = 0.9
"""The share of the published slice that :data:`WIDE_SWITCH_RULE`'s printed window gets: at
``--time-limit 10`` on an idle machine about 8.2 s, the slowest printed win measured."""

AFTER_WAIT_RULE = "two threads, regular, degree >= 8, n > 64: after the lane's wait, two asks"
"""Issue 40, round 20: with a lane (two threads or more), a graph of :func:`_wide` whose question
is still open after the lane's wait (the ``lane-wait`` step) asks, on the first core and before
the dearer bounds (``search.more_r``), the published constraints as decisions
(``search.published_below``: ``milp_model.published_r_below`` with its objective removed, one
CP-SAT worker, stopped with the lane's stop signal when the lane wins; :func:`_after_wait`):
first at ``t <= lower``, at most :data:`AFTER_WAIT_LOWER_SECONDS` per ask, again at the raised
bound while infeasible (``r* >= lower + 1``) and ``lower < upper - 1``; then, if still open, at
``t <= upper - 1`` with CP-SAT's local search alone (``use_ls_only``), at most
:data:`AFTER_WAIT_LS_SECONDS`; a pair found is checked by ``Progress.offer``; no ask past the
deadline. Round 19 (i53a, ``LOWER_PROBE_RULE``, reverted): the ask at ``t <= lower`` was
infeasible on every held-out wide row (median 0.084 s at degree 8, 0.233 s at degree 10) and
raised every bounded row's lower bound by one, but made before the lane's wait it delayed
``beside-lane`` on the rows that step proves fast. Round 17 (i50b): the pairs the two-worker
CP-SAT script finds and ours misses on 8-regular rows come from CP-SAT's violation local search;
the decision at ``t <= upper - 1`` with ``use_ls_only`` on one worker found them in 1.2-3.7 s on
two of four such rows. Round 18 (i51a, ``LS_DURING_LANE_WAIT_RULE``, reverted): run in place of
the idle part of the wait it never started on an idle machine, where ``beside-lane`` fills the
wait. Kept or not by the keep rule registered before it was built (docs/performance.md,
"AFTER_WAIT_RULE, keep rule registered before it is built")."""

AFTER_WAIT_LOWER_SECONDS = 1.0
"""The time limit of one ask at ``t <= lower`` of :data:`AFTER_WAIT_RULE` (``cpsat.run``'s, so
the model's writing counts against it too), as ``LOWER_PROBE_RULE``'s (i53a)."""

AFTER_WAIT_LS_SECONDS = 2.0
"""The time limit of :data:`AFTER_WAIT_RULE`'s local-search ask at ``t <= upper - 1``
(``cpsat.run``'s)."""

WALK_PROBE_RULE = "one thread, regular, degree 8-12, no core search, two values open: walk, probe"
"""Issue 40, round 28 (v4, kept): without a lane (one thread), a graph of :func:`_printed_too` of
degree from :data:`WIDE_DEGREE` to :data:`WALK_MAX_DEGREE` whose quick bounds leave at least two
values open (``upper - lower >= 2``), right after them and before anything else
(:func:`_walk_first`): the batched walk (``solvers.walk``) for a pair of value ``lower + 1`` for
at most :data:`WALK_SECONDS`; if it finds one, the published constraints as a decision at ``t <=
lower`` (``search.published_below``, one CP-SAT worker) for at most :data:`PROBE_SECONDS`.
Infeasible settles the question (the pair offered and checked, the bound proven); so does a pair
of value ``lower`` (the probe's own). Otherwise nothing the walk found is told to the rest of the
search, which runs as without the rule: round 27 (``WALK_RULE``, not kept) saw a bound lowered by
its walk change CP-SAT's later search both ways (0.16 s to 2.41 s on a scratch 10-regular graph).
Why: every row lost at one worker since round 18 is a random 8- or 10-regular graph on 60-80 nodes
where the quick bounds leave [2, 5] or [3, 6], the probe below r* is infeasible in 0.1-0.7 s
(round 18, i52a), and the time goes to the pair of value r*. Round 28's held-out run of the rule
at one and two threads and every degree above 4 (docs/performance.md): at one thread faster on 5
of 36 rows, slower on 3, all 6-regular (quick bounds [1, 4], no pair of value 2); at two threads
5 and 5, its 0.2 s of CPU beside the lane the cost; so not beside a lane nor below degree 8.
Kept after its re-test on fresh seeds under an amended keep rule (docs/performance.md,
"WALK_PROBE_RULE v4 re-tested"): faster on 10 of 46 rows, slower on 2, median 1.48 -> 0.64 s."""

WALK_LANE_RULE = "two threads, WALK_PROBE_RULE's graphs: the walk and probe beside the lane"
"""Issue 40, round 29: :data:`WALK_PROBE_RULE` at two threads. On the same graphs
(:func:`_walk_due`), when :data:`BESIDE_LANE_RULE`'s second solve is due (the machine has a core
to spare), the first core runs that solve for :data:`WALK_LANE_AFTER` seconds first; if the
question is still open, the walk for a pair of value ``lower + 1`` for at most
:data:`WALK_LANE_SECONDS`, then, if it found one, the probe at ``t <= lower`` (one CP-SAT worker,
:data:`PROBE_SECONDS`); infeasible settles the question and the lane is stopped. Then the second
solve again for what is left of its time. Everything stops when the lane wins. The lane starts and
runs as without the rule and is told nothing the walk found. Why: the two-worker row lost at seed
7163 in round 28 (random 10-regular, n = 60, r* = 4: 5.09 s against the two-worker script's 2.49
s) is one that ``--threads 1`` settles in 0.40 s with the walk and the probe; round 28's held-out
run of the walk beside the lane cost 0.1-0.2 s on rows settled in 0.3-1.6 s, and round 29's first
version (the walk before the lane, the probe first beside it) made a row that the second solve
settles 0.03 s after it starts slower (0.31 -> 0.41 s), so the second solve now goes first. Held
out (docs/performance.md, round 29; seeds 8033-8042, 40 rows at two threads): faster on 11,
slower on 1, median 1.64 -> 0.87 s over the 29 rows both settled, 32 settled against 29. Its
known cost: a second solve that would have proven r* just after its head is cut and started again
(``regular-80-d8-8035``: main 0.42 s, once 6.69 s with the rule)."""

WALK_BUSY_RULE = "two threads, WALK_PROBE_RULE's graphs, a busy machine: the walk and probe"
"""Issue 40, round 29 (kept): :data:`WALK_PROBE_RULE` at two threads on a busy
machine. On the same graphs (:func:`_walk_due`), when :data:`BESIDE_LANE_RULE`'s second solve is
not due (other processes kept more than :data:`BESIDE_LANE_BUSY` cores busy), the first core runs
the walk (:data:`WALK_BUSY_SECONDS`) and, if it found a pair of value ``lower + 1``, the probe at
``t <= lower`` (one CP-SAT worker, :data:`PROBE_SECONDS`, stopped if the lane wins) in its own
thread first, then what it ran before: the least-first head of :data:`WIDE_LANE_RULE` or the wait
for the lane. An infeasible probe settles the question and the lane is stopped; otherwise
nothing the walk found is told. Why: ``regular-80-d8-7165`` (random 8-regular, n = 80, r* = 3)
took 4.01 s at two threads beside a second benchmark, against the two-worker script's 2.97 s and
``--threads 1``'s 0.41 s (round 29's runs 1-3). Held out (docs/performance.md, round 29; seeds
8059-8068, 40 rows at two threads, each beside a CPU-bound loop): faster on 5, slower on 1, median
1.52 -> 1.50 s over the 18 rows both settled, 20 settled against 18."""

WALK_BUSY_SECONDS = 0.2
""":data:`WALK_BUSY_RULE`'s walk: wall seconds at most. Round 29's decide rows (scratch seeds
8054-8058, 20 rows, each beside a CPU-bound loop): at :data:`WALK_SECONDS` (0.12 s) faster on no
row, slower on one; at 0.2 s faster on three (two of them bounded before), slower on two."""

WALK_WIDE_RULE = "one thread, WALK_PROBE_RULE's graphs above 64 nodes, degree 10-12: longer"
"""Issue 40, round 30 (kept): at one thread, on a graph of :data:`WALK_PROBE_RULE` that is
also :func:`_wide` without the least-first head (undirected regular, more than
:data:`CORES_LONG_N` nodes, degree from :data:`WIDE_HEAD_BELOW` to :data:`WALK_MAX_DEGREE`), the
walk gets :data:`WALK_WIDE_SECONDS` instead of :data:`WALK_SECONDS`; the probe and every step
after it as under :data:`WALK_PROBE_RULE`. Why: ``--threads 1`` ended bounded at 9.5 s on
``regular-wide-80-d10`` at the test seeds 7162-7167, where the walk alone found the pair of value
``lower + 1`` at 0.115-0.2 s on earlier test seeds' rows, and at 7166 :data:`WALK_LANE_RULE`'s
0.3 s walk settled that row at two threads in 1.04 s. Held out (docs/performance.md, round 30;
scratch seeds 8092-8101, ``regular-wide`` d = 10, n = 80 and 100, 20 rows at one thread): faster
on 11, slower on none, median 1.55 -> 0.72 s over the 8 rows both settled, 16 settled against 8."""

WALK_WIDE_SECONDS = 0.5
""":data:`WALK_WIDE_RULE`'s walk: wall seconds at most. Round 30's decide rows (scratch seeds
8086-8089 and 8091, ``regular-wide`` d = 10, n = 80 and 100, one thread): at 0.3 s faster on one
row of 10 (the walk found its pair at 0.27-0.30 s on two more, in-process, and missed them in the
command); at 0.5 s faster on four, two of them bounded before, slower on none."""

WALK_LANE_AFTER = 0.1
""":data:`WALK_LANE_RULE`: seconds of the second solve before the walk (round 29's decide
rows: it settled the easy rows in 0.03 s). Issue 40, round 30: 0.1 s (was 0.3 s), for the rows
the walk settles at once (``regular-wide-60-d10-7168``, two workers idle: 0.70 s, CPU 1.25 against
the two-worker script's 0.57 s, CPU 0.72; 0.39 s at one thread). Held out (docs/performance.md,
round 30; seeds 8114-8123, 40 rows at two threads): faster on 13, slower on 3, median 0.79 ->
0.59 s over the 32 rows both settled. The three slower rows (random 10-regular, n = 80: 0.39-0.55
s -> 0.48-0.69 s) are the cost the rule's docstring names: a second solve that would have ended
within 0.3 s is cut at 0.1 s and started again."""

WALK_LANE_SECONDS = 0.3
""":data:`WALK_LANE_RULE`'s walk: wall seconds at most (round 29's decide rows, one walk of 1 s
each: a pair of value ``lower + 1`` within 0.04-0.35 s on 7 of the 10 rows that have one)."""

WALK_SECONDS = 0.12
""":data:`WALK_PROBE_RULE`'s walk: wall seconds at most. Round 28's decide rows (scratch seeds
7991-7995, one thread): at 0.2 s the walk cost 0.2-0.4 s on the four rows where no pair of value
``lower + 1`` exists (slower on all four by 10% + 0.1 s); at 0.12 s slower on none, and faster on
7 of 24 rows (8 at 0.2 s)."""

WALK_MAX_DEGREE = 12
"""The largest degree that gets :data:`WALK_PROBE_RULE` (as the lane's least in-degree limit): a
step of the walk holds arrays of ``walk.BATCH * (d + 1) * d`` entries (1.3 MB at d = 12, 330 MB
at d = 200), and the rule was measured on degrees 8 and 10 only."""

PROBE_SECONDS = 1.0
""":data:`WALK_PROBE_RULE`'s probe: ``cpsat.run``'s time limit (as
:data:`AFTER_WAIT_LOWER_SECONDS`)."""

WALK_ROUNDS = 4
""":data:`WALK_PROBE_RULE`'s walk: rounds of ``walk.BATCH`` starts at most, so
that it ends even where no clock moves (about 1.4 s per round at 80 nodes of degree 10)."""

WALK_CPU_RULE = "every walk's seconds in its thread's CPU time, its wall at most three times them"
"""Issue 40, round 34: the budgets of :data:`WALK_PROBE_RULE`, :data:`WALK_WIDE_RULE`,
:data:`WALK_LANE_RULE` and :data:`WALK_BUSY_RULE` are seconds of the walking thread's CPU time
(``time.thread_time``), the wall capped at :data:`WALK_WALL_FACTOR` times them. Why: the seeded
walk finds its pair after a fixed number of steps, so its budget is work; counted in wall seconds
it bought less work on a busy machine. ``regular-80-d8-7180`` (random 8-regular, n = 80, r* = 3;
its walk finds a pair of value 3 at step 92, 0.133 s of CPU) ended bounded [3, 4] at 9.5 s at two
threads beside a second benchmark (round 34's runs 1-3), and beside two CPU-bound loops in two of
two runs: :data:`WALK_BUSY_RULE`'s 0.2 s of wall gave the walk less than 0.133 s of CPU. Idle,
the walk's thread CPU and wall agree within 1%, so nothing changes there. Held out
(docs/performance.md, round 34; scratch seeds 8198-8207, regular graphs of degree 4-10 on 60 and
80 nodes at one and two threads, beside two CPU-bound loops; 144 rows, pooled over its two
registered tests): faster on 8, slower on 2, settled 122 -> 124, median unchanged; idle (8208-8210,
48 rows) no row faster, one near-cap row slower. Its known cost: where no pair of the value asked
exists, a busy walk spends its whole budget in up to :data:`WALK_WALL_FACTOR` times the wall
(0.40 s against 0.20 s on ``regular-60-d8-8199``)."""

WALK_WALL_FACTOR = 3.0
""":data:`WALK_CPU_RULE`: a walk's wall seconds at most, as a multiple of its CPU budget, so
that a very busy machine cannot stretch it without end."""

KIN_LEAST_FIRST_RULE = "a k-in digraph that skips the core search: least-first alone"
"""Issue 40, round 9: a directed graph that skips the core search (:func:`_symmetric`: every
in-degree equal, as ``generate k-in`` makes them) gets the published model least-first only
(:data:`LEAST_FIRST_RULE`): no printed model beside its lane (:data:`BESIDE_LANE_RULE`), no printed
window before least-first (:data:`SWITCH_RULE`); :func:`_printed_too`. Round 8 (scratch seeds
7351-7362, 24 k-in digraphs of k = 10, n = 60 and 80, each configuration alone, one worker):
least-first the faster by more than 10% + 0.1 s on 11 of the 14 either settled, the printed model on
none. Round 9 (scratch seeds 7381-7383, n = 60-100, k = 6-12, CP-SAT with one worker, 10 s each,
load 5-7; docs/performance.md, "Issue 40, round 9 (i40y)"): on the 9 rows both settled least-first
took 3.99 CPU s in all, printed 6.39, least-first the faster on 8 and equal on 1; whole commands
with ``--threads 1`` (seeds 7384-7385, load 5.7-7.2) 6.90 -> 6.20 CPU s on the 6 settled rows. With
two threads on an idle machine the printed solve beside the lane ran until the lane's proof,
doubling the CPU time (round 8's idle ``kin-80-k10-7114``: 7.55 s of wall, 14.88 CPU s; 7.87 s with
one thread)."""

LEAST_FIRST_S_RULE = "every graph: the published (r, s) slice on CP-SAT with least_first"
"""Issue 40, round 5: the published (r, s) model's slice (:func:`_published_s_slice`) has the
S1/S2 swap symmetry broken (``milp_model.least_first``) on every graph: the model treats both
sets alike, so no optimum is cut off. At R = r* = 1 (where s*_R is 3-5, not 1) on the six ER(30,
0.2) graphs of r* = 1 among scratch seeds 7261-7290 (model alone, CP-SAT with one worker, told
s <= the heuristic pair's value as the slice is; 2026-12-04, load 4-5): 3.09 -> 0.80 s of CPU in
all, faster on 4, slower on 1 by 0.03 s (docs/performance.md, "What changed in round 5")."""

BOTH_S_RULE = "two threads: the printed (r, s) slice beside the least-first one, briefly"
"""Issue 40, round 7: with two or more threads the published (r, s) slice
(:func:`_published_s_slice`) runs least-first (:data:`LEAST_FIRST_S_RULE`) for the whole slice and
on the second core the model as printed for :data:`BOTH_S_WINDOW` seconds (its first 0.3 s until
round 8; from round 9 the 0.3 s after :data:`BOTH_S_DELAY`, and only where R is at least
:data:`BOTH_S_MIN_R`), one CP-SAT worker each in a thread of its own; the first proof stops the
other (``solvers.first_proof``). Never one configuration twice. On scratch seeds 7321-7330 (95 (r,
s) rows at R = r* that reach the slice, ER graphs and digraphs of 26-35 nodes; each configuration
alone, one worker, 10 s; docs/performance.md, "Issue 40, round 7: (r, s) on two cores (i40s)")
least-first took 270.7 CPU s in all, printed 291.3, the smaller of the two 265.5: least-first was
slower by more than 10% + 0.1 s on 7 rows, printed on 23. The printed configuration's wins were all
under 0.3 s but one (0.015-0.274 s where least-first took 0.12-1.19 s; the other a 10 s row), so
both for the whole slice would double the CPU time of every row for 2% of wall time. Whole commands
(76 of those rows, before / window / both for the whole slice, interleaved, load 3.2-4.5): both for
the whole slice slower than before by more than 10% + 0.1 s in wall or CPU on 23 rows, the window on
6; each faster on 5 (4 of them shared)."""

BOTH_S_WINDOW = 0.3
"""Seconds the printed configuration of :data:`BOTH_S_RULE` runs beside the least-first one, from
:data:`BOTH_S_DELAY` on: it covers the printed configuration's wins measured (round 7: the slowest
0.274 s; round 9, with the model told ``s >= lower`` as a row, the first version of round 9's lower
bound, since replaced by ``cpsat.run``'s ``stop_at``: 0.235 s, ``digraph-35-p0.5-7403``, where
least-first took over 10 s) and costs at most that much CPU time where least-first proves s*_r
alone."""

BOTH_S_DELAY = 0.1
"""Seconds least-first runs alone before :data:`BOTH_S_RULE`'s printed configuration starts: a
least-first proof within them leaves the second solve unstarted, so it costs no CPU time there
(until round 8 both started at once). Round 9 (scratch seeds 7400-7403, ER graphs and digraphs of
26-40 nodes: the 38 rows at R = r* that reach the slice and that either configuration settled, each
configuration alone, CP-SAT with one worker, told ``lower <= s <= upper`` as rows (the first version
of round 9's lower bound), 10 s, load 5-7; docs/performance.md, "Issue 40, round 9 (i40y)"),
replayed: least-first proved s* within 0.1 s on 24 of them; the delay took the CPU time of the
window's rows from 13.18 to 12.31 s in all, for 0.53 s more wall time in all (9.28 -> 9.81 s), on
the rows the printed configuration won."""

BOTH_S_MIN_R = 2
"""The least R of an s*_R question that gets :data:`BOTH_S_RULE`'s second configuration; at R = 1
least-first runs alone, as with one thread. On the 7 rows of R = 1 in :data:`BOTH_S_DELAY`'s replay
the printed configuration was the faster on 3 (0.056 against 0.087 s, 0.037 against 0.078 s, 0.506
against 0.661 s, beyond the window) and the slower on 4 (2.03 against 0.37 s the most); round 8's
window (0.3 s from the start) took their wall time from 1.51 to 1.44 s in all and their CPU time
from 1.51 to 2.45 s. Round 8's four (r, s) rows slower than the published model included two of R =
1 counted in CPU only, by about 0.3 s each (docs/performance.md)."""

POOL_S_RULE = "the heuristic (r, s) pair: also the best disjoint pair of a pool of peeled sets"
"""Issue 40, round 32: the heuristic (r, s) pair of :func:`_bounds_s` (``heuristics.search_s``)
is the better of the two peeled sides of one split of the nodes and the best disjoint pair of a
pool (``pool_s.pool_pair``): the best sets of every peel, and peels of the in-neighbourhoods
of the nodes of least in-degree. On ``er-40-p0.2-7172`` (R = 1, s* = 3) the split pairs gave 12,
and least-first told ``s <= 12`` took 1.20 s where told ``s <= 3`` it took 0.06 s; the pool gave 3
(docs/performance.md, "Issue 40, round 32")."""

FOUR_REGULAR_RULE = "undirected, degrees all 4, more than CORES_LONG_N nodes"
"""Issue 40, round 2: such a graph skips the core search and gets no lane; the hinted published
slice on CP-SAT (:data:`REGULAR_ALONE_SHARE` of the time left) runs in this process with every
thread (:func:`_four_regular`). Argued on scratch seeds 7201-7206 (random 4-regular graphs of
60, 80 and 100 nodes, and ``generate k-in`` with k = 4 at n = 60 and 80, seeds 7201-7204;
2026-12-03, load 0.7-4.8, one run each, ``--time-limit 10``, whole commands): above 64 nodes
(core budget :data:`CORES_SHORT_SECONDS`) the core search proved nothing on 7 of 12 graphs,
each time leaving ``--threads 1`` slower than the one-worker CP-SAT script by more than
10% + 0.1 s (e.g. 1.30 s against 0.60 s), where skipping it was slower on none; at 60 nodes
(budget :data:`CORES_SECONDS`) it settled all six (commands of 0.13-0.28 s), and the k-in
digraphs of degree 4 all eight (0.12-0.51 s, against 0.55-0.94 s without it), so those keep
it. With two threads, the lane (its process start costs 0.2-0.3 s of CPU) left the default
slower than CP-SAT with two workers on 6 of those 12; on seeds 7201-7204 at n = 80 and 100 the
slice in this process took less wall and CPU time than the lane on all 8 graphs, slower than
that script on 1 of 8. On random 8-regular graphs the lane stayed better (n = 60, seed 7202:
the lane 3.7 s, the in-process slice bounded at 10 s), so degrees above 4 keep it
(:func:`_symmetric`)."""

CORES_GLANCE_SECONDS = 0.25
"""The core search's budget on the dense graphs above :data:`CORES_LARGE_N` nodes
(:data:`CORES_DENSE`)."""

CORES_SHORT_SECONDS = 0.5
"""The core search's budget up to :data:`EXHAUSTIVE_N` nodes (ER(25, 1/2): 0.06-0.3 s; the
subset DP then costs about 0.5 s, plus 0.2 s for numpy) and above :data:`CORES_LONG_N`."""

LARGE_N = 500
"""Above this many nodes r* questions get the bounds of :func:`solvers.search.linear_r` only
(s*_r questions the witnesses of :func:`solvers.search.linear_s`): O((n + m) log n) time
and O(n + m) memory, exact where they meet (r* = 0 or 1 by the rooted check and a split of
value 1, r* = d by a degree witness and an extension proof), else ``bounded``. It is
``solvers.bounds.DENSE_MAX_N``: the other bounds and the witness search hold n x n matrices
(the search's first orders alone took 5.6 s on a 1,000-node 4-regular graph, past a 10 s
deadline), and the published model of a 1,000-node 4-regular graph proved nothing in 3 s on
HiGHS and CP-SAT (2026-12-02)."""

PUBLISHED_MAX_UPPER = 8
"""The published slices run only while the upper bound is at most this: they settle low r*
(k-in digraphs, digraph G(50, 0.3) with r* = 7) in seconds, and never settled r* >= 9 at
n >= 40 within a minute (docs/performance.md), where they only delay the strong model. A graph
whose in-degrees all equal gets them up to :data:`LANE_MAX_UPPER` (:func:`_published_max_upper`)."""

HEURISTIC_FIRST_RULE = "upper bound above the published limit: the heuristic pair before the skip"
"""Issue 40, round 9 (i40v): when the quick bounds leave the upper bound above
:func:`_published_max_upper`, the heuristic witness search (:func:`solvers.search.heuristic_r`,
skipped under the twins rule as in :func:`solvers.search.more_r`) runs before the published
slices are skipped, so the decision sees the bound it brings; :func:`solvers.search.more_r`
then does not run it again. On ``sbm-80-3-p0.6-q0.05-7386`` (scratch seed; three blocks of 26-28
nodes, p = 0.6 inside, 0.05 across) the quick bounds left [2, 10] and the heuristic pair 6
only after the skip: ``--threads 1 --time-limit 10`` ended bounded [4, 6] at 9.6 s; with the
pair first the slices run at 6 and prove r* = 4 in 3.4-3.9 s (load 5-6). Then CP-SAT alone:
the HiGHS slice ran its 1.5 s unsettled on this row and on the five sbm graphs of 100 nodes
tried (scratch seeds 7381, 7382, 7387, 7390, 7393), where CP-SAT settled each in 0.05-0.56 s;
HiGHS first pays on sparse graphs, whose degree bound is already under the limit. Measured on
scratch seeds 7381-7395 (docs/performance.md, "Issue 40, round 9: the sbm row (i40v)")."""

PUBLISHED_SLICE = 2.0
"""Seconds the published model gets on CP-SAT next, before the dearer bounds and the strong
model."""

REGULAR_SHARE = 0.6
"""On a graph whose in-degrees are all equal (regular graphs, k-in digraphs), the share of the
time left that the first core waits for the lane; until issue 40's round 3 also, without the
lane (now :data:`REGULAR_ALONE_SHARE`), the share of the time left (at least
:data:`PUBLISHED_SLICE`; :data:`REGULAR_SLICE` without a limit) that the published model gets
on CP-SAT. On such symmetric graphs the degree
witness is often optimal and the strong model's probe at the upper bound stalls: on the random
8-regular graph on 60 nodes of issue 32 (networkx seed 8105) the published model on CP-SAT
proves r* = 4 in 2.4-2.8 s, the strong probe at 4 answered unknown for 37 s. It was 0.3: with
``--threads 1`` a random 10-regular graph on 60 nodes (networkx seed 4001) then ended bounded
[4, 5] at 60 s, its 17.7 s slice short of the 21 CPU seconds the one-worker script took to
prove r* = 5, and the strong probes after it proved only r* >= 4 (issue 40, load 2-3)."""

REGULAR_ALONE_SHARE = 0.95
"""The share of the time left that the published slice on CP-SAT gets, without the lane, on a
graph whose in-degrees all equal (``--threads 1``; the 4-regular rule, :data:`FOUR_REGULAR_RULE`);
the lane's wait stays :data:`REGULAR_SHARE`. Issue 40, round 3: it was :data:`REGULAR_SHARE`
(0.6); with ``--threads 1 --time-limit 10`` a random 10-regular graph on 60 nodes
(``regular-wide-60-d10-7101``) ended bounded [3, 5] after a 5.4 s slice, where the one-worker
CP-SAT script proved r* = 5 in 7.5 s. On scratch seeds 7211-7214 (24 symmetric graphs:
``generate k-in`` k = 10, random 8- and 10-regular, n = 60 and 80; one run each, interleaved
with the one-worker CP-SAT script, load 3.7-5.3) 0.9 against 0.6: exact on 14 and 13 of 24
(the code before round 3: 14; the script, capped at 10 s of CPU: 18). The 10 s limit is in
wall seconds, and at that load a 0.6 slice of it was too short for ``regular-60-d8-7213``
(0.9: exact in 5.6 s, CPU 3.55; 0.6: bounded at 9.5 s, CPU 5.89); neither was slower than the
other in CPU time where both were exact. But on the 10 rows both ended bounded, the lower
bound was weaker on 4 ([1, 5] instead of [3, 5] on the k-in digraphs of 80 nodes: the strong
probes from below no longer ran). Issue 40, round 4: 0.95 (was 0.9). On ``generate k-in``,
n = 80, k = 10 (scratch seeds 7231-7235, ``--threads 1 --time-limit 10``) the steps after a 0.9
slice (extension, vertex cut, heuristic, strong probes) ran about 1 s and left the lower bound
at 1 on the three traced (7231-7233; the one-worker script, capped at 10 s of CPU, settled
none of 7231-7235; 7231 uncapped: 26 s); at 0.95
the bounds reached were the same as at 0.9 on ``kin80-7232`` ([1, 5]) and two random
10-regular graphs of 60 nodes (7231, 7232: [3, 5]; one run each, load 3.7-5)."""

LANE_MAX_UPPER = 12
"""The published model's lane (``solvers.lane``) starts only when the least in-degree, an upper
bound on r*, is at most this: on ER(50, 0.35) seed 1001 (least degree 9 or less) it proved r* = 8
in about 9 s where the sequence alone stopped at [7, 8] after 17 s; on gamma-MERG(60) (least
degree 30) the published model on CP-SAT did not finish in 20 s, and a lane would only take CPU
from the first core (benchmarks/vs_published.py, 2026-12-02, load 5).

Regular graphs get it too, and since issue 40 as the only copy of the published model: the
hinted slice beside the lane made two copies of one model share two cores (the default was
slower than ``--threads 1`` on 10 of 13 hard graphs, median 1.21x, on a busy machine). On a
graph that skips the core search (:func:`_symmetric`) the lane starts after the quick bounds,
hinted as that slice was (hinted 0.5 s where the unhinted model took 4.8 s on a random
8-regular graph on 100 nodes, seed 1001, 2026-12-02)."""

PUBLISHED_S_SLICE = 10.0
"""Seconds the published (r, s) model gets on CP-SAT before the strong (r, s) model without a
time limit (with one: :data:`PUBLISHED_S_SHARE` of the time left). Issue 40: at r = r*, on
ER graphs and digraphs of 25-40 nodes, the published (r, s) model on CP-SAT took 0.1-8.2 s
where the strong loop took 0.5-9.4 s, and a 1.5 s slice of it before the strong loop left the
portfolio 1.2-1.3x slower than the published model alone on the three rows the slice did not
settle (load 10)."""

CORES_S_RULE = "an open (r, s) question on an r-robust graph: the core search with exceptions"
"""Issue 40, round 31: after the heuristic (r, s) pair and before the published (r, s) slice, when
s*_r >= 1 is proven and the bounds are open, ``solvers.cores_s.search_s`` climbs from the lower
bound: a level t searches every split of every set of t - 1 exception nodes (n at t = 2, n(n - 1)
at t = 3) and either finds a pair of value t - 1 (s*_r settled, the pair checked) or proves
s*_r >= t. A level is started only while it is affordable: at most :data:`CORES_S_MAX_SETS`
exception sets, and after the first level, its count times the seconds per set so far within the
time left of the rule's budget (:data:`CORES_S_SECONDS`, and at most :data:`CORES_S_SHARE` of the
time left under a limit); a level that runs behind its share of the budget is abandoned
(``cores_s.PACE``; v2, after v1's held-out run lost a row of s* = 1 where one set took 2-3 s).
From round 32 (v4) it runs only where the bounds are at most :data:`CORES_S_MAX_GAP` apart, and
the slice after it is told the upper bound held before :data:`CORES_S_HEAD`, so it solves the
model it would solve without the head and the climb. On ``digraph-35-p0.35-7170`` (R = 6)
the published (r, s) model took 5.5 s to prove s* >= 2 where a prototype took 1.6 s
(docs/performance.md, "Issue 40, round 31")."""

CORES_S_HEAD = 0.3
"""Seconds of the published (r, s) slice (:func:`_published_s_slice`, least-first, and with two
threads the printed model beside it) before :data:`CORES_S_RULE`'s climb: in the climb's decide
run (docs/performance.md, "Issue 40, round 31") the two rows it lost were an s* = 1 row where
the climb took 1.0 s to find the pair the printed model found in 0.09 s, and an s* = 2 row where
level 3 took 0.3 s to find a pair least-first found in 0.1 s. Where the head settles nothing the
slice after the climb starts again, told the climb's lower bound and the upper bound held before
the head (v4: in round 31's v3 test the head's better pair, told to the long slice as
``s <= 3`` instead of ``s <= 4``, took CP-SAT from about 2 s to over 9 s on ``er-40-p0.5-8166``)."""

CORES_S_SECONDS = 5.0
"""Seconds :data:`CORES_S_RULE`'s climb may take at most (wall, this thread's search)."""

CORES_S_SHARE = 0.5
"""Under a time limit, the share of the time left that :data:`CORES_S_RULE`'s climb may take."""

CORES_S_MAX_GAP = 2
"""The widest gap, upper bound minus lower bound after :data:`CORES_S_HEAD`, at which
:data:`CORES_S_RULE`'s climb runs (so at most two levels; v4, issue 40, round 32). Round 31's
tests lost rows of s* = 2-7 that the published (r, s) model settled in 0.6-3.6 s where the climb
went past level 2 with heuristic pairs 4-7 above the proven bound (v2), and v3, stopped after
level 2, gave up the rows of s* = 3 it won (docs/performance.md, "Issue 40, round 31")."""

CORES_S_MAX_SETS = 2000
"""The most exception sets a level of :data:`CORES_S_RULE`'s climb may search (t = 3 up to 45
nodes)."""

PUBLISHED_S_WORKERS = 1
"""CP-SAT workers of the published (r, s) slice, whatever ``threads`` is. Issue 40, round 2:
on ER(26, 1/2) seed 7101 at R = r* = 5 the slice took 1.07 s with two workers and 0.6 s with
one, where the one-worker published (r, s) script took 1.1-1.2 s. On 23 scratch graphs (ER
graphs and digraphs, n = 26-35, p = 0.35 and 0.5, seeds 7203-7204, load 4-10, one run each,
``robustness --rs r*``, whole commands) the evidence is mixed: one worker took less CPU than
two, or within 0.05 s, on 16; more on 7 (0.13-0.59 s more on five that both settled, e.g.
digraph G(26, 0.35) seed 7204: 1.20 s against 0.86 s; two bounded both ways); and it settled
digraph G(26, 1/2) seed 7203 in 5.6 s (3.7 s of CPU) where two workers ended bounded at 20 s
(11.5 s of CPU). CP-SAT's time on this model varies from run to run about as much as between
the two settings; one worker was kept because the comparison is the one-worker script and a
second worker only competes for the second core."""

PUBLISHED_S_SHARE = 0.5
"""Share of the time left that :data:`PUBLISHED_S_SLICE` becomes under a time limit."""

REGULAR_SLICE = 20.0
"""The published slice of a regular graph without a time limit (see :data:`REGULAR_SHARE`)."""


def available() -> bool:
    """Always available: numpy alone answers small graphs and proves bounds on large ones."""
    return True


def exact_backend():
    """The first installed model engine, preferring CP-SAT, as ``(name, run, version)``, or None.

    Imports the engine's package (OR-Tools, highspy or PuLP): call it only once a model is due.
    """
    from solvers import cbc, cpsat, highs

    for module in (cpsat, highs, cbc):
        if module.available():
            return module.NAME, module.run, module.version()
    return None


def _published_slices(
    p: search.Progress,
    lane: lane_module.PublishedLane | None = None,
    sample: idle.CpuSample | None = None,
    highs_first: bool = True,
) -> bool:
    """The published model on HiGHS, then on CP-SAT, each for its slice (a quarter of the time
    left if less), until one settles the question (:func:`solvers.search.published_slice`);
    ``highs_first=False``: CP-SAT alone (:data:`HEURISTIC_FIRST_RULE`).
    On a graph whose in-degrees all equal (:func:`_in_regular`) CP-SAT alone, for
    :data:`REGULAR_ALONE_SHARE` of the time left: HiGHS's slice settled none of the regular graphs
    of issue 32's benchmark (the HiGHS script took over 70 s on a random 8-regular graph on 60
    nodes, CP-SAT's 6.4 s).

    HiGHS first: on sparse, low-r* graphs it proves r* in 0.2-0.6 s of CPU (ER(30, 0.3),
    digraph G(30, 0.3), ER(40, 0.3), seed 1001).

    With ``lane`` (the published model already runs on CP-SAT on the other core,
    ``solvers.lane``) no slice runs here: this core waits for the lane instead, for the CP-SAT
    slice's time (a graph whose in-degrees all equal: :data:`REGULAR_SHARE` of the time left,
    as its slice would have had), so the lane has the CPU to itself on a busy machine, and the
    published model never runs twice at once (issue 40: a regular graph's hinted slice here
    beside the lane made the default slower than ``--threads 1`` on 10 of 13 hard graphs,
    median 1.21x; random 8-regular on 60 nodes, seed 7001: exact in 4.65 s with
    ``--threads 1``, bounded at the 10 s limit by default while this core waited 2 s only). A
    graph that skips the core search (:func:`_symmetric`) gets the hint in its lane instead
    (:func:`_solve`); ``sample``: the machine's CPU counters since its lane's child was spawned
    (:func:`_beside_lane`). True when this core waited for the lane (the ``lane-wait`` step)."""
    from solvers import cpsat, highs, search

    versions = []
    regular = _in_regular(p.request.graph)
    slices = [(highs, HIGHS_SLICE), (cpsat, PUBLISHED_SLICE)]
    if lane is not None and lane.dropped() and not lane.won():  # LANE_BUSY_RULE
        p.note("lane-dropped", after=LANE_BUSY_AFTER, max_busy=BESIDE_LANE_BUSY)
        lane = None  # as with one thread
    if lane is not None:  # the published model runs on the other core: never a second copy
        slices = []
    elif (regular or not highs_first) and cpsat.available():
        slices = slices[1:]
    for module, seconds in slices:
        if p.settled() or p.out_of_time() or not module.available():
            continue
        module.load()  # the import is not the slice's: it counts against the deadline only
        versions.append(module.version())
        p.version = " + ".join(["portfolio", *versions])
        left = p.remaining()
        cap = None if left is None else left / 4
        if regular and module is cpsat:
            seconds = REGULAR_SLICE if left is None else max(seconds, REGULAR_ALONE_SHARE * left)
            cap = left
        least = regular and module is cpsat  # LEAST_FIRST_RULE
        seconds = seconds if cap is None else min(seconds, cap)
        if least and _printed_too(p.request):
            _switch(p, seconds)
        else:
            search.published_slice(p, module.run, seconds, least=least)
    if lane is not None and not p.settled() and not p.out_of_time():
        left = p.remaining()  # the CP-SAT slice's time to the lane
        wait = PUBLISHED_SLICE if left is None else min(PUBLISHED_SLICE, left / 4)
        if regular:  # as long as the slice it replaces (REGULAR_SHARE)
            wait = REGULAR_SLICE if left is None else max(wait, REGULAR_SHARE * left)
        wait = wait if left is None else min(wait, left)
        end = time.perf_counter() + wait
        if _printed_too(p.request) and cpsat.available():  # BESIDE_LANE_RULE: not idle
            _beside_lane(p, lane, end, sample)
        if not p.settled():  # what is left of the wait, if the slice ended early
            lane.wait(max(0.0, end - time.perf_counter()))
        p.note("lane-wait", seconds_given=round(wait, 4))
        return True
    return False


def _after_wait(p: search.Progress) -> None:
    """:data:`AFTER_WAIT_RULE`'s asks, each on one CP-SAT worker, stopped with ``p.stop`` (the
    lane's signal) and never past the deadline (``search.published_below``): at ``t <= p.lower``
    for up to :data:`AFTER_WAIT_LOWER_SECONDS`, again at the raised bound while infeasible and
    ``lower < upper - 1``; then, unless the question is settled or the time up, at
    ``t <= p.upper - 1`` with ``use_ls_only`` for up to :data:`AFTER_WAIT_LS_SECONDS`. Each ask
    is a step record (``probe``: the ``t`` asked; ``outcome``; ``seconds``: its ``cpsat.run``)
    with ``rule: AFTER_WAIT_RULE`` and ``ask``: ``lower`` or ``ls``."""
    from solvers import cpsat, search

    if p.settled() or p.out_of_time() or not cpsat.available():
        return
    cpsat.load()  # the import is not the ask's: it counts against the deadline only
    run = _cpsat_workers(1)
    rule = "AFTER_WAIT_RULE"
    while not p.settled() and not p.out_of_time():
        seconds = AFTER_WAIT_LOWER_SECONDS
        refuted = search.published_below(p, run, p.lower, seconds, rule=rule, ask="lower")
        if not refuted or p.lower >= p.upper - 1:
            break
    if not p.settled() and not p.out_of_time():
        seconds = AFTER_WAIT_LS_SECONDS
        search.published_below(p, run, p.upper - 1, seconds, ls_only=True, rule=rule, ask="ls")


def _walk_first(request: Request) -> bool:
    """True for a graph of :func:`_printed_too` whose degree is at least :data:`WIDE_DEGREE` and
    at most :data:`WALK_MAX_DEGREE` (:data:`WALK_PROBE_RULE`)."""
    degree = len(request.graph.in_neighbors[0])
    return _printed_too(request) and WIDE_DEGREE <= degree <= WALK_MAX_DEGREE


def _walk_due(p: search.Progress) -> bool:
    """True when :data:`WALK_PROBE_RULE` (one thread) or :data:`WALK_LANE_RULE` (two) walks:
    a graph of :func:`_walk_first` whose bounds leave at least two values open."""
    return _walk_first(p.request) and p.upper - p.lower >= 2


def _walk(
    p: search.Progress, seconds: float = WALK_SECONDS, until: float | None = None
) -> tuple[int, Witness] | None:
    """The walk of :data:`WALK_PROBE_RULE` for a pair of value ``k = lower + 1`` for at most
    ``seconds`` of this thread's CPU time (:data:`WALK_CPU_RULE`; and :data:`WALK_ROUNDS`
    rounds), stopped once ``p`` is out of time (or the lane has won) or :data:`WALK_WALL_FACTOR`
    times ``seconds`` of wall time have passed, or at ``until`` (``time.perf_counter``);
    ``(k, pair)`` if it found one, not yet offered. Step record: ``walk`` (``k``, ``found``,
    ``walk_seconds``, ``walk_cpu``)."""
    from solvers import walk

    k = p.lower + 1
    start, cpu = time.perf_counter(), time.thread_time()
    end = start + WALK_WALL_FACTOR * seconds
    if until is not None:
        end = min(end, until)

    def over() -> bool:
        return (
            time.thread_time() - cpu >= seconds or time.perf_counter() >= end or p.out_of_time()
        )

    walks = walk.Walk(p.request.graph.in_neighbors, seed=p.request.seed)
    pair = walks.run(k, starts=WALK_ROUNDS, stop=over)
    took = round(time.perf_counter() - start, 4)
    p.note(
        "walk",
        k=k,
        found=pair is not None,
        walk_seconds=took,
        walk_cpu=round(time.thread_time() - cpu, 4),
    )
    return None if pair is None else (k, pair)


def _probe(p: search.Progress, k: int, pair: Witness, rule: str = "WALK_PROBE_RULE") -> None:
    """The ask at ``t <= k - 1`` of :data:`WALK_PROBE_RULE` (``search.published_below``, one
    CP-SAT worker, at most :data:`PROBE_SECONDS`, stopped by ``p.stop``) after the walk found
    ``pair`` of value ``k``; the pair is offered only once that ask has proven ``r* >= k``. The
    ask's step names ``rule``."""
    from solvers import cpsat, search

    if p.lower != k - 1 or p.out_of_time() or not cpsat.available():
        return
    cpsat.load()
    search.published_below(p, _cpsat_workers(1), p.lower, PROBE_SECONDS, rule=rule)
    if p.lower == k:  # r* >= k just proven, and the walk's pair (checked here) proves r* <= k
        p.offer(pair)


def _walk_probe(
    p: search.Progress, rule: str = "WALK_PROBE_RULE", seconds: float = WALK_SECONDS
) -> None:
    """:data:`WALK_PROBE_RULE` at one thread (:data:`WALK_WIDE_RULE` there on the wide graphs of
    degree 10 and more; :data:`WALK_BUSY_RULE` beside a lane on a busy machine): :func:`_walk` for
    ``seconds``, then, if it found a pair, :func:`_probe` naming ``rule``. Step records: ``walk``
    and the ask's own (``probe``, ``rule``)."""
    walked = _walk(p, seconds)
    if walked is not None:
        _probe(p, *walked, rule=rule)


def _drop_when_busy(lane: lane_module.PublishedLane) -> None:
    """:data:`LANE_BUSY_RULE`: ``lane`` (just started) is stopped after :data:`LANE_BUSY_AFTER`
    seconds unless it has won, if other processes kept more than :data:`BESIDE_LANE_BUSY` cores
    busy meanwhile (``idle.CpuSample``, this process and the lane's child not counted)."""
    sample = idle.CpuSample(() if lane.pid() is None else (lane.pid(),))

    def due() -> bool:
        busy = sample.others_busy()
        return busy is not None and busy > BESIDE_LANE_BUSY

    lane.drop_after(LANE_BUSY_AFTER, due)


def _switch(p: search.Progress, seconds: float) -> None:
    """:data:`SWITCH_RULE`: the published model on CP-SAT (one worker, this core) for up to
    ``seconds`` in all, in the slices of :data:`SWITCH_SLICES` (the last one gets what is left),
    until one settles the question; each slice's step names its ``config``. Under
    :data:`WIDE_SWITCH_RULE`: least-first for :data:`WIDE_HEAD_WORK` of CP-SAT's work first (below
    degree :data:`WIDE_HEAD_BELOW`), then a printed window of :data:`WIDE_PRINTED_SHARE` of what
    is left, then least-first. The least-first slices are told the upper bound and hinted with the
    witness held before the printed window (``search.published_slice``'s ``told``)."""
    from solvers import cpsat, search

    end = time.perf_counter() + seconds
    told = (p.upper, p.witness)  # the least-first slice's bound and hint, as without the window
    slices = SWITCH_SLICES
    if _wide(p.request):  # WIDE_SWITCH_RULE
        if _head(p.request):
            search.published_slice(
                p, cpsat.run, seconds, least=True, told=told, work=WIDE_HEAD_WORK
            )
            p.note("switch", config="least-first", work=WIDE_HEAD_WORK)
        share = WIDE_PRINTED_SHARE * (end - time.perf_counter())
        slices = (("as-printed", share), ("least-first", None))
    for i, (config, window) in enumerate(slices):
        left = end - time.perf_counter()
        if p.settled() or p.out_of_time() or left <= 0:
            return
        span = left if i == len(slices) - 1 else min(window, left)
        if config == "as-printed":
            search.published_slice(p, cpsat.run, span, as_printed=True)
        else:
            search.published_slice(p, cpsat.run, span, least=True, told=told)
        p.note("switch", config=config, seconds_given=round(span, 4))


def _beside_lane(
    p: search.Progress,
    lane: lane_module.PublishedLane,
    end: float,
    sample: idle.CpuSample | None,
) -> None:
    """:data:`BESIDE_LANE_RULE`: unless the lane has already won, if other processes kept at
    most :data:`BESIDE_LANE_BUSY` cores busy since ``sample`` was taken (``idle.CpuSample``,
    this process and the lane's child not counted), the published model as printed on CP-SAT
    (least-first, told ``p``'s bounds, under :data:`WIDE_LANE_RULE`) until ``end``
    (``time.perf_counter``), beside ``lane``, in a thread at the lowest CPU priority
    (``solvers.idle``), stopped when the lane wins; under :data:`WIDE_LANE_RULE` on a busy
    machine, below degree :data:`WIDE_HEAD_BELOW`, least-first for :data:`WIDE_HEAD_WORK` of
    CP-SAT's work only, in this thread. Under :data:`WALK_LANE_RULE`, the second solve runs for
    :data:`WALK_LANE_AFTER` seconds first, then the walk and its probe in this thread, then the
    second solve again for what is left until ``end``. Notes a ``beside-lane`` step."""
    from solvers import cpsat, search

    busy = None if sample is None else sample.others_busy()
    seconds = end - time.perf_counter()
    due = busy is not None and busy <= BESIDE_LANE_BUSY and seconds > 0
    shown = None if busy is None else round(busy, 2)
    wide = _wide(p.request)  # WIDE_LANE_RULE: the lane runs the printed model
    if p.out_of_time() or lane.won() or seconds <= 0:  # out of time once the lane won (p.halt)
        p.note("beside-lane", others_busy=shown, ran=False)
        return
    if not due and _walk_due(p):  # WALK_BUSY_RULE: the walk and probe first
        _walk_probe(p, rule="WALK_BUSY_RULE", seconds=WALK_BUSY_SECONDS)
        if p.settled() or p.out_of_time():
            p.note("beside-lane", others_busy=shown, ran=False)
            return
    if not due and wide and _head(p.request):  # WIDE_LANE_RULE, busy: a least-first head only
        p.note("beside-lane", others_busy=shown, ran=True, least=True, work=WIDE_HEAD_WORK)
        search.published_slice(p, cpsat.run, seconds, least=True, work=WIDE_HEAD_WORK)
        return
    if not due:
        p.note("beside-lane", others_busy=shown, ran=False)
        return
    p.note("beside-lane", others_busy=shown, ran=True, least=wide)
    cpsat.load()
    lanes_stop = p.stop

    def until(stop_at: float) -> None:  # the second solve, in an idle thread, until stop_at
        def run(stop: StopSignal) -> None:
            p.stop = stop  # this thread only touches p until it returns
            left = stop_at - time.perf_counter()
            search.published_slice(p, cpsat.run, left, least=wide, as_printed=not wide)

        try:
            idle.run_idle(run, lane.won)
        finally:
            p.stop = lanes_stop

    if not _walk_due(p):
        until(end)
        return
    until(min(end, time.perf_counter() + WALK_LANE_AFTER))  # WALK_LANE_RULE
    if _open_before(p, end) and _walk_due(p):
        walked = _walk(p, WALK_LANE_SECONDS, until=end)
        if walked is not None:
            _probe(p, *walked, rule="WALK_LANE_RULE")
    if _open_before(p, end):
        until(end)


def _open_before(p: search.Progress, end: float) -> bool:
    """True while the question is open, the lane has not won (``p.halt``), the deadline has not
    passed and ``end`` (``time.perf_counter``) has not come."""
    return not p.settled() and not p.out_of_time() and time.perf_counter() < end


def solve(request: Request) -> Result:
    """Answer ``request``: subset DP for small graphs; else bounds, then models for the gap.

    Notes
    -----
    ``request.formulation`` is ignored. The result's ``params["steps"]`` lists which bound or
    solve proved what (in a race, with its engine). With ``request.threads >= 2``, an r question
    on more than :data:`EXHAUSTIVE_N` and at most :data:`LARGE_N` nodes, and OR-Tools installed,
    the published model runs on CP-SAT in a child process on the second core from the start when
    the least in-degree is at most :data:`LANE_MAX_UPPER` (``solvers.lane``: its
    ``published-lane`` step) while the sequence above runs on the first with ``threads - 1``;
    the first proof wins and the other side is stopped. With ``threads - 1 >= 2`` and two
    engines that can race (CP-SAT and HiGHS), the gap after the published slice is raced on two
    cores (one worker each); otherwise it is probed by the first installed engine. No solver
    package is imported in this process unless a model is solved here.
    """
    if not _lane_due(request):
        return _solve(request, None)
    lanes: list[lane_module.PublishedLane] = []
    try:
        res = _solve(replace(request, threads=request.threads - 1), lanes)
    finally:
        for lane in lanes:
            lane.stop()  # idempotent: the child and its thread have ended when we return
    return replace(res, params={**res.params, "threads": request.threads})


def _in_regular(graph) -> bool:
    """True when every node hears as many nodes: regular undirected graphs and the k-in
    digraphs of ``generate k-in`` (issue 40: the published model on CP-SAT proved r* = 5 of
    ``generate k-in --n 60 --k 10`` in 2-4 s, where the core search proved nothing in 6 s)."""
    return len({len(heard) for heard in graph.in_neighbors}) == 1


def _symmetric(request: Request) -> bool:
    """True for a graph of more than :data:`CORES_LARGE_N` nodes whose in-degrees all equal
    one above :data:`CORES_REGULAR_DEGREE`: no core search (:data:`CORES_REGULAR_DEGREE`), and
    with two threads the lane starts after the quick bounds, told them (:func:`_solve`)."""
    graph = request.graph
    big = request.n > CORES_LARGE_N and _in_regular(graph)
    return big and len(graph.in_neighbors[0]) > CORES_REGULAR_DEGREE


def _printed_too(request: Request) -> bool:
    """True when a graph that skips the core search (:func:`_symmetric`) also gets the published
    model as printed: beside its lane (:data:`BESIDE_LANE_RULE`) or in a window before
    least-first (:data:`SWITCH_RULE`); not a k-in digraph (:data:`KIN_LEAST_FIRST_RULE`)."""
    return _symmetric(request) and not request.graph.directed


def _wide(request: Request) -> bool:
    """True for an undirected regular graph of more than :data:`CORES_LONG_N` nodes and a degree
    of at least :data:`WIDE_DEGREE` (:data:`WIDE_SWITCH_RULE`)."""
    graph = request.graph
    if graph.directed or request.n <= CORES_LONG_N or not _in_regular(graph):
        return False
    return len(graph.in_neighbors[0]) >= WIDE_DEGREE


def _head(request: Request) -> bool:
    """True when a graph of :func:`_wide` gets the least-first head window
    (:data:`WIDE_HEAD_WORK`): a degree below :data:`WIDE_HEAD_BELOW`."""
    return len(request.graph.in_neighbors[0]) < WIDE_HEAD_BELOW


def _four_regular(request: Request) -> bool:
    """True for an undirected graph of more than :data:`CORES_LONG_N` nodes whose degrees all
    equal :data:`CORES_REGULAR_DEGREE`: no core search and no lane, the hinted published slice
    on CP-SAT with every thread instead (:data:`FOUR_REGULAR_RULE`)."""
    graph = request.graph
    if graph.directed or request.n <= CORES_LONG_N or not _in_regular(graph):
        return False
    return len(graph.in_neighbors[0]) == CORES_REGULAR_DEGREE


def _published_max_upper(request: Request) -> int:
    """The largest upper bound at which the published slices run: :data:`LANE_MAX_UPPER` on a
    graph whose in-degrees all equal (:func:`_in_regular`: the lane's own limit, so that one
    thread runs the hinted model that two threads run in the lane), else
    :data:`PUBLISHED_MAX_UPPER`. Issue 40, round 3: on ``generate k-in``, n = 60, k = 10
    (``kin-60-k10-7101``), the halves witness left the upper bound at 9, the slice was
    skipped and ``--threads 1`` ended bounded [4, 5] at 10 s, where the one-worker CP-SAT
    script proved r* = 5 in 1.2 s and the default, with the hinted lane, in 1.45 s."""
    regular = _in_regular(request.graph)
    return LANE_MAX_UPPER if regular else PUBLISHED_MAX_UPPER


def _lane_due(request: Request) -> bool:
    """True when ``request`` gets the published model's lane (``solvers.lane``)."""
    q = request.question
    if q.about_s or request.threads < 2 or not EXHAUSTIVE_N < request.n <= LARGE_N:
        return False
    return not _four_regular(request) and lane_module.available()


def _start_lane(
    request: Request,
    upper: int | None = None,
    hint: Witness | None = None,
    *,
    child: subprocess.Popen[bytes] | None = None,
    as_printed: bool = False,
) -> lane_module.PublishedLane:
    """The published model's lane on the second core, started; told the proven ``upper``
    bound and hinted with its pair ``hint`` when given (``lane.solve_payload``), in ``child``
    when given (``lane.spawn``); ``as_printed``: the swap symmetry left unbroken
    (:data:`WIDE_LANE_RULE`; give no bound and no hint either)."""
    pair = None if hint is None else (hint.s1, hint.s2)
    least = _in_regular(request.graph) and not as_printed  # LEAST_FIRST_RULE
    lane = lane_module.PublishedLane(request, StopSignal(), upper, pair, least, child)
    lane.start()
    return lane


def _solve(request: Request, lanes: list[lane_module.PublishedLane] | None) -> Result:
    """:func:`solve`'s work; with a list in ``lanes``, the lane is started (and put there)
    first when the least in-degree (an upper bound on r*) is at most :data:`LANE_MAX_UPPER`."""
    began = time.perf_counter()
    q = request.question
    lane = None
    least = min(map(len, request.graph.in_neighbors))
    lane_due = lanes is not None and least <= LANE_MAX_UPPER
    child = None  # the hinted lane's child, started now (LANE_WARM_RULE)
    sample = None  # the machine's CPU counters from then on (BESIDE_LANE_RULE)
    if lane_due and not _symmetric(request):
        lane = _start_lane(request)
        lanes.append(lane)
        _drop_when_busy(lane)
    elif lane_due and not q.about_s:
        child = lane_module.spawn()
        sample = idle.CpuSample((child.pid,))
    if q.about_s:  # is the graph r-robust? s*_r >= 1 if so, else s*_r = 0 (Def. 7)
        asked = q.r >= 1 and request.n > EXHAUSTIVE_S_N and request.known_lower < 1
        found = _cores_robust(request) if asked else None  # known_lower >= 1: r-robust
    else:
        found = _cores(request, None if lane is None else lane.won)
    if found is not None and found.status == Status.EXACT and not q.about_s:
        return _as_portfolio(request, found, "cores")
    if request.n <= (EXHAUSTIVE_S_N if q.about_s else EXHAUSTIVE_N):
        return _as_portfolio(request, _exhaustive(request), "exhaustive", found)
    from solvers import search  # the models and heuristics: only above the subset DP

    p = search.Progress(request, NAME, "strong", "portfolio")
    p.start = began  # the time limit and the wall time count the core search too
    if request.known_lower > 0:  # proven by the caller (Request.known_lower)
        p.prove_lower(request.known_lower)
        p.note("known-lower", value=request.known_lower)
    if q.about_s and q.r == 0:  # every set is 0-reachable: s*_0 = n
        p.lower = p.upper
        return p.result()
    if request.n > LARGE_N:  # O(n + m) memory: no model, no matrix
        (search.linear_s if q.about_s else search.linear_r)(p)
        p.note("large", max_n=LARGE_N)
        return p.result(exact_engine=None)
    quick = False
    if child is not None:  # a symmetric graph: the hinted lane
        quick = True
        lane = _hinted_lane(p, child)
        if lane is not None:
            lanes.append(lane)
    if lane is not None:
        p.halt, p.stop = lane.won, lane.signal
    exact_engine = _gap(p, found, lane, quick_done=quick, sample=sample)
    if lane is not None:
        _lane_keeps_the_rest(p, lane)
        lane.stop()
        lane.absorb(p)
        p.version += " + lane: ortools"
    return p.result(exact_engine=exact_engine)


def _hinted_lane(
    p: search.Progress, child: subprocess.Popen[bytes]
) -> lane_module.PublishedLane | None:
    """The quick bounds (``search.quick_r``) of a graph that skips the core search, then, if
    they leave the question open, its lane, told them and hinted with their pair, in ``child``
    (``lane.spawn``: started before them, :data:`LANE_WARM_RULE`); the child is ended if it
    gets no payload."""
    from solvers import search

    lane = None
    try:
        if not search.quick_r(p) and not p.out_of_time():
            request = replace(p.request, time_limit=p.remaining())
            if _wide(request):  # WIDE_LANE_RULE: the model as printed, told nothing
                lane = _start_lane(request, child=child, as_printed=True)
            else:
                lane = _start_lane(request, p.upper, p.witness, child=child)
    finally:
        if lane is None:
            lane_module.discard(child)
    return lane


def _lane_keeps_the_rest(p: search.Progress, lane: lane_module.PublishedLane) -> None:
    """When the first core's steps have ended with the question open and time left (a solver
    that gave up, or an answer that cannot be proven on this core), the lane keeps that time:
    wait for its proof until the deadline (issue 40: the first core returned at 50.5 s of 60
    and the lane, stopped then, proved r* of a random 8-regular graph on 80 nodes in 38 s).
    Without a time limit, the lane runs on until it has answered."""
    if p.settled() or p.out_of_time():
        return
    left = p.remaining()
    p.tell("waiting for the published model's lane")
    lane.wait(left)
    p.note("lane-rest", seconds_given=None if left is None else round(left, 4))


def _gap(
    p: search.Progress,
    found: Result | None,
    lane: lane_module.PublishedLane | None,
    quick_done: bool = False,
    sample: idle.CpuSample | None = None,
) -> str | None:
    """Steps 2-5 on ``p`` (the core search's bounds in first); the exact engine's name, if one
    ran. ``lane``: the published model runs on CP-SAT on the other core; ``quick_done``: the
    quick bounds are already in ``p`` (the symmetric graph's hinted lane needed them);
    ``sample``: the machine's CPU counters since that lane's child was spawned."""
    from solvers import race, search

    request = p.request
    q = request.question
    if found is not None and q.about_s:
        if found.status == Status.EXACT and found.holds:
            p.prove_lower(1)  # (r, 1)-robust is r-robust
        elif found.status == Status.EXACT and found.witness is not None:
            p.offer(found.witness)  # refutes r-robustness: s*_r = 0, checked by offer
        p.note("cores-r-robust", r=q.r, holds=found.holds, cpu_limit=found.params["cpu_limit"])
    elif found is not None:
        p.prove_lower(found.lower)
        if found.witness is not None:
            p.offer(found.witness)
        p.note("cores", cpu_limit=found.params["cpu_limit"], bisect=found.params.get("bisect"))
    if q.about_s:
        _bounds_s(p)
        held = p.upper  # CORES_S_RULE v4: the long slice's model is the one it would solve alone
        _published_s_slice(p, most=CORES_S_HEAD)
        _cores_s(p)
        _published_s_slice(p, upper=held)
    elif not (p.settled() if quick_done else search.quick_r(p)) and not p.out_of_time():
        if lane is None and _walk_due(p):
            if _wide(request) and not _head(request):  # WALK_WIDE_RULE: a longer walk
                _walk_probe(p, rule="WALK_WIDE_RULE", seconds=WALK_WIDE_SECONDS)
            else:
                _walk_probe(p)
            if p.settled() or p.out_of_time():
                return None
        most = _published_max_upper(request)
        early = p.upper > most  # HEURISTIC_FIRST_RULE: a pair before the decision
        if early:
            search.heuristic_r(p)
        if p.upper <= most:  # after an early heuristic, CP-SAT alone (HEURISTIC_FIRST_RULE)
            waited = _published_slices(p, lane, sample, highs_first=not early)
            if waited and _wide(request):  # AFTER_WAIT_RULE: right after the lane's wait
                _after_wait(p)
        else:
            p.note("published-skipped", max_upper=most)
        search.more_r(p, heuristic=not early)
    if p.settled() or p.out_of_time():
        return None
    racers = race.racers(published=0.0) if request.threads >= 2 else []
    if len(racers) >= 2:
        p.version = " + ".join(["portfolio", *(r.version for r in racers)])
        race.race(p, racers)
        return "+".join(r.name for r in racers)
    backend = exact_backend()
    if backend is None:
        p.steps.append(
            {"step": "exact", "note": "no model engine installed (ortools/highspy/pulp)"}
        )
        return None
    p.version = f"portfolio + {backend[2]}"
    if q.about_s:
        search.strong_s_loop(p, backend[1])
    else:  # past the skipped published slices the first probe needs seconds: search first
        noted = {step.get("step") for step in p.steps}
        first = "published-skipped" in noted and "twins" not in noted  # twins: the model is small
        search.strong_r_loop(p, backend[1], search_first=first)
    return backend[0]


def _cores(request: Request, halt: Callable[[], bool] | None = None) -> Result | None:
    """The core search within its budget (:func:`_cores_budget`; None when it has none);
    under a time limit, at most a quarter of it in wall seconds. Up to :data:`EXHAUSTIVE_N`
    nodes a decision is answered with r* itself, as the subset DP did (a certificate of
    ``is_r_robust(r)`` then holds every bound proven, e.g. for a later ``verify --require`` of
    a higher r). ``halt``: as in ``cores.solve``."""
    n = request.n
    cpu = _cores_budget(request)
    if cpu is None:
        return None
    limit = None if request.time_limit is None else request.time_limit / 4
    q = request.question
    if q.target is None or n > EXHAUSTIVE_N:
        bisect = q.target is None and n > CORES_LONG_N  # CORES_BISECT_RULE
        return cores.solve(request, seconds=limit, cpu=cpu, halt=halt, bisect=bisect)
    res = cores.solve(replace(request, question=Question.max_r()), seconds=limit, cpu=cpu)
    return replace(res, question=q, status=Status.of(q, res.lower, res.upper, (n + 1) // 2))


def _cores_robust(request: Request) -> Result | None:
    """For an s*_r question: is the graph r-robust, by the core search within its budget
    (:func:`_cores_budget`, at most a quarter of a time limit)? Issue 40: at r = r* the strong
    (r, s) model's last probe, the proof of s*_r >= 1 (that is, of r-robustness), was what made
    the portfolio slower than the published (r, s) model on CP-SAT; the core search proved it
    in 0.001-0.2 s on ER(30-40, 0.3-0.35)."""
    cpu = _cores_budget(request)
    if cpu is None:
        return None
    limit = None if request.time_limit is None else request.time_limit / 4
    decision = replace(request, question=Question.is_r_robust(request.question.r))
    return cores.solve(decision, seconds=limit, cpu=cpu)


def _cores_budget(request: Request) -> float | None:
    """CPU seconds for the core search: None above :data:`CORES_MAX_N` nodes, for regular
    graphs of a degree above :data:`CORES_REGULAR_DEGREE` above :data:`CORES_LARGE_N`, and for
    undirected ones of that degree above :data:`CORES_LONG_N` (:data:`FOUR_REGULAR_RULE`);
    :data:`CORES_GLANCE_SECONDS` for dense graphs there (:data:`CORES_DENSE`);
    :data:`CORES_SECONDS` from :data:`EXHAUSTIVE_N` + 1 to :data:`CORES_LONG_N` nodes;
    :data:`CORES_SHORT_SECONDS` otherwise."""
    n, graph = request.n, request.graph
    if n > CORES_MAX_N or _symmetric(request) or _four_regular(request):
        return None
    if n > CORES_LARGE_N and sum(map(len, graph.in_neighbors)) > CORES_DENSE * n * (n - 1):
        return CORES_GLANCE_SECONDS
    return CORES_SECONDS if EXHAUSTIVE_N < n <= CORES_LONG_N else CORES_SHORT_SECONDS


def _exhaustive(request: Request) -> Result:
    from solvers import exhaustive  # numpy: only when the core search did not settle it

    return exhaustive.solve(request)


def _as_portfolio(request: Request, res: Result, step: str, before: Result | None = None) -> Result:
    """An engine's result as the portfolio's, with the core search's step first if it ran."""
    steps = []
    if before is not None:
        steps.append(_step(before, "cores"))
    steps.append(_step(res, step))
    params = {"time_limit": request.time_limit, "threads": request.threads, "seed": request.seed}
    return replace(
        res,
        engine=NAME,
        formulation="strong",
        engine_version=f"portfolio + {res.engine_version}",
        wall_time=sum(r.wall_time for r in (before, res) if r is not None),
        params={**params, "steps": steps},
    )


def _step(res: Result, step: str) -> dict:
    found = {"step": step, "lower": res.lower, "upper": res.upper}
    if res.params.get("bisect"):  # CORES_BISECT_RULE
        found["bisect"] = True
    return {**found, "value": res.value, "seconds": round(res.wall_time, 4)}


def _published_s_slice(
    p: search.Progress, most: float | None = None, upper: int | None = None
) -> None:
    """The published (r, s) model on CP-SAT for :data:`PUBLISHED_S_SLICE` seconds
    (:data:`PUBLISHED_S_SHARE` of the time left under a limit), when the question is still
    open: with one thread least-first (:func:`search.published_s_slice`,
    :data:`LEAST_FIRST_S_RULE`); with two or more and R at least :data:`BOTH_S_MIN_R`,
    least-first and, for :data:`BOTH_S_WINDOW` seconds from :data:`BOTH_S_DELAY` on, as printed,
    one worker each, the first proof winning (:data:`BOTH_S_RULE`, ``solvers.first_proof``);
    ``most``: at most that many seconds (:data:`CORES_S_HEAD`); ``upper``: the proven upper
    bound the model is told instead of ``p``'s (:data:`CORES_S_RULE`)."""
    from solvers import cpsat, first_proof, search

    if p.settled() or p.out_of_time() or not cpsat.available():
        return
    cpsat.load()
    left = p.remaining()
    seconds = PUBLISHED_S_SLICE if left is None else PUBLISHED_S_SHARE * left
    if most is not None:  # CORES_S_HEAD
        seconds = min(seconds, most)

    if p.request.threads >= 2 and p.request.question.r >= BOTH_S_MIN_R:  # BOTH_S_RULE
        first_proof.published_s_both(p, cpsat.run, seconds, BOTH_S_WINDOW, BOTH_S_DELAY, upper)
        return

    run = _cpsat_workers(PUBLISHED_S_WORKERS)  # not the request's ``threads``
    search.published_s_slice(p, run, seconds, least=True, upper=upper)  # LEAST_FIRST_S_RULE


def _cores_s(p: search.Progress) -> None:
    """:data:`CORES_S_RULE`: the climb of ``solvers.cores_s`` from a proven s*_r >= 1, when the
    question is still open, within its budget; its pair is checked (``p.offer``) and its lower
    bound kept."""
    from solvers import cores_s

    if p.settled() or p.out_of_time() or p.lower < 1 or p.upper - p.lower > CORES_S_MAX_GAP:
        return
    left = p.remaining()
    budget = CORES_S_SECONDS if left is None else min(CORES_S_SECONDS, CORES_S_SHARE * left)
    target = p.request.question.target
    top = p.upper if target is None else min(p.upper, target)
    masks = [sum(1 << j for j in s) for s in p.request.graph.in_neighbors]
    lower, pair = cores_s.search_s(
        masks, p.request.question.r, p.lower, top, max_sets=CORES_S_MAX_SETS, budget=budget,
        stop=p.out_of_time,
    )
    if pair is not None:
        p.offer(pair)
    p.prove_lower(lower)
    p.note("cores-s", budget=round(budget, 3))


def _cpsat_workers(most: int) -> search.Runner:
    """``cpsat.run`` on at most ``most`` CP-SAT workers, whatever the ``threads`` it is given."""
    from solvers import cpsat

    def run(model, time_limit, threads, seed=0, **kw):
        return cpsat.run(model, time_limit, min(threads, most), seed, **kw)

    return run


def _bounds_s(p: search.Progress) -> None:
    """The heuristic (r, s) witness; first, unless the core search proved the graph r-robust
    (``cores-r-robust``), the heuristic search for a pair refuting r-robustness (s*_r = 0)."""
    from solvers import heuristics

    nb = p.request.graph.in_neighbors
    r = p.request.question.r
    below = None if p.lower >= 1 else heuristics.search_r(nb, target=r, seed=p.request.seed)
    if below is not None and below[0] < r:
        p.offer(below[1])  # not r-robust: s*_r = 0
        p.note("not-r-robust", value=below[0])
        return
    found = heuristics.search_s(nb, r, seed=p.request.seed)
    if found is not None:
        p.offer(found[1])
    p.note("heuristic", value=found[0] if found else None)
