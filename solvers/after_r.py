"""s*_R settled by an answer about r* alone, before any search for s (LeBlanc et al. 2013).

Two facts of the definitions make an (R, s) question cheap once r* is bounded:

- (R, 1)-robustness is R-robustness (Def. 7 with s = 1), so ``lower(r*) >= R`` proves
  s*_R >= 1, and ``upper(r*) < R`` proves s*_R = 0: the witness of the r answer holds no
  R-reachable node at all, so it violates (R, 1).
- a pair (S1, S2) neither of whose sets is wholly R-reachable, holding k R-reachable nodes,
  violates (R, k + 1): s*_R <= k. The witness of the r answer, read at R, is such a pair more
  often than not when R = r* (it is a pair no node of which is (r* + 1)-reachable).

So when R = r* and that witness holds one R-reachable node, s*_R = 1 without a model. Issue 40
found the portfolio slower than the published (r, s) model at R = r* on 4 of 31 rows: its
first step decided R-robustness again, which the r answer had just proven.

When it does not settle, s*_R >= 1 is still known (:func:`s_lower_from_r`): the portfolio then
starts from it (``Request.known_lower``) and does not decide R-robustness again.

Public names: :func:`s_from_r`, :func:`s_lower_from_r`.
"""

from __future__ import annotations

from collections.abc import Sequence

from solvers.types import Question, Result, Status, Witness
from solvers.witness import refutes_rs

__all__ = ["s_from_r", "s_lower_from_r"]


def s_lower_from_r(r: int, r_result: Result) -> int:
    """The lower bound on s*_r that proven bounds on r* give: 1 when ``lower(r*) >= r >= 1``
    ((r, 1)-robust is r-robust, LeBlanc et al. 2013, Def. 7), else 0.

    Examples
    --------
    >>> from solvers.types import Question, Result, Status
    >>> r_res = Result(Question.max_r(), Status.EXACT, 3, 3, None, "cores", None, 0.0)
    >>> s_lower_from_r(3, r_res), s_lower_from_r(4, r_res)
    (1, 0)
    """
    return 1 if 1 <= r <= r_result.lower else 0


def s_from_r(in_neighbors: Sequence[frozenset[int]], r: int, r_result: Result) -> Result | None:
    """The exact answer to ``max_s(r)`` when ``r_result`` (proven bounds on r* with its witness,
    in node indices) settles it, else None.

    Parameters
    ----------
    in_neighbors : sequence of frozenset of int
        Node i's in-neighbour indices.
    r : int
        The R of the question s*_R.
    r_result : Result
        A ``max_r`` answer about the same graph: proven ``lower <= r* <= upper`` and, when
        ``upper`` is below the trivial bound, a witness no set of which is (upper + 1)-reachable.

    Returns
    -------
    Result or None
        ``s*_R = 0`` when ``upper < R`` (the r witness refutes (R, 1)); ``s*_R = 1`` when
        ``lower >= R`` and the r witness, read at R, refutes (R, 2); None otherwise. Every
        witness is checked (:func:`solvers.witness.refutes_rs`) before it is returned.

    Notes
    -----
    O(sum of in-degrees of the witness) time.

    References
    ----------
    LeBlanc, Zhang, Koutsoukos & Sundaram, IEEE JSAC 31(4), 2013, Defs. 6-7 ((r, s)-robustness;
    (r, 1)-robust is r-robust).

    Examples
    --------
    >>> from solvers.types import Question, Result, Status, Witness
    >>> heard = [frozenset({1}), frozenset({0}), frozenset({1, 3}), frozenset({2})]  # r* = 1
    >>> w = Witness(frozenset({0, 1}), frozenset({2, 3}))  # only node 2 hears outside its set
    >>> r_res = Result(Question.max_r(), Status.EXACT, 1, 1, w, "exhaustive", None, 0.0)
    >>> s_from_r(heard, 2, r_res).value, s_from_r(heard, 1, r_res).value
    (0, 1)
    """
    w = r_result.witness
    if len(in_neighbors) < 2 or r < 1 or w is None:
        return None
    if r_result.upper < r:
        value = 0
    elif r_result.lower >= r:
        value = 1
    else:
        return None
    if not refutes_rs(in_neighbors, w.s1, w.s2, r, value + 1):
        return None
    step = {"step": "from-r", "lower": value, "upper": value, "value": value, "seconds": 0.0}
    return Result(
        question=Question.max_s(r),
        status=Status.EXACT,
        lower=value,
        upper=value,
        witness=Witness(w.s1, w.s2),
        engine=r_result.engine,
        formulation=r_result.formulation,
        wall_time=0.0,
        engine_version=r_result.engine_version,
        params={"steps": [step]},
    )
