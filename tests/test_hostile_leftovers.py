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
