"""Shared checks on the outcome of a CLI call made with click's ``CliRunner``."""

from __future__ import annotations

__all__ = ["assert_error"]


def assert_error(result, code: int = 2) -> str:
    """Exit ``code``, exactly one 'robustgraph: error:' line on stderr, no exception escaped."""
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == code, (result.exit_code, result.stderr)
    errors = [line for line in result.stderr.splitlines() if line.startswith("robustgraph: error:")]
    assert len(errors) == 1, result.stderr
    assert "Traceback" not in result.stderr
    return errors[0]
