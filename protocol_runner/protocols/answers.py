"""Extract the final answer from a model reply and decide whether it matches a task's answer.

Extraction order (the convention of the MATH and GSM8K evaluations, Hendrycks et al. 2021;
Cobbe et al. 2021): ``<think>...</think>`` blocks are dropped; then the last brace-balanced
``\\boxed{...}``; then the last ``Answer:`` line (``Final answer:``, ``The answer is``); then, for
math, a reply that is itself a bare answer, else the last number in the reply. Choice labels
(``answer2``, ``ending3``, ``B``, ``2``, the option text) and truth words (true/false, yes/no,
entailment) are normalised. An answer that cannot be parsed is incorrect, never correct.
"""

from __future__ import annotations

import re
from fractions import Fraction

from protocol_runner.tasks.distractors import format_number
from protocol_runner.tasks.labels import choice_label, parse_bool, parse_choice, strip_markup
from protocol_runner.tasks.latex import last_boxed, normalize_answer, split_top_level, strip_outer
from protocol_runner.tasks.mathexpr import MAX_CHARS, parse_expression, same_value
from protocol_runner.tasks.model import Task

__all__ = ["answer_key", "equivalent", "extract_answer", "is_correct", "strip_thinking"]

_THINK = re.compile(r"<think(?:ing)?>.*?</think(?:ing)?>", re.IGNORECASE | re.DOTALL)
_ANSWER_LINE = re.compile(
    r"\b(?:final\s+)?answer[\s*_]*(?:is\b[\s*_]*:?|:)[\s*_]*(?P<value>.+?)\s*$",
    re.IGNORECASE | re.MULTILINE,
)
_NUMBER = re.compile(
    r"(?:(?<![\w)\]}.])[-−])?(?<![\w.])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:/\d+)?(?![\w,]*\d)"
)
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?(?:/\d+)?")
_LABEL_IN_TEXT = re.compile(
    r"\b(?:answer|ending|option|solution)\s*\d+\b"
    r"|\b(?:option|choice)\s+\(?(?:[A-Z]|\d+)\)?(?![\w])|\([A-Z]\)",
    re.IGNORECASE,
)
_BARE_WORD = re.compile(r"(?<![\\A-Za-z])[A-Za-z]+")
_KNOWN_NAMES = frozenset({"sqrt", "sin", "cos", "tan", "ln", "log", "exp", "pi", "infty", "oo"})
_HEDGE = re.compile(r"\s*(?:or|and|/|,|and/or)\s*", re.IGNORECASE)
_SENTENCE = re.compile(r"[A-Za-z]{2,}\s+[A-Za-z]{2,}")
_SETS = ("\\{", "{")
MAX_REPLY_CHARS = 8000
"""Extraction reads the last this many characters of a reply: every rule looks for the last
boxed value, ``Answer:`` line or number (a ``</think>`` whose block began earlier hides what
precedes it), and some patterns take time quadratic in the text (a 100,000-digit reply held a
run for minutes)."""
_PAIRS = (("(", ")"), ("[", "]"), ("\\{", "\\}"), ("{", "}"), ("(", "]"), ("[", ")"))


def strip_thinking(text: str) -> str:
    """Drop ``<think>...</think>`` blocks.

    An unclosed ``<think>`` hides the rest of the text; an orphan ``</think>`` hides what precedes
    it (some chat templates emit only the closing tag).

    Examples
    --------
    >>> strip_thinking("<think>maybe 3</think>Answer: 4")
    'Answer: 4'
    """
    text = _THINK.sub("", text)
    lowered = text.lower()
    close = max(lowered.rfind("</think>"), lowered.rfind("</thinking>"))
    if close >= 0:
        text = text[text.index(">", close) + 1 :]
        lowered = text.lower()
    opened = lowered.find("<think")
    return text[:opened] if opened >= 0 else text


def _candidate(text: str) -> str | None:
    """The boxed content, else the value of the last ``Answer:`` line, else None."""
    boxed = last_boxed(text)
    if boxed is not None:
        return boxed
    values = [m.group("value") for m in _ANSWER_LINE.finditer(text)]
    values = [v for v in (strip_markup(v) for v in values) if v]
    return values[-1] if values else None


def _last_number(text: str) -> str | None:
    numbers = _NUMBER.findall(text)
    return numbers[-1].replace("−", "-") if numbers else None


