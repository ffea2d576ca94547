"""The CLI contract of DESIGN.md, command by command, on bad input and interruptions.

A usage or input error is ONE line on stderr, ``robustgraph: error: ...``, with exit code 2
(1: checked and not satisfied; 130: interrupted), never a traceback; ``--json`` prints one JSON
document on stdout and nothing else there. Most cases run in-process (``CliRunner``); the
signal cases run a real subprocess, since only there does Ctrl-C (SIGINT) reach a process.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_checks import assert_error
from click.testing import CliRunner

from robustgraph import io
from robustgraph.certificate.certifier import certify
from robustgraph.certificate.claims import Claim
from robustgraph.cli import main
from robustgraph.generators import erdos_renyi, gamma_merg, k_circulant, random_k_in

CLI = [sys.executable, "-c", "from robustgraph.cli import main; main()"]


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    """A directory of small inputs, good and bad, shared by every case."""
    d = tmp_path_factory.mktemp("cli")
    merg = gamma_merg(7)
    io.write(merg, d / "merg7.json")
    io.write(merg, d / "merg7.txt")
    io.write(k_circulant(8, 1), d / "ring.json")
    io.write(random_k_in(8, 3, seed=1), d / "kin.json")
    certify(merg, Claim.maximum(), engines="exhaustive").dump(d / "merg7.cert.json")
    certify(merg, Claim.r_robust(5), engines="exhaustive").dump(d / "refuted.cert.json")
    (d / "empty.json").write_text("")
    (d / "empty.txt").write_text("")
    (d / "binary.json").write_bytes(bytes(range(256)) * 2)
    (d / "binary.jsonl").write_bytes(bytes(range(256)) * 2)
    (d / "binary.yaml").write_bytes(bytes(range(256)) * 2)
    (d / "truncated.json").write_text('{"nodes": [')
    (d / "columns.txt").write_text("1 2\n2 3 4\n")
    (d / "bad.yaml").write_text("grid: [1, 2\n")
    (d / "adir").mkdir()
    (d / "batch").mkdir()
    io.write(merg, d / "batch" / "a.json")
    (d / "sweep.yaml").write_text(
        "name: tiny\ngrid:\n  topology: [merg]\n  n: [5]\n  roster: {5: [3S1W1A]}\n"
        "  tasks: ['arith:2']\n  rounds: [1]\nprotocols: [sac]\n"
    )
    return d


def invoke(work: Path, monkeypatch, args: str):
    monkeypatch.chdir(work)
    return CliRunner().invoke(main, args.split())




# (command line, exit code, a piece of the error line). Paths are relative to the work dir.
ERRORS = [
    # info / convert: unreadable, empty, binary, malformed input; bad formats; bad outputs
    ("info nope.json", 2, "no such file"),
    ("info empty.json", 2, "the file is empty"),
    ("info empty.txt", 2, "no nodes"),
    ("info binary.json", 2, "not UTF-8"),
    ("info truncated.json", 2, "invalid JSON"),
    ("info columns.txt", 2, "line 2"),
    ("info adir --format json", 2, "directory"),
    ("info merg7.json --format nosuch", 2, "unknown format"),
    ("info merg7.json --directed", 2, "undirected"),
    ("convert merg7.json out.nosuch", 2, "unknown format"),
    ("convert kin.json out.g6", 2, "undirected graphs only"),
    ("convert merg7.json nodir/out.json", 2, "nodir/out.json"),
    ("convert merg7.json merg7.json/out.json", 2, "Not a directory"),
    # generate: impossible parameters
    ("generate merg --n -3 -o g.json", 2, "n must be"),
    ("generate nosuch --n 5 -o g.json", 2, "FAMILY"),
    ("generate pa --n 5 --r 9 -o g.json", 2, "ceil(n/2)"),
    ("generate er --n 10 --p 1.5 -o g.json", 2, "probability"),
    ("generate er --n 10 --r 2 --engine nosuch -o g.json", 2, "unknown engine"),
    ("generate k-in --n 5 --k 5 -o g.json", 2, "k must be"),
    ("generate merg --n 7 -o nodir/g.json", 2, "nodir/g.json"),
    # robustness
    ("robustness nope.json", 2, "no such file"),
    ("robustness merg7.json --engine nosuch", 2, "--engine"),
    ("robustness merg7.json --time-limit -1", 2, "--time-limit"),
    ("robustness merg7.json --threads 0", 2, "--threads"),
    ("robustness merg7.json --rs -1", 2, "--rs"),
    # certify: claims, engines, and an output checked before the solve
    ("certify merg7.json -o c.json", 2, "name a claim"),
    ("certify merg7.json --F 2 -o c.json", 2, "--model"),
    ("certify merg7.json --r -1 -o c.json", 2, "r must be"),
    ("certify merg7.json --max --engines nosuch -o c.json", 2, "unknown engine"),
    ("certify merg7.json --max --time-limit -5 -o c.json", 2, "time limit"),
    ("certify merg7.json --max -o nodir/c.json", 2, "does not exist"),
    ("certify merg7.json --max -o merg7.json/c.json", 2, "not a directory"),
    ("certify merg7.json --max -o adir", 2, "is a directory"),
    ("certify --max -o c.json", 2, "Missing argument"),
    ("certify --batch nomatch/*.json --max -o certs", 2, "no graph files"),
    ("certify --batch batch --max -o merg7.json", 2, "not a directory"),
    ("certify --batch batch --max -o certs --workers 0", 2, "--workers"),
    # verify
    ("verify nope.json merg7.json", 2, "nope.json"),
    ("verify binary.json merg7.json", 2, "UTF-8"),
    ("verify empty.json merg7.json", 2, "JSON"),
    ("verify merg7.cert.json merg7.json --time-limit -1 --resolve-with cpsat", 2, "--time-limit"),
    ("verify merg7.cert.json merg7.json --resolve-with nosuch", 2, "unknown engine"),
    # run: graph, roster, protocol, attack, tasks, backend
    ("run --n 7 --roster 6S1A -o r", 2, "--topology"),
    ("run --topology nosuch --n 7 --roster 6S1A -o r", 2, "unknown family"),
    ("run --topology merg --n -7 --roster 6S1A -o r", 2, "n must be"),
    ("run --topology merg --n 7 --roster 5S1A -o r", 2, "7 nodes"),
    ("run --topology merg --n 7 --roster 6S1A --protocols nosuch -o r", 2, "unknown protocol"),
    ("run --topology merg --n 7 --roster 6S1A --attack nosuch -o r", 2, "unknown attack"),
    ("run --topology merg --n 7 --roster 6S1A --tasks nosuch:3 -o r", 2, "unknown source"),
    ("run --topology merg --n 7 --roster 6S1A --tasks gsm8k:binary.json:3 -o r", 2, "UTF-8"),
    ("run --topology merg --n 7 --roster 6S1A --tasks gsm8k:binary.jsonl:3 -o r", 2, "UTF-8"),
    ("run --topology merg --n 7 --roster 6S1A --backend nosuch -o r", 2, "--backend"),
    ("run --topology merg --n 7 --roster 6S1A --backend openai -o r", 2, "--model"),
    ("run --graph merg7.json --certificate binary.json --roster 6S1A -o r", 2, "UTF-8"),
    ("run --topology merg --n 7 --roster 6S1A -o merg7.json", 2, "is a file"),
    ("run --topology merg --n 7 --roster 6S1A --F 9 -o r9", 1, "not 10-robust"),
    # report, sweep, serve-sim, ledger
    ("report nope", 2, "no such results directory"),
    ("report adir", 2, "results.jsonl"),
    ("report merg7.json", 2, "not a directory"),
    ("sweep nope.yaml -o s", 2, "cannot read"),
    ("sweep binary.yaml -o s", 2, "UTF-8"),
    ("sweep bad.yaml -o s", 2, "YAML"),
    ("sweep sweep.yaml -o merg7.json", 2, "is a file"),
    ("serve-sim --port 70000", 2, "--port"),
    ("serve-sim --faults nosuch", 2, "fault"),
    ("serve-sim --sim-config binary.json", 2, "simulator config"),
    ("ledger show nope.sqlite", 2, "no such ledger"),
    ("ledger verify merg7.json", 2, "not an SQLite"),
    # design / augment: parameters, engines and outputs before the search
    ("design --n 5 --r 4 -o d.json", 2, "ceil(n/2)"),
    ("design --n 8 --r 3 --max-degree 2 -o d.json", 2, "hears at least 3"),
    ("design --n 8 --r 3 --engines nosuch -o d.json", 2, "unknown engine"),
    ("design --n 8 --r 3 -o d.nosuch", 2, "unknown format"),
    ("design --n 8 --r 3 -o nodir/d.json", 2, "does not exist"),
    ("design --n 8 --r 3 -o d.json --cert nodir/d.cert.json", 2, "does not exist"),
    ("design --n 8 --r 3 --time-limit 0 -o d.json", 2, "--time-limit"),
    ("augment nope.json --r 2 -o a.json", 2, "no such file"),
    ("augment ring.json --r 9 -o a.json", 2, "ceil(n/2)"),
    ("augment ring.json --r 2 -o nodir/a.json", 2, "does not exist"),
    ("augment ring.json --r 2 --forbid kin.json -o a.json", 2, "directed"),
]


@pytest.mark.parametrize(("args", "code", "piece"), ERRORS, ids=[a for a, _, _ in ERRORS])
def test_error_is_one_line(work, monkeypatch, args, code, piece) -> None:
    line = assert_error(invoke(work, monkeypatch, args), code)
    assert piece in line


def test_unreachable_base_url(work, monkeypatch) -> None:
    """An endpoint nobody listens on (loopback port 9) is one line naming it, exit 2."""
    args = (
        "run --graph merg7.json --certificate merg7.cert.json --F 1 --roster 6S1A --tasks arith:2 "
        "--rounds 1 --protocols sac --backend openai --base-url http://127.0.0.1:9/v1 "
        "--model m --max-retries 0 --timeout 2 --no-plots -o unreachable"
    )
    assert "127.0.0.1:9" in assert_error(invoke(work, monkeypatch, args), 2)


def test_group_alone_shows_its_help(work, monkeypatch) -> None:
    """'robustgraph ledger' with no subcommand prints the group's help, not one crammed line."""
    result = invoke(work, monkeypatch, "ledger")
    assert result.exit_code == 2
    assert "ledger [OPTIONS] COMMAND" in result.stderr
    assert "robustgraph: error" not in result.stderr


