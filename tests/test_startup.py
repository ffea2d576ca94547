"""The program's start and end: what ``info`` and a small ``robustness`` import, the origin of
``--time-limit`` (the process start), and the fast exit that keeps every output (issue 16).

Nothing here is timed; the start-up and deadline figures are printed by benchmarks/startup.py
and benchmarks/vs_published.py --deadlines.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import networkx as nx
import pytest

from robustgraph import io
from robustgraph.certificate.certifier import certify
from robustgraph.certificate.claims import Claim
from robustgraph.certificate.document import Certificate
from robustgraph.certificate.proof_records import attach_proofs
from robustgraph.cli.main import COMMANDS
from robustgraph.topology import Topology
from solvers.deadline import EXIT_MARGIN, Deadline, process_start

HEAVY = (
    "ortools", "highspy", "pulp", "pandas", "matplotlib", "igraph", "ray", "networkx", "scipy",
    "numpy",
)  # fmt: skip
"""Modules that only a solve with them (or a library reader, or a graph past
``robustgraph.edge_arrays.SMALL_EDGES`` edges) may import: numpy alone costs about 0.3 s of CPU
on the development machine, more than the whole r* of this graph."""


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Path:
    """An n = 16 graph: the portfolio answers it by subset DP, with no MILP engine."""
    path = tmp_path_factory.mktemp("startup") / "er16.json"
    io.write(Topology.from_networkx(nx.gnp_random_graph(16, 0.4, seed=3)), path)
    return path


def _program(*args: str, code: str = "", **kw) -> subprocess.CompletedProcess:
    """``python [-X importtime] -m robustgraph.cli ARGS`` (or ``-c CODE``) as a user runs it."""
    entry = ["-c", code] if code else ["-m", "robustgraph.cli"]
    return subprocess.run(
        [sys.executable, *kw.pop("flags", []), *entry, *args],
        capture_output=True, text=True, timeout=120, **kw,
    )  # fmt: skip


def _imported(stderr: str) -> set[str]:
    """The top-level packages named by ``-X importtime`` lines."""
    names = set()
    for line in stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            if name != "imported package":  # the header line
                names.add(name.split(".")[0])
    return names


@pytest.mark.parametrize(
    "args",
    [("info", "{}"), ("info", "{}", "--json"), ("robustness", "{}"), ("robustness", "{}", "--all")],
)
def test_info_and_a_small_robustness_import_no_heavy_module(small, args):
    proc = _program(*(a.format(small) for a in args), flags=["-X", "importtime"])
    assert proc.returncode == 0, proc.stderr[-2000:]
    imported = _imported(proc.stderr)
    assert {"click", "json", "robustgraph"} <= imported  # the parse sees the imports
    heavy = set(HEAVY) - ({"numpy"} if "--all" in args else set())  # (r,s) by the numpy DP
    assert not imported & heavy, sorted(imported & heavy)
    if args[0] == "info":  # piped: the plain lines, without rich
        assert "rich" not in imported


def _modules(stderr: str) -> set[str]:
    """The full dotted names of ``-X importtime`` lines (a failed import is listed too, but
    never the submodules of a package that failed to import)."""
    return {line.rsplit("|", 1)[1].strip() for line in stderr.splitlines()
            if line.startswith("import time:") and "|" in line}


def test_info_on_graphml_reads_with_igraph_without_matplotlib(tmp_path):
    """igraph's drawing imports matplotlib and pyplot when installed (0.4 s): the program
    imports igraph without them (robustgraph.cli.imports), so reading GraphML does not."""
    path = tmp_path / "g.graphml"
    io.write(Topology.from_networkx(nx.cycle_graph(12)), path)
    proc = _program("info", str(path), "--json", flags=["-X", "importtime"])
    assert proc.returncode == 0, proc.stderr[-2000:]
    modules = _modules(proc.stderr)
    assert "igraph" in modules and "igraph.drawing" in modules  # igraph did read the file
    assert not {m for m in modules if m.startswith("matplotlib.")}, "matplotlib was imported"
    assert json.loads(proc.stdout)["n"] == 12


def test_a_process_that_imported_matplotlib_first_keeps_it_whole():
    """The guard steps aside once matplotlib is there: igraph then imports as usual, and
    matplotlib stays importable after igraph in a guarded process."""
    code = (
        "import sys\n"
        "from robustgraph.cli.imports import igraph_without_drawing\n"
        "igraph_without_drawing()\n"
        "import igraph\n"
        "import matplotlib.figure\n"
        "print(sys.modules['matplotlib'] is not None, igraph.Graph(3).vcount())\n"
    )
    proc = _program(code=code)
    assert proc.returncode == 0 and proc.stdout.split() == ["True", "3"], proc.stderr


@pytest.mark.parametrize("command", [None, *sorted(COMMANDS)])
def test_help_imports_no_heavy_module(command):
    """Every command module takes its --help's choices and defaults from a light module
    (robustgraph.cli.choices, protocol_runner.cli.choices, analysis.reproduce_specs) and
    imports the implementation in the command body (issue 33)."""
    args = ["--help"] if command is None else [command, "--help"]
    proc = _program(*args, flags=["-X", "importtime"])
    assert proc.returncode == 0 and "Usage:" in proc.stdout, proc.stderr[-2000:]
    heavy = _imported(proc.stderr) & (set(HEAVY) | {"aiohttp", "rich", "cryptography", "yaml"})
    assert not heavy, sorted(heavy)


def test_a_group_subcommands_help_imports_no_heavy_module():
    proc = _program("ledger", "resolve", "--help", flags=["-X", "importtime"])
    assert proc.returncode == 0 and "--keyring" in proc.stdout, proc.stderr[-2000:]
    assert not _imported(proc.stderr) & {"numpy", "cryptography"}


def test_help_choices_equal_the_implementation():
    """The light copies --help shows are the values the implementation uses."""
    from protocol_runner.analysis import reproduce, reproduce_specs
    from protocol_runner.cli import choices as runner_choices
    from protocol_runner.commit.keyring import KEYRING_FILE
    from protocol_runner.protocols.attacks import ATTACKS, DEFAULT_OOD_POOL
    from protocol_runner.protocols.crs import CONTRIBUTIONS
    from protocol_runner.protocols.registry import PROTOCOLS
    from protocol_runner.run.roster import PLACEMENTS
    from protocol_runner.run.runner import BACKENDS
    from protocol_runner.run.topology_spec import FAMILIES
    from robustgraph import executors, generators
    from robustgraph.certificate.certifier import DEFAULT_ENGINES
    from robustgraph.certificate.proofs.prover import MODES
    from robustgraph.cli import choices

    assert choices.DEFAULT_ENGINES == DEFAULT_ENGINES
    assert choices.GENERATE_ENGINE == generators.DEFAULT_ENGINE
    assert choices.PROOF_MODES == MODES
    assert choices.EXECUTORS == executors.EXECUTORS
    assert runner_choices.KEYRING_FILE == KEYRING_FILE
    assert runner_choices.ATTACKS == ATTACKS
    assert runner_choices.DEFAULT_OOD_POOL == DEFAULT_OOD_POOL
    assert runner_choices.CONTRIBUTIONS == CONTRIBUTIONS
    assert runner_choices.PLACEMENTS == PLACEMENTS
    assert runner_choices.FAMILIES == tuple(FAMILIES)
    assert runner_choices.PROTOCOLS == tuple(PROTOCOLS)
    assert runner_choices.BACKENDS == BACKENDS
    assert reproduce.TABLES is reproduce_specs.TABLES  # one table list, re-exported


@pytest.mark.parametrize("directed", [False, True])
def test_a_small_graphs_content_hash_needs_no_numpy_and_equals_the_numpy_path(
    directed, monkeypatch
):
    """``info`` hashes every graph: up to SMALL_EDGES arcs the edge codes are sorted as Python
    ints (the numpy path, for a large graph, gives the same codes and so the same hash)."""
    from robustgraph import edge_arrays

    graph = nx.gnp_random_graph(40, 0.3, seed=11, directed=directed)
    graph = nx.relabel_nodes(graph, {i: f"v{(i * 7) % 40}" for i in range(40)})  # ranks != ids
    small = Topology.from_networkx(graph).content_hash
    monkeypatch.setattr(edge_arrays, "SMALL_EDGES", 0)
    assert Topology.from_networkx(graph).content_hash == small
    code = (
        "import sys\n"
        "from robustgraph.topology import Topology\n"
        f"t = Topology.from_edges([(0, 1), (1, 2), (2, 0), (3, 4)], directed={directed})\n"
        "print(t.content_hash.startswith('sha256:'), 'numpy' in sys.modules)"
    )
    proc = _program(code=code)
    assert proc.stdout.split() == ["True", "False"], proc.stderr


def test_the_deadline_origin_is_the_process_start():
    code = (
        "import time; time.sleep(0.5); t = time.perf_counter()\n"
        "from solvers.deadline import process_start\n"
        "print(t - process_start())"
    )
    assert float(_program(code=code).stdout) >= 0.5  # the sleep before the import counts
    assert process_start() <= time.perf_counter()


def test_a_command_deadline_keeps_the_exit_margin():
    assert Deadline.for_command(None).at is None
    assert Deadline.for_command(30.0, since=5.0).at == pytest.approx(35.0 - EXIT_MARGIN)
    assert Deadline.for_command(1.0, since=5.0).at == pytest.approx(5.9)  # a tenth, if less
    assert Deadline.for_command(30.0).at < time.perf_counter() + 30.0 - EXIT_MARGIN


def test_the_program_counts_its_time_limit_from_the_process_start(small):
    """A second spent before the group runs is inside the command's reported time."""
    code = (
        "import sys, time; time.sleep(1.0)\n"
        "from robustgraph.cli.main import run\n"
        f"sys.argv = ['robustgraph', 'robustness', {str(small)!r}, '--json', '--time-limit', '9']\n"
        "run()"
    )
    proc = _program(code=code)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["seconds"] >= 1.0