def _is_bare_math(text: str) -> bool:
    if len(text) > MAX_CHARS:  # no expression that long is read; normalising it costs O(n^2)
        return False
    s = normalize_answer(text)
    if not s or "\n" in s or len(s) > 100:
        return False
    words = _BARE_WORD.findall(s)
    if any(len(w) > 1 and w not in _KNOWN_NAMES for w in words):
        return False  # prose such as "So 8 it is"; a bare answer uses one-letter symbols
    if _PLAIN_NUMBER.fullmatch(s.rstrip("%")):
        return True
    return all(
        parse_expression(part) is not None
        for piece in split_top_level(strip_outer(s, _PAIRS)[1])
        for part in [piece.split("=")[-1]]
    )


def _extract_math(text: str) -> str | None:
    candidate = _candidate(text)
    if candidate is not None:
        if _SENTENCE.search(re.sub(r"\\[A-Za-z]+", "", candidate)):
            return _last_number(candidate.split(".")[0]) or _last_number(candidate) or candidate
        return candidate
    stripped = strip_markup(text)
    if stripped and _is_bare_math(stripped):
        return stripped
    return _last_number(text)


def _extract_choice(text: str, task: Task) -> str | None:
    candidate = _candidate(text)
    if candidate is None:
        whole = strip_markup(text)
        if parse_choice(whole, task.choices) is not None and "\n" not in whole:
            candidate = whole
        else:
            labels = list(_LABEL_IN_TEXT.finditer(text))
            between = text[labels[-2].end() : labels[-1].start()] if len(labels) > 1 else ""
            if len(labels) > 1 and _HEDGE.fullmatch(between):
                return None  # "answer2 or answer3": a hedge names no single option
            candidate = labels[-1].group(0) if labels else None
    if candidate is None:
        return None
    index = parse_choice(candidate, task.choices)
    return None if index is None else choice_label(index, task.style)


def _extract_bool(text: str) -> str | None:
    candidate = _candidate(text)
    if candidate is None:
        lines = [line for line in text.strip().splitlines() if line.strip()]
        options = [text] + ([lines[-1]] if lines else [])
        values = [parse_bool(o) for o in options]
        value = next((v for v in values if v is not None), None)
    else:
        value = parse_bool(candidate)
    return None if value is None else ("true" if value else "false")


def extract_answer(text: str, task: Task) -> str | None:
    """The final answer a reply gives for ``task``, canonicalised; ``None`` when it gives none.

    Parameters
    ----------
    text : str
        A model reply (possibly with ``<think>`` reasoning), or an already extracted answer:
        extraction is idempotent: extracting from an extracted answer gives it back. Only the
        last :data:`MAX_REPLY_CHARS` characters are read.
    task : Task
        Decides the answer kind.

    Returns
    -------
    str or None
        ``math``: the answer as written (boxed content, ``Answer:`` value, the bare reply, or the
        last number); ``choice``: the canonical label (``answer2`` / ``ending2``); ``bool``:
        ``"true"`` or ``"false"``; ``text``: the stripped answer text.

    Examples
    --------
    >>> t = Task("t1", "2+2?", "4")
    >>> extract_answer("<think>5?</think>It is \\\\boxed{4}.", t)
    '4'
    >>> extract_answer("We get 3, then 12 apples.", t)
    '12'
    >>> c = Task("c", "Pick", "answer2", kind="choice", choices=("red", "blue"))
    >>> extract_answer("Answer: (B) blue", c)
    'answer2'
    """
    if not isinstance(text, str):
        return None
    body = strip_thinking(text[-MAX_REPLY_CHARS:])
    if task.kind == "math":
        return _extract_math(body)
    if task.kind == "choice":
        return _extract_choice(body, task)
    if task.kind == "bool":
        return _extract_bool(body)
    value = _candidate(body)
    value = strip_markup(value if value is not None else body)
    return value or None


def _number(text: str) -> Fraction | None:
    if not _PLAIN_NUMBER.fullmatch(text):
        return None
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        return None


def _scalar_equal(a: str, b: str) -> bool:
    pa, pb = a.endswith("%"), b.endswith("%")
    a, b = a.rstrip("%").strip(), b.rstrip("%").strip()
    if not a or not b:
        return False
    if "=" in a and "=" not in b:
        a = a.rsplit("=", 1)[1].strip()
    if "=" in b and "=" not in a:
        b = b.rsplit("=", 1)[1].strip()
    scales = [(1, 1)] + ([(100, 1)] if pa else []) + ([(1, 100)] if pb else [])
    na, nb = _number(a), _number(b)
    if na is not None and nb is not None:
        return any(na / sa == nb / sb for sa, sb in scales)
    if a.replace(" ", "").lower() == b.replace(" ", "").lower():
        return True
    ea, eb = parse_expression(a), parse_expression(b)
    if ea is None or eb is None:
        return False
    return any(same_value(ea / sa, eb / sb) for sa, sb in scales)


