"""HTTP/1.1 message framing shared by the lean client and ``serve-sim``: heads, lengths, chunks.

Only the wire format (RFC 9112) lives here: splitting a message head into its start line and
header fields, deciding how the body is delimited (``Content-Length``, ``chunked`` transfer
coding, or the end of the connection), and decoding a chunked body incrementally. Connection
handling is in :mod:`protocol_runner.llm.http` (client) and :mod:`protocol_runner.sim.server`
(server). Every violation raises :class:`ValueError` with a short reason; callers turn it into
their own error (a retryable error in the client, HTTP 400 in the server).

References
----------
RFC 9112, "HTTP/1.1", sections 2 (message format), 5 (field syntax), 6 (message body:
6.1 transfer coding, 6.3 message body length) and 7.1 (chunked transfer coding).
"""

from __future__ import annotations

__all__ = [
    "CHUNKED",
    "HEAD_LIMIT",
    "LENGTH",
    "UNTIL_CLOSE",
    "ChunkedDecoder",
    "body_framing",
    "split_head",
]

HEAD_LIMIT = 64 * 1024
"""Largest message head (start line and header fields) accepted, in bytes."""

LENGTH, CHUNKED, UNTIL_CLOSE = "length", "chunked", "until-close"

_TOKEN = frozenset("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_HEX = frozenset("0123456789abcdefABCDEF")


def split_head(head: bytes) -> tuple[str, dict[str, str]]:
    """The start line and the header fields of a message head (without its final blank line).

    Field names are lower-cased; a repeated field is joined with ``", "`` (RFC 9110, 5.3).

    Examples
    --------
    >>> split_head(b"HTTP/1.1 200 OK\\r\\nContent-Length: 2\\r\\nX-A: 1\\r\\nx-a: 2")
    ('HTTP/1.1 200 OK', {'content-length': '2', 'x-a': '1, 2'})

    Raises
    ------
    ValueError
        A field line without a colon, with an invalid name (e.g. whitespace before the colon)
        or folded onto a continuation line (obsolete line folding, RFC 9112 5.2).
    """
    lines = head.decode("latin-1").split("\r\n")
    fields: dict[str, str] = {}
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if not colon or not name or not _TOKEN.issuperset(name):
            raise ValueError(f"malformed header line {line[:60]!r}")
        name = name.lower()
        value = value.strip(" \t")
        fields[name] = f"{fields[name]}, {value}" if name in fields else value
    return lines[0], fields


def body_framing(fields: dict[str, str], *, response: bool) -> tuple[str, int]:
    """How the body of a message with header ``fields`` is delimited (RFC 9112, 6.3).

    Returns ``(CHUNKED, 0)``, ``(LENGTH, n)`` or, for a response without either field (or
    with a transfer coding other than chunked last), ``(UNTIL_CLOSE, 0)``: the body ends when
    the server closes the connection. A request without either field has no body.

    Examples
    --------
    >>> body_framing({"content-length": "12"}, response=True)
    ('length', 12)
    >>> body_framing({"transfer-encoding": "chunked", "content-length": "3"}, response=True)
    ('chunked', 0)
    >>> body_framing({}, response=False), body_framing({}, response=True)
    (('length', 0), ('until-close', 0))

    Raises
    ------
    ValueError
        An invalid or conflicting ``Content-Length``, or a request whose last transfer coding
        is not chunked.
    """
    coding = fields.get("transfer-encoding")
    if coding is not None:
        if coding.rsplit(",", 1)[-1].strip().lower() == "chunked":
            return CHUNKED, 0
        if response:
            return UNTIL_CLOSE, 0
        raise ValueError(f"unsupported transfer coding {coding!r}")
    length = fields.get("content-length")
    if length is None:
        return (UNTIL_CLOSE, 0) if response else (LENGTH, 0)
    values = {part.strip() for part in length.split(",")}
    value = values.pop()
    if values or not value.isascii() or not value.isdigit():
        raise ValueError(f"invalid Content-Length {length!r}")
    return LENGTH, int(value)


class ChunkedDecoder:
    """Incremental decoder of a ``chunked`` body (RFC 9112, 7.1); trailer fields are skipped.

    Parameters
    ----------
    limit : int
        Largest decoded body accepted, in bytes.

    Examples
    --------
    >>> decoder = ChunkedDecoder()
    >>> data = bytearray(b"5\\r\\nhello\\r\\n6;ext=1\\r\\n wor")
    >>> decoder.feed(data)
    False
    >>> data += b"ld\\r\\n0\\r\\nX-Trailer: 1\\r\\n\\r\\nnext"
    >>> decoder.feed(data), bytes(decoder.body), bytes(data)
    (True, b'hello world', b'next')
    """

    _SIZE, _DATA, _DATA_END, _TRAILER = range(4)

    def __init__(self, limit: int = 64 * 1024 * 1024) -> None:
        self.body = bytearray()
        self.limit = limit
        self._state = self._SIZE
        self._left = 0

    def feed(self, buffer: bytearray) -> bool:
        """Consume what ``buffer`` holds of the body (in place); True once the body is complete.

        Bytes after the body's end stay in ``buffer``.

        Raises
        ------
        ValueError
            A malformed chunk size or chunk end, or a body over ``limit``.
        """
        while True:
            if self._state == self._SIZE:
                end = buffer.find(b"\r\n")
                if end < 0:
                    if len(buffer) > 1024:
                        raise ValueError("chunk size line too long")
                    return False
                size = bytes(buffer[:end]).split(b";", 1)[0].strip(b" \t").decode("latin-1")
                if not size or not _HEX.issuperset(size):
                    raise ValueError(f"malformed chunk size {size[:20]!r}")
                del buffer[: end + 2]
                self._left = int(size, 16)
                if len(self.body) + self._left > self.limit:
                    raise ValueError(f"body larger than {self.limit} bytes")
                self._state = self._DATA if self._left else self._TRAILER
            elif self._state == self._DATA:
                take = min(self._left, len(buffer))
                self.body += buffer[:take]
                del buffer[:take]
                self._left -= take
                if self._left:
                    return False
                self._state = self._DATA_END
            elif self._state == self._DATA_END:
                if len(buffer) < 2:
                    return False
                if buffer[:2] != b"\r\n":
                    raise ValueError("chunk data not followed by CRLF")
                del buffer[:2]
                self._state = self._SIZE
            else:
                end = buffer.find(b"\r\n")
                if end < 0:
                    if len(buffer) > HEAD_LIMIT:
                        raise ValueError("trailer section too long")
                    return False
                del buffer[: end + 2]
                if end == 0:
                    return True
