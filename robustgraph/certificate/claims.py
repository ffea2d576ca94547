"""What a certificate claims about a graph: r-robust, (r, s)-robust, F tolerated under a
consensus model, or the maximum values (LeBlanc et al. 2013; SAC and W-MSR tolerance models)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from robustgraph.errors import ParameterError
from solvers.types import Question

__all__ = [
    "MODELS",
    "FROM_R",
    "Claim",
    "impossible",
]

MODELS = ("sac", "wmsr-local", "wmsr-total")
FROM_R = ("sac", "wmsr-local")
"""The tolerances that follow from r* alone (SAC: F = r* - 1; W-MSR, F-local: floor((r*-1)/2)):
a ``max`` claim always states them; the F-total one (wmsr-total) takes further questions."""
_CLAIM_FIELDS = {"r": ("r",), "rs": ("r", "s"), "tolerance": ("model", "F"), "max": ()}


@dataclass(frozen=True)
class Claim:
    """What a certificate is asked to establish about a graph.

    ``kind`` is ``"r"`` (r-robust), ``"rs"`` ((r, s)-robust), ``"tolerance"`` (F Byzantine nodes
    tolerated under ``model``) or ``"max"`` (r* and the tolerated F under ``models``: always
    :data:`FROM_R`, and wmsr-total when asked). Build one with :meth:`r_robust`,
    :meth:`rs_robust`, :meth:`tolerance` or :meth:`maximum`. A ``max`` claim built without
    ``models`` (as read from a version 1 or 2 certificate) states all three.

    Examples
    --------
    >>> Claim.tolerance(3, "sac").question()
    Question(kind='is_r_robust', r=4, s=None)
    >>> Claim.tolerance(1, "wmsr-total").question()
    Question(kind='is_rs_robust', r=2, s=2)

    Notes
    -----
    Models (LeBlanc et al. 2013, Thms. 1-2; SAC's resilience theorem): ``sac`` tolerates F under
    the F-local model if the graph is (F+1)-robust; ``wmsr-local``: W-MSR under the F-local model
    needs (2F+1)-robustness; ``wmsr-total``: W-MSR under the F-total model needs
    (F+1, F+1)-robustness.
    """

    kind: str
    r: int | None = None
    s: int | None = None
    F: int | None = None
    model: str | None = None
    models: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.kind not in _CLAIM_FIELDS:
            raise ParameterError(
                f"unknown claim kind {self.kind!r}; expected r, rs, tolerance or max"
            )
        wanted = _CLAIM_FIELDS[self.kind]
        for name in ("r", "s", "F", "model"):
            present = getattr(self, name) is not None
            if present != (name in wanted):
                need = "needs" if name in wanted else "takes no"
                raise ParameterError(f"a {self.kind!r} claim {need} {name}")
        for name, least in (("r", 0), ("s", 1), ("F", 0)):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise ParameterError(f"{name} must be an integer, got {value!r}")
            if value is not None and value < least:
                raise ParameterError(f"{name} must be >= {least}, got {value}")
        if self.model is not None and self.model not in MODELS:
            raise ParameterError(
                f"unknown model {self.model!r}; expected one of {', '.join(MODELS)}"
            )
        if self.kind == "max":
            object.__setattr__(self, "models", _max_models(self.models))
        elif self.models is not None:
            raise ParameterError(f"a {self.kind!r} claim takes no models")

    @classmethod
    def r_robust(cls, r: int) -> Claim:
        """The graph is r-robust (also ``Claim.r(r)``)."""
        return cls("r", r=r)

    @classmethod
    def rs_robust(cls, r: int, s: int) -> Claim:
        """The graph is (r, s)-robust (also ``Claim.rs(r, s)``)."""
        return cls("rs", r=r, s=s)

    rs = rs_robust

    @classmethod
    def tolerance(cls, F: int, model: str) -> Claim:  # noqa: N803 - F is the papers' name
        """The graph tolerates F Byzantine nodes under ``model`` (sac, wmsr-local, wmsr-total)."""
        return cls("tolerance", F=F, model=model)

    @classmethod
    def maximum(cls, models: Sequence[str] = FROM_R) -> Claim:
        """r* and the largest F tolerated under ``models``, with proven bounds.

        ``models`` always holds :data:`FROM_R` (they cost nothing beyond r*); add
        ``"wmsr-total"`` (or pass :data:`MODELS`) for the F-total tolerance of W-MSR, which
        takes a binary search of (F+1, F+1)-robustness questions after r*.

        Examples
        --------
        >>> Claim.maximum().models
        ('sac', 'wmsr-local')
        >>> Claim.maximum(MODELS).describe()
        'maximum robustness r* and the tolerated F under sac, wmsr-local, wmsr-total'
        """
        return cls("max", models=tuple(models))

    def question(self) -> Question | None:
        """The decision question this claim amounts to (None for ``max``, which takes several)."""
        if self.kind == "r":
            return Question.is_r_robust(self.r)
        if self.kind == "rs":
            return Question.is_rs_robust(self.r, self.s)
        if self.kind == "tolerance":
            if self.model == "sac":
                return Question.is_r_robust(self.F + 1)
            if self.model == "wmsr-local":
                return Question.is_r_robust(2 * self.F + 1)
            return Question.is_rs_robust(self.F + 1, self.F + 1)
        return None

    def describe(self) -> str:
        """One line in words, e.g. ``tolerates F = 3 under sac: 4-robust``."""
        if self.kind == "max":
            return f"maximum robustness r* and the tolerated F under {', '.join(self.models)}"
        q = self.question()
        needs = f"({q.r}, {q.s})-robust" if q.about_s else f"{q.r}-robust"
        if self.kind == "tolerance":
            return f"tolerates F = {self.F} under {self.model}: {needs}"
        return needs

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        for name in ("model", "F", "r", "s"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        if self.models is not None:
            out["models"] = list(self.models)
        return out

    @classmethod
    def parse(cls, text: str) -> Claim:
        """A decision claim from words: ``r 4``, ``rs 2 3`` or ``tolerance sac F=3``.

        ``key=value`` and bare values both work (``r=4``, ``rs r=2 s=3``, ``tolerance sac 3``).

        Raises
        ------
        ParameterError
            Anything else, with the forms expected.

        Examples
        --------
        >>> Claim.parse("tolerance sac F=3").question()
        Question(kind='is_r_robust', r=4, s=None)
        """
        forms = "expected 'r R', 'rs R S' or 'tolerance MODEL F=F'"
        words = text.replace("=", " = ").split()
        kind, values = (words[0] if words else ""), []
        for word in words[1:]:
            if word in ("=", "r", "s", "F", "model"):
                continue
            values.append(word)
        try:
            if kind == "r" and len(values) == 1:
                return cls.r_robust(int(values[0]))
            if kind == "rs" and len(values) == 2:
                return cls.rs_robust(int(values[0]), int(values[1]))
            if kind == "tolerance" and len(values) == 2:
                return cls.tolerance(int(values[1]), values[0])
        except ValueError:
            pass
        raise ParameterError(f"cannot read the claim {text!r}: {forms}")

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> Claim:
        models = doc.get("models")
        return cls(
            doc["kind"],
            r=doc.get("r"),
            s=doc.get("s"),
            F=doc.get("F"),
            model=doc.get("model"),
            models=None if models is None else tuple(models),
        )


class _ClassConstructor:
    """``Claim.r``, read on the class, is the constructor :meth:`Claim.r_robust` (issue 44:
    ``Claim.r(3)`` was ``TypeError: 'NoneType' object is not callable``, the field's default);
    read on a claim it is the field, which the instance holds itself (a non-data descriptor
    yields to the instance's own value)."""

    def __init__(self, make: Any) -> None:
        self.make = make

    def __get__(self, claim: Claim | None, owner: type | None = None) -> Any:
        if claim is None:
            return self.make
        return claim.__dict__["r"]


Claim.r = _ClassConstructor(Claim.r_robust)  # type: ignore[assignment]  # after @dataclass


def _max_models(models: Sequence[str] | None) -> tuple[str, ...]:
    """The models of a ``max`` claim in :data:`MODELS` order; None (versions 1-2) is all three.

    Raises
    ------
    ParameterError
        An unknown or repeated model, or one of :data:`FROM_R` left out.
    """
    if models is None:
        return MODELS
    if isinstance(models, str) or len(set(models)) != len(models):
        raise ParameterError(f"a max claim's models must be distinct model names, got {models!r}")
    unknown = [m for m in models if m not in MODELS]
    if unknown:
        raise ParameterError(f"unknown model {unknown[0]!r}; expected one of {', '.join(MODELS)}")
    if not set(FROM_R) <= set(models):
        raise ParameterError(
            f"a max claim always states {' and '.join(FROM_R)} (they follow from r*)"
        )
    return tuple(m for m in MODELS if m in models)


def impossible(claim: Claim, n: int) -> str | None:
    """Why no graph on n nodes can satisfy this claim, or None.

    No graph is more than ceil(n/2)-robust (LeBlanc et al. 2013), so every claim whose question
    asks r > ceil(n/2) -- r-, (r, s)- and tolerance claims alike (SAC's F needs r = F + 1,
    W-MSR's 2F + 1 or (F+1, F+1)) -- is false of every graph on n nodes, and so is s > n (the
    convention s*_r <= n). Such a claim is still a claim about the graph, answered like any
    other on every path (``certify`` in the CLI and in Python, one graph or a batch): REFUTED
    (exit 1) by the trivial bound, with a certificate that ``verify`` accepts; this text is the
    note ``certify`` prints beside the verdict.

    Examples
    --------
    >>> impossible(Claim.tolerance(9, "sac"), 9)
    'no graph on n = 9 nodes is more than ceil(n/2) = 5-robust'
    >>> impossible(Claim.r_robust(5), 9) is None
    True
    """
    q = claim.question()
    if q is None or n < 2:
        return None
    top = -(-n // 2)
    if q.r > top:
        return f"no graph on n = {n} nodes is more than ceil(n/2) = {top}-robust"
    if q.about_s and q.s > n:
        return f"s cannot exceed n = {n}"
    return None
