"""Regression tests of the bad-input audit: each case was a traceback, a wrong exit code, a hang,
garbage accepted, or data lost, before the fix named in its docstring.

The contract (DESIGN.md): bad input is ONE line ``robustgraph: error: ...`` on stderr and exit 2
(1: checked and not satisfied; 130: interrupted), never a traceback, and no data already
produced is lost. Most cases run in-process (``CliRunner``, as ``test_cli_contract.py``); the
Ctrl-C case runs a real process group, since only there does SIGINT reach the workers too.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from cli_checks import assert_error
from click.testing import CliRunner

from robustgraph import io
from robustgraph.certificate.certifier import certify
from robustgraph.certificate.claims import Claim
from robustgraph.cli import main
from robustgraph.generators import erdos_renyi, gamma_merg

CLI = [sys.executable, "-c", "from robustgraph.cli import main; main()"]
BIG = "9" * 5000  # an integer Python refuses to parse (more than 4300 digits)
DEEP = "[" * 100_000  # nesting deeper than the JSON and YAML parsers recurse
MTX = "%%MatrixMarket matrix"
RUN = (
    "run --topology merg --n 5 --roster 3S1W1A --protocols sac --tasks arith:1 --rounds 0 "
    "--no-plots"
)


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    """Small inputs, good and bad, shared by every case."""
    d = tmp_path_factory.mktemp("audit")
    merg = gamma_merg(7)
    io.write(merg, d / "merg7.json")
    certify(merg, Claim.maximum(), engines="exhaustive").dump(d / "merg7.cert.json")
    files = {
        "big.json": '{"nodes": [{"id": ' + BIG + '}], "edges": []}',
        "deep.json": DEEP,
        "big.jsonl": '{"id": "a", "question": "q", "answer": ' + BIG + "}\n",
        "big.yaml": f"agents: {BIG}\n",
        "deep.yaml": DEEP,
        "list.cert.json": "[" + (d / "merg7.cert.json").read_text() + "]",
        "mixed.json": json.dumps(
            {
                "directed": False,
                "nodes": [{"id": 1}, {"id": "1"}, {"id": 2}],
                "edges": [{"source": 1, "target": 2}, {"source": "1", "target": 2}],
            }
        ),
        "huge.mtx": f"{MTX} coordinate pattern symmetric\n99999999999 99999999999 0\n",
        "array.mtx": f"{MTX} array real symmetric\n100000 100000\n",
    }
    for name, text in files.items():
        (d / name).write_text(text)
    sim = {
        "profiles-int": {"profiles": 5},
        "profile-list": {"profiles": {"mid": [1, 2]}},
        "accuracy-text": {"profiles": {"mid": {"base": "weak", "accuracy": "high"}}},
        "base-list": {"profiles": {"mid": {"base": [1]}}},
        "noise-text": {"score_noise": "x"},
        "decay-null": {"distractor_decay": None},
    }
    for name, config in sim.items():
        (d / f"sim-{name}.json").write_text(json.dumps(config))
    (d / "sim-noise-nan.json").write_text('{"score_noise": NaN}')
    return d


def invoke(work: Path, monkeypatch, args: str):
    monkeypatch.chdir(work)
    return CliRunner().invoke(main, args.split())


# (command line, a piece of the error line); every case exits 2.
ERRORS = [
    # a JSON number of 5000 digits: ValueError traceback in every JSON reader
    ("info big.json", "invalid JSON"),
    ("verify big.json merg7.json", "not valid JSON"),
    (f"{RUN} --tasks big.jsonl -o r", "invalid JSON"),
    (f"{RUN} --roster big.yaml -o r", "cannot read roster"),
    ("sweep big.yaml -o s --dry-run", "not a readable spec"),
    # nesting deeper than the parsers recurse: RecursionError traceback
    ("verify deep.json merg7.json", "not valid JSON"),
    (f"{RUN} --tasks jsonl:deep.json -o r", "invalid JSON"),
    (f"{RUN} --sim-config deep.json -o r", "simulator config"),
    (f"{RUN} --roster deep.yaml -o r", "more than a roster of the graph's 5 agents needs"),
    ("sweep deep.yaml -o s --dry-run", "not a readable spec"),
    # simulator configs of the wrong shape: TypeError/ValueError tracebacks; NaN was accepted
    (f"{RUN} --sim-config sim-profiles-int.json -o r", "'profiles' must be an object"),
    (f"{RUN} --sim-config sim-profile-list.json -o r", "must be an object of fields"),
    (f"{RUN} --sim-config sim-accuracy-text.json -o r", "accuracy must be a number"),
    (f"{RUN} --sim-config sim-base-list.json -o r", "unknown base profile"),
    (f"{RUN} --sim-config sim-noise-text.json -o r", "score_noise must be a number"),
    (f"{RUN} --sim-config sim-noise-nan.json -o r", "score_noise must be a number"),
    (f"{RUN} --sim-config sim-decay-null.json -o r", "distractor_decay must be a number"),
    # NaN/infinite numbers: a uvloop traceback (NaN) or calls that never end (infinite latency)
    (f"{RUN} --latency-ms nan -o r", "latency must be a finite number"),
    (f"{RUN} --timeout nan -o r", "timeout must be > 0"),
    ("robustness merg7.json --time-limit nan", "--time-limit"),
    # out-of-range or ignored options that were accepted silently
    (f"{RUN} --certify-time-limit -5 -o r", "--certify-time-limit"),
    (f"{RUN} --certify-time-limit nan -o r", "--certify-time-limit"),
    (f"{RUN} --base-url http://127.0.0.1:9/v1 -o r", "--base-url is for the openai backend"),
    ("verify merg7.cert.json merg7.json --time-limit 5", "--resolve-with"),
    # a negative seed: numpy's ValueError traceback from the heuristics' generator
    ("robustness merg7.json --engine cpsat --seed -1", "--seed"),
    ("certify merg7.json --max --seed -1 -o c.json", "--seed"),
    # labels 1 and "1": one content hash for two graphs; convert wrote a broken text file
    ("info mixed.json", "read the same as text"),
    ("convert mixed.json mixed.txt", "read the same as text"),
    # a Matrix Market size line asking for 10^11 nodes, or 10^10 array entries: MemoryError
    ("info huge.mtx", "nodes, more than robustgraph reads (budget 100,000"),
    ("info array.mtx", "may hold up to 5,000,050,000 edges"),
    # a file that is no certificate at all given to run: exit 1 ("does not prove"), not 2
    ("run --graph merg7.json --certificate merg7.json --roster 5S1W1A -o r", "not a certificate"),
]  # fmt: skip


@pytest.mark.parametrize(("args", "piece"), ERRORS, ids=[a for a, _ in ERRORS])
def test_error_is_one_line(work, monkeypatch, args, piece) -> None:
    assert piece in assert_error(invoke(work, monkeypatch, args))


@pytest.mark.parametrize(
    "args",
    [f"{RUN} --latency-ms inf -o r-inf", "serve-sim --port 0 --latency-ms nan"],
)
def test_a_latency_that_never_ends_is_refused(work, args) -> None:
    """An infinite (or NaN) latency was accepted: the run's calls, or every request served,
    waited for ever. A subprocess, so that a regression fails on the timeout instead of hanging."""
    try:
        done = subprocess.run(
            [*CLI, *args.split()], cwd=work, capture_output=True, text=True, timeout=30
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"still running after 30 s: {args}")
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("robustgraph: error: latency must be a finite number")
    assert len(done.stderr.splitlines()) == 1 and done.stdout == ""


def test_converting_colliding_labels_writes_nothing(work, monkeypatch) -> None:
    assert_error(invoke(work, monkeypatch, "convert mixed.json collide.txt"))
    assert not (work / "collide.txt").exists()


def test_schema_error_of_a_wrapped_certificate_is_short(work, monkeypatch) -> None:
    """A certificate wrapped in a list: the reason quoted the whole document (4 kB)."""
    result = invoke(work, monkeypatch, "verify list.cert.json merg7.json --json")
    assert result.exit_code == 1
    (reason,) = json.loads(result.stdout)["reasons"]
    assert len(reason) < 300 and "is not of type 'object'" in reason


@pytest.mark.parametrize(
    ("args", "not_written"),
    [
        ("certify g.json --max -o g.json", None),
        ("certify g.json --max -o ./g.json --json", None),
        ("augment g.json --r 2 -o a.json --cert g.json", "a.json"),
        ("augment g.json --r 2 -o a.json --cert a.json", "a.json"),
        ("design --n 8 --r 3 -o d.json --cert d.json", "d.json"),
    ],
)
def test_an_output_never_overwrites_a_graph(work, monkeypatch, args, not_written) -> None:
    """certify wrote the certificate over its input graph; design/augment wrote the certificate
    over the input or over the graph just designed (the search's result lost). Now refused
    before any work."""
    graph = work / "g.json"
    io.write(gamma_merg(7), graph)
    before = graph.read_bytes()
    assert "writing it would destroy" in assert_error(invoke(work, monkeypatch, args))
    assert graph.read_bytes() == before
    assert not_written is None or not (work / not_written).exists()


def _unwritable_dir() -> Path | None:
    """A directory no file can be created in, even by root (sysfs), if this machine has one."""
    probe = Path("/sys/robustgraph-probe")
    if not probe.parent.is_dir():
        return None
    try:
        probe.touch()
    except OSError:
        return Path("/sys")
    probe.unlink()
    return None


@pytest.mark.skipif(_unwritable_dir() is None, reason="needs a directory root cannot write")
@pytest.mark.parametrize(
    "args",
    [
        "certify --batch batch --max --workers 1 -o {ro}/certs",
        "design --n 6 --r 2 --time-limit 1 -o d6.json --cert {ro}/d6.cert.json",
    ],
)
def test_an_unwritable_output_is_refused_before_the_work(work, monkeypatch, args) -> None:
    """A read-only output: certify --batch certified every graph, then failed to write each
    certificate (a line per graph, the work lost); design searched, wrote the graph, then
    failed on the certificate."""
    (work / "batch").mkdir(exist_ok=True)
    io.write(gamma_merg(5), work / "batch" / "m5.json")
    result = invoke(work, monkeypatch, args.format(ro=_unwritable_dir()))
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert_error(result)
    assert not (work / "d6.json").exists()


def test_a_binary_results_file_is_not_resumed(work, monkeypatch) -> None:
    """Resuming into a directory whose results.jsonl holds binary bytes: UnicodeDecodeError. (A
    results file without the run's config.json is no run of this command's: refused as such.)"""
    out = work / "binary-run"
    out.mkdir()
    (out / "results.jsonl").write_bytes(bytes(range(128, 256)) + b"\n")
    assert "holds the results of another run" in assert_error(
        invoke(work, monkeypatch, f"{RUN} -o binary-run"))


@pytest.mark.parametrize(("line", "piece"), [(f'{{"schema": {BIG}}}', "4300"), (DEEP, "depth")])
def test_report_and_resume_name_an_unreadable_record(work, monkeypatch, line, piece) -> None:
    """A results line with a 5000-digit number or deep nesting (not the last line): tracebacks
    in both 'report' and a resumed 'run'."""
    out = work / f"run-{piece}"
    if not out.exists():
        assert invoke(work, monkeypatch, f"{RUN} -o {out.name}").exit_code == 0
        good = (out / "results.jsonl").read_text()
        (out / "results.jsonl").write_text(f"{line}\n{good}")
    assert piece in assert_error(invoke(work, monkeypatch, f"report {out.name} --no-plots"))
    assert piece in assert_error(invoke(work, monkeypatch, f"{RUN} -o {out.name}"))
    assert invoke(work, monkeypatch, f"report {out.name} --seed -1").exit_code == 2


# ----------------------------------------------------------------------------- garbage LLM output
class _HugeReplies(BaseHTTPRequestHandler):
    """An OpenAI-compatible endpoint whose every completion is 'Answer: ' and 100,000 digits."""

    def log_message(self, *args) -> None:
        pass

    def _send(self, doc: dict) -> None:
        body = json.dumps(doc).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._send({"data": [{"id": "m"}]})

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        message = {"role": "assistant", "content": "Answer: " + "9" * 100_000}
        self._send({"id": "x", "choices": [{"index": 0, "message": message}]})


def test_a_huge_garbage_reply_is_read_in_time(work) -> None:
    """Answer extraction took time quadratic in the reply (a regex on the digits): one reply of
    100,000 digits held the run for minutes. Now the last MAX_REPLY_CHARS are read."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _HugeReplies)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    args = [
        *CLI, *RUN.split(), "--backend", "openai", "--model", "m", "--max-retries", "0",
        "--base-url", f"http://127.0.0.1:{server.server_address[1]}/v1", "-o", "huge-replies",
    ]  # fmt: skip
    try:
        done = subprocess.run(args, cwd=work, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("one query with 100,000-digit replies still ran after 60 s")
    finally:
        server.shutdown()
    assert done.returncode == 0, done.stderr
    (record,) = [json.loads(x) for x in (work / "huge-replies/results.jsonl").read_text().split()]
    assert not record["rounds"][0]["agents"][0]["correct"]


# ----------------------------------------------------------------------------- Ctrl-C
def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(x) for x in path.read_text().split()] if path.exists() else []


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie waiting for its reaper does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.timeout(90)
@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_ctrl_c_twice_stops_a_batch_and_its_workers(tmp_path) -> None:
    """Ctrl-C in 'certify --batch' on a process pool, as a terminal sends it (to the process
    group) and then once more (a second Ctrl-C, or 'timeout -s INT', which signals the process
    and its group): the second SIGINT landed in the exit handlers joining the pool: a traceback
    after the error line, or a hang for ever with the workers idle."""
    batch = tmp_path / "graphs"
    batch.mkdir()
    for seed in (1, 2):  # minutes each to certify: both workers are busy when Ctrl-C comes
        io.write(erdos_renyi(40, 0.5, seed=seed), batch / f"er{seed}.json")
    args = [*CLI, "certify", "--batch", str(batch), "--max", "--workers", "2", "-o", "certs"]
    proc = subprocess.Popen(
        args, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while len(_children(proc.pid)) < 3 and time.monotonic() < deadline:  # 2 workers, 1 tracker
        time.sleep(0.1)
    workers = _children(proc.pid)
    time.sleep(1.5)  # the workers import and start solving
    os.killpg(proc.pid, signal.SIGINT)
    lines = []
    while not lines or lines[-1] and "interrupted" not in lines[-1]:
        lines.append(proc.stderr.readline())
    if proc.poll() is None:  # the exit handlers joining the pool are running: Ctrl-C again
        os.kill(proc.pid, signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail("still running 20 s after Ctrl-C")
    err = "".join(lines) + err
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert [x for x in err.splitlines() if "error" in x] == ["robustgraph: error: interrupted"]
    deadline = time.monotonic() + 20  # a hang guard: workers that run on do so for minutes
    while [pid for pid in workers if _alive(pid)] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [pid for pid in workers if _alive(pid)], "workers left running"