def test_under_clicks_runner_the_deadline_counts_from_the_invocation(small):
    """Tests invoke the group in a long-lived process: there the origin is the invocation."""
    from click.testing import CliRunner

    from robustgraph.cli import main

    before = time.perf_counter()
    out = CliRunner().invoke(main, ["robustness", str(small), "--json", "--time-limit", "60"])
    took = time.perf_counter() - before
    assert out.exit_code == 0, out.output
    # within the invocation as measured around it (0.01: the report's rounding); counted from
    # this process's start it would add the whole pytest start-up before it: no clock bound
    assert json.loads(out.stdout)["seconds"] <= took + 0.01


def test_exit_now_runs_the_exit_handlers_and_flushes_the_output(tmp_path):
    marker = tmp_path / "atexit.txt"
    code = (
        "import atexit, sys\n"
        "from robustgraph.cli.main import exit_now\n"
        f"atexit.register(lambda: open({str(marker)!r}, 'w').write('ran'))\n"
        "sys.stdout.write('x' * 100000); sys.stderr.write('tail')\n"
        "exit_now(3)"
    )
    proc = _program(code=code)
    assert proc.returncode == 3 and proc.stdout == "x" * 100000 and proc.stderr == "tail"
    assert marker.read_text() == "ran"
    proc = _program(code="from robustgraph.cli.main import exit_now; exit_now('bad thing')")
    assert proc.returncode == 1 and proc.stderr.strip() == "bad thing"


