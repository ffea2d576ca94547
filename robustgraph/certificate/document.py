"""Robustness certificates: claims about one graph, proven by exact engines, re-checkable by anyone.

A certificate binds to a graph by its content hash and records, for every claim, the questions put
to the engines, each engine's proven bounds and status, and a witness pair of node labels for every
upper bound. Witnesses are checked in polynomial time (LeBlanc et al. 2013, Defs. 5-7); lower
bounds are the engines' proofs, which a second engine (a dual-engine certificate) or
``robustgraph verify --resolve-with`` re-proves independently. The JSON form is described by
``certificate.schema.json`` (shipped with the package and published in ``docs/``).
"""

from __future__ import annotations

import datetime
import json
import platform
import subprocess
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import metadata, resources
from pathlib import Path
from typing import Any

from robustgraph import __version__, strict_json
from robustgraph.atomic import write_atomic
from robustgraph.certificate.outcome import EXIT_CODES, UNCHECKED_EXIT, unchecked_bounds
from robustgraph.certificate.records import ClaimRecord, GraphInfo
from robustgraph.certificate.verifier import VerifyReport, verify
from robustgraph.errors import CertificateError, ParameterError
from robustgraph.limits import quote, read_bounded, read_text
from robustgraph.topology import Topology

__all__ = [
    "FORMAT",
    "SCHEMA_VERSION",
    "InvalidCertificate",
    "Certificate",
    "schema",
    "provenance",
    "certificate_path",
]

FORMAT = "robustgraph-certificate"
SCHEMA_VERSION = 3
"""Version 2 adds proof objects for lower bounds; version 3 names the tolerances a ``max`` claim
states (``models``; without it, as in versions 1 and 2, all three). Older files still load and
verify."""

_COMPRESSION = (".gz", ".bz2", ".xz")
_PACKAGES = ("numpy", "ortools", "highspy", "pulp")


class InvalidCertificate(CertificateError):
    """A certificate document violates the published schema (``robustgraph verify`` exits 1)."""

    exit_code = 1


@cache
def schema() -> dict[str, Any]:
    """The published JSON Schema of a certificate
    (``robustgraph/certificate/certificate.schema.json``)."""
    schema_file = resources.files("robustgraph.certificate").joinpath("certificate.schema.json")
    text = schema_file.read_text("utf-8")
    return json.loads(text)


def _scalar_key(item: Any) -> tuple[str, Any] | None:
    """What JSON Schema's equality compares for a scalar (``1 == 1.0``; ``true != 1``;
    ``"1" != 1``), hashable; None for an array or object."""
    if isinstance(item, bool) or item is None:
        return ("literal", item)
    if isinstance(item, int | float):
        return ("number", item)
    if isinstance(item, str):
        return ("string", item)
    return None


def _unique_items(validator: Any, unique: bool, instance: Any, schema: Any) -> Any:
    """``uniqueItems`` in O(len) for lists of scalars (node labels, engine names): jsonschema's
    own falls back to comparing every pair when the items do not sort, which a 262 KB label list
    mixing strings and numbers made take 67 s (issue 31). Lists holding arrays or objects go to
    jsonschema's implementation."""
    from jsonschema import Draft202012Validator, ValidationError

    if not (unique and validator.is_type(instance, "array")):
        return
    keys = [_scalar_key(item) for item in instance]
    if None in keys:
        yield from Draft202012Validator.VALIDATORS["uniqueItems"](
            validator, unique, instance, schema
        )
        return
    seen: set[tuple[str, Any]] = set()
    for key in keys:
        if key in seen:
            yield ValidationError(f"has the item {quote(key[1])} twice (items must be unique)")
            return
        seen.add(key)


_LABEL_ITEMS = {"$ref": "#/$defs/label"}


def _label_items(validator: Any, items: Any, instance: Any, schema: Any) -> Any:
    """``items`` of a node set (``$defs/label``: a string or a number) in one loop: jsonschema
    resolves the ``$ref`` once per label, 3.9 s of a 10^5-node certificate's check (issue 32).
    Any other ``items`` schema goes to jsonschema's implementation."""
    from jsonschema import Draft202012Validator, ValidationError

    if items != _LABEL_ITEMS or not validator.is_type(instance, "array"):
        yield from Draft202012Validator.VALIDATORS["items"](validator, items, instance, schema)
        return
    for index, item in enumerate(instance):
        if isinstance(item, bool) or not isinstance(item, str | int | float):
            yield ValidationError(f"{quote(item)} is not of type 'string', 'number'", path=[index])


