"""``python -m robustgraph.cli``: the ``robustgraph`` program (:func:`robustgraph.cli.main.run`)."""

from robustgraph.cli.main import run

__all__: list[str] = []

if __name__ == "__main__":
    run()
