"""Our own LRAT checker: validates a clausal refutation of a CNF step by step (RUP steps only).

Kept as own code on purpose: the checker is the trust base of every refutation proof, so it is
written from the format's definition (Cruz-Filipe, Heule, Hunt, Kaufmann, Schneider-Kamp 2017),
small enough to read in one sitting, and runs without any solver.

Format (text LRAT). The CNF's clauses have ids 1..C in order. Each proof line is either an
addition ``id l1 ... lk 0 h1 ... hm 0``: the clause (l1 .. lk) gets ``id``, which must exceed
every id before it, and the hints h1..hm name earlier, still active clauses; or a deletion
``id d c1 ... cj 0``, which retires clauses c1..cj (the leading id is not used). An addition is
a RUP step: assign every literal of the new clause false; then each hint in turn must be a
clause with all literals false but one (which is then assigned true) or, for the last hint,
all literals false (the conflict). Negative hints (RAT steps) are refused: CaDiCaL writes none.
The proof succeeds at the first added empty clause.

A hint that is satisfied, has two open literals, names no active clause, stops short of the
conflict or goes on after it is an error: the proof is rejected, not repaired.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from robustgraph.errors import CertificateError

__all__ = ["LratError", "check_refutation"]


class LratError(CertificateError):
    """An LRAT proof fails to check; the message names the line and what is wrong."""

    exit_code = 1


def check_refutation(
    clauses: Sequence[Sequence[int]], lines: Iterable[str], *, max_steps: int | None = None
) -> int:
    """Check that ``lines`` (an LRAT proof) refutes ``clauses``; return the number of additions.

    Parameters
    ----------
    clauses : sequence of sequence of int
        The CNF, clause i having id i + 1.
    lines : iterable of str
        The proof's lines (comment lines starting with ``c`` and blank lines are skipped).
    max_steps : int, optional
        Stop with an error at the addition after this many (a certificate records its count).

    Returns
    -------
    int
        The RUP steps checked, up to and including the empty clause.

    Raises
    ------
    LratError
        At the first line that does not check, or when no empty clause is derived.

    Examples
    --------
    >>> cnf = [(1, 2), (-1, 2), (1, -2), (-1, -2)]
    >>> check_refutation(cnf, ["5 2 0 1 2 0", "6 0 5 3 4 0"])
    2

    Notes
    -----
    O(size of the proof + total length of the hinted clauses): each hint is read once per step.
    """
    active: dict[int, tuple[int, ...]] = {i: tuple(c) for i, c in enumerate(clauses, 1)}
    last = len(active)
    steps = 0
    for number, line in enumerate(lines, 1):
        tokens = line.split()
        if not tokens or tokens[0] == "c":
            continue
        if len(tokens) > 1 and tokens[1] == "d":
            _delete(active, _ints(tokens[2:], number), number)
            continue
        values = _ints(tokens, number)
        cid, lits, hints = _addition(values, number)
        if cid <= last:
            raise LratError(f"line {number}: clause id {cid} does not exceed the last id {last}")
        if max_steps is not None and steps >= max_steps:
            raise LratError(f"line {number}: more than the {max_steps:,} steps recorded")
        _rup(active, lits, hints, number)
        steps += 1
        last = cid
        active[cid] = lits
        if not lits:
            return steps
    raise LratError("the proof ends without deriving the empty clause")


def _ints(tokens: Sequence[str], number: int) -> list[int]:
    try:
        return [int(t) for t in tokens]
    except ValueError:
        raise LratError(f"line {number}: not an LRAT line (a token is not an integer)") from None


def _delete(active: dict[int, tuple[int, ...]], ids: list[int], number: int) -> None:
    if not ids or ids[-1] != 0 or 0 in ids[:-1]:
        raise LratError(f"line {number}: a deletion must end with one 0")
    for cid in ids[:-1]:
        if active.pop(cid, None) is None:
            raise LratError(f"line {number}: deletes clause {cid}, which is not active")


def _addition(values: list[int], number: int) -> tuple[int, tuple[int, ...], list[int]]:
    if len(values) < 3 or values[0] <= 0:
        raise LratError(f"line {number}: an addition needs a positive id, literals and hints")
    try:
        end = values.index(0, 1)
    except ValueError:
        raise LratError(f"line {number}: the literals are not ended by 0") from None
    hints = values[end + 1 :]
    if not hints or hints[-1] != 0 or 0 in hints[:-1]:
        raise LratError(f"line {number}: the hints are not ended by one 0")
    return values[0], tuple(values[1:end]), hints[:-1]


def _rup(
    active: dict[int, tuple[int, ...]], lits: tuple[int, ...], hints: list[int], number: int
) -> None:
    false = set(lits)  # literals assigned false
    if any(-lit in false for lit in false):
        return  # a tautology is implied by anything
    for k, hint in enumerate(hints):
        if hint < 0:
            raise LratError(f"line {number}: RAT hint {hint}: only RUP steps are accepted")
        clause = active.get(hint)
        if clause is None:
            raise LratError(f"line {number}: hint {hint} names no active clause")
        unit = None
        for lit in clause:
            if lit in false:
                continue
            if -lit in false or unit is not None:
                raise LratError(f"line {number}: hint {hint} is neither unit nor falsified")
            unit = lit
        if unit is None:
            if k != len(hints) - 1:
                raise LratError(f"line {number}: hints go on after the conflict at {hint}")
            return
        false.add(-unit)
    raise LratError(f"line {number}: the hints reach no conflict")
