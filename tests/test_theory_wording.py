"""Issue 44, item 9: docs/theory.md section 3 says which threat model each guarantee covers.

LeBlanc et al. (2013) prove W-MSR's F-total condition, (F+1, F+1)-robustness, for malicious
(broadcast) agents; the runner ships an ``equivocate`` attack, so the section must say that the
``wmsr-total`` line promises nothing under equivocation, and which line does."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _section(number: int) -> str:
    text = (ROOT / "docs" / "theory.md").read_text(encoding="utf-8")
    return re.search(rf"\n## {number}\. .*?(?=\n## {number + 1}\. )", text, flags=re.S).group(0)


def test_each_row_names_its_threat_model():
    section = " ".join(_section(3).split())
    rows = {line.split("|")[1].strip(): line for line in _section(3).splitlines()
            if line.startswith("| SAC") or line.startswith("| W-MSR")}
    assert "Byzantine" in rows["SAC, F-local"]
    assert "malicious only" in rows["W-MSR, F-total"]
    assert "Byzantine" in rows["W-MSR, F-local"]
    assert "malicious" in section and "equivocat" in section
    assert "Byzantine" not in _section(3).splitlines()[0]  # no longer under a Byzantine heading


def test_the_wmsr_total_line_is_said_to_promise_nothing_under_equivocation():
    section = " ".join(_section(3).split())
    assert "`wmsr-total F`: W-MSR under the F-total model **for malicious (broadcast) agents " \
           "only**. It promises nothing under equivocation" in section
    assert "read the `wmsr-local` line instead" in section
