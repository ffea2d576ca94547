"""The sweep spec: a grid of runs (YAML), checked up front, expanded into cells with stable ids.

A spec names values for each axis of a run; every combination is one cell, one run of
:mod:`protocol_runner.run.runner`. The layout (``docs/scale-out.md`` has a worked example)::

    name: sac-vs-baselines             # optional, shown in the summary
    grid:                              # a list, or a single value, per axis
      topology: [merg, complete]           # generator specs (robustgraph run --topology)
      n: [7, 9]                            # agents
      roster: {7: [5S1W1A], 9: [6S2W1A]}   # counts (or roster files); a list for every n,
                                           # or a mapping n -> list
      F: [null]                            # default [null]: the Byzantine set's size,
                                           # adversaries + weak agents (run --F)
      attack: [fixed, collude]             # default [fixed]
      placement: [random]                  # default [random]; random | degree | labels
      tasks: ["arith:20"]                  # task set specs (docs/tasks.md)
      rounds: [3]                          # default [6]
      seed: [1, 2]                         # default [0]
      backend: [simulated]                 # default [simulated]; or mappings, see below
    protocols: [sac, cpwbft, majority]     # run in every cell (default: all five of `run`)
    options:                               # the same for every cell (all optional)
      concurrency: 64                      # queries and LLM calls in flight per cell
      certify_time_limit: 60               # seconds per question when a cell certifies
      allow_uncertified: false
      commit_gate: false                   # run --commit-gate (ledger in the cell's directory)
      max_chars: 2000
      adversary_nodes: []                  # for placement: labels
      crs: {eta: 0.1, contributions: shapley, judge_model: null}
      plots: true                          # figures: each cell's and the sweep's
      resamples: 2000                      # bootstrap resamples of each cell's summary
      corpora: {news-index: news.jsonl}    # run --corpus NAME=PATH (openai backends only;
                                           # every cell's roster must read each NAME)

A backend is ``simulated``, ``openai``, or a mapping: ``{kind: simulated, latency_ms: 20,
sim_config: sim.json}`` or ``{kind: openai, base_url: http://host:8000/v1, model: M,
weak_model: W, api_key_env: OPENAI_API_KEY, timeout: 60, max_retries: 6, reexecutor_model: R}``
(``reexecutor_model``: ``run --reexecutor-model``, needs ``commit_gate: true``); ``name`` gives
it a label in the summary.

A cell's id is readable and stable: the main parameters, then 10 hex digits of the SHA-256 of
every parameter of the run except ``concurrency``, ``certify_time_limit``, ``plots`` and
``resamples`` (which change how a cell runs or is summarised, not its results). Adding values
to an axis therefore keeps the ids, and the finished results, of the cells already run.
``corpora`` is hashed by its paths only when given (specs without it keep their ids); the
documents' content is part of each cell's run identity, so a cell directory is not resumed
with other documents.

One module: the spec's layout, its checker and its expansion into cells are one contract with
the YAML users write (docs/scale-out.md).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from protocol_runner.protocols import PROTOCOLS
from protocol_runner.protocols.attacks import parse_attack
from protocol_runner.protocols.crs import CrSConfig
from protocol_runner.run import strict_yaml
from protocol_runner.run.roster import PLACEMENTS, parse_roster_spec
from protocol_runner.run.runner import BACKENDS
from protocol_runner.run.topology_spec import FAMILIES
from robustgraph import limits
from robustgraph.errors import ParameterError
from robustgraph.limits import quote, read_text, regular_file

__all__ = [
    "AXES",
    "RUN_OPTIONS",
    "SweepSpec",
    "Cell",
    "SpecError",
    "load_spec",
    "parse_spec",
    "cell_id",
]

AXES = ("topology", "n", "roster", "F", "attack", "placement", "tasks", "rounds", "seed", "backend")
"""The grid's axes, in the order cells are enumerated (the last varies fastest)."""

_REQUIRED = ("topology", "n", "roster", "tasks")
_AXIS_DEFAULTS: dict[str, list[Any]] = {
    "F": [None],
    "attack": ["fixed"],
    "placement": ["random"],
    "rounds": [6],
    "seed": [0],
    "backend": ["simulated"],
}
RUN_OPTIONS: dict[str, Any] = {
    "concurrency": 64,
    "certify_time_limit": 60.0,
    "allow_uncertified": False,
    "commit_gate": False,
    "max_chars": 2000,
    "adversary_nodes": [],
    "crs": {},
    "plots": True,
    "resamples": 2000,
}
"""Options shared by every cell, with their defaults."""

