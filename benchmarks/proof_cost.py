"""What proofs of lower bounds cost: certify with and without a proof, proof size, verify time.

For the generators' families at n = 20, 50, 100 and proven-robust Erdos-Renyi graphs at
n = 20, 30, 40 (fixed seeds) it certifies the claim ``r-robust`` at the family's r with
``--proof none`` and ``--proof auto``, interleaved, ``--reps`` times each (medians), and times
``verify`` of the proof-carrying certificate (median of ``--reps``). A second table times the
construction or theorem proofs of gamma-MERG, preferential-attachment, circulant and ``design``
outputs at n = 200: the search for the proof (``prove``) and its check (``check``). Not part of
the test run. The tables in docs/certificate.md::

    nice -n 10 .venv/bin/python benchmarks/proof_cost.py
"""

from __future__ import annotations

import argparse
import statistics
import time

from robustgraph import generators as gen
from robustgraph.certificate.certifier import certify
from robustgraph.certificate.claims import Claim
from robustgraph.certificate.proofs.checker import View, check_proof
from robustgraph.certificate.proofs.prover import prove
from robustgraph.design.api import design
from solvers import registry
from solvers.types import Question, Request

__all__ = ["main"]


def _families(n: int) -> list[tuple[str, object, int]]:
    return [
        ("gamma-MERG", gen.gamma_merg(n), -(-n // 2)),
        ("PA r=3", gen.preferential_attachment(n, 3, seed=0), 3),
        ("circulant k=3", gen.k_circulant(n, 3), 3),
    ]


def _suite() -> list[tuple[str, object, int, str]]:
    rows = []
    for n in (20, 50, 100):
        rows += [(f"{name} n={n}", t, r, "auto") for name, t, r in _families(n)]
    for n in (20, 30, 40):
        t = gen.erdos_renyi_robust(n, 2, seed=1).topology
        rows.append((f"ER r=2 n={n}", t, 2, "auto"))
        rows.append((f"ER r=2 n={n}", t, 2, "lrat"))
    for n in (20, 30):  # denser (r* = 5, 8); at n = 40 the engine needs over 60 s for r*
        t = gen.erdos_renyi(n, 0.5, seed=1)
        r = registry.solve(Request(t, Question.max_r(), time_limit=60.0)).lower
        rows.append((f"ER p=0.5 n={n}", t, r, "auto"))
    return rows


def _size(cert) -> tuple[str, str]:
    proof = cert.claims[0].checks[0].proof
    if proof is None:
        return "none", "-"
    if proof["kind"] == "lrat":
        return "lrat", f"{proof['steps']:,} steps, {proof['bytes'] / 1024:.1f} KiB"
    if proof["kind"] == "construction":
        return f"construction ({proof['base_proof']['kind']} base)", f"{len(proof['order'])} nodes"
    return proof["kind"] + (f" ({proof['family']})" if proof["kind"] == "theorem" else ""), "-"


def cost_table(reps: int) -> list[str]:
    lines = [
        "| graph | m | r | --proof | certify, none (s) | certify, proof (s) | proof | size "
        "| verify (s) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, t, r, wanted in _suite():
        plain, proved, cert = [], [], None
        for _ in range(reps):
            for mode, into in (("none", plain), (wanted, proved)):
                start = time.perf_counter()
                made = certify(t, Claim.r_robust(r), proof=mode)
                into.append(time.perf_counter() - start)
                if mode == wanted:
                    cert = made
        checks = []
        for _ in range(reps):
            start = time.perf_counter()
            report = cert.verify(t)
            checks.append(time.perf_counter() - start)
        assert report.valid, report.reasons
        kind, size = _size(cert)
        lines.append(
            f"| {name} | {t.m} | {r} | {wanted} | {statistics.median(plain):.3f} | "
            f"{statistics.median(proved):.3f} | {kind} | {size} | {statistics.median(checks):.3f} |"
        )
    return lines


def large_table() -> list[str]:
    n = 200
    outputs = [
        ("gamma-MERG", gen.gamma_merg(n), n // 2),
        ("PA r=4", gen.preferential_attachment(n, 4, seed=0), 4),
        ("circulant k=5", gen.k_circulant(n, 5), 5),
    ]
    designed = design(n, 3, time_limit=10.0, certify_result=False)
    outputs.append(("design r=3", designed.topology, 3))
    lines = [
        "| n = 200 | m | r | proof | prove (s) | check (s) |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for name, t, r in outputs:
        view = View.of(t)
        start = time.perf_counter()
        made = prove(view, r, 1, "auto", 60.0)
        found = time.perf_counter() - start
        if made is None:
            lines.append(f"| {name} | {t.m} | {r} | none found | {found:.2f} | - |")
            continue
        proof, files = made
        start = time.perf_counter()
        check_proof(view, r, 1, proof, files.__getitem__)
        checked = time.perf_counter() - start
        kind = proof["kind"] + (f" ({proof['family']})" if proof["kind"] == "theorem" else "")
        lines.append(f"| {name} | {t.m} | {r} | {kind} | {found:.2f} | {checked:.3f} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3, help="Repetitions per cell (medians).")
    args = parser.parse_args()
    for line in cost_table(args.reps):
        print(line, flush=True)
    print()
    for line in large_table():
        print(line, flush=True)


if __name__ == "__main__":
    main()