def equivalent(candidate: str, reference: str) -> bool:
    """Whether a math answer equals a reference answer as a value.

    Handles thousands separators, units, dollars, degrees and percent (``50%`` equals ``50`` and
    ``0.5``), fractions and decimals exactly, LaTeX ``\\frac``/``\\dfrac``/``\\sqrt``, simple
    symbolic identities, equations ``x = 5`` against ``5``, and tuples: bracketed answers compare
    in order with the same brackets (so intervals keep their ends), bare comma lists as multisets.

    Examples
    --------
    >>> equivalent("1,234", "1234"), equivalent(r"\\dfrac{3}{4}", "0.75")
    (True, True)
    >>> equivalent("(1,2)", "(2,1)"), equivalent("1, 2", "2, 1")
    (False, True)
    """
    a, b = normalize_answer(candidate), normalize_answer(reference)
    if not a or not b or len(a) > MAX_CHARS or len(b) > MAX_CHARS:
        return False
    if a == b:
        return True
    oa, ia, ca = strip_outer(a, _PAIRS)
    ob, ib, cb = strip_outer(b, _PAIRS)
    items_a, items_b = split_top_level(ia), split_top_level(ib)
    if len(items_a) == 1 and len(items_b) == 1:
        return _scalar_equal(ia if oa in _SETS else a, ib if ob in _SETS else b)
    if len(items_a) != len(items_b):
        return False
    if oa and ob and (oa, ca) != (ob, cb):
        return False
    if (oa, ob) == ("", "") or oa in _SETS:
        remaining = list(items_b)
        for item in items_a:
            match = next(
                (j for j, other in enumerate(remaining) if _scalar_equal(item, other)), None
            )
            if match is None:
                return False
            remaining.pop(match)
        return True
    return all(_scalar_equal(x, y) for x, y in zip(items_a, items_b, strict=True))


def is_correct(text_or_answer: str | None, task: Task) -> bool:
    """Whether a reply (or an extracted answer) answers ``task`` correctly.

    Plain numbers are compared exactly with ``fractions.Fraction`` before any symbolic work, so
    the common case costs microseconds; sympy is imported only for expressions.

    Parameters
    ----------
    text_or_answer : str or None
        A model reply or an extracted answer; ``None`` and unparseable replies are incorrect.
    task : Task
        The task with its reference answer.

    Returns
    -------
    bool

    Examples
    --------
    >>> is_correct("The total is $1,250.", Task("g", "?", "1250"))
    True
    >>> is_correct("I am not sure.", Task("g", "?", "1250"))
    False
    """
    if text_or_answer is None:
        return False
    answer = extract_answer(text_or_answer, task)
    if answer is None:
        return False
    if task.kind in ("choice", "bool"):
        return answer == task.answer
    if task.kind == "text":
        return _fold_text(answer) == _fold_text(task.answer)
    return equivalent(answer, task.answer)


def _fold_text(text: str) -> str:
    words = re.sub(r"[^\w\s]", " ", text.lower()).split()
    return " ".join(w for w in words if w not in ("a", "an", "the"))


def answer_key(text_or_answer: str | None, task: Task) -> str | None:
    """A canonical string for grouping equal answers (majority votes, agreement counts).

    Choice and bool answers are their canonical labels; plain numbers are written exactly
    (``1,234 apples`` and ``1234.0`` both give ``1234``; ``0.50`` gives ``0.5``); other math
    answers are normalised (no spaces, no wrappers); text answers are case- and article-folded.
    Two answers with the same key are equivalent; equivalent expressions written differently
    (``\\sqrt{8}`` and ``2\\sqrt{2}``) may still get different keys, so use :func:`equivalent`
    when exactness matters. ``None`` when no answer can be extracted.

    Examples
    --------
    >>> t = Task("g", "?", "1234")
    >>> answer_key("Answer: 1,234 apples", t), answer_key("\\boxed{1234.0}", t)
    ('1234', '1234')
    """
    answer = extract_answer(text_or_answer, task) if text_or_answer is not None else None
    if answer is None or task.kind in ("choice", "bool"):
        return answer
    if task.kind == "text":
        return _fold_text(answer) or None
    normal = normalize_answer(answer)
    value = _number(normal)
    if value is not None:
        return format_number(value)
    return normal.replace(" ", "") or None
