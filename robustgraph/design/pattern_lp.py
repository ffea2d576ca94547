"""The linear program over degree patterns behind the low-degree-forest bound.

docs/theory.md, section 4 ("The low-degree forest") proves its bound by discharging; the charges
are the optimal dual of this LP (``tests/test_design_bounds.py`` checks both). The LP's
variables are shares of n: nodes of degree r (I), of degree r + 1 with one neighbour in I (L1a)
or none (L1b), of degree r + 2 by the classes of their neighbours, of degree d >= r + 3, and
the edge counts between classes. Its rows are the facts the proof uses: degrees; I independent;
no node crowded (k <= d - r neighbours in I); the nodes of degree <= r + 1 induce a forest with
at most one node of I per tree (so no two L1a nodes are adjacent). Two optional rows measure
where more counting could lead (docs/design.md, "Which side is loose?"):

- ``radius_two`` (proven, but unused by the bound): no node of degree r + 2 has all its
  neighbours in I or L1a, since each would carry a closed set of radius 2;
- ``degenerate`` (a hypothesis, not proven): the nodes of degree <= r + 2 induce a graph that
  peels (each node, when removed, has at most d - r remaining neighbours there), i.e. holds no
  closed set; the missing piece is a bounded exception, as Lovász's theorem gives for cycles.

Only the ``radius_two=False, degenerate=False`` value is a proven bound (asymptotically).
"""

from __future__ import annotations

import itertools

__all__ = ["pattern_lp"]


def pattern_lp(r: int, *, radius_two: bool = False, degenerate: bool = False,
               spread: int = 40) -> float:
    """Least edges a node over the degree patterns the constraints allow.

    Parameters
    ----------
    r : int
        Robustness, r >= 2 (I is independent from r = 3 on; at r = 2 the one possible edge
        inside I is left out, as it changes no share).
    radius_two, degenerate : bool
        Add the rows of the module notes.
    spread : int
        Degrees r + 3 .. r + 2 + spread for the high-degree nodes.

    Returns
    -------
    float
        The optimum, m / n. Without the optional rows it equals ``c_r / 2`` of
        :func:`robustgraph.design.bounds.forest_charges`.

    Examples
    --------
    >>> round(pattern_lp(3), 6), round(pattern_lp(3, degenerate=True), 6)
    (2.0, 2.1)

    Notes
    -----
    About (r + 3)^4 / 24 columns; a few milliseconds with HiGHS for r <= 5.
    """
    import highspy

    h = highspy.Highs()
    h.silent()
    inf = highspy.kHighsInf
    costs: list[float] = []

    def column(cost: float = 0.0) -> int:
        costs.append(cost)
        h.addVar(0, inf)
        return len(costs) - 1

    x_i, x_a, x_b = column(r), column(r + 1), column(r + 1)
    f_a, f_b = column(), column()  # ends at L1a / L1b of the edges inside L1
    i_high, a_high, b_high, two_high = column(), column(), column(), column()
    kinds = []  # degree r + 2: (k in I, j in L1a, l in L1b, g of degree r + 2, rest higher)
    for k, j, low, g in itertools.product(range(3), range(r + 3), range(r + 3), range(r + 3)):
        rest = r + 2 - k - j - low - g
        if rest < 0 or (radius_two and low + g + rest == 0):
            continue
        kinds.append((k, j, low, g, rest, column(r + 2)))
    bigger = [(d, column(d)) for d in range(r + 3, r + 3 + spread)]
    h.changeColsCost(len(costs), list(range(len(costs))), costs)

    def row(coefs: dict[int, float], lo: float, hi: float) -> None:
        h.addRow(lo, hi, len(coefs), list(coefs), [float(v) for v in coefs.values()])

    def over_kinds(slot: int) -> dict[int, float]:
        return {kind[-1]: kind[slot] for kind in kinds}

    row({x_i: 1, x_a: 1, x_b: 1, **{c: 1 for *_, c in kinds}, **{c: 1 for _, c in bigger}},
        1, 1)
    row({**over_kinds(0), i_high: 1, x_i: -r, x_a: 1}, 0, 0)  # I: one edge per L1a, rest up
    row({**over_kinds(1), a_high: 1, x_a: -r, f_a: 1}, 0, 0)  # L1a: r edges besides its I
    row({**over_kinds(2), b_high: 1, x_b: -(r + 1), f_b: 1}, 0, 0)
    row({**over_kinds(4), two_high: -1}, 0, 0)  # edges from degree r + 2 to higher degrees
    row({f_a: 1, f_b: 1, x_b: -2}, -inf, 0)  # forest: inside-L1 edges <= share of L1b
    row({f_a: 1, f_b: -1}, -inf, 0)  # no L1a-L1a edge: with their I nodes, a cycle or I-path
    row({i_high: 1, **{c: -(d - r) for d, c in bigger}}, -inf, 0)  # not crowded
    row({i_high: 1, a_high: 1, b_high: 1, two_high: 1, **{c: -d for d, c in bigger}}, -inf, 0)
    if degenerate:  # e(K2) <= share(L1) + 2 share(degree r + 2)
        inside = {x_a: 1.0, f_a: 0.5, f_b: 0.5}
        for k, j, low, g, _, c in kinds:
            inside[c] = k + j + low + g / 2
        inside[x_a] -= 1
        inside[x_b] = -1.0
        for *_, c in kinds:
            inside[c] -= 2
        row(inside, -inf, 0)
    h.run()
    return h.getInfo().objective_function_value / 2
