"""Issue 43, item 3: ``verify --max-bytes/--max-inflated`` checks a minimality proof over the
default input budgets with the user's explicit consent, which the verdict records; the budgets
hold for that command only (``robustgraph.limits.budgets_set``)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from robustgraph.cli import main
from robustgraph.limits import FILE_BYTES, INFLATED_BYTES, budgets_set


@pytest.fixture(scope="module")
def design(tmp_path_factory) -> tuple[str, str, int]:
    """A 7-node 2-robust design, its lrat minimality certificate and the proof's byte size."""
    out = tmp_path_factory.mktemp("budgets") / "g.json"
    args = ["design", "--n", "7", "--r", "2", "--time-limit", "1", "--prove-minimal",
            "-o", str(out), "--json"]
    data = json.loads(CliRunner().invoke(main, args).stdout)
    doc = json.loads(open(data["minimum_certificate"]).read())
    assert doc["proof"]["kind"] == "lrat"
    return data["minimum_certificate"], str(out), doc["proof"]["lrat_bytes"]


def _verify(cert: str, graph: str, *options: str):
    return CliRunner().invoke(main, ["verify", cert, graph, *options, "--json"])


def test_budgets_raised_by_option_check_a_proof_the_environment_refuses(design,
                                                                       monkeypatch) -> None:
    cert, graph, size = design
    monkeypatch.setenv("ROBUSTGRAPH_MAX_INFLATED", "100")  # below the proof's text
    refused = _verify(cert, graph)
    assert refused.exit_code == 2 and "ROBUSTGRAPH_MAX_INFLATED" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    result = _verify(cert, graph, "--max-inflated", "100000000", "--max-bytes", str(10 * size))
    assert result.exit_code == 0, result.output
    checked = json.loads(result.stdout)["checked"]
    assert any("fewest" in line for line in checked)
    assert checked[-1] == (f"input budgets set for this command: bytes {10 * size:,} "
                           f"(default {FILE_BYTES.default:,}), decompressed bytes 100,000,000 "
                           f"(default {INFLATED_BYTES.default:,})")


def test_a_budget_set_below_the_proof_refuses_it_in_one_line(design) -> None:
    cert, graph, size = design
    result = _verify(cert, graph, "--max-inflated", str(size))  # the text inflates past it
    assert result.exit_code == 2 and "set for this command" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("option", ["--max-bytes", "--max-inflated"])
def test_a_budget_below_one_is_refused(design, option: str) -> None:
    cert, graph, _ = design
    result = _verify(cert, graph, option, "0")
    assert result.exit_code == 2 and "positive whole number" in result.stderr
    assert "Traceback" not in result.output


def test_budgets_set_holds_inside_only() -> None:
    before = FILE_BYTES.value()
    with budgets_set({FILE_BYTES: 7}):
        with budgets_set({INFLATED_BYTES: 9}):
            assert (FILE_BYTES.value(), INFLATED_BYTES.value()) == (7, 9)
        assert FILE_BYTES.value() == 7
    assert FILE_BYTES.value() == before