@cache
def _validator() -> Any:
    """A Draft 2020-12 validator of :func:`schema` whose ``integer`` is a JSON integer only
    (``2.0`` is refused: the checkers count with it) and whose ``uniqueItems`` and node-set
    ``items`` are linear."""
    from jsonschema import Draft202012Validator, validators

    strict = Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _, x: isinstance(x, int) and not isinstance(x, bool)
    )
    cls = validators.extend(
        Draft202012Validator, {"uniqueItems": _unique_items, "items": _label_items},
        type_checker=strict,
    )
    return cls(schema())


def _schema_errors(doc: Any) -> list[str]:
    errors = sorted(_validator().iter_errors(doc), key=lambda e: list(e.absolute_path))
    return [f"at /{'/'.join(str(p) for p in e.absolute_path)}: {_clip(e.message)}" for e in errors]


def _clip(message: str, limit: int = 200) -> str:
    """A schema message cut to ``limit`` characters: jsonschema quotes the whole offending value
    ("[...] is not of type 'object'" printed an entire list-wrapped certificate)."""
    return message if len(message) <= limit else f"{message[: limit - 65]} ... {message[-60:]}"


def _json_text(value: Any, indent: str) -> str:
    """JSON with dict keys in insertion order; a list of scalars (a node set) stays on one line."""
    inner = indent + "  "
    if isinstance(value, dict) and value:
        items = [f"{inner}{json.dumps(k)}: {_json_text(v, inner)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    if isinstance(value, list) and any(isinstance(v, dict | list) for v in value):
        items = [inner + _json_text(v, inner) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + indent + "]"
    return json.dumps(value, ensure_ascii=False)


@dataclass(frozen=True)
class Certificate:
    """A robustness certificate: the graph it binds to, the claims, and the provenance.

    Produce one with :func:`certify`; read one with :meth:`load`; re-check one with
    :meth:`verify`. ``dumps`` writes keys in a fixed order, so two certificates of the same graph
    differ only in timings and provenance.
    """

    graph: GraphInfo
    claims: tuple[ClaimRecord, ...]
    verdict: str
    provenance: dict[str, Any]
    schema_version: int = SCHEMA_VERSION
    files: dict[str, bytes] = field(default_factory=dict, compare=False, repr=False)
    """Proof files made by ``certify`` and not yet written (name -> bytes); :meth:`dump`
    writes them beside the certificate."""
    directory: Path | None = field(default=None, compare=False)
    """Where :meth:`load` found the certificate: its proof files are read from there."""
    checked: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """The proof checks already run, by graph content hash
    (:func:`robustgraph.certificate.assurance.check_bounds` fills it): a certificate's proofs
    are checked once per graph, however many callers ask (``verify``, then the run gate)."""

    def read_file(self, name: str) -> bytes:
        """The bytes of a proof file the certificate names (in memory, else beside it).

        Read through :func:`robustgraph.limits.read_bounded`: a FIFO, a symlink to a device
        or a file over the ``bytes`` budget is refused without waiting on it or holding it.

        Raises
        ------
        CertificateError
            (exit 1) When the file is missing, unreadable, not a regular file or too large.
        """
        if name in self.files:
            return self.files[name]
        if self.directory is None or Path(name).name != name:
            raise InvalidCertificate(f"proof file {name} is missing")
        path = self.directory / name
        return read_bounded(path, error=InvalidCertificate, label=f"proof file {path}")

    @property
    def unchecked(self) -> tuple[str, ...]:
        """The lower bounds that rest on an engine's word only, no checkable proof
        (:func:`~robustgraph.certificate.outcome.unchecked_bounds`), e.g. ``("r* >= 8",)``."""
        return unchecked_bounds(self.claims)

    @property
    def exit_code(self) -> int:
        """0 proven, 1 refuted, 3 undecided, 5 proven by an engine's word only (a lower bound
        without a checkable proof: :attr:`unchecked`): what ``robustgraph certify`` exits with."""
        if self.verdict == "proven" and self.unchecked:
            return UNCHECKED_EXIT
        return EXIT_CODES[self.verdict]

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "schema_version": self.schema_version,
            "verdict": self.verdict,
            "graph": self.graph.to_dict(),
            "claims": [record.to_dict() for record in self.claims],
            "provenance": self.provenance,
        }

    def dumps(self) -> str:
        """The certificate as JSON text: fixed key order, 2-space indent, lists of labels on one
        line, trailing newline."""
        return _json_text(self.to_dict(), "") + "\n"

    def dump(self, path: str | Path) -> None:
        """Write :meth:`dumps` to ``path`` and the proof files beside it (named by their hash),
        each whole or not at all (:func:`robustgraph.atomic.write_atomic`: a full disk leaves
        no 0-byte or half file), proofs first; an ``OSError`` names the file."""
        path = Path(path)
        for name, data in self.files.items():
            write_atomic(path.parent / name, data)
        write_atomic(path, self.dumps().encode("utf-8"))

    @classmethod
    def from_dict(cls, doc: Any) -> Certificate:
        """Build a Certificate from its JSON form.

        Raises
        ------
        InvalidCertificate
            When ``doc`` violates the schema (the message names the first violation and where).
        """
        errors = _schema_errors(doc)
        if errors:
            more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
            raise InvalidCertificate(f"certificate does not match the schema {errors[0]}{more}")
        try:
            claims = tuple(ClaimRecord.from_dict(c) for c in doc["claims"])
        except (ParameterError, KeyError) as exc:
            raise InvalidCertificate(
                f"certificate has an impossible claim or question: {exc}"
            ) from None
        for i, (record, raw) in enumerate(zip(claims, doc["claims"], strict=True), 1):
            if raw["statement"] != record.claim.describe():
                raise InvalidCertificate(
                    f"claim {i}: statement {quote(raw['statement'])} does not describe the claim "
                    f"{record.claim.to_dict()}, which reads {record.claim.describe()!r}"
                )
            pairs = zip(record.checks, raw["checks"], strict=True)
            for j, (check, raw_check) in enumerate(pairs, 1):
                if raw_check["bound_on"] != check.bound_on:
                    raise InvalidCertificate(
                        f"claim {i}, check {j}: bound_on {raw_check['bound_on']!r} is not the "
                        f"quantity its question bounds, {check.bound_on!r}"
                    )
                if doc["schema_version"] == 1 and "proof" in raw_check:
                    raise InvalidCertificate(
                        f"claim {i}, check {j}: a schema version 1 certificate has no proofs"
                    )
        g = doc["graph"]
        return cls(
            GraphInfo(g["hash"], g["n"], g["m"], g["directed"]),
            claims,
            doc["verdict"],
            doc["provenance"],
            doc["schema_version"],
        )

    @classmethod
    def loads(cls, text: str, *, source: str = "certificate") -> Certificate:
        """Parse JSON text; ``CertificateError`` (exit 2) if it is not strict JSON.

        NaN and Infinity (not JSON, though Python writes them) and a key given twice in one
        object (the last would silently win) are refused.
        """
        try:
            doc = strict_json.loads(text)
        except (ValueError, RecursionError) as exc:  # also 4300+ digit numbers, deep nesting
            raise CertificateError(f"{source}: not valid JSON: {str(exc).split(';')[0]}") from None
        return cls.from_dict(doc)

    @classmethod
    def load(cls, path: str | Path) -> Certificate:
        """Read a certificate file; ``CertificateError`` (exit 2) when it is missing, not a
        regular file (a FIFO would block the read), over the ``bytes`` budget or not UTF-8
        (:func:`robustgraph.limits.read_text`)."""
        text = read_text(path, error=CertificateError)
        cert = cls.loads(text, source=str(path))
        return replace(cert, directory=Path(path).resolve().parent)

    def verify(
        self,
        topology: Topology,
        *,
        resolve_with: str | None = None,
        time_limit: float | None = None,
        threads: int = 1,
        require: Any = None,
        require_proof: bool = False,
    ) -> VerifyReport:
        """Re-check this certificate against ``topology``.

        See :func:`robustgraph.certificate.verifier.verify`; returns its ``VerifyReport``
        (``valid``, ``reasons``, ``bounds``, ``rejections``, ``exit_code``).
        """
        return verify(
            self,
            topology,
            resolve_with=resolve_with,
            time_limit=time_limit,
            threads=threads,
            require=require,
            require_proof=require_proof,
        )


def _git() -> dict[str, Any] | None:
    root = Path(__file__).resolve().parent.parent

    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, timeout=10, check=True
        )
        return done.stdout.strip()

    try:
        if Path(git("rev-parse", "--show-toplevel")).resolve() != root:
            return None
        return {"revision": git("rev-parse", "HEAD"), "dirty": bool(git("status", "--porcelain"))}
    except (OSError, subprocess.SubprocessError):
        return None


def _package_versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {}
    for name in _PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def provenance(parameters: dict[str, Any]) -> dict[str, Any]:
    """Tool version, git revision and dirty flag (if run from a checkout), package versions,
    Python version, the parameters, and the UTC creation time."""
    created = (
        datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    )
    return {
        "tool": "robustgraph",
        "tool_version": __version__,
        "created": created,
        "git": _git(),
        "python": platform.python_version(),
        "packages": _package_versions(),
        "parameters": parameters,
    }


def certificate_path(graph_path: str | Path) -> Path:
    """Where ``generate --certify`` puts the certificate: ``merg7.json`` -> ``merg7.cert.json``."""
    path = Path(graph_path)
    name = path.name
    for suffix in _COMPRESSION:
        name = name.removesuffix(suffix)
    stem = Path(name).stem or name
    return path.with_name(f"{stem}.cert.json")
