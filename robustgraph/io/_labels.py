"""Node labels that would not print as what they are: refused when a graph file is read.

One job: :func:`refuse_invisible` (issue 41, row 13: a label holding U+202E displays reversed,
so a witness could be made to display as another).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from robustgraph.errors import GraphFormatError
from robustgraph.topology import Label

__all__ = ["refuse_invisible"]

_INVISIBLE = re.compile(
    "[\x01-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064"
    "\u2066-\u206f\ufeff\ufff9-\ufffb]"
)
"""Control characters (C0, DEL, C1) and the format characters that change how text displays
(soft hyphen, Arabic letter mark, zero-width spaces and joiners, directional marks, embeddings,
overrides and isolates, word joiner, byte-order mark): refused in node labels, so a label (and
a witness naming it) prints as what it is. U+202E (right-to-left override) makes the text after it
read backwards."""


def refuse_invisible(path: str | Path, labels: Sequence[Label]) -> None:
    """Refuse a text label holding a character of :data:`_INVISIBLE` or a NUL (one regex over
    the labels joined, in C)."""
    texts = [x for x in labels if isinstance(x, str)]
    joined = "\x00".join(texts)
    if not _INVISIBLE.search(joined) and joined.count("\x00") == max(len(texts) - 1, 0):
        return
    import unicodedata

    label = next(x for x in texts if "\x00" in x or _INVISIBLE.search(x))
    char = next(c for c in label if c == "\x00" or _INVISIBLE.match(c))
    name = unicodedata.name(char, "a control character")
    raise GraphFormatError(
        f"{path}: node label {label[:40]!r} holds U+{ord(char):04X} ({name}): control and "
        "format characters are refused, so a label displays as what it is"
    )
