"""Plausible wrong answers for a math answer: the typical slips of someone solving by hand.

The simulated agents draw their wrong answers from these, shared across agents, so that errors
are correlated as they are among real models that learnt from overlapping data (the SAC setting of
Lee et al., 2026). Distractors are deterministic: a function of the answer (and, for generated
arithmetic, of the expression), never of a random state.
"""

from __future__ import annotations

from fractions import Fraction

__all__ = ["format_number", "numeric_distractors", "math_distractors"]


def format_number(value: Fraction) -> str:
    """An exact number as an answer string: ``7``, ``-2.5`` or ``3/7``.

    Examples
    --------
    >>> format_number(Fraction(5, 2)), format_number(Fraction(1, 3)), format_number(Fraction(-4))
    ('2.5', '1/3', '-4')
    """
    if value.denominator == 1:
        return str(value.numerator)
    d = value.denominator
    while d % 2 == 0:
        d //= 2
    while d % 5 == 0:
        d //= 5
    if d == 1:
        text = f"{float(value):.12f}".rstrip("0").rstrip(".")
        if Fraction(text) == value:
            return text
    return f"{value.numerator}/{value.denominator}"


def _digit_swaps(value: Fraction) -> list[Fraction]:
    if value.denominator != 1:
        return []
    digits = str(abs(value.numerator))
    sign = -1 if value < 0 else 1
    swaps = []
    for i in range(len(digits) - 1, 0, -1):
        if digits[i] != digits[i - 1]:
            swapped = digits[: i - 1] + digits[i] + digits[i - 1] + digits[i + 1 :]
            if not swapped.startswith("0"):
                swaps.append(sign * Fraction(int(swapped)))
    return swaps


def numeric_distractors(
    value: Fraction | int, *, slips: tuple[Fraction, ...] = (), at_least: int = 4
) -> tuple[str, ...]:
    """Wrong numbers near ``value``: given ``slips`` first, then a digit swap, off-by-one, sign.

    Parameters
    ----------
    value : Fraction or int
        The exact answer.
    slips : tuple of Fraction
        Problem-specific mistakes to put first (e.g. an operator-precedence error).
    at_least : int
        Minimum number of distractors; ``value * 10`` and ``value + 10`` fill in when needed.

    Returns
    -------
    tuple of str
        Distinct answers, none equal to ``value``, most plausible first.

    Examples
    --------
    >>> numeric_distractors(Fraction(42))
    ('24', '43', '41', '-42')
    """
    value = Fraction(value)
    ordered = list(slips) + _digit_swaps(value)[:1] + [value + 1, value - 1]
    if value.denominator != 1:
        ordered += [1 / value if value else Fraction(1), value.numerator / (value.denominator + 1)]
    ordered += [-value, value * 10, value + 10, value - 10]
    out: list[Fraction] = []
    for candidate in ordered:
        if candidate != value and candidate not in out:
            out.append(candidate)
    keep = max(at_least, len(slips) + 2)
    return tuple(format_number(c) for c in out[:keep])


def math_distractors(answer: str) -> tuple[str, ...]:
    """Distractors for a reference math answer given as text (GSM8K, MATH).

    Plain numbers get :func:`numeric_distractors`; other answers (LaTeX expressions, tuples) get
    a sign slip and a factor-of-two slip written around the original text.

    Examples
    --------
    >>> math_distractors("1,200")
    ('1020', '1201', '1199', '-1200')
    >>> for d in math_distractors(r"\\sqrt{2}"): print(d)
    -\\sqrt{2}
    2\\left(\\sqrt{2}\\right)
    \\frac{1}{2}\\left(\\sqrt{2}\\right)
    """
    text = answer.strip()
    plain = text.replace(",", "").replace("$", "")
    try:
        value = Fraction(plain)
    except (ValueError, ZeroDivisionError):
        value = None
    if value is not None:
        return numeric_distractors(value)
    negated = text[1:].lstrip() if text.startswith("-") else f"-{text}"
    return (negated, f"2\\left({text}\\right)", f"\\frac{{1}}{{2}}\\left({text}\\right)")
