"""Engine registry: names to solve functions, with availability checks and one dispatch point.

The built-in engines are imported when first used (:func:`_lazy`), so naming them costs nothing:
a command that answers with the subset DP never imports the model adapters.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from solvers.errors import ParameterError, SolverUnavailable
from solvers.extras import ENGINE_PACKAGES, missing
from solvers.types import Request, Result

__all__ = ["Engine", "ENGINES", "register", "solve", "engine_names"]


@dataclass(frozen=True)
class Engine:
    """An engine: its name, a solve function and an availability check (lazy solver import)."""

    name: str
    solve: Callable[[Request], Result]
    available: Callable[[], bool]
    description: str = ""


ENGINES: dict[str, Engine] = {}


def register(engine: Engine) -> Engine:
    """Add an engine under its name (later registrations of one name replace earlier ones)."""
    ENGINES[engine.name] = engine
    return engine


def _lazy(module: str) -> tuple[Callable[[Request], Result], Callable[[], bool]]:
    """``solve`` and ``available`` of ``module``, which is imported on the first call."""

    def solve(request: Request) -> Result:
        return importlib.import_module(module).solve(request)

    def available() -> bool:
        return importlib.import_module(module).available()

    return solve, available


for _name, _about in (
    ("portfolio", "core search, subset DP, bounds, published slice, strong model (or a race)"),
    ("exhaustive", "subset DP, exact, n <= 26"),
    ("cores", "branch and bound over reach-k cores, r questions, plain Python"),
    ("cpsat", "OR-Tools CP-SAT, published or strong model"),
    ("highs", "HiGHS MIP via highspy, published or strong"),
    ("cbc", "CBC via PuLP, published or strong model"),
):
    register(Engine(_name, *_lazy(f"solvers.{_name}"), _about))


def engine_names() -> list[str]:
    return list(ENGINES)


def solve(request: Request, engine: str = "portfolio") -> Result:
    """Answer ``request`` with the named engine.

    Raises
    ------
    ParameterError
        Unknown engine name.
    SolverUnavailable
        The engine's package is not installed, or it refuses the instance.
    """
    try:
        chosen = ENGINES[engine]
    except KeyError:
        known = ", ".join(ENGINES)
        raise ParameterError(f"unknown engine {engine!r}; choose from {known}") from None
    if not chosen.available():
        package = ENGINE_PACKAGES.get(engine)
        if package is not None:  # names the extra that installs it
            raise SolverUnavailable(str(missing(package, f"engine {engine!r}")))
        raise SolverUnavailable(
            f"engine {engine!r} is not available: its solver package is not installed"
        )
    return chosen.solve(request)
