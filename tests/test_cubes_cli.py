"""``certify --cubes K --cube-workers {incremental,independent}`` (issue 40, round 5): the split the
user picks from the command line, its proof re-checked by ``verify``, what ``--json`` says about
it, and one-line errors for values that cannot run."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import topologies
from hypothesis import event, given
from hypothesis import strategies as st

from robustgraph import generators as gen
from robustgraph import io
from robustgraph.certificate.proofs import cubes
from robustgraph.certificate.proofs.checker import View
from robustgraph.cli import main
from robustgraph.cli.certify import CUBE_WORKERS
from robustgraph.errors import ParameterError
from tests.test_cubes import SMALL, r_star

pytest.importorskip("pysat")


def run(*args) -> object:
    return CliRunner().invoke(main, [str(a) for a in args])


def certify_split(graph: Path, r: int, k: int, kind: str, out: Path) -> object:
    return run("certify", graph, "--r", r, "--engines", "exhaustive", "--proof", "lrat",
               "--cubes", k, "--cube-workers", kind, "--workers", 1, "--json", "-o", out)


@SMALL
@given(topologies(max_n=8), st.integers(1, 2), st.sampled_from(CUBE_WORKERS), st.data())
def test_the_cli_split_agrees_with_the_exhaustive_engine_and_verify_accepts_it(t, k, kind, data):
    best = r_star(View.of(t).canonical())
    r = data.draw(st.integers(1, max(best, 1)), label="r")  # proven, or refuted when r* = 0
    k = min(k, t.n)
    with tempfile.TemporaryDirectory() as tmp:
        graph, cert = Path(tmp) / "g.json", Path(tmp) / "g.cert.json"
        io.write(t, graph)
        made = certify_split(graph, r, k, kind, cert)
        assert made.exit_code == (0 if r <= best else 1), made.stderr
        split = json.loads(made.stdout)["cube_split"]
        event(f"{kind}, lrat proofs: {split['lrat_proofs']}, exit {made.exit_code}")
        assert (split["k"], split["workers"], split["processes"]) == (k, kind, 1)
        checked = run("verify", cert, graph)
        assert checked.exit_code == 0, checked.stdout
        assert ("LRAT proof checked" in checked.stdout) == (split["lrat_proofs"] > 0)
        if r <= best and split["lrat_proofs"]:
            kinds = [c["proof"]["kind"] for c in json.loads(cert.read_text())["claims"][0]["checks"]
                     if c.get("proof")]
            assert kinds == ["lrat"]


@pytest.fixture(scope="module")
def er14(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("cubes_cli") / "er14.json"
    io.write(gen.erdos_renyi(14, 0.5, seed=1), out)
    return out


@pytest.mark.parametrize("kind", CUBE_WORKERS)
def test_json_and_the_cubes_line_say_which_split_ran(er14, tmp_path, kind):
    made = certify_split(er14, 3, 2, kind, tmp_path / "c.json")
    assert made.exit_code == 0, made.stderr
    assert json.loads(made.stdout)["cube_split"] == {
        "k": 2, "cubes": 9, "tree": "lookahead", "workers": kind, "executor": "local",
        "processes": 1, "lrat_proofs": 1,
    }
    text = run("certify", er14, "--r", 3, "--proof", "lrat", "--cubes", 2, "--cube-workers", kind,
               "--workers", 1, "-o", tmp_path / "d.json")
    assert f"9 open cubes as the target) on 1 {kind} local worker and combined" in text.stdout


def test_incremental_workers_are_the_default_and_a_split_that_did_not_run_says_so(er14, tmp_path):
    made = run("certify", er14, "--r", 3, "--cubes", 1, "--workers", 1, "--json",
               "-o", tmp_path / "c.json")
    assert made.exit_code == 0, made.stderr
    split = json.loads(made.stdout)["cube_split"]
    assert split["workers"] == "incremental"
    assert split["lrat_proofs"] == 0  # --proof auto: the exhaustive proof is cheaper


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--cubes", "-1"], "-1 is not in the range x>=1"),
        (["--cubes", "7"], "--cubes 7: 3^7 cubes are too many; K is at most 6"),
        (["--cubes", "2", "--workers", "0"], "0 is not in the range x>=1"),
        (["--cube-workers", "incremental"], "--cube-workers goes with --cubes K"),
        (["--cubes", "2", "--cube-workers", "both"], "'both' is not one of"),
    ],
)
def test_impossible_split_values_are_one_line_with_exit_2(er14, tmp_path, args, message):
    result = run("certify", er14, "--r", 3, "--proof", "lrat", *args, "-o", tmp_path / "c.json")
    assert result.exit_code == 2, result.output
    assert len(result.stderr.splitlines()) == 1 and message in result.stderr


def test_the_cli_choices_are_the_library_s():
    assert CUBE_WORKERS == cubes.WORKER_KINDS


def test_the_library_refuses_a_split_above_max_k():
    nb = View.of(gen.erdos_renyi(cubes.MAX_K + 2, 0.5, seed=1)).canonical()
    with pytest.raises(ParameterError, match="at most"):
        cubes.refute(nb, 1, 1, cubes.Split(cubes.MAX_K + 1))
