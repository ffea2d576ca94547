"""One BLAS thread for the solving process: set before numpy is imported.

numpy's OpenBLAS starts a thread per core and keeps them spinning after each call; the bounds
of ``solvers.bounds`` (the halves witness's spectral order, the spectral lower bound) make a
few small eigen-decompositions (n <= :data:`solvers.bounds.DENSE_MAX_N`), which gain nothing
from a second thread, while the spinning costs CPU on the core that ``--threads`` gave to
something else (the published model's lane) or did not give at all (``--threads 1``). Issue 40,
round 3: ``robustness --threads 1 --time-limit 10`` on a random 4-regular graph on 80 nodes
(``regular-80-d4-7101`` of ``benchmarks/vs_published.py``, r* = 1) took 0.41-0.53 s of CPU
with OpenBLAS's default threads and 0.28-0.31 s with one (six runs each, interleaved, load
0.7-2.5), where the HiGHS script took 0.35 s on the idle machine.
"""

from __future__ import annotations

import os
import sys

__all__ = ["VARIABLE", "one_thread"]

VARIABLE = "OPENBLAS_NUM_THREADS"
"""The thread count OpenBLAS (numpy's wheels ship it) reads when it loads. ``OMP_NUM_THREADS``
is left alone: other libraries read it too."""


def one_thread(environ: dict[str, str] | None = None) -> bool:
    """Ask numpy's BLAS for one thread, unless the user set a count (their setting wins).

    Only effective before numpy is first imported (BLAS reads the variables when it loads):
    returns True when numpy was not imported yet, False when it is too late. Child processes
    (the lane, ``solvers.lane``) inherit the setting.

    Parameters
    ----------
    environ : dict, optional
        The environment to change; ``os.environ`` by default.

    Examples
    --------
    >>> env = {}
    >>> _ = one_thread(env)
    >>> env
    {'OPENBLAS_NUM_THREADS': '1'}
    >>> mine = {"OPENBLAS_NUM_THREADS": "4"}
    >>> _ = one_thread(mine)
    >>> mine
    {'OPENBLAS_NUM_THREADS': '4'}
    """
    env = os.environ if environ is None else environ
    env.setdefault(VARIABLE, "1")
    return "numpy" not in sys.modules
