"""Read an HTTP reply's body with a cap on its size after decoding, whatever its framing or coding.

aiohttp undoes the framing (``Content-Length``, ``chunked``, close-delimited); the content coding
is undone here, so that the cap holds on what is decoded, not on what crossed the wire: a
``gzip`` reply of 4.7 MB can inflate to 1 GiB. :func:`read_body` inflates ``gzip`` and
``deflate`` (zlib-wrapped or raw) with ``zlib``'s ``max_length``, one piece of the wire at a time,
so no call produces more than the room left under the cap; any other coding (``br``, ``zstd``,
stacked codings), which the client never offers in ``Accept-Encoding``, is refused. The wire
bytes are capped too (an endless stream of empty gzip members decodes to nothing).

References
----------
RFC 9110, 8.4 (content codings) and 12.5.3 (``Accept-Encoding``); RFC 1950-1952 (zlib, deflate,
gzip).
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterable

__all__ = ["ACCEPT_ENCODING", "BodyError", "BodyTooLarge", "read_body"]

ACCEPT_ENCODING = "gzip, deflate"
"""The codings the client offers (``Accept-Encoding``); only these are decoded."""

MAX_MEMBERS = 1024
"""A gzip body of more members than this is refused (each member restarts the inflater)."""


class BodyError(ValueError):
    """The body cannot be decoded: an unsupported coding, or a corrupt or truncated stream."""


class BodyTooLarge(BodyError):
    """The body, decoded or on the wire, is over the cap."""


class _Inflater:
    """Incremental ``gzip``/``deflate`` decoding with a cap on the output of each call."""

    def __init__(self, coding: str) -> None:
        self.coding = coding
        self.members = 0
        self._zlib: zlib._Decompress | None = None

    def _start(self, first: bytes) -> zlib._Decompress:
        self.members += 1
        if self.members > MAX_MEMBERS:
            raise BodyError(f"a gzip body of more than {MAX_MEMBERS} members")
        if self.coding == "deflate":  # zlib-wrapped (RFC 9110) or, as some servers send, raw
            wbits = zlib.MAX_WBITS if first[:1] and first[0] & 0x0F == 8 else -zlib.MAX_WBITS
        else:
            wbits = 16 + zlib.MAX_WBITS
        return zlib.decompressobj(wbits)

    def feed(self, data: bytes, room: int) -> bytes:
        """Decode ``data``; :class:`BodyTooLarge` if that makes more than ``room`` bytes."""
        out = bytearray()
        while data:
            if self._zlib is None or self._zlib.eof:
                if self._zlib is not None and self.coding != "gzip":
                    raise BodyError(f"data after the end of the {self.coding} stream")
                self._zlib = self._start(data)
            try:
                piece = self._zlib.decompress(data, room - len(out) + 1)
            except zlib.error as exc:
                raise BodyError(f"corrupt {self.coding} stream ({exc})") from None
            out += piece
            if len(out) > room:
                raise BodyTooLarge
            # unconsumed input is either the next gzip member or, never here, past max_length
            data = self._zlib.unused_data if self._zlib.eof else self._zlib.unconsumed_tail
        return bytes(out)

    def finish(self) -> None:
        if self._zlib is not None and not self._zlib.eof:
            raise BodyError(f"the {self.coding} stream is cut short")


def _coding(header: str | None) -> str:
    coding = (header or "identity").strip().lower()
    if coding in ("", "identity"):
        return "identity"
    if coding in ("gzip", "x-gzip", "deflate"):
        return "deflate" if coding == "deflate" else "gzip"
    raise BodyError(f"content coding {coding[:40]!r} was not offered (only {ACCEPT_ENCODING})")


async def read_body(chunks: AsyncIterable[bytes], coding: str | None, limit: int) -> bytes:
    """The body from the wire's ``chunks`` in content coding ``coding``, at most ``limit`` bytes.

    Parameters
    ----------
    chunks : async iterable of bytes
        The body as it arrives, framing undone and content coding not (aiohttp's
        ``reply.content.iter_any()`` on a session with ``auto_decompress=False``).
    coding : str or None
        The ``Content-Encoding`` header: ``None``/``identity``, ``gzip`` or ``deflate``.
    limit : int
        Cap on the decoded body and on the bytes read from the wire.

    Returns
    -------
    bytes
        The decoded body.

    Raises
    ------
    BodyTooLarge
        More than ``limit`` bytes decoded or on the wire (read no further than that).
    BodyError
        Another coding, or a corrupt or truncated gzip/deflate stream.

    Examples
    --------
    >>> import asyncio, gzip
    >>> async def wire(*pieces):
    ...     for piece in pieces:
    ...         yield piece
    >>> bomb = gzip.compress(bytes(10_000_000))
    >>> len(bomb) < 20_000
    True
    >>> asyncio.run(read_body(wire(bomb), "gzip", 10_000))
    Traceback (most recent call last):
    ...
    protocol_runner.llm.body.BodyTooLarge
    >>> asyncio.run(read_body(wire(gzip.compress(b"hello")), "gzip", 10_000))
    b'hello'

    Notes
    -----
    Memory is the decoded body plus one wire chunk's output: O(``limit``) whatever is sent.
    """
    kind = _coding(coding)
    inflater = None if kind == "identity" else _Inflater(kind)
    body = bytearray()
    wire = 0
    async for chunk in chunks:
        wire += len(chunk)
        if wire > limit:
            raise BodyTooLarge
        piece = chunk if inflater is None else inflater.feed(chunk, limit - len(body))
        if len(body) + len(piece) > limit:
            raise BodyTooLarge
        body += piece
    if inflater is not None:
        inflater.finish()
    return bytes(body)
