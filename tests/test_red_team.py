"""Regression tests of the red-team findings of issue 24, items 5-10, 12 and 14: each failed
(a hang, minutes of work, a 32 MB error line, orphaned processes, a wrong hint or message)
before the fix named in its docstring.

Most cases run in-process (``CliRunner``); a FIFO that blocked ``open`` for ever is bounded by
the test's own timeout, and the ``kill -9`` case runs real processes.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from cli_checks import assert_error
from click.testing import CliRunner

from protocol_runner.run import strict_yaml
from robustgraph import io, limits
from robustgraph.cli import main
from robustgraph.errors import ParameterError
from robustgraph.generators import gamma_merg

RUN = "run --topology merg --n 5 --F 1 --roster 4S1A --protocols sac --tasks arith:2 --rounds 1"
SPEC = "grid:\n  topology: merg\n  n: 5\n  roster: 4S1A\n  tasks: arith:2\n  rounds: 1\n"


def cli(*args: object, cwd: Path | None = None):
    argv = [str(a) for a in args]
    if cwd is None:
        return CliRunner().invoke(main, argv)
    old = Path.cwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, argv)
    finally:
        os.chdir(old)


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("redteam")
    io.write(gamma_merg(7), d / "merg7.json")
    (d / "spec.yaml").write_text(SPEC)
    for name in ("fifo.cert.json", "fifo.jsonl", "fifo.yaml", "fifo.json", "fifo-spec.yaml"):
        os.mkfifo(d / name)
    (d / "folder.yaml").mkdir()
    return d


# ------------------------------------------------------------------ item 5: size budgets
@pytest.mark.parametrize(
    "command",
    [
        "generate circulant --n 10000000 --k 2 -o g.json",
        "generate pa --n 10000000 --r 2 -o g.json",
        "generate k-in --n 10000000 --k 2 -o g.json",
        "generate er --n 20 --r 2 --max-attempts 1000000000000 -o g.json",
        "design --n 10000000 --r 2 -o d.json",
        "design --n 100000 --r 50000 -o d.json",
        "design --n 1000 --r 450 -o d.json",  # n fits; the start's 449,101 edges do not
        f"{RUN} --tasks arith:99999999999 -o out",
        f"{RUN.replace('--n 5', '--n 100000')} -o out",
    ],
)
def test_every_typed_size_has_a_ceiling_and_fails_fast(command, tmp_path):
    """Each ran for 35 s or more (minutes, gigabytes) before refusing or finishing; now one
    line naming the ceiling and docs/cli.md, before any work."""
    line = assert_error(cli(*command.split(), cwd=tmp_path))
    assert "ceiling" in line and limits.DOCS in line, line
    assert not any(tmp_path.iterdir()), "nothing is written before the refusal"


@pytest.mark.parametrize(
    ("option", "value"),
    [("--rounds", "99999999999999999999"), ("--concurrency", "99999999999"),
     ("--max-retries", "1000000")],
)
def test_run_counts_are_bounded_by_click(option, value, tmp_path):
    """--rounds 10^20 ran past 35 s; --concurrency and --max-retries had no bound."""
    line = assert_error(cli(*RUN.split(), option, value, "-o", tmp_path / "out"))
    assert option in line and "range" in line, line


def test_edge_ceiling_of_the_generators_that_had_none(tmp_path):
    """circulant, pa and k-in checked no edge count: circulant n = 100,000, k = 50,000 would
    have built 5 * 10^9 edges."""
    line = assert_error(cli("generate", "circulant", "--n", "100000", "--k", "50000",
                            "-o", tmp_path / "c.json"))
    assert "5,000,000,000 edges" in line


def test_augment_has_the_design_ceiling(tmp_path):
    path = tmp_path / "path.edges"
    path.write_text("# undirected\n" + "".join(f"{i} {i + 1}\n" for i in range(1500)))
    line = assert_error(cli("augment", path, "--r", "2", "-o", tmp_path / "a.json"))
    assert "n = 1,501 is over the ceiling of 1,000 nodes" in line


def test_sweep_grid_of_a_million_cells_is_refused(tmp_path):
    """A 200-byte spec of six axes listed 10^6 cells before any check."""
    seeds = list(range(1000))
    spec = tmp_path / "big.yaml"
    spec.write_text(SPEC.replace("rounds: 1", f"rounds: {list(range(1000))}\n  seed: {seeds}"))
    line = assert_error(cli("sweep", spec, "-o", tmp_path / "out", "--dry-run"))
    assert "cells = 1,000,000" in line and "ceiling of 10,000" in line


def test_sweep_rounds_and_n_have_the_run_ceilings(tmp_path):
    spec = tmp_path / "s.yaml"
    spec.write_text(SPEC.replace("rounds: 1", "rounds: 99999999999999999999"))
    assert "ceiling of 1,000" in assert_error(cli("sweep", spec, "-o", tmp_path / "o", "--dry-run"))


def test_threads_are_capped_at_the_cores_with_a_warning(work):
    """--threads 100000 reached HiGHS as is: it ran 95 s past a 2 s limit and aborted (134)."""
    result = cli("robustness", work / "merg7.json", "--engine", "exhaustive",
                 "--threads", "100000", "--json")
    assert result.exit_code == 0, result.stderr
    assert f"more than the {limits.cores()} CPU cores here; using {limits.cores()}" in (
        result.stderr
    )


def test_at_most_names_the_value_and_the_ceiling():
    assert limits.at_most("rounds", 1000, 1000) == 1000
    with pytest.raises(ParameterError, match="rounds = 1,001 is over the ceiling of 1,000"):
        limits.at_most("rounds", 1001, 1000)
    with pytest.raises(ParameterError, match="a 5000-digit number"):
        limits.at_most("n", 10**5000 - 1, 10)


# ------------------------------------------------------------------ item 6: YAML alias bombs
def _bomb(levels: int) -> str:
    """Billion laughs: each level lists the previous one ten times."""
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def _indented(text: str) -> str:
    return "\n".join(f"    {line}" for line in text.splitlines())


def test_alias_bomb_sweep_spec_is_one_short_line(tmp_path):
    """A 685-byte spec printed one 32 MB error line and took 0.8 GB (the error quoted the
    expanded value); now refused before anything is constructed."""
    spec = tmp_path / "bomb.yaml"  # the value of grid.n, quoted by its error message
    spec.write_text(SPEC.replace("n: 5", "n:\n" + _indented(_bomb(8))))
    assert len(spec.read_bytes()) < 700
    line = assert_error(cli("sweep", spec, "-o", tmp_path / "out", "--dry-run"))
    assert "aliases" in line and "123,456,770 nodes" in line and len(line) < 400, line


def test_recursive_alias_is_refused():
    with pytest.raises(yaml.YAMLError, match="alias to itself"):
        strict_yaml.load("a: &a [1, *a]\n")


def test_aliases_within_the_bound_still_load():
    data = strict_yaml.load(_bomb(3))  # 1,110 nodes added: under MAX_YAML_ALIAS_NODES
    assert len(data["a2"]) == 10 and data["a2"][0][0] == ["lol"] * 10


def test_quoted_values_are_short_even_when_aliases_make_them_large(tmp_path):
    """Under the alias bound a value of 1,000 strings is still quoted in a few hundred
    characters (``limits.quote``), where the message printed it whole."""
    spec = tmp_path / "s.yaml"
    spec.write_text(SPEC.replace("n: 5", "n:\n" + _indented(_bomb(3))))
    line = assert_error(cli("sweep", spec, "-o", tmp_path / "out", "--dry-run"))
    assert "expected an integer, got {'a0': ['lol'," in line and len(line) < 400, line


def test_roster_json_error_quotes_a_long_label_briefly(work, tmp_path):
    roster = tmp_path / "r.json"
    # 60,000 characters: under the roster size cap of a 5-node graph (64 KiB + 1 KiB per node)
    roster.write_text(json.dumps({"agents": [{"node": "x" * 60_000, "role": "strong"}]}))
    line = assert_error(cli(*RUN.split(), "--roster", roster, "-o", tmp_path / "out"))
    assert "is not in the graph" in line and len(line) < 500, len(line)


def test_json_task_file_errors_quote_briefly(tmp_path):
    """A duplicate 100,000-character id, or an unknown field of that length, printed it whole."""
    dup = tmp_path / "dup.jsonl"
    record = json.dumps({"id": "z" * 100_000, "question": "q", "answer": "1"})
    dup.write_text(record + "\n" + record + "\n")
    odd = tmp_path / "odd.jsonl"
    odd.write_text(json.dumps({"id": "a", "question": "q", "answer": "1", "k" * 100_000: 1}))
    for path, what in ((dup, "duplicate id"), (odd, "unknown field")):
        line = assert_error(cli(*RUN.replace("arith:2", f"jsonl:{path}").split(),
                                "-o", tmp_path / "out"))
        assert what in line and len(line) < 400, len(line)


def test_certificate_json_problem_quotes_briefly(work, tmp_path):
    """A certificate whose claim statement is 1 MB printed a 1 MB reason line."""
    cert = tmp_path / "m.cert.json"
    assert cli("certify", work / "merg7.json", "--r", "1", "-o", cert).exit_code == 0
    doc = json.loads(cert.read_text())
    doc["claims"][0]["statement"] = "x" * 1_000_000
    cert.write_text(json.dumps(doc))
    result = cli("verify", cert, work / "merg7.json")
    assert result.exit_code == 1 and "statement" in result.stdout
    assert max(map(len, result.stdout.splitlines())) < 500


def test_every_error_line_is_clipped(capsys):
    """The last guard: whatever a message quotes, the line stays under MAX_MESSAGE (+ the
    prefix and the count of what was cut)."""
    from robustgraph.cli import common

    with pytest.raises(SystemExit):
        common.fail("x" * 10**6)
    err = capsys.readouterr().err
    assert err.startswith("robustgraph: error: xxx") and "more characters" in err
    assert len(err) < limits.MAX_MESSAGE + 80


# ------------------------------------------------------------------ item 7: non-regular files
@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("verify", "{d}/fifo.cert.json", "{d}/merg7.json"), "fifo.cert.json: is a FIFO"),
        (("run", "--graph", "{d}/merg7.json", "--certificate", "{d}/fifo.cert.json", "--roster",
          "6S1A", "--tasks", "arith:1", "-o", "{t}/o"), "fifo.cert.json: is a FIFO"),
        (tuple(RUN.replace("arith:2", "gsm8k:{d}/fifo.jsonl:2").split()) + ("-o", "{t}/o"),
         "fifo.jsonl: is a FIFO"),
        (tuple(RUN.replace("4S1A", "{d}/fifo.yaml").split()) + ("-o", "{t}/o"),
         "roster file {d}/fifo.yaml: is a FIFO, not a regular file"),
        (tuple(RUN.split()) + ("--sim-config", "{d}/fifo.json", "-o", "{t}/o"),
         "fifo.json: simulator config: is a FIFO"),
        (("sweep", "{d}/fifo-spec.yaml", "-o", "{t}/o", "--dry-run"), "is a FIFO"),
        (("verify", "/dev/zero", "{d}/merg7.json"), "/dev/zero: is a character device"),
    ],
)
def test_fifos_and_devices_are_refused_not_read(work, tmp_path, args, message):
    """Each blocked for ever in ``open`` (a FIFO with no writer) or read without end."""
    argv = [a.format(d=work, t=tmp_path) for a in args]
    line = assert_error(cli(*argv))
    assert message.format(d=work) in line, line


@pytest.mark.timeout(60)
def test_sweep_spec_roster_file_that_is_a_fifo(work, tmp_path):
    spec = tmp_path / "s.yaml"
    spec.write_text(SPEC.replace("4S1A", str(work / "fifo.yaml")))
    line = assert_error(cli("sweep", spec, "-o", tmp_path / "o", "--dry-run"))
    assert "is a FIFO, not a regular file" in line


def test_regular_file_helper():
    assert limits.regular_file(__file__) == Path(__file__)
    with pytest.raises(ParameterError, match="is a directory, not a regular file"):
        limits.regular_file(Path(__file__).parent)
    with pytest.raises(ParameterError, match="no such file"):
        limits.regular_file("/no/such/file")


# ------------------------------------------------------------------ item 8: kill -9 of a pool
_POOL = """
import time
from robustgraph.executors import LocalExecutor, Task
LocalExecutor(workers=2).run([Task(str(i), time.sleep, (120,)) for i in range(2)])
"""


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _threads(pid: int) -> int:
    """The number of threads of ``pid`` (0 once it is gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    return next(int(line.split()[1]) for line in status.splitlines() if line.startswith("Threads:"))


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has exited; only its parent's reaping is left


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
@pytest.mark.timeout(120)
def test_kill_9_of_the_parent_ends_workers_and_resource_tracker():
    """After kill -9 of ``certify --batch`` its two pool workers and the resource tracker ran
    on for minutes; each worker now watches its parent and exits."""
    parent = subprocess.Popen([sys.executable, "-c", _POOL], stderr=subprocess.DEVNULL)
    children: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while len(_children(parent.pid)) < 3 and time.monotonic() < deadline:
            time.sleep(0.2)  # two workers and the resource tracker
        children = _children(parent.pid)
        assert len(children) >= 3, children
        workers = [pid for pid in children if b"multiprocessing.spawn" in _cmdline(pid)]
        assert len(workers) == 2, children
        # each worker's first task has started its parent watch (a second thread): however
        # slow the machine, the kill comes after it; 60 s is a hang guard only
        while not all(_threads(pid) >= 2 for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
        deadline = time.monotonic() + 20
        while any(map(_alive, children)) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not [pid for pid in children if _alive(pid)]
    finally:  # the processes this test started, by id
        if parent.poll() is None:
            parent.kill()
        for pid in filter(_alive, children):
            os.kill(pid, signal.SIGKILL)


# ------------------------------------------------------------------ item 9: --drop-invalid hint
def test_drop_invalid_hint_names_a_command_that_has_the_flag(tmp_path):
    """'use --drop-invalid' was printed by certify, robustness, run...; only info and convert
    take it. The hint now names convert, and following it works."""
    loop = tmp_path / "loop.edges"
    loop.write_text("# undirected\n0 1\n1 2\n2 0\n2 2\n")
    line = assert_error(cli("certify", loop, "--r", "1", "-o", tmp_path / "c.cert.json"))
    assert "use --drop-invalid" not in line and "robustgraph convert FILE CLEAN --drop-invalid" in (
        line
    )
    clean = tmp_path / "clean.edges"
    assert cli("convert", loop, clean, "--drop-invalid").exit_code == 0
    result = cli("certify", clean, "--r", "1", "-o", tmp_path / "c.cert.json")
    assert result.exit_code == 0, result.stderr


# ------------------------------------------------------------------ item 10: batch recursion
def test_batch_directory_recurses_into_subfolders(tmp_path):
    """docs/cli.md said 'recursively'; files in subfolders were skipped with exit 0."""
    graphs = tmp_path / "graphs"
    (graphs / "sub" / "deeper").mkdir(parents=True)
    (graphs / ".hidden").mkdir()
    for name in ("a.json", "sub/b.json", "sub/deeper/c.json", ".hidden/d.json"):
        io.write(gamma_merg(5), graphs / name)
    out = tmp_path / "certs"
    result = cli("certify", "--batch", graphs, "--r", "1", "--workers", "1", "-o", out, "--json")
    assert result.exit_code == 0, result.stderr
    files = sorted(Path(row["file"]).relative_to(graphs).as_posix()
                   for row in json.loads(result.stdout)["graphs"])
    assert files == ["a.json", "sub/b.json", "sub/deeper/c.json"]
    assert (out / "sub" / "deeper" / "c.cert.json").is_file()


# ------------------------------------------------------------------ item 12: a failed first run
def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_failed_first_run_does_not_block_the_corrected_retry(tmp_path):
    """An unreachable --base-url left config.json in -o; the retry was refused ('holds the
    results of another run ... differing in: backend')."""
    out = tmp_path / "out"
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    first = cli(*RUN.split(), "--backend", "openai", "--base-url", url, "--model", "m",
                "--max-retries", "0", "--timeout", "2", "-o", out, "--no-plots")
    assert "cannot reach" in assert_error(first)
    retry = cli(*RUN.split(), "--backend", "simulated", "-o", out, "--no-plots")
    assert retry.exit_code == 0, retry.stderr
    assert (out / "results.jsonl").stat().st_size > 0
    other = cli(*RUN.split(), "--seed", "5", "-o", out, "--no-plots")
    assert "holds the results of another run" in assert_error(other)  # results still guarded


# ------------------------------------------------------------------ item 14: messages
@pytest.mark.timeout(60)
def test_roster_fifo_or_folder_does_not_say_missing(work, tmp_path):
    for roster, kind in (("fifo.yaml", "a FIFO"), ("folder.yaml", "a directory")):
        line = assert_error(cli(*RUN.replace("4S1A", str(work / roster)).split(),
                                "-o", tmp_path / "o"))
        assert f"is {kind}, not a regular file" in line and "does not exist" not in line


@pytest.mark.parametrize(
    "command",
    [
        "generate merg --n 5 -o",
        "certify {d}/merg7.json --r 1 -o",
        "design --n 6 --r 2 -o",
        f"{RUN} -o",
        "sweep {d}/spec.yaml --dry-run -o",
        "certify --batch {d} --r 1 -o",
    ],
)
def test_empty_output_path_is_a_clear_error(work, tmp_path, command):
    """-o '' said ': is a directory' or wrote into the working directory (run, --batch)."""
    argv = command.format(d=work).split() + [""]
    line = assert_error(cli(*argv, cwd=tmp_path))
    assert "empty" in line, line
    assert not any(tmp_path.iterdir())


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_disk_full_names_the_file_in_words(work):
    """certify -o /dev/full printed '[Errno 28] No space left on device', naming no file."""
    line = assert_error(cli("certify", work / "merg7.json", "--r", "1", "-o", "/dev/full"))
    assert line == "robustgraph: error: /dev/full: No space left on device"


# ------------------------------------------------------------------ item 15: labels and mtx values
@pytest.mark.parametrize(
    ("labels", "message"),
    [
        (("x\x00y", "z"), "control character"),
        (("a\tb", "z"), "control character"),
        (("\u00e9", "e\u0301"), "read the same as text (Unicode NFC)"),  # NFC and NFD of one name
    ],
)
def test_labels_that_print_alike_or_hold_control_characters_are_refused(labels, message):
    from robustgraph.errors import GraphFormatError
    from robustgraph.topology import Topology

    with pytest.raises(GraphFormatError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Topology.from_edges([(labels[0], "hub"), (labels[1], "hub")])


def test_a_nan_matrix_market_entry_is_not_an_edge(tmp_path):
    path = tmp_path / "g.mtx"
    path.write_text("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 nan\n2 3 1\n")
    result = CliRunner().invoke(main, ["info", str(path)])
    assert "has the value nan, which is not a number" in assert_error(result)


def test_design_budget_has_a_ceiling(tmp_path):
    line = assert_error(cli("design", "--n", "10", "--r", "2", "--budget", "10000000000",
                            "-o", tmp_path / "d.json"))
    assert "--budget = 10,000,000,000 is over the ceiling of 10,000,000" in line


def test_sweep_workers_are_capped_at_the_cores(tmp_path):
    spec = tmp_path / "s.yaml"
    spec.write_text("grid: {topology: [merg], n: [5], roster: [4S1A], tasks: ['arith:1'], "
                    "rounds: [1]}\nprotocols: [majority]\n")
    result = cli("sweep", spec, "--workers", "100000", "--dry-run", "-o", tmp_path / "out")
    assert "--workers 100,000 is more than the" in result.stderr
