"""Certifier side: an incremental CaDiCaL run whose LRAT log becomes one refutation of the CNF.

A counterexample-guided search adds clauses between solver calls; refuting the final CNF once
more from scratch (:func:`robustgraph.certificate.proofs.sat.refute`) repeats work the search
did (n = 10, r = 2: 2.7 s of CPU, on a proof of about 11 s; docs/design.md).
:class:`LoggedSolver` logs LRAT from the first call instead and renumbers the log afterwards so
that it refutes the CNF "the clauses in the order they were added" (ids 1..C) that the
verifier regenerates.

CaDiCaL 1.9.5 gives every clause an id from one counter: an original clause the next id when it
is added, a learned one the next id when it is derived. An LRAT log lists the learned clauses
only, so the id of an original clause added after a solver call is one more than the last id
the log shows (or the last original's). :meth:`LoggedSolver.lrat` maps these ids to 1..C and
the learned ones to C + 1, C + 2, ... in their order. CaDiCaL's own deletions are dropped (in
incremental use it may delete a clause by variable elimination and silently restore it later,
then use it as a hint); each clause is deleted instead right after the last step that names it.

Nothing here is trusted: the renumbered proof is checked by the project's LRAT checker
(:mod:`robustgraph.certificate.proofs.lrat`) like any other, and a caller falls back to a
refutation from scratch when it does not check.
"""

from __future__ import annotations

import gzip
import io
import tempfile
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, BinaryIO

from robustgraph.certificate.proofs import sat
from solvers.extras import missing

__all__ = ["LoggedSolver", "renumber"]


class LoggedSolver:
    """CaDiCaL 1.9.5 with LRAT logging, fed clauses one by one, solved under a deadline.

    Parameters
    ----------
    clauses : iterable of tuple of int
        The first clauses (no unit clause: CaDiCaL renumbers a unit on input).

    Raises
    ------
    MissingExtra
        When python-sat is not installed (the ``proofs`` extra).
    """

    def __init__(self, clauses: Iterable[Sequence[int]]) -> None:
        if not sat.available():
            raise missing("pysat", "LRAT proofs")
        import pysolvers
        from pysat.solvers import Cadical195

        self._pysolvers = pysolvers
        self._solver: Any = Cadical195()
        pysolvers.cadical195_set(self._solver.cadical, "lrat", 1)
        pysolvers.cadical195_set(self._solver.cadical, "binary", 0)
        self._log: BinaryIO = tempfile.TemporaryFile()  # noqa: SIM115 (closed in delete)
        self._solver.prfile = self._log
        self._solver.prfp = pysolvers.cadical195_tracepr(self._solver.cadical, self._log)
        self._read = 0  # bytes of the log already scanned for the last id
        self._last = 0  # the last clause id CaDiCaL gave
        self._ids: list[int] = []  # the solver's id of each clause added, in order
        for clause in clauses:
            self.add(clause)

    def add(self, clause: Sequence[int]) -> None:
        """Add a clause (at least two literals); it gets the next id of the solver's counter."""
        self._catch_up()
        self._last += 1
        self._ids.append(self._last)
        self._solver.add_clause(list(clause))

    def solve(self, deadline: float) -> bool | None:
        """True (a model), False (refuted) or None (the deadline passed), in conflict-budget
        slices as :func:`robustgraph.certificate.proofs.sat.solve` does."""
        budget = sat.FIRST_SLICE
        while (start := time.monotonic()) < deadline:
            self._solver.conf_budget(budget)
            status = self._solver.solve_limited()
            if status is not None:
                return status
            now = time.monotonic()
            budget = sat.next_budget(budget, now - start, deadline - now)
        return None

    def model(self) -> list[int]:
        """The last model (DIMACS literals)."""
        return self._solver.get_model()

    def lrat(self) -> tuple[bytes, int]:
        """After a False from :meth:`solve`: the log renumbered to the clauses as added, and
        its additions (:func:`renumber`)."""
        self._flush()
        self._log.seek(0)
        return renumber(self._log, self._ids)

    def delete(self) -> None:
        """Free the solver and its log."""
        self._solver.delete()
        self._log.close()

    def _flush(self) -> None:
        self._pysolvers.flushpr(self._solver.prfp)

    def _catch_up(self) -> None:
        """Advance ``_last`` past the learned clauses logged since the last look."""
        self._flush()
        self._log.seek(0, io.SEEK_END)
        end = self._log.tell()
        if end == self._read:
            return
        self._log.seek(self._read)
        for line in reversed(self._log.read(end - self._read).splitlines()):
            tokens = line.split(None, 2)  # additions come in rising id order: the last counts
            if len(tokens) > 1 and tokens[1] != b"d":
                self._last = max(self._last, int(tokens[0]))
                break
        self._read = end


def renumber(log: BinaryIO, ids: Sequence[int]) -> tuple[bytes, int]:
    """An LRAT log of CaDiCaL renumbered to the CNF whose clause k (1-based) had solver id
    ``ids[k - 1]``; learned clauses get the ids after ``len(ids)`` in order, CaDiCaL's
    deletions are dropped and every clause is deleted after the last step naming it.

    Returns the gzip-compressed text (up to the first empty clause) and its additions.

    Examples
    --------
    >>> log = io.BytesIO(b"9 2 0 7 5 0\\n9 d 7 0\\n12 0 9 6 8 0\\n")
    >>> data, steps = renumber(log, [5, 6, 7, 8])
    >>> gzip.decompress(data).decode().split("\\n")[:3], steps
    (['5 2 0 3 1 0', '5 d 3 1 0', '6 0 5 2 4 0'], 2)

    Notes
    -----
    Two passes over the log, O(its size); memory O(ids named).
    """
    last_use: dict[bytes, int] = {}
    for step, (_, _, hints) in enumerate(_additions(log), 1):
        for hint in hints:
            last_use[hint] = step
    log.seek(0)
    name = {str(cid).encode(): str(k).encode() for k, cid in enumerate(ids, 1)}
    top = len(ids)
    out = io.BytesIO()
    step = 0
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=1, mtime=0) as stream:
        for step, (cid, lits, hints) in enumerate(_additions(log), 1):
            top += 1
            new = str(top).encode()
            name[cid] = new
            stream.write(b" ".join([new, *lits, b"0", *(name[h] for h in hints), b"0"]) + b"\n")
            if not lits:
                break
            dead = [name.pop(h) for h in dict.fromkeys(hints) if last_use[h] == step]
            if dead:
                stream.write(b" ".join([new, b"d", *dead, b"0"]) + b"\n")
    return out.getvalue(), step


def _additions(log: BinaryIO) -> Iterator[tuple[bytes, list[bytes], list[bytes]]]:
    """(id, literals, hints) of each addition line of an LRAT log, deletions skipped."""
    for line in log:
        tokens = line.split()
        if len(tokens) < 2 or tokens[1] == b"d":
            continue
        zero = tokens.index(b"0", 1)
        yield tokens[0], tokens[1:zero], tokens[zero + 1 : -1]
