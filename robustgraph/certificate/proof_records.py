"""Attach proof objects to the checks of freshly certified claims (``certify --proof``).

Each check whose lower bound asserts (r, s)-robustness with r, s >= 1 gets the proof that
:func:`robustgraph.certificate.proofs.prover.prove` finds for the mode, or none; one proof per
distinct (r, s) is searched for and shared by the checks that assert it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from robustgraph.certificate.proofs.checker import View
from robustgraph.certificate.proofs.cubes import Split
from robustgraph.certificate.proofs.prover import prove
from robustgraph.certificate.records import ClaimRecord
from robustgraph.topology import Topology
from solvers.deadline import Deadline

__all__ = ["LRAT_TIME_LIMIT", "attach_proofs"]

LRAT_TIME_LIMIT = 60.0
"""Seconds the SAT solver gets per lower bound when ``certify`` has no time limit."""


def attach_proofs(
    topology: Topology,
    records: Sequence[ClaimRecord],
    mode: str,
    deadline: Deadline,
    progress: Callable[[str], None] | None = None,
    split: Split | None = None,
) -> tuple[list[ClaimRecord], dict[str, bytes]]:
    """The records with a proof on every check one was found for, and the proof files.

    Parameters
    ----------
    topology : Topology
        The certified graph.
    records : sequence of ClaimRecord
        As certified (no proofs yet).
    mode : str
        A proof mode (``robustgraph.certificate.proofs.prover.MODES``).
    deadline : Deadline
        The call's deadline: each SAT refutation gets what is left of it (without a limit,
        :data:`LRAT_TIME_LIMIT` seconds each).
    progress : callable, optional
        Hears one line per proof search.
    split : Split, optional
        Make LRAT proofs by cube and conquer (``certify --cubes``; :mod:`.proofs.cubes`).

    Returns
    -------
    (list of ClaimRecord, dict)
    """
    view = View.of(topology)
    found: dict[tuple[int, int], Any] = {}
    files: dict[str, bytes] = {}
    out = []
    for record in records:
        checks = []
        for check in record.checks:
            r, s = check.robustness
            if mode == "none" or r < 1 or s < 1:
                checks.append(check)
                continue
            if (r, s) not in found:
                if progress:
                    progress(f"proof ({mode}): ({r}, {s})-robustness")
                left = deadline.left()
                limit = LRAT_TIME_LIMIT if left is None else left
                found[(r, s)] = prove(view, r, s, mode, limit, split=split, progress=progress)
            made = found[(r, s)]
            if made is None:
                checks.append(check)
                continue
            files.update(made[1])
            checks.append(replace(check, proof=made[0]))
        out.append(replace(record, checks=tuple(checks)))
    return out, files
