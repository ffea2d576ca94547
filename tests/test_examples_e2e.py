"""Every example in ``examples/`` and every command of README.md runs end to end, at a tiny size.

Issue 30: the shipped sweep example crashed at its last step (the report) while the suite only
parsed it. Here the commands are read from the files themselves, so an edit that breaks one
fails a test: README.md's fenced blocks (the ``bash`` block's main job and every ``robustgraph``
line of the ``text`` blocks, in order, in one directory, each seeing what the earlier ones
wrote; ``...`` stands for the arguments of the block's first ``run``) and ``examples/sweep.yaml``
through ``sweep`` and ``report`` on the local pool and on Ray. (Its ``python`` block runs in
tests/test_python_snippets.py.)

Tiny means: task sets of two tasks, one or two seeds, one round, a one-second design search,
fifty bootstrap resamples and no figures (their own tests draw them). The user's files the
README assumes (``g.json``, a GSM8K file, ...) are written first; the OpenAI-compatible endpoint
is the README's own ``serve-sim`` command, on a free port of 127.0.0.1 and stopped at the end.
"""

from __future__ import annotations

import contextlib
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import yaml
from click.testing import CliRunner

from robustgraph import io
from robustgraph.certificate.certifier import certify
from robustgraph.certificate.claims import Claim
from robustgraph.cli.main import main
from robustgraph.generators import gamma_merg, k_circulant

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
SWEEP = ROOT / "examples" / "sweep.yaml"


def fenced(text: str, language: str) -> list[str]:
    """The bodies of the ```` ```language ```` blocks of ``text``, in order."""
    return re.findall(rf"```{language}\n(.*?)\n```", text, flags=re.S)


def robustgraph_commands(block: str) -> list[list[str]]:
    """The ``robustgraph`` commands of a block: continuation lines joined, comments dropped,
    and anything before the program (``python3 -m venv ... && .venv/bin/robustgraph``) cut."""
    commands = []
    for line in block.replace("\\\n", " ").splitlines():
        words = shlex.split(line, comments=True)
        starts = [i for i, w in enumerate(words) if w.rpartition("/")[2] == "robustgraph"]
        if starts:
            commands.append(words[starts[0] + 1:])
    return commands


def _option(args: list[str], name: str, value: str, *, add: bool = False) -> list[str]:
    """``args`` with option ``name`` set to ``value`` (added when ``add`` and absent)."""
    if name in args:
        i = args.index(name)
        return [*args[:i + 1], value, *args[i + 2:]]
    return [*args, name, value] if add else args


def tiny(args: list[str], base_url: str) -> list[str]:
    """The tiny-size equivalent of a README command (see the module docstring)."""
    command = args[0]
    if "--tasks" in args:
        spec = args[args.index("--tasks") + 1]
        args = _option(args, "--tasks", "arith:2" if spec.startswith("arith:") else spec)
    args = _option(args, "--rounds", "1")
    args = _option(args, "--seeds", "1" if command == "reproduce" else "1-2")
    args = _option(args, "--port", "0")
    if "--base-url" in args:  # an LLM endpoint: the README's serve-sim and its models
        args = _option(_option(args, "--base-url", base_url), "--model", "sim-strong")
    if command in ("design", "augment"):
        args = _option(args, "--time-limit", "1", add=True)
    if command in ("reproduce", "report"):
        args = _option(args, "--resamples", "50", add=True)
    if command in ("run", "report") and "--no-plots" not in args:
        args = [*args, "--no-plots"]  # figures: tests/test_report_outputs.py
    if command == "reproduce":
        args = _option(args, "--seeds", "1", add=True)
        if "--tasks" not in args:
            args = _option(args, "--tasks", "arith:2", add=True)
    return args


def tiny_sweep(source: Path, target: Path, **executor: object) -> Path:
    """``examples/sweep.yaml`` with each axis cut to tiny values (the grid's shape kept)."""
    spec = yaml.safe_load(source.read_text(encoding="utf-8"))
    grid = spec["grid"]
    grid.update(tasks=["arith:2"], rounds=[1], seed=grid["seed"][:1], attack=grid["attack"][:1])
    spec["options"].update(resamples=50, plots=False, concurrency=8, **executor)
    target.write_text(yaml.safe_dump(spec), encoding="utf-8")
    return target


def _cli(args: list[str]):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        args, result.exception)
    assert result.exit_code == 0, f"robustgraph {shlex.join(map(str, args))}\n{result.output}"
    return result


def _user_files(where: Path) -> None:
    """The files README.md's commands take as the user's own."""
    io.write(gamma_merg(7), where / "g.json")
    certify(gamma_merg(7), Claim.tolerance(2, "sac"), engines="exhaustive").dump(
        where / "g.cert.json")
    io.write(k_circulant(8, 1), where / "deployed.graphml")
    (where / "graphs").mkdir()
    io.write(gamma_merg(6), where / "graphs" / "merg6.json")
    io.write(k_circulant(7, 2), where / "graphs" / "c7.json")
    (where / "data").mkdir()
    (where / "data" / "gsm8k_test.jsonl").write_text("".join(
        json.dumps({"question": f"What is {a} + {b}?", "answer": f"{a} + {b}\n#### {a + b}"}) + "\n"
        for a, b in ((2, 3), (40, 2))), encoding="utf-8")
    (where / "data" / "arc.jsonl").write_text("".join(
        json.dumps({"question": {"stem": stem, "choices": [
            {"label": k, "text": t} for k, t in zip("ABCD", choices, strict=True)]},
            "answerKey": key}) + "\n"
        for stem, choices, key in (
            ("Which is a liquid at room temperature?", ["iron", "water", "salt", "sand"], "B"),
            ("What do plants take in to make food?", ["light", "rock", "plastic", "glass"], "A"),
        )), encoding="utf-8")
    (where / "data" / "l4.jsonl").write_text("".join(
        json.dumps({"problem": f"Compute ${a} \\times {b}$.", "answer": str(a * b)}) + "\n"
        for a, b in ((6, 7), (12, 12))), encoding="utf-8")
    (where / "examples").mkdir()
    tiny_sweep(SWEEP, where / "examples" / "sweep.yaml")


