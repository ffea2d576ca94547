"""The Python examples of README.md ("Python") and docs/index.md ("Python API") run as shown.

Every ```` ```python ```` block of those sections runs, in a fresh directory, in one namespace
per file. Convention: a line ``print(...)  # TEXT`` must print TEXT (up to its first ": ",
which starts a remark); a ``print`` without a comment, or any other line, is only run.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SECTIONS = {"README.md": "**Python.**", "docs/index.md": "## Python API"}


def _blocks(name: str) -> list[str]:
    text = (ROOT / name).read_text(encoding="utf-8")
    start = text.index(SECTIONS[name])
    end = text.find("\n## ", start + 1)
    section = text[start : end if end > 0 else len(text)]
    return re.findall(r"```python\n(.+?)```", section, flags=re.S)


def _expected(block: str) -> list[str | None]:
    """Per ``print`` line of ``block``, in order: what it must print, or None (unchecked)."""
    shown = []
    for line in block.splitlines():
        if not line.startswith("print("):
            continue
        comment = re.search(r"\)\s+# (.+)$", line)
        shown.append(comment.group(1).split(": ")[0].rstrip() if comment else None)
    return shown


def test_the_convention_reads_comments():
    block = 'print(1)  # 1\nx = 2  # not a print\nprint(x)\nprint(3, 4)  # 3 4: a remark\n'
    assert _expected(block) == ["1", None, "3 4"]


@pytest.mark.parametrize("name", sorted(SECTIONS))
def test_python_examples_run_as_shown(name, tmp_path, monkeypatch):
    blocks = _blocks(name)
    assert blocks, f"{name} has no python example in its Python section"
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    for block in blocks:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block, name, "exec"), namespace)  # noqa: S102 - our own docs
        printed = out.getvalue().splitlines()
        expected = _expected(block)
        assert len(printed) == len(expected), (name, printed)
        for got, want in zip(printed, expected, strict=True):
            if want is not None:
                assert got == want, f"{name}: printed {got!r}, the example shows {want!r}"
