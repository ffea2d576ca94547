"""The commands that run agents, one module each, registered lazily by :mod:`robustgraph.cli.main`:
``run`` (:mod:`~protocol_runner.cli.run`), ``sweep``, ``serve-sim``
(:mod:`~protocol_runner.cli.serve`),
``report`` and ``ledger``. Nothing is exported here: the group imports each command's module only
when that command runs.
"""

__all__: list[str] = []
