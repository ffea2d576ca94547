"""``fixed-literal``: App. B.4 read literally, one cached weak-model reply per adversary sent
whatever the question (issue 42, item 6), beside ``fixed``'s per-question choice."""

from __future__ import annotations

from protocol_runner.protocols.attacks import ATTACKS, adversary_queries, ood_pool
from protocol_runner.run.records import read_records
from protocol_runner.run.runner import RESULTS_FILE, RunSpec, run
from protocol_runner.tasks import load_tasks
from robustgraph.generators import complete


def _sent(tmp_path, attack):
    out = tmp_path / attack
    run(RunSpec(complete(4), out, roster="3S1A", attack=attack, placement="labels",
                adversary_nodes=("3",), protocols=("majority",), tasks="arith:8", rounds=1,
                seed=4))
    return [(r.rounds[0][3].answer, r.rounds[0][3].correct) for r in read_records(
        out / RESULTS_FILE)]


def test_literal_sends_one_reply_whatever_the_question(tmp_path):
    assert "fixed-literal" in ATTACKS
    literal = _sent(tmp_path, "fixed-literal")
    assert len(literal) == 8 and len({answer for answer, _ in literal}) == 1
    chosen = _sent(tmp_path, "fixed")
    assert not any(correct for _, correct in chosen)  # fixed picks a reply wrong for each
    pool = ood_pool(load_tasks("arith:8"))
    assert adversary_queries("fixed-literal", pool, 4, "3") == adversary_queries(
        "fixed", pool, 4, "3")[:1]
