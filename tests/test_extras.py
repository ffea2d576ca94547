"""Each extra's absence gives one line naming it (issue 33): ``pip install 'robustgraph[dot]'``.

The missing package is simulated in a child process by ``sys.modules[name] = None`` before the
program starts (``import name`` then raises ``ModuleNotFoundError`` and ``find_spec`` finds
nothing), so the test runs whether or not the extra is installed here.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import networkx as nx
import pytest

from robustgraph import io
from robustgraph.topology import Topology
from solvers.extras import EXTRAS, MissingExtra, require

ROOT = Path(__file__).resolve().parents[1]


def _without(modules: tuple[str, ...], *args: str) -> subprocess.CompletedProcess:
    """``robustgraph ARGS`` in a child process where ``modules`` cannot be imported."""
    code = (
        "import sys\n"
        f"for name in {modules!r}: sys.modules[name] = None\n"
        "from robustgraph.cli.main import run\n"
        f"sys.argv = ['robustgraph', *{list(args)!r}]\n"
        "run()\n"
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)


def _raised(modules: tuple[str, ...], setup: str, call: str) -> str:
    """``TypeName message`` of what ``call`` raises in a child process where ``modules``
    cannot be imported (after ``setup``, the imports it needs)."""
    code = (
        f"import sys\nfor name in {modules!r}: sys.modules[name] = None\n{setup}\n"
        f"try:\n    {call}\nexcept Exception as exc:\n    print(type(exc).__name__, exc)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.strip()


def _one_line_naming(proc: subprocess.CompletedProcess, extra: str) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr[-2000:]  # one line, no traceback
    assert f"pip install 'robustgraph[{extra}]'" in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def graph(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("extras") / "er20.json"
    io.write(Topology.from_networkx(nx.gnp_random_graph(20, 0.5, seed=1)), path)
    return path


def test_dot_files_name_the_dot_extra(tmp_path):
    dot = tmp_path / "g.dot"
    dot.write_text("graph { a -- b; b -- c; }\n", encoding="utf-8")
    line = _one_line_naming(_without(("pygraphviz",), "info", str(dot)), "dot")
    assert "DOT" in line and "pygraphviz" in line


def test_matrix_market_files_name_the_mtx_extra(tmp_path):
    mtx = tmp_path / "g.mtx"
    mtx.write_text("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 2\n",
                   encoding="utf-8")
    line = _one_line_naming(_without(("scipy",), "info", str(mtx)), "mtx")
    assert "Matrix Market" in line and "scipy" in line


def test_calibrating_names_the_calibrate_extra():
    """scipy serves two extras: calibrate names its own (before any fitting starts)."""
    raised = _raised(("scipy",), "from protocol_runner.sim.calibrate import Calibration",
                     "Calibration.fit_block(object.__new__(Calibration), 'sac', {})")
    assert raised == ("MissingExtra calibrating the simulator needs scipy, which is not "
                      "installed: pip install 'robustgraph[calibrate]'")


def test_parquet_task_files_name_the_datasets_extra(tmp_path):
    tasks = tmp_path / "tasks.parquet"
    tasks.write_bytes(b"PAR1")  # never opened: the reader needs pyarrow first
    proc = _without(("pyarrow",), "serve-sim", "--tasks", f"gsm8k:{tasks}", "--port", "0")
    assert "Parquet" in _one_line_naming(proc, "datasets")


@pytest.mark.parametrize(("engine", "modules"), [("cpsat", ("ortools",)), ("cbc", ("pulp",))])
def test_the_extra_engines_name_the_solvers_extra(graph, engine, modules):
    proc = _without(modules, "robustness", str(graph), "--engine", engine)
    assert engine in _one_line_naming(proc, "solvers")


def test_ray_names_the_distributed_extra(graph, tmp_path):
    proc = _without(("ray",), "certify", "--batch", str(graph), "--executor", "ray",
                    "-o", str(tmp_path / "certs"))
    _one_line_naming(proc, "distributed")


def test_certify_proof_lrat_names_the_proofs_extra(graph, tmp_path):
    proc = _without(("pysat", "pysolvers"), "certify", str(graph), "--max", "--proof", "lrat",
                    "-o", str(tmp_path / "g.cert.json"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    *progress, last = proc.stderr.strip().splitlines()  # certify's progress lines, then the error
    assert all(line.startswith("robustgraph: certify: ") for line in progress), progress
    assert last == ("robustgraph: error: --proof lrat needs pysat, which is not installed: "
                    "pip install 'robustgraph[proofs]'")
    assert not (tmp_path / "g.cert.json").exists()  # no certificate without the proofs asked


def test_lrat_proofs_name_the_proofs_extra():
    raised = _raised(("pysat", "pysolvers"),
                     "from robustgraph.certificate.proofs import sat\n"
                     "from robustgraph.certificate.proofs.cnf import Cnf",
                     "sat.refute(Cnf(1, ((1,), (-1,))))")
    assert raised == ("MissingExtra LRAT proofs needs pysat, which is not installed: "
                      "pip install 'robustgraph[proofs]'")


def test_require_names_the_extra_and_is_an_import_error():
    with pytest.raises(MissingExtra, match=r"robustgraph\[dot\]") as caught:
        require("pygraphviz.this_submodule_does_not_exist", "a test")
    assert isinstance(caught.value, ImportError)
    assert require("json", "a test").dumps([]) == "[]"


def test_every_extra_package_is_declared_in_its_extra():
    """EXTRAS and pyproject.toml agree: each module's extra lists a distribution for it."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    distribution = {"pysat": "python-sat", "pysolvers": "python-sat"}
    # python-sat is in the default install too (issue 44: a default install's certificates are
    # checkable), and its `proofs` extra stays for the commands that name it
    default = ("python-sat",)
    for module, extra in EXTRAS.items():
        wanted = distribution.get(module, module)
        assert any(req.startswith(wanted) for req in extras[extra]), (module, extra)
        if wanted not in default:
            assert not any(req.startswith(wanted) for req in project["dependencies"]), module
    assert "llm" not in extras  # an empty extra is gone
    others = [req for req in project["dependencies"] if not req.startswith(default)]
    assert not any(".dev" in req or "rc" in req.split(">=")[-1] for req in others)
