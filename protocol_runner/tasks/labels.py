"""Normalise a choice label or a true/false word to a canonical form.

Choice tasks present their options as ``answer1..answerN`` (or ``ending1..ending4`` for
HellaSwag, ``option1``/``option2`` and ``solution1``/``solution2`` where a dataset labels them
so), the labelling used by the SAC experiments (Lee et al., 2026, "Robust Multi-Agent LLMs under
Byzantine Faults", App. C Table 8); replies may instead name a letter, a number or the option's
text, under any of these prefixes.
"""

from __future__ import annotations

import re

__all__ = ["CHOICE_STYLES", "choice_label", "parse_bool", "parse_choice", "strip_markup"]

CHOICE_STYLES = ("answer", "ending", "option", "solution")
"""The label prefixes of choice options (Commonsense170k keeps each source's own, Table 8)."""

_MARKUP = re.compile(r"[*`$\"']+|(?<!\w)_+|_+(?!\w)")
_TEXT_WRAPPER = re.compile(r"\\(?:text|textbf|mathrm|mbox|textnormal)\{([^{}]*)\}")
_PREFIX = r"(?:answer|ending|option|solution|choice)"
_NUMBERED = re.compile(_PREFIX + r"\s*[_#-]?\s*(\d+)", re.IGNORECASE)
_FULL_LABEL = re.compile(
    r"(?:" + _PREFIX + r"\s*[_#-]?\s*)?\(?\s*([A-Za-z]|\d+)\s*\)?", re.IGNORECASE
)
_LEADING_LABEL = re.compile(
    r"(?:" + _PREFIX + r"\s*[_#-]?\s*(\d+)|\(?\s*([A-Z]|\d+)\s*\))\s*[.:)\-]?\s+(.*)"
    r"|([A-Z]|\d+)\s*[.:\-]\s+(.*)",
    re.IGNORECASE | re.DOTALL,
)
_TRUE = frozenset({"true", "yes", "entailment", "entailed", "entails"})
_FALSE = frozenset(
    {"false", "no", "not_entailment", "not entailment", "not entailed", "no entailment"}
)
_WORD = re.compile(r"[a-z_]+")


def strip_markup(text: str) -> str:
    """Remove markdown/LaTeX emphasis, quotes and the surrounding punctuation of a short answer.

    Examples
    --------
    >>> strip_markup("**(B)**.")
    '(B)'
    """
    text = _TEXT_WRAPPER.sub(r"\1", text)
    text = _MARKUP.sub("", text).strip()
    return text.rstrip(".,;!").strip()


def choice_label(index: int, style: str = "answer") -> str:
    """The canonical label of the 0-based option ``index``: ``answer1``, ``ending3``, ...

    Examples
    --------
    >>> choice_label(2, "ending")
    'ending3'
    """
    return f"{style}{index + 1}"


def _fold(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def _label_index(token: str, n: int) -> int | None:
    if token.isdigit():
        k = int(token) - 1
    elif len(token) == 1 and token.isalpha():
        k = ord(token.upper()) - ord("A")
    else:
        return None
    return k if 0 <= k < n else None


def parse_choice(text: str, choices: tuple[str, ...] | list[str]) -> int | None:
    """The 0-based option that ``text`` names, or ``None`` when it names none or several.

    Accepted: ``answer2`` / ``ending2`` / ``option 2`` / ``choice 2``, a letter ``B`` or ``(B)``,
    a 1-based number ``2``, a leading label followed by the option text (``B) Paris``,
    ``answer2: Paris``), or the option's text itself (case and punctuation ignored). The option
    text is tried first, so a bare ``12`` among the options ``4, 8, 12`` names the option ``12``.

    Parameters
    ----------
    text : str
        A short answer (already extracted from a reply).
    choices : sequence of str
        The options, in presentation order.

    Returns
    -------
    int or None
        ``None`` for an out-of-range label, an ambiguous answer (``A or B``) or no label at all.

    Examples
    --------
    >>> parse_choice("(B)", ("Rome", "Paris", "Oslo"))
    1
    >>> parse_choice("answer3", ("Rome", "Paris", "Oslo"))
    2
    >>> parse_choice("paris", ("Rome", "Paris", "Oslo"))
    1
    >>> parse_choice("A or B", ("Rome", "Paris", "Oslo")) is None
    True
    """
    n = len(choices)
    s = strip_markup(text)
    if not s or n == 0:
        return None
    folded = _fold(s)
    matches = [i for i, c in enumerate(choices) if _fold(c) == folded]
    if len(matches) == 1:
        return matches[0]
    full = _FULL_LABEL.fullmatch(s)
    if full:
        return _label_index(full.group(1), n)
    lead = _LEADING_LABEL.fullmatch(s)
    if lead:
        token = lead.group(1) or lead.group(2) or lead.group(4)
        rest = lead.group(3) if lead.group(3) is not None else lead.group(5)
        if rest and _NUMBERED.search(rest):
            return None
        k = _label_index(token, n)
        if k is not None and rest and _fold(rest) in {_fold(c) for c in choices}:
            return k if _fold(rest) == _fold(choices[k]) else None
        return k
    return None


def parse_bool(text: str) -> bool | None:
    """``True``/``False`` for a true/false, yes/no or entailment word, else ``None``.

    The whole answer or its first word must be the truth word (``Yes, because ...``); an answer
    that contains both polarities (``true or false``) or negates one (``not true``) is ``None``.

    Examples
    --------
    >>> parse_bool("**Yes**, it does.")
    True
    >>> parse_bool("not_entailment")
    False
    >>> parse_bool("not true") is None
    True
    """
    s = strip_markup(text).lower()
    if not s:
        return None
    if s in _TRUE:
        return True
    if s in _FALSE:
        return False
    words = _WORD.findall(s)
    if not words:
        return None
    polarities = {w in _TRUE for w in words if w in _TRUE or w in _FALSE}
    if len(polarities) != 1 or words[0] not in _TRUE | _FALSE:
        return None
    return words[0] in _TRUE
