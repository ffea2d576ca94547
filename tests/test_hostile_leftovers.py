"""Issue 41's leftovers: ``report`` and ``certify --batch`` on a full disk name the file they
could not write (row 11), ``certify --batch`` says which matches are not regular files (row 13),
``reproduce`` and ``sweep`` check their endpoint options as ``run`` does."""

from __future__ import annotations

import builtins
import errno
import io
import os
from pathlib import Path

import pytest
from cli_checks import assert_error
from click.testing import CliRunner
from test_report import RECORDS, write_records

from robustgraph.cli import main


def _cli(*argv: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(main, list(argv), env=env)


class _FullRaw(io.RawIOBase):
    """A file on a full disk: every write fails with ``ENOSPC`` (naming no file, as ``write``
    does)."""

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def _disk_full_for(monkeypatch, folder: Path, name: str) -> None:
    """Opening for writing a file in ``folder`` whose name holds ``name`` (the file itself or a
    temporary file beside it) creates or truncates it, as ``open`` does, and gives a file whose
    writes fail as on a full disk."""
    real = builtins.open

    def fake(file, mode="r", *args, **kwargs):
        target = Path(os.fsdecode(file)) if isinstance(file, (str, bytes, os.PathLike)) else None
        if (target is not None and any(c in mode for c in "wax") and name in target.name
                and target.parent.resolve() == folder.resolve()):
            real(file, mode.replace("x", "w")).close()
            raw = io.BufferedWriter(_FullRaw())
            return raw if "b" in mode else io.TextIOWrapper(raw, encoding="utf-8")
        return real(file, mode, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", fake)
    monkeypatch.setattr(io, "open", fake)


# ----------------------------------------------------------------- row 11: report, full disk
@pytest.mark.parametrize("name, argv", [
    ("table1.md", ["--no-plots"]),
    ("summary.json", ["--no-plots"]),
    ("summary.md", ["--no-plots"]),
    ("protocols.pdf", []),
    ("protocols.caption.txt", ["--style", "paper"]),
])
def test_row11_report_on_a_full_disk_names_the_file_it_could_not_write(
    tmp_path, monkeypatch, name, argv
):
    results = tmp_path / "results"
    write_records(results, RECORDS)
    _disk_full_for(monkeypatch, results, name)
    line = assert_error(_cli("report", str(results), "--resamples", "50", *argv))
    assert line == f"robustgraph: error: {results / name}: No space left on device"
    assert not [p.name for p in results.iterdir() if p.name.endswith(".tmp")]


def test_row11_report_on_a_full_disk_leaves_the_previous_summary_whole(tmp_path, monkeypatch):
    results = tmp_path / "results"
    write_records(results, RECORDS)
    assert _cli("report", str(results), "--resamples", "50", "--no-plots").exit_code == 0
    before = (results / "summary.json").read_bytes()
    _disk_full_for(monkeypatch, results, "summary.json")
    assert_error(_cli("report", str(results), "--resamples", "50", "--no-plots"))
    assert (results / "summary.json").read_bytes() == before


# ----------------------------------------------------------------- row 11: certify --batch
@pytest.fixture
def graphs(tmp_path) -> Path:
    from robustgraph import generators as gen
    from robustgraph import io as graph_io

    root = tmp_path / "graphs"
    root.mkdir()
    graph_io.write(gen.gamma_merg(5), root / "merg5.json")
    graph_io.write(gen.complete(4), root / "k4.g6")
    return root


def _batch(graphs: Path, out: Path, *extra: str):
    return _cli("certify", "--batch", str(graphs), "--max", "--engines", "exhaustive",
                "--workers", "1", "-o", str(out), *extra)


@pytest.mark.parametrize("name", ["index.json", "index.md"])
def test_row11_batch_index_on_a_full_disk_names_it_and_keeps_the_previous(
    graphs, tmp_path, monkeypatch, name
):
    out = tmp_path / "certs"
    assert _batch(graphs, out).exit_code == 0
    before = (out / name).read_bytes()
    _disk_full_for(monkeypatch, out, name)
    line = assert_error(_batch(graphs, out))
    assert line == f"robustgraph: error: {out / name}: No space left on device"
    assert (out / name).read_bytes() == before
    assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp")]


def test_row11_a_batch_certificate_on_a_full_disk_names_it_in_its_row(
    graphs, tmp_path, monkeypatch
):
    """What a worker runs (:func:`certify_file`): the error names the certificate, and no 0-byte
    or temporary file is left (the row's error is this text, the batch exits 2)."""
    from robustgraph.certificate.batch import certify_file
    from robustgraph.certificate.claims import Claim
    from robustgraph.executors import Task, run_task

    out = tmp_path / "certs"
    out.mkdir()
    _disk_full_for(monkeypatch, out, "merg5.cert.json")
    target = out / "merg5.cert.json"
    outcome = run_task(Task("merg5", certify_file, (
        str(graphs / "merg5.json"), (Claim.tolerance(1, "sac"),), {"engines": ["exhaustive"]},
        {}, str(target))))
    assert outcome.error == f"OSError: [Errno 28] No space left on device: '{target}'"
    assert list(out.iterdir()) == []


# ----------------------------------------------------------------- row 13: FIFOs in a batch
def test_row13_a_batch_names_a_fifo_that_matches_its_glob_and_never_opens_it(graphs, tmp_path):
    os.mkfifo(graphs / "pipe.json")  # opening it would block until a writer came
    out = tmp_path / "certs"
    result = _batch(graphs.parent / "graphs" / "*", out, "--json")  # a glob
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines()[-1] == (
        f"robustgraph: warning: skipped {graphs / 'pipe.json'}: is a FIFO, not a regular file")
    import json

    index = json.loads(result.stdout)
    assert index["skipped"] == [{"file": str(graphs / "pipe.json"),
                                 "reason": "is a FIFO, not a regular file"}]
    assert [Path(row["file"]).name for row in index["graphs"]] == ["k4.g6", "merg5.json"]
    assert json.loads((out / "index.json").read_text())["skipped"] == index["skipped"]
    assert f"- {graphs / 'pipe.json'}: is a FIFO, not a regular file" in (
        out / "index.md").read_text()


def test_row13_a_batch_of_only_special_files_is_one_line_naming_one(tmp_path):
    (tmp_path / "d").mkdir()
    for name in ("a.json", "b.json"):
        os.mkfifo(tmp_path / "d" / name)
    os.symlink(tmp_path / "gone.json", tmp_path / "d" / "c.json")  # a broken link
    line = assert_error(_batch(tmp_path / "d", tmp_path / "certs"))
    assert line == (f"robustgraph: error: no graph files in directory {str(tmp_path / 'd')!r}; "
                    f"skipped {tmp_path / 'd' / 'a.json'}: is a FIFO, not a regular file "
                    "and 2 more")


# ----------------------------------------------------------------- rows 3, 5: reproduce, sweep
UNSET = "ROBUSTGRAPH_TEST_UNSET_KEY_41B"
OPENAI = ["--backend", "openai", "--base-url", "http://127.0.0.1:9/v1", "--model", "m"]


def _without_key(monkeypatch) -> None:
    monkeypatch.delenv(UNSET, raising=False)


def test_reproduce_refuses_an_unset_api_key_env_in_one_line_before_any_run(
    tmp_path, monkeypatch
):
    _without_key(monkeypatch)
    line = assert_error(_cli("reproduce", "table1", *OPENAI, "--api-key-env", UNSET,
                             "-o", str(tmp_path / "out")))
    assert line == (f"robustgraph: error: --api-key-env {UNSET}: that environment variable is "
                    "not set (give --api-key-env '' to send no key)")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("flag, follows", [([], False), (["--allow-cross-origin-redirects"], True)])
def test_reproduce_passes_allow_cross_origin_redirects_to_its_runs(
    tmp_path, monkeypatch, flag, follows
):
    from robustgraph.errors import ParameterError

    def stop(spec, output, *, backend, **kwargs):  # what every run of the table is given
        raise ParameterError(f"cross-origin redirects followed: {backend.cross_origin_redirects}")

    monkeypatch.setattr("protocol_runner.analysis.reproduce.reproduce", stop)
    line = assert_error(_cli("reproduce", "table1", *OPENAI, "--api-key-env", "", *flag,
                             "-o", str(tmp_path / "out")))
    assert line == f"robustgraph: error: cross-origin redirects followed: {follows}"


def test_reproduce_allow_cross_origin_redirects_is_for_the_openai_backend(tmp_path):
    line = assert_error(_cli("reproduce", "table1", "--allow-cross-origin-redirects",
                             "-o", str(tmp_path / "out")))
    assert line == "robustgraph: error: --allow-cross-origin-redirects is for the openai backend"


def _openai_sweep(tmp_path: Path, **backend) -> Path:
    import yaml

    spec = {"name": "k", "grid": {"topology": "merg", "n": 5, "roster": "3S1W1A",
                                  "tasks": "arith:3", "rounds": 1, "seed": 1,
                                  "backend": {"kind": "openai", "base_url":
                                              "http://127.0.0.1:9/v1", "model": "m", **backend}},
            "protocols": ["sac"], "options": {"plots": False}}
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


@pytest.mark.parametrize("dry_run", [[], ["--dry-run"]])
def test_sweep_refuses_an_unset_api_key_env_in_one_line_before_any_cell(
    tmp_path, monkeypatch, dry_run
):
    _without_key(monkeypatch)
    spec = _openai_sweep(tmp_path, api_key_env=UNSET)
    line = assert_error(_cli("sweep", str(spec), "--workers", "1", *dry_run,
                             "-o", str(tmp_path / "out")))
    assert line == (f"robustgraph: error: --api-key-env {UNSET}: that environment variable is "
                    "not set (give --api-key-env '' to send no key)")
    assert not (tmp_path / "out").exists()


def test_sweep_without_api_key_env_keeps_the_default_key_variable_optional(tmp_path, monkeypatch):
    """As ``run`` without ``--api-key-env``: an unset OPENAI_API_KEY sends no key."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    spec = _openai_sweep(tmp_path)
    result = _cli("sweep", str(spec), "--dry-run", "-o", str(tmp_path / "out"))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[-1].startswith("1 cells")


# ----------------------------------------------------------- row 11: reproduce, full disk
@pytest.mark.parametrize("name", ["table6.txt", "table6.json", "table6.csv", "table6.tex"])
def test_row11_reproduce_on_a_full_disk_names_the_file_it_could_not_write(
    tmp_path, monkeypatch, name
):
    out = tmp_path / "t6"
    _disk_full_for(monkeypatch, out, name)
    line = assert_error(_cli("reproduce", "table6", "--seeds", "1", "--tasks", "arith:2",
                             "-o", str(out)))
    assert line == f"robustgraph: error: {out / name}: No space left on device"
    assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp")]
