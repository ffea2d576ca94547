"""The ``robustgraph`` command line: the group in :mod:`robustgraph.cli.main`, one module per
command (``graph``: info and convert; ``generate``; ``certify``: certify and verify; ``design``:
design and augment; ``robustness``), and the helpers they share in :mod:`robustgraph.cli.common`.
The commands that run agents live in :mod:`protocol_runner.cli`. The program is
:func:`run` (also ``python -m robustgraph.cli``); :data:`main` is the click group.
"""

from robustgraph.cli.main import main, run

__all__ = ["main", "run"]
