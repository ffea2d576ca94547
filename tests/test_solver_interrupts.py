"""Stopping solves from outside: CBC (a separate program) on a SIGINT to Python alone, the long
witness search on a stop check, and the wait for a stopped solve (solvers/interrupt.py).

The CLI case runs a real subprocess and sends SIGINT to its pid only (``os.kill``), not to its
process group: CBC then hears nothing unless the adapter forwards the stop. Children are found
by a /proc scan (psutil is not a dependency), so those cases need Linux.
"""

import _thread
import math
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import networkx as nx
import pytest

from robustgraph import io
from robustgraph.topology import Topology
from solvers import bounds, cbc, heuristics, race
from solvers.interrupt import STOP_GRACE, ChildProcess, StopSignal, run_interruptibly
from solvers.milp_model import Outcome, pair_from_values, published_r
from solvers.search import Progress
from solvers.types import Question, Request, Witness
from solvers.witness import refutes_r

HAS_PROC = Path("/proc/self/stat").exists()
needs_proc = pytest.mark.skipif(not HAS_PROC, reason="finds child processes through /proc")
needs_cbc = pytest.mark.skipif(not cbc.available(), reason="needs PuLP's bundled CBC")

# Ctrl-C handling as Python sets it up at start, even when this test runs where SIGINT is
# ignored (a background job of a non-interactive shell), which the child would inherit.
CLI = [
    sys.executable,
    "-c",
    "import signal; signal.signal(signal.SIGINT, signal.default_int_handler)\n"
    "from robustgraph.cli import main; main()",
]


def _children(pid: int) -> dict[int, str]:
    """Live (not zombie) processes whose parent is ``pid``: {pid: command line}."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            line = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        state, parent = stat[stat.rindex(")") + 2 :].split()[:2]
        if int(parent) == pid and state != "Z":
            found[int(entry)] = line
    return found


def _cbc_solves(pid: int) -> set[int]:
    """``pid``'s children that are CBC solving a model (not the ``cbc -quit`` version probe)."""
    return {k for k, line in _children(pid).items() if "cbc" in line and " -solve " in line}


def _alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def _er40() -> Topology:
    """ER(40, 1/2) seed 0: CBC's published model runs far beyond 10 s on it."""
    return Topology.from_networkx(nx.gnp_random_graph(40, 0.5, seed=0))


