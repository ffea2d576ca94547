"""Shared test helpers: the hypothesis profiles, a naive robustness oracle, hypothesis
strategies for graphs, a module-scoped Ray instance for the scale-out tests, and tempfile
pointed into pytest's own temporary root.

Hypothesis profiles (the suite is deterministic unless asked otherwise):

- ``dev`` (the default): derandomized, i.e. the examples come from a fixed seed derived from
  each test, so the README's test command draws the same examples on every machine and every
  run; no deadline and no ``too_slow`` health check (both depend on the machine's speed).
- ``ci`` (loaded when the ``CI`` environment variable is set, as CI sets ``CI=true``): ``dev``
  plus ``print_blob``, so a failure prints the blob that reproduces it.
- ``explore``: random seeds and the local example database, for hunting new failures:
  ``HYPOTHESIS_PROFILE=explore python -m pytest`` (or ``--hypothesis-profile explore``).

``HYPOTHESIS_PROFILE`` names the profile explicitly and wins over ``CI``.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import tempfile

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from robustgraph.topology import Topology
from solvers.witness import reach, reachable_nodes

_NOT_TIMED = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("dev", derandomize=True, **_NOT_TIMED)
settings.register_profile("ci", settings.get_profile("dev"), print_blob=True)
settings.register_profile("explore", derandomize=False, **_NOT_TIMED)


def hypothesis_profile(environ: dict[str, str]) -> str:
    """The profile for an environment: ``HYPOTHESIS_PROFILE``, else ``ci`` under ``CI``, else
    ``dev``."""
    return environ.get("HYPOTHESIS_PROFILE") or ("ci" if environ.get("CI") else "dev")


settings.load_profile(hypothesis_profile(dict(os.environ)))


@pytest.fixture(autouse=True, scope="session")
def _tempfile_under_pytest(tmp_path_factory):
    """What ``tempfile`` makes during the tests (docstring examples call ``mkdtemp``) goes under
    pytest's temporary root, which pytest prunes, instead of piling up in /tmp. (In-process only:
    Ray and other subprocesses keep their own temporary directory.)"""
    saved = tempfile.tempdir
    tempfile.tempdir = str(tmp_path_factory.mktemp("tempfile"))
    yield
    tempfile.tempdir = saved


def disjoint_pairs(n: int):
    """Every ordered pair of disjoint nonempty subsets of range(n), by 3^n labelling."""
    for labels in itertools.product((0, 1, 2), repeat=n):
        s1 = frozenset(i for i, x in enumerate(labels) if x == 1)
        s2 = frozenset(i for i, x in enumerate(labels) if x == 2)
        if s1 and s2:
            yield s1, s2


def in_regular_30(directed: bool, degree: int) -> Topology:
    """A 30-node graph whose in-degrees are all equal: the 2-in digraph with arcs from i + 1 and
    i + 7 (mod 30) into i, or a random ``degree``-regular graph (seed 3)."""
    import networkx as nx

    if directed:
        kin = nx.DiGraph()
        kin.add_edges_from((j, i) for i in range(30) for j in ((i + 1) % 30, (i + 7) % 30))
        return Topology.from_networkx(kin)
    return Topology.from_networkx(nx.random_regular_graph(degree, 30, seed=3))


def naive_max_r(t: Topology) -> int:
    """r* straight from the definition (LeBlanc et al. 2013): O(3^n) pairs."""
    if t.n < 2:
        return 0
    nb = t.in_neighbors
    return min(max(reach(nb, a), reach(nb, b)) for a, b in disjoint_pairs(t.n))


def naive_max_s(t: Topology, r: int) -> int:
    """s*_r straight from the definition: min |X1|+|X2| over pairs with no fully reachable side."""
    if t.n < 2:
        return 0
    nb = t.in_neighbors
    best = t.n
    for a, b in disjoint_pairs(t.n):
        xa, xb = reachable_nodes(nb, a, r), reachable_nodes(nb, b, r)
        if len(xa) < len(a) and len(xb) < len(b):
            best = min(best, len(xa) + len(xb))
    return best


@st.composite
def topologies(draw, max_n: int = 8, directed: bool | None = None) -> Topology:
    """Random graphs and digraphs, n = 1..max_n, any density (including empty and complete)."""
    n = draw(st.integers(1, max_n))
    is_directed = draw(st.booleans()) if directed is None else directed
    p = draw(st.sampled_from([0.0, 0.2, 0.4, 0.6, 0.8, 1.0]))
    pairs = [(u, v) for u in range(n) for v in range(n) if u != v and (is_directed or u < v)]
    chosen = (
        [e for e in pairs if draw(st.floats(0, 1)) < p] if 0 < p < 1 else (pairs if p == 1 else [])
    )
    return Topology.from_edges(chosen, nodes=range(n), directed=is_directed)


@pytest.fixture(scope="module")
def ray_instance():
    """A private local Ray instance (2 CPUs) for one test module; skips when Ray is not
    installed.

    Private whatever runs on the machine: ``address="local"`` starts a new instance instead of
    attaching to ``RAY_ADDRESS`` or to a cluster ``ray start`` left running (docs/scale-out.md
    tells users to start one), and ``RAY_ADDRESS`` is unset while the module runs, so code under
    test that reads it finds the instance already initialised and uses that.
    """
    if importlib.util.find_spec("ray") is None:
        pytest.skip("ray is not installed (pip install 'robustgraph[distributed]')")
    import ray

    saved = os.environ.pop("RAY_ADDRESS", None)
    try:
        ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level="warning")
        yield ray
        ray.shutdown()
    finally:
        if saved is not None:
            os.environ["RAY_ADDRESS"] = saved


def slow_engine(limits: list, seconds: float, r_bounds: tuple[int, int]):
    """A fake ``registry.solve`` that records each request's time limit, spends ``seconds`` and
    proves nothing beyond ``r_bounds`` on r* (and 0..n on s*): for one-deadline tests."""
    import time

    from solvers.types import Result, Status

    def solve(request, engine="portfolio"):
        limits.append(request.time_limit)
        time.sleep(seconds)
        q = request.question
        lower, upper = r_bounds if q.kind == "max_r" else (0, request.n)
        return Result(q, Status.BOUNDED, lower, upper, None, "fake", None, seconds)

    return solve


def assert_doctests_pass_in_fresh_process(module: str) -> None:
    """Run a module's docstring examples in a new interpreter.

    Test modules that share a Ray instance need this: the raylet prints late lines (a worker
    that a test killed on purpose) to this process's stdout, which doctest would compare.
    """
    import subprocess
    import sys

    script = (
        "import doctest, importlib, sys, tempfile\n"
        f"tempfile.tempdir = {tempfile.gettempdir()!r}\n"
        f"r = doctest.testmod(importlib.import_module({module!r}))\n"
        "sys.exit(0 if r.attempted > 0 and r.failed == 0 else 1)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