def test_exit_now_waits_for_a_running_worker_thread(tmp_path):
    done = tmp_path / "thread.txt"
    code = (
        "import threading, time\n"
        "from robustgraph.cli.main import exit_now\n"
        "def work():\n"
        f"    time.sleep(0.3); open({str(done)!r}, 'w').write('done')\n"
        "threading.Thread(target=work).start()\n"
        "exit_now(0)"
    )
    assert _program(code=code).returncode == 0
    assert done.read_text() == "done"


def test_certify_through_the_program_writes_the_whole_certificate(small, tmp_path):
    cert_path = tmp_path / "er16.cert.json"
    proc = _program("certify", str(small), "--max", "--time-limit", "60", "-o", str(cert_path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.rstrip().endswith(f"written  {cert_path}")
    report = Certificate.load(cert_path).verify(io.read(small))
    assert report.valid and report.fully_checked, report.reasons


def test_agent_commands_exit_the_ordinary_way(tmp_path):
    """protocol_runner's commands may leave work to the interpreter's exit: no fast exit there.

    A file left open and unflushed is written out only by the ordinary teardown."""
    left_open = tmp_path / "left-open.txt"
    code = (
        "import sys\n"
        f"f = open({str(left_open)!r}, 'w'); f.write('kept')\n"
        "from robustgraph.cli.main import run\n"
        "sys.argv = ['robustgraph', 'ledger', '--help']\n"
        "run()"
    )
    proc = _program(code=code)
    assert proc.returncode == 0 and "ledger" in proc.stdout
    assert left_open.read_text() == "kept"


def test_proof_searches_share_the_calls_deadline():
    """An LRAT search gets what is left of the deadline (none once it has passed); the cheap
    proof kinds are still tried."""
    k6 = Topology.from_networkx(nx.complete_graph(6))
    cert = certify(k6, Claim.r_robust(3), engines="exhaustive", proof="none")
    with_time, _ = attach_proofs(k6, cert.claims, "lrat", Deadline.after(None))
    passed, files = attach_proofs(k6, cert.claims, "lrat", Deadline(time.perf_counter() - 1))
    assert with_time[0].checks[0].proof["kind"] == "lrat"
    assert passed[0].checks[0].proof is None and files == {}
    cheap, _ = attach_proofs(k6, cert.claims, "auto", Deadline(time.perf_counter() - 1))
    assert cheap[0].checks[0].proof["kind"] != "lrat"  # the cheap kinds, even after it
