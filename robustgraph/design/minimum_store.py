"""Refuted cases of a degree-split minimality proof kept on disk, so that a run the time limit,
^C or a restart stops resumes from its finished cases.

A case (:mod:`robustgraph.design.minimum_split`) is the entry of a ``degree-split`` proof and
its two files (pair clauses, LRAT refutation). Its CNF depends on n and the degrees only, and
its pair clauses on n, r and s, so a case refuted once holds at every level whose cover holds
its degree sequence: the store of one (n, r, s) is a folder ``nN_rR[_sS].cases`` with, per
case, its two files (named by their SHA-256) and then ``D0-D1-...-Dn-1.case.json``, each
written whole or not at all (:func:`robustgraph.atomic.write_atomic`), the entry last, so a
case on disk is complete. Nothing read back is trusted: the files must match the entry's
hashes here, and the whole proof is checked before it is handed out
(:func:`robustgraph.certificate.proofs.minimality.check_minimum`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from robustgraph import strict_json
from robustgraph.atomic import write_atomic
from robustgraph.certificate.proofs import minimality as mp
from robustgraph.errors import ParameterError
from robustgraph.limits import OverBudget, read_bounded, read_text

__all__ = ["CaseStore"]

Case = tuple[dict[str, Any], dict[str, bytes]]


class CaseStore:
    """The refuted cases of (n, r, s) under ``folder``.

    Examples
    --------
    >>> import tempfile
    >>> store = CaseStore(tempfile.mkdtemp(), 4, 2)
    >>> store.load()
    {}
    """

    def __init__(self, folder: str | Path, n: int, r: int, s: int = 1) -> None:
        self.n, self.r, self.s = n, r, s
        self.path = Path(folder) / (f"n{n}_r{r}" + (f"_s{s}" if s > 1 else "") + ".cases")

    def save(self, degrees: tuple[int, ...], case: Case) -> None:
        """Write one refuted case: its files, then its entry."""
        entry, files = case
        self.path.mkdir(parents=True, exist_ok=True)
        for name, data in files.items():
            write_atomic(self.path / name, data)
        head = {"n": self.n, "r": self.r, "s": self.s, "encoding": mp.SPLIT_ENCODING}
        write_atomic(self._entry_path(degrees),
                     (json.dumps(head | {"case": entry}) + "\n").encode())

    def load(self) -> dict[tuple[int, ...], Case]:
        """Every case on disk, by degree sequence (descending, the cover's order).

        Raises
        ------
        ParameterError
            A case entry that is not one of this (n, r, s), or whose files are missing or do
            not match its hashes: one line naming it.
        """
        found: dict[tuple[int, ...], Case] = {}
        if not self.path.is_dir():
            return found
        for path in sorted(self.path.glob("*.case.json")):
            degrees, entry = self._read(path)
            found[degrees] = entry, self._files(path, entry)
        return dict(sorted(found.items(), reverse=True))

    def load_case(self, degrees: tuple[int, ...]) -> Case | None:
        """The case of one degree sequence if it is on disk (another run may have written it
        since :meth:`load`), else None; checked as :meth:`load` checks it."""
        path = self._entry_path(degrees)
        if not path.is_file():
            return None
        _, entry = self._read(path)  # _read refuses an entry whose degrees are not its name's
        return entry, self._files(path, entry)

    def _entry_path(self, degrees: tuple[int, ...]) -> Path:
        return self.path / f"{'-'.join(map(str, degrees))}.case.json"

    def _read(self, path: Path) -> tuple[tuple[int, ...], dict[str, Any]]:
        try:
            doc = strict_json.loads(read_text(path))
            head = (doc["n"], doc["r"], doc["s"], doc["encoding"])
            degrees = tuple(doc["case"]["degrees"])
        except (ValueError, RecursionError, KeyError, TypeError):
            raise ParameterError(f"{path}: not a stored degree-split case") from None
        if head != (self.n, self.r, self.s, mp.SPLIT_ENCODING):
            raise ParameterError(f"{path}: a case of n, r, s, encoding = {head}, not of "
                                 f"{(self.n, self.r, self.s, mp.SPLIT_ENCODING)}")
        if path.name != self._entry_path(degrees).name:
            raise ParameterError(f"{path}: holds the case of degrees {list(degrees)}")
        return degrees, doc["case"]

    def _files(self, path: Path, entry: dict[str, Any]) -> dict[str, bytes]:
        files: dict[str, bytes] = {}
        for key in ("pairs", "lrat"):
            name = entry.get(f"{key}_file")
            if not isinstance(name, str) or Path(name).name != name:
                raise ParameterError(f"{path}: no bare {key} file name")
            files[name] = read_bounded(self.path / name, label=f"{self.path / name}")
            try:
                mp.proof_file(entry, key, files.__getitem__)
            except (mp.MinimalityError, OverBudget, KeyError, TypeError) as exc:
                raise ParameterError(f"{path}: {exc}") from None
        return files
