"""Which redirects the openai backend follows: only within the origin the user named.

An origin is (scheme, host, port) (RFC 6454). A gateway or proxy that answers ``307`` with
another host would otherwise receive every prompt of the run (aiohttp strips ``Authorization``
across origins, but not the body). :class:`RedirectPolicy` allows the named origin and its
upgrade to ``https`` on the same host (port 443 or the same port); any other target is a
``BackendError`` naming both hosts, unless the user opted in (``--allow-cross-origin-redirects``,
docs/endpoints.md), and even then credentials go only to the trusted origins. A target that is
not ``http(s)`` is refused always.

References
----------
RFC 9110, 15.4 (redirection); RFC 6454, 4 (the origin of a URI).
"""

from __future__ import annotations

from yarl import URL

from robustgraph.errors import BackendError

__all__ = ["CROSS_ORIGIN_FLAG", "RedirectPolicy", "origin"]

CROSS_ORIGIN_FLAG = "--allow-cross-origin-redirects"
"""The command-line opt-in that lets redirects leave the named origin."""


def origin(url: URL) -> tuple[str, str, int | None]:
    """``(scheme, host, port)`` with the scheme's default port filled in.

    Examples
    --------
    >>> origin(URL("HTTP://Example.org/v1"))
    ('http', 'example.org', 80)
    """
    return url.scheme, (url.host or "").lower(), url.port


def _shown(key: tuple[str, str, int | None]) -> str:
    scheme, host, port = key
    return f"{scheme}://{host}:{port}"


class RedirectPolicy:
    """The origins a request to ``base`` may be redirected to, and those trusted with the key.

    Parameters
    ----------
    base : yarl.URL
        The endpoint the user named.
    cross_origin : bool
        Follow redirects to any ``http(s)`` origin (credentials still stay with the trusted).

    Examples
    --------
    >>> policy = RedirectPolicy(URL("http://llm.local:8000/v1"))
    >>> policy.check(URL("http://llm.local:8000/v1/a"), URL("https://llm.local/v1/a"))
    >>> policy.check(URL("http://llm.local:8000/v1/a"), URL("http://other.example/v1/a"))
    Traceback (most recent call last):
    ...
    robustgraph.errors.BackendError: http://llm.local:8000/v1/a redirects to host other.example \
(http://other.example:80), outside the origin named, http://llm.local:8000; not followed \
(--allow-cross-origin-redirects follows it)
    """

    def __init__(self, base: URL, *, cross_origin: bool = False) -> None:
        scheme, host, port = origin(base)
        self.named = (scheme, host, port)
        self.cross_origin = cross_origin
        self.trusted = {self.named}
        if scheme == "http":  # the same host over TLS
            self.trusted |= {("https", host, 443), ("https", host, port)}

    def keeps_credentials(self, url: URL) -> bool:
        """Whether a request to ``url`` may carry ``Authorization`` (a trusted origin)."""
        return origin(url) in self.trusted

    def check(self, source: URL, target: URL) -> None:
        """Allow the redirect from ``source`` to ``target``, or raise ``BackendError``."""
        key = origin(target)
        if target.scheme not in ("http", "https") or not key[1]:
            raise BackendError(
                f"{source} redirects to {str(target)[:200]!r}, not an http(s) URL; not followed"
            )
        if key in self.trusted or self.cross_origin:
            return
        raise BackendError(
            f"{source} redirects to host {key[1]} ({_shown(key)}), outside the origin named, "
            f"{_shown(self.named)}; not followed ({CROSS_ORIGIN_FLAG} follows it)"
        )
