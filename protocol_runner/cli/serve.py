"""``robustgraph serve-sim``: serve the simulated agents over OpenAI-compatible HTTP.

With ``--json`` the ready message is one line of JSON on stdout (``base_url``, ``models``,
``tasks``), printed once the server listens; the stop message goes to stderr.
"""

from __future__ import annotations

import asyncio
import json
import signal
from typing import TYPE_CHECKING

import click

from robustgraph.cli.common import json_option

if TYPE_CHECKING:
    from protocol_runner.sim.server import SimServer

__all__ = ["serve_sim"]

# The server (aiohttp), the simulator and the task loaders are imported when the command runs,
# so that --help stays light (issue 33).


async def _serve(server: SimServer, as_json: bool, tasks: int) -> None:
    url = await server.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    models = list(server.simulator.models)
    profile = server.simulator.config.description  # the profile's label (docs/simulation.md)
    if as_json:  # one line, so a supervisor can read the ready message with one readline
        click.echo(json.dumps({"base_url": url, "models": models, "tasks": tasks,
                               "profile": profile}))
    else:
        click.echo(
            f"serve-sim: listening on {url} (simulated agents, {profile}: not LLM results; "
            f"models {', '.join(models)}; {tasks} tasks); Ctrl-C stops"
        )
    try:
        await stop.wait()
    finally:
        await server.stop()
        stats = server.stats.as_dict()
        click.echo(
            f"serve-sim: stopped after {stats['completions']} completions "
            f"({stats['requests']} requests)",
            err=True,
        )


@click.command("serve-sim")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8000,
    show_default=True,
    help="TCP port; 0 picks a free one (printed when ready).",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--latency-ms",
    type=click.FloatRange(min=0),
    default=0.0,
    show_default=True,
    help="Artificial latency added to every completion.",
)
@click.option(
    "--tasks",
    "task_specs",
    multiple=True,
    default=("arith:100",),
    show_default=True,
    help="Task set spec the agents know (repeatable), e.g. arith:100:seed=3, "
    "gsm8k:test.jsonl. Give the same specs as the run.",
)
@click.option(
    "--sim-config",
    default=None,
    help="A simulator profile name (handset, or a fitted one) or a JSON file of parameters "
    "(default: the profile fitted to the tasks' kind; docs/simulation.md).",
)
@click.option(
    "--faults",
    default="",
    help="Faults for the first requests, e.g. 429:0.5x2,500,slow:3,malformed.",
)
@json_option
def serve_sim(
    port: int,
    host: str,
    latency_ms: float,
    task_specs: tuple[str, ...],
    sim_config: str | None,
    faults: str,
    as_json: bool,
) -> None:
    """Serve simulated agents on an OpenAI-compatible endpoint (/v1/chat/completions, /v1/models).

    \b
    Point the openai backend at http://HOST:PORT/v1 to dry-run an experiment for free. Models are
    sim-<profile> (sim-strong, sim-weak); agent identity travels in the request's user field.
    The simulated agents are a behaviour model, not an LLM (docs/simulation.md).
    Faults can also be queued with POST /sim/faults or per request with the X-Sim-Fault header;
    GET /sim/stats reports what was served.
    """
    from protocol_runner.run import aio
    from protocol_runner.sim.agents import Simulator
    from protocol_runner.sim.profiles import resolve_config
    from protocol_runner.sim.server import SimServer, parse_faults
    from protocol_runner.tasks import load_tasks

    tasks = [task for spec in task_specs for task in load_tasks(spec)]
    simulator = Simulator(tasks, resolve_config(sim_config, {t.kind for t in tasks}))
    server = SimServer(
        simulator, host=host, port=port, latency_s=latency_ms / 1000.0, faults=parse_faults(faults)
    )
    with aio.frozen_heap():  # the simulator and its tables stay out of the collector's walks
        aio.run(_serve(server, as_json, len(tasks)))