# ------------------------------------------------------------------------ CBC on Ctrl-C
@needs_proc
@needs_cbc
def test_sigint_to_python_alone_stops_cbc_and_leaves_no_cbc_process(tmp_path):
    """Was: Python exited with 130 at once, and CBC ran on as an orphan until its own end."""
    io.write(_er40(), tmp_path / "er40.json")
    cmd = [*CLI, "certify", "er40.json", "--max", "--engines", "cbc"]
    cmd += ["--formulation", "published", "-o", "er40.cert.json"]
    proc = subprocess.Popen(
        cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    solvers_seen: set[int] = set()
    try:
        deadline = time.monotonic() + 60
        while not solvers_seen and time.monotonic() < deadline and proc.poll() is None:
            solvers_seen = _cbc_solves(proc.pid)
            time.sleep(0.05)
        assert solvers_seen, "CBC never started"
        time.sleep(1.5)
        assert proc.poll() is None, "CBC finished within 1.5 s: the case needs a longer solve"
        os.kill(proc.pid, signal.SIGINT)  # the Python process only, not its group
        # a hang guard only: generous for a loaded machine, far below CBC's own end here
        out, err = proc.communicate(timeout=STOP_GRACE + 58)
        survivors = [pid for pid in solvers_seen if _alive(pid)]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        for pid in solvers_seen:  # never leave a CBC of this test behind, even on a failure
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    errors = [line for line in err.splitlines() if line.startswith("robustgraph: error:")]
    assert errors == ["robustgraph: error: interrupted"] == err.splitlines()[-1:], err
    assert "Traceback" not in err
    assert out == ""
    assert not survivors, "a CBC process outlived the command"
    assert not (tmp_path / "er40.cert.json").exists()


@needs_proc
@needs_cbc
def test_a_stop_signal_ends_cbc_with_what_it_had():
    """cbc.run honours a StopSignal as cpsat/highs do: CBC stops within the grace period, its
    incumbent is still a checked pair and its proven bound stays below that pair's value."""
    model = published_r(_er40().in_neighbors)
    nb = _er40().in_neighbors
    stop = StopSignal()
    box = {}
    worker = threading.Thread(target=lambda: box.update(out=cbc.run(model, 120.0, 1, 0, stop=stop)))
    worker.start()
    deadline = time.monotonic() + 60  # a hang guard: wait for CBC however slow its start
    while not _cbc_solves(os.getpid()) and time.monotonic() < deadline and worker.is_alive():
        time.sleep(0.05)
    assert _cbc_solves(os.getpid()), "CBC never started"
    stop.set()
    # a hang guard, half the solve's 120 s limit: an ignored stop runs to that limit (or ends
    # the solve, which the status check below refuses)
    worker.join(60)
    assert not worker.is_alive()
    out: Outcome = box["out"]
    assert out.status in ("feasible", "unknown"), out
    assert not _cbc_solves(os.getpid())
    if out.values is not None:
        pair = Witness(*pair_from_values(model, out.values))
        value = bounds.pair_value_r(nb, pair)
        assert refutes_r(nb, pair.s1, pair.s2, value + 1)
        if out.bound is not None:
            assert math.ceil(out.bound - 1e-6) <= value


# ------------------------------------------------------------------------- ChildProcess
def _sleeper(ignore_sigint: bool) -> list[str]:
    handler = "signal.signal(signal.SIGINT, signal.SIG_IGN); " if ignore_sigint else ""
    return [
        sys.executable,
        "-c",
        f"import signal, time; {handler}print('up', flush=True); time.sleep(60)",
    ]


def _wait_for_line(path: Path, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return
        time.sleep(0.02)
    raise AssertionError(f"{path} stayed empty")


@needs_proc
@pytest.mark.parametrize("ignore_sigint", [False, True], ids=["obeys", "ignores"])
def test_a_stopped_child_is_interrupted_or_killed_after_the_grace(tmp_path, ignore_sigint):
    """A program that obeys SIGINT ends at once; one that ignores it is killed after the grace;
    in both cases run() returns only once the program is gone."""
    log = tmp_path / "log"
    child = ChildProcess(_sleeper(ignore_sigint), output=log, grace=0.5)
    box = {}
    worker = threading.Thread(target=lambda: box.update(code=child.run()))
    worker.start()
    _wait_for_line(log)
    (pid,) = [p for p, line in _children(os.getpid()).items() if "time.sleep(60)" in line]
    asked = time.perf_counter()
    child.stop()
    child.stop()  # a resent stop (StopSignal.poke) does nothing more
    worker.join(30)  # a hang guard only; how the child ended is read from its exit code
    took = time.perf_counter() - asked
    assert not worker.is_alive() and not _alive(pid)
    if ignore_sigint:  # killed, and not before the grace (a lower bound load cannot break)
        assert box["code"] == -signal.SIGKILL and took >= 0.5
    else:  # ended by the SIGINT itself, not killed after the grace
        assert box["code"] == -signal.SIGINT
    assert log.read_text().startswith("up")


def test_a_child_stopped_before_it_starts_never_starts(tmp_path):
    child = ChildProcess(_sleeper(False), output=tmp_path / "log")
    child.stop()
    assert child.run() is None and child.stopped
    assert not (tmp_path / "log").exists()


# ------------------------------------------------------------- the wait for a stopped call
def test_a_second_ctrl_c_does_not_cut_the_wait_for_a_stopped_solve():
    """run_interruptibly used to wait for the stopped call in one uninterruptible-by-design wait
    that a second Ctrl-C broke, leaving the solve running while the error propagated."""
    released = threading.Event()
    stops = []

    def stop() -> None:
        stops.append(time.perf_counter())
        if len(stops) == 1:
            threading.Timer(0.6, released.set).start()  # the solver winds down for 0.6 s

    def call() -> str:
        released.wait(30)
        return "ended"

    main = threading.main_thread().ident

    def interrupt_twice() -> None:
        time.sleep(0.2)
        signal.pthread_kill(main, signal.SIGINT)
        time.sleep(0.3)
        signal.pthread_kill(main, signal.SIGINT)  # during the wind-down

    threading.Thread(target=interrupt_twice).start()
    with pytest.raises(KeyboardInterrupt):
        run_interruptibly(call, stop)
    assert released.is_set(), "the interrupt propagated while the solve still ran"
    assert len(stops) >= 2  # the stop is resent while the call winds down
    assert not [t for t in threading.enumerate() if t.name == "solve"]


# ----------------------------------------------------------------- the long witness search
def _er60() -> list[frozenset[int]]:
    return Topology.from_networkx(nx.gnp_random_graph(60, 0.5, seed=0)).in_neighbors


def _checked(nb, found) -> int:
    value, pair = found
    assert refutes_r(nb, pair.s1, pair.s2, value + 1)
    assert bounds.pair_value_r(nb, pair) == value
    return value


@pytest.mark.parametrize("after", [0, 500])
def test_the_long_search_returns_its_best_pair_at_the_stop_check_that_says_stop(after):
    """Unstopped, this search takes about 6 s (3000 moves from each of 10 starts at n = 60)
    and checks its stop at every tabu move (under a millisecond): told to stop at check
    ``after`` + 1, it returns its best pair there. Counted in checks, not on a clock: a search
    that checked only between starts would end by itself after about ten."""
    nb = _er60()
    checks = [0]

    def stop() -> bool:
        checks[0] += 1
        return checks[0] > after

    found = heuristics.long_search_r(nb, 60.0, seed=0, stop=stop)
    assert after < checks[0] <= after + 2  # it saw the stop, and at most one check more
    _checked(nb, found)


def test_a_stop_keeps_the_search_exactly_as_far_as_it_got():
    """The stop check only cuts the search short: polled False, the same seed gives the same
    pair as without it."""
    nb = Topology.from_networkx(nx.gnp_random_graph(30, 0.5, seed=1)).in_neighbors
    plain = heuristics.long_search_r(nb, 0.5, seed=3)
    polled = heuristics.long_search_r(nb, 0.5, seed=3, stop=lambda: False)
    assert plain == polled
    _checked(nb, plain)


def _stall_now(model, time_limit, threads, seed, *, stop=None):
    """A racer whose every probe stalls at once: it climbs, and as the second racer it runs
    the long witness search first."""
    return Outcome("unknown", None, None, 0.0, "STALLED")


def _block(model, time_limit, threads, seed, *, stop=None):
    start = time.perf_counter()
    stop.wait(time_limit)
    return Outcome("unknown", None, None, time.perf_counter() - start, "BLOCKED")


def test_ctrl_c_during_a_racers_long_search_ends_the_race_at_once(monkeypatch):
    """The race used to wait for the long search (about 5 s at n = 60) after a Ctrl-C."""
    nb = _er60()
    t = Topology.from_networkx(nx.gnp_random_graph(60, 0.5, seed=0))
    p = Progress(Request(t, Question.max_r(), 60.0, 2), "portfolio", "strong", "test")
    p.offer(bounds.halves_pair(nb)[1])
    started, ended = threading.Event(), {}
    real = heuristics.long_search_r

    def watched(in_neighbors, seconds, *, seed=0, stop=None):
        ended["budget"] = seconds
        started.set()
        found = real(in_neighbors, seconds, seed=seed, stop=stop)
        ended["at"] = time.perf_counter()
        return found

    monkeypatch.setattr(heuristics, "long_search_r", watched)
    sent = {}

    def interrupt() -> None:
        if started.wait(30):
            time.sleep(0.5)
            sent["at"] = time.perf_counter()
            _thread.interrupt_main()

    helper = threading.Thread(target=interrupt)
    helper.start()
    with pytest.raises(KeyboardInterrupt):
        race.race(p, [race.Racer("a", _block), race.Racer("b", _stall_now)])
    returned = time.perf_counter()
    helper.join()
    assert "at" in sent, "the long search never started"
    # its own budget is 15 s (IMPROVE_SHARE of the 60 s limit); a third of it is a hang guard
    # no loaded machine nears for a search that stops within a tabu move of the Ctrl-C
    assert ended["at"] - sent["at"] < ended["budget"] / 3, "the long search ran on after Ctrl-C"
    assert returned - sent["at"] < ended["budget"] / 3
    assert not [th for th in threading.enumerate() if th.name.startswith("race-")]
