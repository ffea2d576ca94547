"""The claim options of ``certify`` (``--r``, ``--rs``, ``--F``/``--model``, ``--max``) as
:class:`~robustgraph.certificate.claims.Claim` values; shared by single and ``--batch`` runs."""

from __future__ import annotations

from robustgraph.certificate.claims import Claim
from robustgraph.errors import ParameterError

__all__ = ["claims_from_options"]


def claims_from_options(
    r: int | None,
    rs: tuple[int, int] | None,
    faults: int | None,
    model: str | None,
    maximum: bool,
) -> list[Claim]:
    """The claims named on the command line, in the order r, rs, F/model, max.

    Raises
    ------
    ParameterError
        No claim, or ``--F`` without ``--model`` (or the reverse).
    """
    if (faults is None) != (model is None):
        raise ParameterError("--F and --model go together, e.g. --F 3 --model sac")
    claims = []
    if r is not None:
        claims.append(Claim.r_robust(r))
    if rs is not None:
        claims.append(Claim.rs_robust(*rs))
    if faults is not None:
        claims.append(Claim.tolerance(faults, model))
    if maximum:
        claims.append(Claim.maximum())
    if not claims:
        raise ParameterError("name a claim: --r R, --rs R S, --F F --model MODEL, or --max")
    return claims
