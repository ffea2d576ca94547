"""The embedded default backend: simulated agents in-process (no network, no key).

It sends each request through :meth:`CompletionRequest.to_openai_body` to
:meth:`protocol_runner.sim.agents.Simulator.respond`, exactly the body ``serve-sim`` receives
over HTTP, so the in-process and HTTP paths give identical replies.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

from protocol_runner.llm.types import Completion, CompletionRequest
from protocol_runner.sim.agents import SimRequestError, Simulator
from robustgraph.errors import BackendError, ParameterError

__all__ = ["SimulatedBackend"]


class SimulatedBackend:
    """Backend answering with a :class:`~protocol_runner.sim.agents.Simulator`.

    Parameters
    ----------
    simulator : Simulator
        The simulated agents and their task registry.
    latency_s : float
        Artificial latency per call (``asyncio.sleep``), 0 for none.

    Notes
    -----
    The cache namespace includes the simulator's configuration fingerprint, so changing a
    profile or a world parameter never returns replies cached under the old model.
    """

    def __init__(self, simulator: Simulator, *, latency_s: float = 0.0) -> None:
        if latency_s < 0:
            raise ParameterError(f"latency must be >= 0 seconds, got {latency_s}")
        self.simulator = simulator
        self.latency_s = latency_s
        self.namespace = f"simulated:{simulator.fingerprint}"

    def describe(self, request: CompletionRequest) -> str:
        return f"simulated backend, model {request.model!r}"

    def provenance(self) -> dict[str, Any]:
        return {
            "backend": "simulated",
            "config_fingerprint": self.simulator.fingerprint,
            "profile": self.simulator.config.description,
            "latency_s": self.latency_s,
        }

    async def complete(self, request: CompletionRequest) -> Completion:
        """Answer ``request``; a request the simulator cannot serve is a ``BackendError``."""
        if self.latency_s:
            await asyncio.sleep(self.latency_s)
        try:
            return Completion.from_openai(self.simulator.respond(request.to_openai_body()))
        except SimRequestError as exc:
            raise BackendError(f"{self.describe(request)}: {exc}") from exc

    async def check(self, models: Iterable[str]) -> None:
        """Raise ``BackendError`` for a model name that selects no profile."""
        unknown = sorted(set(models) - set(self.simulator.models))
        if unknown:
            raise BackendError(
                f"simulated backend: unknown models {unknown}; it serves "
                f"{', '.join(self.simulator.models)}"
            )

    async def aclose(self) -> None:
        """Nothing to release."""
