"""Local retrieval corpora: the documents agents read on the ``openai`` backend (``--corpus``).

A roster agent's ``corpus`` names the retrieval corpus it reads (:mod:`protocol_runner.run.roster`).
``robustgraph run --corpus NAME=PATH`` gives corpus NAME its documents: a local JSONL file, one
object per line::

    {"task_id": "gsm8k-17", "text": "...", "source": "https://..."}   # source optional

read once when the run is prepared (never from the network). An honest agent whose corpus
serves a document for the query's task gets it in the prompts where it reads its corpus
(:class:`DocumentContext`: its round-0 answer, or CP-WBFT's answer with confidence; and its
share in the commit gate's diversity round), as quoted evidence capped at
:data:`~protocol_runner.protocols.prompts.DOCUMENT_CHARS` characters. A task its corpus has no
document
for is answered from the agent's weights, with the bare prompt.

Evidence: a vote backed by a document carries the item ``document sha256:<hex>``, the SHA-256
of the document's UTF-8 text (:attr:`Document.evidence`), so two corpora serving the same text
are one piece of evidence for the commit gate's evidence test (its independence test still
counts corpora by name). A vote whose agent had no document carries ``weights <checkpoint>``.

The run's identity holds each corpus's content hash (:meth:`Corpora.identity`), so a run
directory cannot be resumed with other documents.

References
----------
Issue 7 (``docs/commit-gate.md``): quorums that rest on one document counted several times.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from protocol_runner.llm import ChatMessage, Completion
from protocol_runner.protocols import QueryContext
from protocol_runner.protocols.prompts import answer_messages, confidence_messages
from protocol_runner.run.roster import Roster
from protocol_runner.tasks.records import jsonl_objects
from robustgraph.errors import ParameterError

__all__ = [
    "EVIDENCE_PREFIX",
    "Corpora",
    "Corpus",
    "CorpusError",
    "Document",
    "DocumentContext",
    "load_corpora",
    "parse_corpus_option",
    "read_corpus",
]

EVIDENCE_PREFIX = "document sha256:"
"""Start of the evidence item of a vote backed by a real document."""

_FIELDS = ("task_id", "text", "source")


class CorpusError(ParameterError):
    """A ``--corpus`` option or corpus file is wrong; the message names the corpus, file, line."""


@dataclass(frozen=True)
class Document:
    """One document of a corpus: the task it serves, its text and optional source label.

    Examples
    --------
    >>> doc = Document("t1", "2 + 3 = 5", "notes")
    >>> doc.evidence[:24], doc.prompt_text
    ('document sha256:1dca3b6b', 'Source: notes\\n2 + 3 = 5')
    """

    task_id: str
    text: str
    source: str = ""

    @property
    def sha256(self) -> str:
        """SHA-256 of the UTF-8 text (hex); the source does not enter it."""
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    @property
    def evidence(self) -> str:
        """The evidence item of an answer derived from this document."""
        return EVIDENCE_PREFIX + self.sha256

    @property
    def prompt_text(self) -> str:
        """What the agent reads: a ``Source:`` line when there is a source, then the text."""
        return f"Source: {self.source}\n{self.text}" if self.source else self.text


@dataclass(frozen=True)
class Corpus:
    """A named corpus read from ``path``: its documents by task id."""

    name: str
    path: str
    documents: Mapping[str, Document]

    @property
    def sha256(self) -> str:
        """Content hash: SHA-256 of the canonical JSON of ``[task_id, source, text]`` rows in
        task-id order (independent of line order, blank lines and JSON spelling)."""
        rows = [[d.task_id, d.source, d.text] for _, d in sorted(self.documents.items())]
        text = json.dumps(rows, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _field(record: Mapping[str, Any], name: str, where: str, *, required: bool) -> str:
    value = record.get(name)
    if value is None and not required:
        return ""
    if name == "task_id" and isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str) or (required and not value.strip()):
        got = ("nothing" if value is None else "an empty string" if isinstance(value, str)
               else f"a {type(value).__name__}")
        raise CorpusError(f"{where}: field {name!r} must be a non-empty string, got {got}")
    return value


def _objects(name: str, path: Path) -> Iterator[tuple[int, str, dict[str, Any]]]:
    prefix = f"--corpus {name}: {path}"
    if not path.exists():
        raise CorpusError(f"{prefix}: no such file")
    if not path.is_file():
        raise CorpusError(f"{prefix}: not a file")
    try:
        yield from jsonl_objects(path, error=CorpusError, label=prefix)
    except OSError as exc:
        raise CorpusError(f"{prefix}: cannot read ({exc.strerror})") from None


def read_corpus(name: str, path: str | Path) -> Corpus:
    """Read corpus ``name`` from the JSONL file ``path``.

    Parameters
    ----------
    name : str
        The corpus name (a roster agent's ``corpus``).
    path : str or Path
        One JSON object per line: ``task_id`` (string or integer), ``text`` (non-empty string),
        optionally ``source`` (string). Blank lines are skipped.

    Returns
    -------
    Corpus

    Raises
    ------
    CorpusError
        A missing or unreadable file, a line that is not a JSON object (naming its number), a
        missing, unknown or mistyped field, a task id given twice, or no document at all.

    Notes
    -----
    O(size of the file). The file is read once; nothing is fetched.
    """
    file = Path(path)
    documents: dict[str, Document] = {}
    first_line: dict[str, int] = {}
    for number, where, record in _objects(name, file):
        unknown = sorted(set(record) - set(_FIELDS))
        if unknown:
            raise CorpusError(f"{where}: unknown field {unknown[0]!r}; expected task_id, text, "
                              "optionally source")
        task_id = _field(record, "task_id", where, required=True)
        if task_id in first_line:
            raise CorpusError(f"{where}: task_id {task_id!r} already has a document "
                              f"(line {first_line[task_id]})")
        first_line[task_id] = number
        documents[task_id] = Document(task_id, _field(record, "text", where, required=True),
                                      _field(record, "source", where, required=False))
    if not documents:
        raise CorpusError(f"--corpus {name}: {file}: holds no document")
    return Corpus(name, str(file), documents)


def parse_corpus_option(text: str) -> tuple[str, str]:
    """``NAME=PATH`` (the value of ``--corpus``) as ``(name, path)``.

    Raises
    ------
    CorpusError
        Without ``=``, or with an empty name or path.

    Examples
    --------
    >>> parse_corpus_option("wiki=docs/wiki.jsonl")
    ('wiki', 'docs/wiki.jsonl')
    """
    name, eq, path = text.partition("=")
    if not eq or not name.strip() or not path.strip():
        raise CorpusError(f"--corpus expects NAME=PATH, got {text!r}")
    return name.strip(), path.strip()


@dataclass(frozen=True)
class Corpora:
    """The run's corpora with documents, by name (corpora without a file are not in it)."""

    corpora: Mapping[str, Corpus]

    def __contains__(self, name: object) -> bool:
        return name in self.corpora

    def document(self, corpus: str, task_id: str) -> Document | None:
        """The document ``corpus`` serves for ``task_id``; None when it has none (or is not
        one of these corpora)."""
        found = self.corpora.get(corpus)
        return None if found is None else found.documents.get(task_id)

    def identity(self) -> dict[str, dict[str, Any]]:
        """Per corpus: content hash and number of documents (part of the run's identity)."""
        return {name: {"sha256": c.sha256, "documents": len(c.documents)}
                for name, c in sorted(self.corpora.items())}

    def files(self) -> dict[str, str]:
        """Per corpus: the file it was read from (provenance; not part of the identity)."""
        return {name: c.path for name, c in sorted(self.corpora.items())}

    def served(self, task_ids: Sequence[str]) -> dict[str, int]:
        """Per corpus: how many of ``task_ids`` it has a document for."""
        return {name: sum(t in c.documents for t in task_ids)
                for name, c in sorted(self.corpora.items())}


def load_corpora(options: Sequence[tuple[str, str]], roster: Roster) -> Corpora:
    """Read the ``--corpus NAME=PATH`` files of a run whose agents are ``roster``.

    Names are checked before any file is read.

    Raises
    ------
    CorpusError
        A name given twice, a name no honest agent of the roster reads, or a bad file
        (:func:`read_corpus`).

    Examples
    --------
    >>> from protocol_runner.run.roster import AgentSpec
    >>> roster = Roster((AgentSpec(0, "a", "strong", "m", corpus="wiki"),), "1S")
    >>> load_corpora([("news", "news.jsonl")], roster)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    protocol_runner.run.corpora.CorpusError: --corpus news: no honest agent of the roster reads ...
    """
    read = sorted({a.corpus for a in roster.agents if a.honest and a.corpus})
    seen: set[str] = set()
    for name, _ in options:
        if name in seen:
            raise CorpusError(f"--corpus {name} is given twice")
        seen.add(name)
        if name not in read:
            known = ", ".join(read) if read else "none"
            raise CorpusError(f"--corpus {name}: no honest agent of the roster reads corpus "
                              f"{name!r} (the roster's corpora: {known})")
    return Corpora({name: read_corpus(name, path) for name, path in options})


class DocumentContext(QueryContext):
    """A query context whose agents read their corpus's document where they answer the task.

    When an honest agent asks the task's bare answer prompt
    (:func:`~protocol_runner.protocols.prompts.answer_messages`) or CP-WBFT's
    (:func:`~protocol_runner.protocols.prompts.confidence_messages`), and its roster corpus serves a
    document for the task, the request carries that prompt with the document instead. Every
    other prompt (scoring, refinement, debate) and every agent without a document is asked as
    by :class:`~protocol_runner.protocols.QueryContext`. The response cache keys on the
    messages, so the document's text is part of each cached request.

    Parameters
    ----------
    *args, **kwargs
        As for :class:`~protocol_runner.protocols.QueryContext`.
    corpora : Corpora
        The run's corpora.
    """

    def __init__(self, *args: Any, corpora: Corpora, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.corpora = corpora
        self._builders = {answer_messages(self.task): answer_messages,
                          confidence_messages(self.task): confidence_messages}

    async def ask(self, agent: int, messages: tuple[ChatMessage, ...]) -> Completion:
        """One LLM call by honest ``agent``; its document added to a bare answer prompt."""
        build = self._builders.get(messages)
        if build is not None:
            corpus = self.network.roster.agents[agent].corpus
            document = self.corpora.document(corpus, self.task.id) if corpus else None
            if document is not None:
                messages = build(self.task, document=document.prompt_text)
        return await super().ask(agent, messages)