def test_verify_require_proven_does_not_call_a_true_certificate_invalid(work, monkeypatch):
    result = invoke(work, monkeypatch, "verify refuted.cert.json merg7.json --require-proven")
    assert result.exit_code == 1
    assert result.stdout.startswith("REJECTED") and "not to be trusted" not in result.stdout
    assert invoke(work, monkeypatch, "verify refuted.cert.json merg7.json").exit_code == 0


# Every command with --json: one parseable document on stdout (progress stays on stderr).
JSON_CASES = [
    ("info merg7.json --json", 0),
    ("convert merg7.json j.graphml --json", 0),
    ("generate circulant --n 8 --k 2 -o j.json --certify --json", 0),
    ("robustness merg7.json --rs 3 --json", 0),
    ("certify merg7.json --max --engines exhaustive -o j.cert.json --json", 0),
    ("certify merg7.json --r 5 -o j5.cert.json --json", 1),
    ("certify --batch batch --max -o jcerts --workers 1 --json", 0),
    ("verify merg7.cert.json merg7.json --json", 0),
    ("verify merg7.cert.json ring.json --json", 1),
    ("sweep sweep.yaml --dry-run -o jsweep --json", 0),
    ("design --n 6 --r 2 --time-limit 1 -o jd.json --json", 0),
    ("augment ring.json --r 2 --time-limit 1 -o ja.json --json", 0),
]


