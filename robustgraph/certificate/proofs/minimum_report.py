"""``robustgraph verify`` for minimality certificates: read one, check it, relate it to a graph.

A minimality certificate (:mod:`.minimality`) speaks of n and r, not of one graph; ``verify
MIN.json FILE`` checks its proof and that FILE is an undirected graph on n nodes, and says
whether FILE's edge count meets the proven bound (then, with FILE's own certificate proving it
r-robust, FILE has the fewest edges possible).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from robustgraph import strict_json
from robustgraph.certificate.proofs.minimality import FORMAT, MinimalityError, check_minimum
from robustgraph.certificate.verifier import VerifyReport
from robustgraph.errors import CertificateError
from robustgraph.limits import read_bounded, read_text
from robustgraph.topology import Topology

__all__ = ["load_minimum", "verify_minimum"]


def load_minimum(path: str | Path) -> dict[str, Any] | None:
    """The JSON document at ``path`` when it is a minimality certificate, else None (then it
    is read as a robustness certificate).

    Raises
    ------
    CertificateError
        The file cannot be read, or is not JSON (exit 2).
    """
    text = read_text(path, error=CertificateError)
    try:
        doc = strict_json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise CertificateError(f"{path}: not valid JSON: {str(exc).split(';')[0]}") from None
    if isinstance(doc, dict) and doc.get("format") == FORMAT:
        return doc
    return None


def verify_minimum(doc: dict[str, Any], path: str | Path, topology: Topology) -> VerifyReport:
    """Check the minimality certificate ``doc`` (read from ``path``) and relate it to
    ``topology``; proof files are read beside ``path``.

    Returns
    -------
    VerifyReport
        Valid when the proof checks and the graph is undirected on the certificate's n nodes;
        ``checked`` says whether the graph's edge count is the proven minimum.
    """
    directory = Path(path).resolve().parent

    def read(name: str) -> bytes:
        if Path(name).name != name:
            raise MinimalityError(f"proof file {name!r} must be a bare file name")
        return read_bounded(directory / name, error=MinimalityError, label=f"proof file {name}")

    try:
        found = check_minimum(doc, read)
    except CertificateError as exc:
        return VerifyReport(False, (str(exc),), None, ("minimality certificate",))
    checked = [f"minimality certificate: {found.text}"]
    kind = f"{found.r}-robust" if found.s == 1 else f"({found.r}, {found.s})-robust"
    reasons = []
    if topology.directed or topology.n != found.n:
        reasons.append(f"the certificate speaks of undirected graphs on {found.n} nodes; the "
                       f"file is {'directed' if topology.directed else 'undirected'} with "
                       f"{topology.n} nodes")
    elif topology.m == found.lower_bound:
        checked.append(f"the graph's {topology.m} edges are the fewest any {kind} "
                       f"graph on {found.n} nodes has (its own certificate proves it "
                       f"{kind})")
    else:
        checked.append(f"the graph has {topology.m} edges; every {kind} graph on "
                       f"{found.n} nodes has at least {found.lower_bound}")
    return VerifyReport(not reasons, tuple(reasons), "proven", tuple(checked))
