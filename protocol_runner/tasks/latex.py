"""Light LaTeX handling for answers: the last ``\\boxed{...}`` and normalisation of a short answer.

The normalisation follows the answer-checking conventions used with Hendrycks et al. (2021),
"Measuring Mathematical Problem Solving With the MATH Dataset": drop display wrappers, ``\\left``/
``\\right``, spacing commands, degrees, dollar signs and trailing units; ``\\dfrac``/``\\tfrac``
become ``\\frac``; ``\\text{...}`` keeps its content.
"""

from __future__ import annotations

import re

__all__ = ["last_boxed", "normalize_answer", "split_top_level", "strip_outer"]

_BOXED = re.compile(r"\\(?:boxed|fbox)\s*")
_WRAPPERS = re.compile(r"\\(?:text|textbf|textnormal|mathrm|mathbf|mbox|operatorname)\s*\{")
_UNITS_TAIL = re.compile(  # one way to match a number: '\d[\d,]*\.?\d*' was quadratic in digits
    r"^([+-]?(?:\d[\d,]*(?:\.\d*)?|\.\d+)(?:/\d+)?%?)\s*([A-Za-z][A-Za-z .]*)$"
)
_MATH_WORDS = frozenset({"pi", "e", "i", "sqrt", "infty", "inf", "oo", "x", "y", "z", "n", "k"})
_MIXED = re.compile(r"^(-?)(\d+)\s*\\frac\{(\d+)\}\{(\d+)\}$")
_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?%?$")
_SIMPLE_REPLACEMENTS = (
    ("\\dfrac", "\\frac"),
    ("\\tfrac", "\\frac"),
    ("\\displaystyle", ""),
    ("\\left", ""),
    ("\\right", ""),
    ("\\!", ""),
    ("\\,", " "),
    ("\\;", " "),
    ("\\:", " "),
    ("\\ ", " "),
    ("{,}", ","),
    ("~", " "),
    ("^{\\circ}", ""),
    ("^\\circ", ""),
    ("\\circ", ""),
    ("°", ""),
    ("\\%", "%"),
    ("\\$", ""),
    ("$", ""),
    ("−", "-"),
    ("\\dots", ""),
    ("\\ldots", ""),
)


def _group_end(text: str, open_index: int) -> int | None:
    """Index just past the brace group opening at ``open_index``; None if it never closes."""
    depth = 0
    for i in range(open_index, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


def last_boxed(text: str) -> str | None:
    """The content of the last brace-balanced ``\\boxed{...}`` (or ``\\fbox{...}``) in ``text``.

    ``\\boxed 5`` (no braces) yields ``5``. An unbalanced or empty last box is skipped in favour
    of the one before it; ``None`` when no box has content.

    Examples
    --------
    >>> last_boxed(r"so \\boxed{1} no, \\boxed{\\frac{2}{3}}.")
    '\\\\frac{2}{3}'
    """
    for match in reversed(list(_BOXED.finditer(text))):
        start = match.end()
        if start < len(text) and text[start] == "{":
            end = _group_end(text, start)
            content = text[start + 1 : end - 1].strip() if end else ""
        else:
            content = re.match(r"[^\s$.,]*", text[start:]).group(0)
        if content:
            return content
    return None


def _unwrap_text(text: str) -> str:
    while True:
        match = _WRAPPERS.search(text)
        if not match:
            return text
        end = _group_end(text, match.end() - 1)
        if end is None:
            return text
        text = text[: match.start()] + text[match.end() : end - 1] + text[end:]


def strip_outer(text: str, pairs: tuple[tuple[str, str], ...]) -> tuple[str, str, str]:
    """Split ``text`` into (opener, inside, closer) when one bracket pair encloses all of it."""
    for opener, closer in pairs:
        if text.startswith(opener) and text.endswith(closer) and len(text) >= len(opener + closer):
            inside = text[len(opener) : len(text) - len(closer)]
            if _balanced(inside):
                return opener, inside, closer
    return "", text, ""


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """Split on ``sep`` outside any bracket: ``(1,2),3`` gives ``['(1,2)', '3']``.

    Examples
    --------
    >>> split_top_level(r"\\frac{1}{2}, (3, 4)")
    ['\\\\frac{1}{2}', '(3, 4)']
    """
    parts, depth, current = [], 0, []
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    parts.append("".join(current).strip())
    return parts


def normalize_answer(text: str) -> str:
    """A short math answer with presentation removed: ``\\$1{,}000.`` becomes ``1000``.

    Parameters
    ----------
    text : str
        An extracted answer or a reference answer.

    Returns
    -------
    str
        The answer with wrappers, spacing, degrees, dollars, thousands separators and a trailing
        unit word removed (``5 cm`` -> ``5``; ``2pi`` and ``5x`` are kept), a mixed number
        ``1\\frac{1}{2}`` written as ``(1+1/2)``, whitespace collapsed.

    Examples
    --------
    >>> normalize_answer(r"\\$1{,}000.00")
    '1000.00'
    >>> normalize_answer(r"90^\\circ")
    '90'
    >>> normalize_answer(r"\\text{(C)}")
    '(C)'
    """
    s = text.strip()
    for prefix, suffix in (("\\[", "\\]"), ("\\(", "\\)")):
        if s.startswith(prefix) and s.endswith(suffix):
            s = s[len(prefix) : -len(suffix)]
    s = _unwrap_text(s)
    for old, new in _SIMPLE_REPLACEMENTS:
        s = s.replace(old, new)
    s = " ".join(s.split()).rstrip(".").strip()
    s = re.sub(r"^[a-zA-Z]\s*\\in\s*", "", s)
    units = _UNITS_TAIL.match(s)
    if (
        units
        and units.group(2).strip().lower() not in _MATH_WORDS
        and len(units.group(2).strip()) > 1
    ):
        s = units.group(1)
    mixed = _MIXED.match(s)
    if mixed:  # a mixed number: 1\frac{1}{2} is one and a half
        sign, whole, numerator, denominator = mixed.groups()
        s = f"{sign}({whole}+{numerator}/{denominator})"
    if _THOUSANDS.match(s):
        s = s.replace(",", "")
    return s