_NOT_HASHED = ("concurrency", "certify_time_limit", "plots", "resamples")
_CORPORA = "corpora"
"""An option outside :data:`RUN_OPTIONS`: in a cell's parameters only when the spec gives it."""
_DEFAULT_PROTOCOLS = ("sac", "cpwbft", "crs", "majority", "debate")
_BACKEND_KEYS = {
    "simulated": {"kind", "name", "latency_ms", "sim_config", "timeout", "max_retries"},
    "openai": {
        "kind",
        "name",
        "base_url",
        "model",
        "weak_model",
        "api_key_env",
        "timeout",
        "max_retries",
        "reexecutor_model",
    },
}
_SLUG = re.compile(r"[^A-Za-z0-9.=+-]+")


class SpecError(ParameterError):
    """A sweep spec is malformed; the message names the file and the key."""


@dataclass(frozen=True)
class Cell:
    """One run of the grid: its stable ``id`` and its parameters (JSON-ready, hashed)."""

    id: str
    params: Mapping[str, Any]

    def axis_value(self, axis: str) -> str:
        """The cell's value on ``axis`` as a label (a backend's label for ``backend``)."""
        value = self.params[axis]
        if axis == "backend":
            return _backend_label(value)
        return "byzantine" if value is None else str(value)


@dataclass(frozen=True)
class SweepSpec:
    """A checked sweep spec: the axes' values, the protocols and the shared options."""

    name: str
    axes: Mapping[str, tuple[Any, ...]]
    rosters: Mapping[int, tuple[str, ...]] | None
    protocols: tuple[str, ...]
    options: Mapping[str, Any] = field(default_factory=dict)

    def cells(self) -> list[Cell]:
        """Every cell of the grid, in :data:`AXES` order, the last axis varying fastest."""
        shared = {k: v for k, v in self.options.items() if k not in _NOT_HASHED}
        combos: list[dict[str, Any]] = [{}]
        for axis in AXES:
            combos = [
                {**combo, axis: value}
                for combo in combos
                for value in (
                    self.rosters[combo["n"]]
                    if axis == "roster" and self.rosters is not None
                    else self.axes[axis]
                )
            ]
        out = []
        for combo in combos:
            params = {**combo, "protocols": list(self.protocols), **shared}
            out.append(Cell(cell_id(params), params))
        return out

    def varying(self) -> list[str]:
        """The axes with more than one value (what the grid compares)."""
        counts = {a: len(set(map(_key, self.axes[a]))) for a in AXES if a != "roster"}
        if self.rosters is None:
            counts["roster"] = len(self.axes["roster"])
        else:
            counts["roster"] = len({r for rs in self.rosters.values() for r in rs})
        return [a for a in AXES if counts[a] > 1]

    def to_json(self) -> dict[str, Any]:
        grid: dict[str, Any] = {a: list(self.axes[a]) for a in AXES}
        if self.rosters is not None:
            grid["roster"] = {str(n): list(rs) for n, rs in self.rosters.items()}
        return {
            "name": self.name,
            "grid": grid,
            "protocols": list(self.protocols),
            "options": dict(self.options),
        }


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _backend_label(backend: Mapping[str, Any]) -> str:
    if backend.get("name"):
        return str(backend["name"])
    if backend["kind"] == "openai":
        return f"openai:{backend['model']}"
    return "simulated"


def cell_id(params: Mapping[str, Any]) -> str:
    """``<topology>-n<n>-<roster>-F<F>-<attack>-<tasks>-T<rounds>-s<seed>-<backend>-<hash>``.

    Examples
    --------
    >>> p = {"topology": "circulant:k=2", "n": 8, "roster": "6S1W1A", "F": None,
    ...      "attack": "fixed", "placement": "random", "tasks": "arith:20", "rounds": 3,
    ...      "seed": 1, "backend": {"kind": "simulated"}, "protocols": ["sac"]}
    >>> cell_id(p)[:-11]
    'circulant-k=2-n8-6S1W1A-Fbyz-fixed-arith-20-T3-s1-simulated'
    """
    digest = hashlib.sha256(_key(dict(params)).encode("utf-8")).hexdigest()[:10]
    f = "byz" if params["F"] is None else params["F"]  # the roster's |A| + |W| (run --F)
    parts = [
        params["topology"],
        f"n{params['n']}",
        Path(str(params["roster"])).stem,
        f"F{f}",
        params["attack"],
        params["tasks"],
        f"T{params['rounds']}",
        f"s{params['seed']}",
        _backend_label(params["backend"]),
    ]
    slug = _SLUG.sub("-", "-".join(str(p) for p in parts)).strip("-")[:96]
    return f"{slug}-{digest}"