@pytest.mark.parametrize(("args", "code"), JSON_CASES, ids=[a for a, _ in JSON_CASES])
def test_json_output_is_one_document(work, monkeypatch, args, code) -> None:
    result = invoke(work, monkeypatch, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == code, result.stderr
    json.loads(result.stdout)


def test_run_report_and_ledger_json(work, monkeypatch) -> None:
    """A tiny run with the commit gate, then report and ledger on its output, all with --json."""
    run = invoke(
        work,
        monkeypatch,
        "run --topology merg --n 5 --roster 4S1A --protocols sac --tasks arith:2 --rounds 1 "
        "--commit-gate --no-plots -o jrun --json",
    )
    assert run.exit_code == 0, run.stderr
    json.loads(run.stdout)
    for args in (
        "report jrun --no-plots --resamples 50 --json",
        "ledger show jrun/ledger.sqlite --json",
        "ledger verify jrun/ledger.sqlite --json",
    ):
        result = invoke(work, monkeypatch, args)
        assert result.exit_code == 0, (args, result.stderr)
        json.loads(result.stdout)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize(
    "args",
    [
        "certify merg7.json --max -o /dev/full",
        "convert merg7.json /dev/full --to json",
        "generate merg --n 7 -o /dev/full --format json",
    ],
)
def test_disk_full_is_one_line(work, monkeypatch, args) -> None:
    """Writing to a full device (ENOSPC) was a traceback for certify."""
    assert "No space left" in assert_error(invoke(work, monkeypatch, args), 2)


# ----------------------------------------------------------------------------- signals
def _interrupt_when(cmd: list[str], cwd: Path, ready, delay: float) -> subprocess.CompletedProcess:
    """Start ``cmd``, wait until ``ready(stderr_line)`` (or a line exists), then SIGINT it."""
    proc = subprocess.Popen(
        cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    lines = []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        lines.append(line)
        if ready(line):
            break
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"still running 20 s after Ctrl-C: {''.join(lines) + err}")
    return subprocess.CompletedProcess(cmd, proc.returncode, out, "".join(lines) + err)


@pytest.mark.parametrize("engine", ["cpsat", "highs"])
def test_ctrl_c_stops_a_native_solve(work, engine) -> None:
    """Ctrl-C inside CP-SAT or HiGHS: was ignored until the solve ended (no time limit: hours);
    then, for CP-SAT, an abort at exit while its search thread still ran."""
    io.write(erdos_renyi(60, 0.5, seed=1), work / "er60.json")
    cert = f"er60-{engine}.cert.json"
    done = _interrupt_when(
        [*CLI, "certify", "er60.json", "--max", "--engines", engine, "-o", cert],
        work,
        lambda line: f"{engine}: max_r()" in line,
        delay=2.0,
    )
    assert done.returncode == 130, done.stderr
    assert done.stderr.splitlines()[-1] == "robustgraph: error: interrupted"
    assert "Traceback" not in done.stderr
    assert not (work / cert).exists()


def test_sigint_handler_survives_a_cp_sat_solve(tmp_path) -> None:
    """CP-SAT's own handler used to reset SIGINT to its default action after each solve."""
    code = (
        "import signal, time\n"
        "from robustgraph.generators import k_circulant\n"
        "from solvers import registry\n"
        "from solvers.types import Question, Request\n"
        "registry.solve(Request(k_circulant(10, 2), Question.max_r()), 'cpsat')\n"
        "try:\n"
        "    signal.raise_signal(signal.SIGINT)\n"
        "    time.sleep(1)\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout.strip()) == (0, "interrupted"), done.stderr


def test_ctrl_c_keeps_finished_queries_and_resume_completes(work) -> None:
    """An interrupted run: one line, exit 130; finished queries stay on disk and are resumed."""
    args = [
        *CLI, "run", "--topology", "merg", "--n", "5", "--roster", "3S1W1A", "--protocols",
        "sac", "--tasks", "arith:6", "--rounds", "1", "--latency-ms", "40", "--concurrency", "1",
        "--no-plots", "-o", "interrupted",
    ]  # fmt: skip
    results = work / "interrupted" / "results.jsonl"

    def first_result_written(_line: str) -> bool:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if results.exists() and results.read_text().count("\n") >= 1:
                return True
            time.sleep(0.05)
        return True

    done = _interrupt_when(args, work, first_result_written, delay=0.0)
    assert done.returncode == 130, done.stderr
    assert done.stderr.splitlines()[-1] == "robustgraph: error: interrupted"
    kept = [json.loads(line) for line in results.read_text().splitlines()]
    assert 1 <= len(kept) < 6
    again = subprocess.run([*args, "--json"], cwd=work, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert len(results.read_text().splitlines()) == 6
    resumed = json.loads(again.stdout)["run"]
    assert (resumed["skipped"], resumed["ran"]) == (len(kept), 6 - len(kept))


@pytest.mark.parametrize(
    "args", [["info", "merg7.json", "--json"], ["convert", "merg7.json", "p.gml"]]
)
def test_closed_stdout_is_quiet(work, args) -> None:
    """'robustgraph ... | head' closing the pipe early: exit 141 as on SIGPIPE, nothing on stderr
    (it was 'robustgraph: error: [Errno 32] Broken pipe', or a traceback)."""
    proc = subprocess.Popen(
        [*CLI, *args],
        cwd=work,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    proc.stdout.close()  # the reader is gone before the command prints
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 141
    assert err == ""


def test_run_refusal_is_also_json_on_stdout(work, monkeypatch) -> None:
    """A refused run with --json still prints one JSON document (and exits 1, one error line)."""
    result = invoke(
        work,
        monkeypatch,
        "run --topology merg --n 5 --F 3 --roster 3S1W1A --tasks arith:2 --rounds 1 "
        "-o refused --json",
    )
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert doc["refused"] is True and "not 4-robust" in doc["reason"]
    assert result.stderr.count("robustgraph: error:") == 1