@contextlib.contextmanager
def serve_sim(args: list[str], where: Path, extra_tasks: list[str]):
    """README's ``serve-sim`` command in a child process; yields its base URL; stopped after."""
    for spec in extra_tasks:
        args = [*args, "--tasks", spec]
    process = subprocess.Popen(
        [sys.executable, "-c", "from robustgraph.cli import main; main()", *args, "--json"],
        cwd=where, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()  # the ready message, one JSON line
        assert line, process.stderr.read()
        yield json.loads(line)["base_url"]
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_readme_commands_are_found():
    """The parser sees the README as it is: the main job first, every tour command after."""
    main_job = robustgraph_commands(fenced(README, "bash")[0])
    assert main_job and main_job[0][:2] == ["reproduce", "table1"]
    tour = [c for block in fenced(README, "text") for c in robustgraph_commands(block)]
    assert {c[0] for c in tour} >= {"generate", "design", "augment", "robustness", "certify",
                                    "verify", "run", "serve-sim", "reproduce", "report",
                                    "ledger", "sweep"}
    assert robustgraph_commands("x && .venv/bin/robustgraph a \\\n  --b 'c d'  # e\n") == [
        ["a", "--b", "c d"]]


def test_every_readme_command_runs_end_to_end(tmp_path, monkeypatch):
    """README.md's main job (tiny) and each command of its tour, in order, exit 0; the
    ``run`` commands talk to the README's own ``serve-sim`` over HTTP."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MY_KEY", "not-a-secret")
    _user_files(tmp_path)
    (job,) = robustgraph_commands(fenced(README, "bash")[0])
    _cli(tiny(job, ""))
    assert (tmp_path / "results").is_dir()
    tour = [c for block in fenced(README, "text") for c in robustgraph_commands(block)]
    serve = next(c for c in tour if c[0] == "serve-sim")
    first_run = next(c for c in tour if c[0] == "run" and "..." not in c)
    run_tasks = first_run[first_run.index("--tasks") + 1]
    with serve_sim(tiny(serve, ""), tmp_path, [run_tasks]) as base_url:
        ran = []
        for args in tour:
            if args[0] == "serve-sim":
                continue  # running: it serves the run commands
            if args[0] == "sweep":
                continue  # on Ray: the Ray test below runs it (one Ray start for the suite)
            if "..." in args:
                i = args.index("...")
                given = first_run[1:first_run.index("-o")] + first_run[first_run.index("-o") + 2:]
                args = [*args[:i], *given, *args[i + 1:]]
            _cli(tiny(args, base_url))
            ran.append(args[0])
    assert ran.count("run") == 3 and "ledger" in ran and "report" in ran
    summary = json.loads((tmp_path / "seeds" / "summary.json").read_text())
    assert summary["run"]["seeds"] == [1, 2]
    assert json.loads((tmp_path / "out" / "config.json").read_text())["gate"]["certified"]


def _sweep_and_report(spec: Path, out: Path, *extra: str) -> dict:
    done = _cli(["sweep", spec, "-o", out, "--json", *extra])
    summary = json.loads(done.stdout)
    assert summary["counts"]["failed"] == 0 and summary["counts"]["done"] == 4
    assert {"n", "roster"} <= set(summary["varying"])  # the per-n roster mapping (issue 30)
    report = _cli(["report", out, "--no-plots", "--resamples", "50"])
    assert "| merg | 7 | 5S1W1A |" in report.stdout
    assert (out / "table1.md").is_file() and (out / "summary.md").is_file()
    return summary


def test_the_sweep_example_runs_and_reports_on_the_local_pool(tmp_path):
    """Issue 30: ``sweep examples/sweep.yaml`` ran every cell, then crashed writing its table
    (``KeyError: 0`` on the per-n roster mapping), and so did ``report`` on its output."""
    spec = tiny_sweep(SWEEP, tmp_path / "sweep.yaml")
    _sweep_and_report(spec, tmp_path / "sw", "--workers", "1")


def test_the_readme_sweep_runs_and_reports_on_ray(tmp_path, monkeypatch, ray_instance):
    """README.md's ``sweep examples/sweep.yaml --executor ray`` (the example made tiny), on the
    tests' private Ray instance (never a cluster ``ray start`` left running), then ``report`` on
    its output."""
    tour = [c for block in fenced(README, "text") for c in robustgraph_commands(block)]
    (args,) = [c for c in tour if c[0] == "sweep"]
    assert args[1] == "examples/sweep.yaml" and "ray" in args
    monkeypatch.chdir(tmp_path)
    (tmp_path / "examples").mkdir()
    tiny_sweep(SWEEP, tmp_path / "examples" / "sweep.yaml")
    out = Path(args[args.index("-o") + 1])
    _sweep_and_report(Path(args[1]), out, *args[2:args.index("-o")], *args[args.index("-o") + 2:])


def test_every_example_file_is_exercised():
    """A new file in examples/ needs a test here."""
    assert sorted(p.name for p in (ROOT / "examples").iterdir()) == ["sweep.yaml"]