# ----------------------------------------------------------------------------- checking
class _Checker:
    """Reads one spec document, raising :class:`SpecError` naming ``source`` and the key."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, where: str, message: str) -> SpecError:
        return SpecError(f"{self.source}: {where}: {message}")

    def values(self, grid: Mapping[str, Any], axis: str) -> list[Any]:
        raw = grid[axis] if axis in grid else _AXIS_DEFAULTS[axis]
        values = list(raw) if isinstance(raw, list) else [raw]
        if not values:
            raise self.fail(f"grid.{axis}", "needs at least one value")
        return values

    def integer(self, where: str, value: Any, least: int, most: int | None = None) -> int:
        """``value`` as an integer of at least ``least`` and at most ``most`` (a ceiling of
        :mod:`robustgraph.limits`)."""
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(where, f"expected an integer, got {quote(value)}")
        if value < least:
            raise self.fail(where, f"must be >= {least}, got {value}")
        if most is not None:
            self.checked(where, value, lambda v: limits.at_most("the value", v, most))
        return value

    def text(self, where: str, value: Any) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(where, f"expected a non-empty string, got {quote(value)}")
        return value.strip()

    def checked(self, where: str, value: Any, check: Callable[[Any], Any]) -> Any:
        """``check(value)``, its ParameterError re-raised as a SpecError naming ``where``."""
        try:
            return check(value)
        except ParameterError as exc:
            raise self.fail(where, str(exc)) from None

    def topology(self, where: str, value: Any) -> str:
        text = self.text(where, value).lower()
        family, *parts = text.split(":")
        if family not in FAMILIES:
            known = ", ".join(FAMILIES)
            raise self.fail(
                where, f"unknown topology family {quote(family)}; expected one of {known}"
            )
        for part in parts:
            key, eq, number = part.partition("=")
            if not eq or key not in FAMILIES[family] or not number:
                allowed = ", ".join(sorted(FAMILIES[family])) or "no options"
                raise self.fail(where, f"{family} takes {allowed}, got {quote(part)}")
        return text

    def roster(self, where: str, value: Any, sizes: list[int]) -> str:
        text = self.text(where, value)
        if Path(text).suffix.lower() in (".yaml", ".yml", ".json"):
            self.checked(where, text, lambda t: regular_file(t, label=f"roster file {quote(t)}"))
            return text
        size = sum(self.checked(where, text, parse_roster_spec).values())
        wrong = [n for n in sizes if n != size]
        if wrong:
            raise self.fail(
                where,
                f"roster {text} has {size} agents but the grid has n = {wrong[0]}; "
                "give rosters per n: roster: {N: [...], ...}",
            )
        return text

    def backend(self, where: str, value: Any) -> dict[str, Any]:
        entry = {"kind": value} if isinstance(value, str) else value
        if not isinstance(entry, Mapping):
            raise self.fail(where, f"expected a backend name or mapping, got {quote(value)}")
        kind = entry.get("kind")
        if kind not in BACKENDS:
            raise self.fail(where, f"kind must be one of {', '.join(BACKENDS)}, got {quote(kind)}")
        extra = sorted(set(entry) - _BACKEND_KEYS[kind])
        if extra:
            allowed = ", ".join(sorted(_BACKEND_KEYS[kind]))
            raise self.fail(where, f"unknown key {quote(extra[0])} for {kind}; allowed: {allowed}")
        if kind == "openai" and not (entry.get("base_url") and entry.get("model")):
            raise self.fail(where, "an openai backend needs base_url and model")
        if "reexecutor_model" in entry:
            self.text(f"{where}.reexecutor_model", entry["reexecutor_model"])
        return dict(sorted(entry.items()))

    def corpora(self, value: Any) -> dict[str, str]:
        """``options.corpora``: corpus name -> JSONL file (``run --corpus NAME=PATH``)."""
        where = f"options.{_CORPORA}"
        if not isinstance(value, Mapping):
            raise self.fail(where, f"expected a mapping name -> JSONL file, got {quote(value)}")
        out = {}
        for name, path in value.items():
            name = self.text(f"{where} key", name)
            text = self.text(f"{where}.{name}", path)
            if not Path(text).is_file():
                raise self.fail(f"{where}.{name}", f"corpus file {quote(text)} not found")
            out[name] = text
        return dict(sorted(out.items()))

    def option(self, key: str, value: Any) -> Any:
        where = f"options.{key}"
        if key == "concurrency":
            return self.integer(where, value, 1, limits.MAX_CONCURRENCY)
        if key == "max_chars":
            return self.integer(where, value, 1)
        if key == "resamples":
            return self.integer(where, value, 1)
        if key in ("allow_uncertified", "commit_gate", "plots"):
            if not isinstance(value, bool):
                raise self.fail(where, f"expected true or false, got {quote(value)}")
            return value
        if key == "certify_time_limit":
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int | float) or value <= 0
            ):
                raise self.fail(where, f"expected seconds > 0 or null, got {quote(value)}")
            return value
        if key == "adversary_nodes":
            if not isinstance(value, list):
                raise self.fail(where, f"expected a list of node labels, got {quote(value)}")
            return [str(v) for v in value]
        if not isinstance(value, Mapping):
            raise self.fail(where, f"expected a mapping such as {{eta: 0.1}}, got {quote(value)}")
        unknown = sorted(set(value) - {"eta", "contributions", "judge_model"})
        if unknown:
            raise self.fail(
                where, f"unknown key {quote(unknown[0])}; allowed: eta, contributions, judge_model"
            )
        self.checked(where, value, lambda v: CrSConfig(**v))
        return dict(sorted(value.items()))


def _unknown(check: _Checker, where: str, got: Mapping[str, Any], allowed: tuple[str, ...]) -> None:
    extra = [k for k in got if k not in allowed]
    if extra:
        raise check.fail(where, f"unknown key {quote(extra[0])}; allowed: {', '.join(allowed)}")


def parse_spec(data: Any, *, source: str = "spec") -> SweepSpec:
    """Check a spec document (already parsed from YAML) and return the :class:`SweepSpec`.

    Raises
    ------
    SpecError
        One line naming ``source``, the key and what is wrong: unknown keys, missing axes,
        values of the wrong type or out of range, unknown families, attacks, placements or
        protocols, rosters whose size is not n.

    Examples
    --------
    >>> spec = parse_spec({"grid": {"topology": "merg", "n": 7, "roster": "5S1W1A",
    ...                             "tasks": "arith:5", "seed": [1, 2]}})
    >>> len(spec.cells()), spec.varying()
    (2, ['seed'])
    """
    check = _Checker(source)
    if not isinstance(data, Mapping):
        raise check.fail("top level", "expected a mapping with grid, protocols, options")
    _unknown(check, "top level", data, ("name", "grid", "protocols", "options"))
    grid = data.get("grid")
    if not isinstance(grid, Mapping):
        raise check.fail("grid", "missing, or not a mapping of axis -> values")
    _unknown(check, "grid", grid, AXES)
    missing = [a for a in _REQUIRED if a not in grid]
    if missing:
        raise check.fail("grid", f"missing axis {missing[0]!r} (needed: {', '.join(_REQUIRED)})")
    axes: dict[str, tuple[Any, ...]] = {}
    sizes = [
        check.integer(f"grid.n[{i}]", v, 1, limits.MAX_AGENTS)
        for i, v in enumerate(check.values(grid, "n"))
    ]
    axes["n"] = tuple(sizes)
    axes["topology"] = tuple(
        check.topology(f"grid.topology[{i}]", v)
        for i, v in enumerate(check.values(grid, "topology"))
    )
    rosters: dict[int, tuple[str, ...]] | None = None
    if isinstance(grid["roster"], Mapping):
        rosters = {}
        for n in sizes:
            given = grid["roster"].get(n, grid["roster"].get(str(n)))
            if given is None:
                raise check.fail("grid.roster", f"no rosters for n = {n}")
            listed = given if isinstance(given, list) else [given]
            rosters[n] = tuple(
                check.roster(f"grid.roster.{n}[{i}]", v, [n]) for i, v in enumerate(listed)
            )
        axes["roster"] = ()
    else:
        axes["roster"] = tuple(
            check.roster(f"grid.roster[{i}]", v, sizes)
            for i, v in enumerate(check.values(grid, "roster"))
        )
    axes["F"] = tuple(
        None if v is None else check.integer(f"grid.F[{i}]", v, 0)
        for i, v in enumerate(check.values(grid, "F"))
    )
    axes["attack"] = tuple(
        check.checked(f"grid.attack[{i}]", check.text(f"grid.attack[{i}]", v), parse_attack).text
        for i, v in enumerate(check.values(grid, "attack"))
    )
    placements = tuple(check.values(grid, "placement"))
    for i, v in enumerate(placements):
        if v not in PLACEMENTS:
            raise check.fail(f"grid.placement[{i}]", f"expected one of {', '.join(PLACEMENTS)}")
    axes["placement"] = placements
    axes["tasks"] = tuple(
        check.text(f"grid.tasks[{i}]", v) for i, v in enumerate(check.values(grid, "tasks"))
    )
    axes["rounds"] = tuple(
        check.integer(f"grid.rounds[{i}]", v, 0, limits.MAX_ROUNDS)
        for i, v in enumerate(check.values(grid, "rounds"))
    )
    axes["seed"] = tuple(
        check.integer(f"grid.seed[{i}]", v, 0) for i, v in enumerate(check.values(grid, "seed"))
    )
    axes["backend"] = tuple(
        check.backend(f"grid.backend[{i}]", v) for i, v in enumerate(check.values(grid, "backend"))
    )
    for axis in AXES:
        keys = [_key(v) for v in axes[axis]]
        if len(set(keys)) != len(keys):
            raise check.fail(f"grid.{axis}", "lists a value twice")
    protocols = data.get("protocols", list(_DEFAULT_PROTOCOLS))
    protocols = protocols if isinstance(protocols, list) else [protocols]
    for i, name in enumerate(protocols):
        if name not in PROTOCOLS:
            known = ", ".join(PROTOCOLS)
            raise check.fail(f"protocols[{i}]", f"unknown protocol {quote(name)}; expected {known}")
    if not protocols or len(set(protocols)) != len(protocols):
        raise check.fail("protocols", "name each protocol once, at least one")
    given = data.get("options") or {}
    if not isinstance(given, Mapping):
        raise check.fail("options", "expected a mapping")
    _unknown(check, "options", given, (*RUN_OPTIONS, _CORPORA))
    options = {
        key: check.option(key, given.get(key, default)) for key, default in RUN_OPTIONS.items()
    }
    corpora = check.corpora(given[_CORPORA]) if _CORPORA in given else {}
    if corpora:
        options[_CORPORA] = corpora
        simulated = [i for i, b in enumerate(axes["backend"]) if b["kind"] != "openai"]
        if simulated:
            raise check.fail(f"grid.backend[{simulated[0]}]", "options.corpora needs openai "
                             "backends (the simulated backend reads no documents)")
    if "labels" in placements and not options["adversary_nodes"]:
        raise check.fail("options.adversary_nodes", "placement labels needs the node labels")
    for i, backend in enumerate(axes["backend"]):
        if "reexecutor_model" in backend and not options["commit_gate"]:
            raise check.fail(f"grid.backend[{i}].reexecutor_model",
                             "goes with options.commit_gate: true")
    _check_cells(check, axes, rosters)
    name = data.get("name", "")
    return SweepSpec(str(name), axes, rosters, tuple(protocols), options)


def _check_cells(
    check: _Checker, axes: Mapping[str, tuple[Any, ...]], rosters: Mapping[int, Any] | None
) -> None:
    """Refuse a grid of more than :data:`robustgraph.limits.MAX_SWEEP_CELLS` cells before
    :meth:`SweepSpec.cells` lists them (six axes of 100 values are 10^12 cells)."""
    count = sum(len(rs) for rs in rosters.values()) if rosters else len(axes["n"]) * len(
        axes["roster"]
    )
    for axis in AXES:
        if axis not in ("n", "roster"):
            count *= len(axes[axis])
    check.checked("grid", count, lambda c: limits.at_most("cells", c, limits.MAX_SWEEP_CELLS))


def load_spec(path: str | Path) -> SweepSpec:
    """Read and check a sweep spec file (YAML or JSON).

    Raises
    ------
    SpecError
        The file is not a regular file (a FIFO would block), cannot be read or parsed
        (aliases that expand too far included), or the spec is malformed (see :func:`parse_spec`).
    """
    text = read_text(path, error=SpecError, label=f"{path}: cannot read the spec")
    try:
        data = strict_yaml.load(text)
    except yaml.YAMLError as exc:
        where, _, what = strict_yaml.problem(exc).partition(": ")
        raise SpecError(f"{path}: {where}: not valid YAML ({what})") from None
    except (ValueError, RecursionError) as exc:  # an integer of 4300+ digits, deep nesting
        raise SpecError(f"{path}: not a readable spec ({str(exc).split(';')[0]})") from None
    return parse_spec(data, source=str(path))
