"""The claim options of ``certify`` (``--r``, ``--rs``, ``--F``/``--model``, ``--max`` with
``--tolerance``/``--all``) as :class:`~robustgraph.certificate.claims.Claim` values; shared by
single and ``--batch`` runs."""

from __future__ import annotations

from collections.abc import Sequence

from robustgraph.certificate.claims import FROM_R, MODELS, Claim
from robustgraph.errors import ParameterError

__all__ = ["claims_from_options", "max_models"]


def max_models(asked: Sequence[str], every: bool) -> tuple[str, ...]:
    """The tolerances a ``--max`` claim states: those that follow from r*
    (:data:`~robustgraph.certificate.claims.FROM_R`), plus each ``--tolerance`` asked; with
    ``--all``, every model (as ``robustgraph robustness`` reports them)."""
    return MODELS if every else tuple(m for m in MODELS if m in FROM_R or m in asked)


def claims_from_options(
    r: int | None,
    rs: tuple[int, int] | None,
    faults: int | None,
    model: str | None,
    maximum: bool,
    asked: Sequence[str] = (),
    every: bool = False,
) -> list[Claim]:
    """The claims named on the command line, in the order r, rs, F/model, max.

    Raises
    ------
    ParameterError
        No claim, ``--F`` without ``--model`` (or the reverse), or ``--tolerance``/``--all``
        without ``--max``.
    """
    if (faults is None) != (model is None):
        raise ParameterError("--F and --model go together, e.g. --F 3 --model sac")
    if (asked or every) and not maximum:
        raise ParameterError(
            "--tolerance and --all choose what --max claims; use them with --max "
            "(a single tolerance claim is --F F --model MODEL)"
        )
    claims = []
    if r is not None:
        claims.append(Claim.r_robust(r))
    if rs is not None:
        claims.append(Claim.rs_robust(*rs))
    if faults is not None:
        claims.append(Claim.tolerance(faults, model))
    if maximum:
        claims.append(Claim.maximum(max_models(asked, every)))
    if not claims:
        raise ParameterError("name a claim: --r R, --rs R S, --F F --model MODEL, or --max")
    return claims
