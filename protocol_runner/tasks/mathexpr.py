"""A small, safe parser from answer notation (plain or LaTeX) to sympy, and value equality.

Answers come from model replies, so nothing here evaluates text: a tokeniser with a fixed
vocabulary feeds a recursive-descent parser that builds sympy objects directly. Inputs are bounded
(length, token count, exponent size), so a hostile reply cannot make the check slow or crash it.
Equality of two expressions is decided exactly for rationals and numerically (40 digits) otherwise;
with free symbols, at fixed sample points -- the standard randomised identity test
(Schwartz 1980, Zippel 1979), here with deterministic points.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["MAX_CHARS", "parse_expression", "same_value"]

MAX_CHARS = 300
_MAX_TOKENS = 150
_MAX_EXPONENT = 1000
_MAX_DIGITS = 5000

_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+(?:\.\d*)?|\.\d+)|(?P<cmd>\\[A-Za-z]+)|(?P<word>[A-Za-z]+)"
    r"|(?P<op>\*\*|[-+*/^(){}\[\]×·÷√]))"
)
_FUNCTIONS = ("sqrt", "sin", "cos", "tan", "ln", "log", "exp")
_CONSTANTS = ("pi", "infty", "inf", "oo")
_BINARY_OPS = {"\\cdot": "*", "\\times": "*", "\\div": "/", "×": "*", "·": "*", "÷": "/", "**": "^"}
_SAMPLE_POINTS = ("13/17", "7/5", "-11/7", "5/3", "19/23", "-3/11")


class _Reject(Exception):
    """The input is outside the accepted notation or size."""


def _tokenize(text: str) -> list[tuple[str, str]]:
    tokens, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match or match.end() == pos:
            raise _Reject(text[pos:])
        pos = match.end()
        kind = match.lastgroup
        value = match.group(kind)
        if kind == "cmd":
            name = value[1:]
            if value in _BINARY_OPS:
                tokens.append(("op", _BINARY_OPS[value]))
            elif name in ("frac", "sqrt") or name in _FUNCTIONS or name in _CONSTANTS:
                tokens.append(("cmd" if name in ("frac", "sqrt") else "word", name))
            else:
                raise _Reject(value)
        elif kind == "word":
            tokens.extend(_split_word(value))
        elif kind == "op":
            tokens.append(
                ("op", _BINARY_OPS.get(value, value)) if value != "√" else ("cmd", "sqrt")
            )
        else:
            tokens.append((kind, value))
        if len(tokens) > _MAX_TOKENS:
            raise _Reject("too long")
    return tokens


def _split_word(word: str) -> list[tuple[str, str]]:
    if word in _FUNCTIONS or word in _CONSTANTS:
        return [("word", word)]
    if len(word) > 3:  # a word, not a product of symbols such as ``xy`` or ``abc``
        raise _Reject(word)
    return [("word", ch) for ch in word]


class _Parser:
    """expr := term (('+'|'-') term)*; term := unary (('*'|'/'|implicit) unary)*;
    unary := ('-'|'+') unary | power; power := atom ('^' unary)?"""

    def __init__(self, tokens: list[tuple[str, str]], sympy: Any) -> None:
        self.tokens, self.pos, self.sp = tokens, 0, sympy

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, value: str | None = None) -> tuple[str, str]:
        token = self.peek()
        if token is None or (value is not None and token[1] != value):
            raise _Reject(f"expected {value}")
        self.pos += 1
        return token

    def parse(self) -> Any:
        expr = self.expr()
        if self.peek() is not None:
            raise _Reject("trailing input")
        return expr

    def expr(self) -> Any:
        value = self.term()
        while self.peek() in (("op", "+"), ("op", "-")):
            op = self.take()[1]
            right = self.term()
            value = value + right if op == "+" else value - right
        return value

    def _starts_atom(self) -> bool:
        token = self.peek()
        return token is not None and (token[0] in ("num", "word", "cmd") or token[1] in "({[")

    def term(self) -> Any:
        value = self.unary()
        while True:
            token = self.peek()
            if token in (("op", "*"), ("op", "/")):
                self.take()
                right = self.unary()
                if token[1] == "/":
                    if right == 0:
                        raise _Reject("division by zero")
                    value = value / right
                else:
                    value = value * right
            elif self._starts_atom():
                value = value * self.power()
            else:
                return value

    def unary(self) -> Any:
        if self.peek() == ("op", "-"):
            self.take()
            return -self.unary()
        if self.peek() == ("op", "+"):
            self.take()
            return self.unary()
        return self.power()

    def power(self) -> Any:
        base = self.atom()
        if self.peek() == ("op", "^"):
            self.take()
            return self._pow(base, self.unary())
        return base

    def _pow(self, base: Any, exponent: Any) -> Any:
        sp = self.sp
        if not exponent.free_symbols:
            size = abs(sp.N(exponent, 15))
            if not size.is_finite or size > _MAX_EXPONENT:
                raise _Reject("exponent too large")
            if not base.free_symbols and base.is_number:
                magnitude = abs(sp.N(base, 15))
                if magnitude.is_finite and magnitude > 1:
                    if float(size) * float(sp.log(magnitude, 10)) > _MAX_DIGITS:
                        raise _Reject("power too large")
        if base == 0 and exponent.is_negative:
            raise _Reject("division by zero")
        return sp.Pow(base, exponent)

    def group(self) -> Any:
        opener = self.take()[1]
        if opener not in "({[":
            raise _Reject("expected a group")
        inner = self.expr()
        self.take({"(": ")", "{": "}", "[": "]"}[opener])
        return inner

    def braced_or_atom(self) -> Any:
        if self.peek() in (("op", "{"), ("op", "(")):
            return self.group()
        token = self.take()
        if token[0] == "num" and token[1].isdigit():  # \frac12: one digit per argument
            head, rest = token[1][0], token[1][1:]
            if rest:
                self.pos -= 1
                self.tokens[self.pos] = ("num", rest)
            return self.sp.Integer(head)
        self.pos -= 1
        return self.atom()

    def atom(self) -> Any:
        sp = self.sp
        kind, value = self.take()
        if kind == "num":
            return sp.Rational(value)
        if kind == "op" and value in "({[":
            self.pos -= 1
            return self.group()
        if kind == "cmd" and value == "frac":
            numerator = self.braced_or_atom()
            denominator = self.braced_or_atom()
            if denominator == 0:
                raise _Reject("division by zero")
            return numerator / denominator
        if kind == "cmd" and value == "sqrt":
            if self.peek() == ("op", "["):
                self.take()
                index = self.expr()
                self.take("]")
                radicand = self.braced_or_atom()
                if index == 0 or index.free_symbols:
                    raise _Reject("root index")
                return self._pow(radicand, 1 / index)
            return sp.sqrt(self.braced_or_atom())
        if kind == "word":
            if value == "pi":
                return sp.pi
            if value in ("infty", "inf", "oo"):
                return sp.oo
            if value in _FUNCTIONS:
                function = {"ln": sp.log, "log": sp.log, "sqrt": sp.sqrt}.get(value)
                argument = (
                    self.power() if self.peek() not in (("op", "("), ("op", "{")) else self.group()
                )
                return (function or getattr(sp, value))(argument)
            return sp.Symbol(value)
        raise _Reject(f"unexpected {value}")


def parse_expression(text: str) -> Any | None:
    """A sympy expression for ``text`` (plain or LaTeX notation), or ``None`` if it is not one.

    Accepted: numbers, single-letter symbols (``xy`` is ``x*y``; unknown words of four or more
    letters are rejected), ``+ - * / ^``, implicit
    multiplication, brackets and braces, ``\\frac``, ``\\sqrt`` (with index), ``\\pi``, ``\\infty``,
    ``\\cdot``, ``\\times``, ``\\div`` and ``sin cos tan ln log exp``. Anything else, and any input
    over ``MAX_CHARS`` characters, is rejected rather than guessed.

    Examples
    --------
    >>> parse_expression(r"\\frac{1}{2}\\sqrt{8}")
    sqrt(2)
    >>> parse_expression("import os") is None
    True
    """
    if len(text) > MAX_CHARS or not text.strip():
        return None
    import sympy

    try:
        tokens = _tokenize(text)
        return _Parser(tokens, sympy).parse()
    except (_Reject, ValueError, TypeError, ZeroDivisionError, OverflowError, RecursionError):
        return None


def _close(a: Any, b: Any, sympy: Any) -> bool | None:
    """Whether two closed-form numbers agree to 30 digits; None when either is not finite."""
    va, vb = sympy.N(a, 40), sympy.N(b, 40)
    if not (va.is_number and vb.is_number) or va.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
        return None
    if vb.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
        return None
    scale = sympy.Max(1, sympy.Abs(va), sympy.Abs(vb))
    return bool(sympy.Abs(sympy.N(va - vb, 40)) <= sympy.Float("1e-30", 40) * scale)


def same_value(a: Any, b: Any) -> bool:
    """Whether two parsed expressions are equal as values.

    Rationals compare exactly; other closed forms numerically to 30 significant digits; with
    symbols, both sides are evaluated at up to six fixed rational points (at least two must be
    defined, and every defined point must agree). Infinities only equal themselves.

    Examples
    --------
    >>> same_value(parse_expression("(x+1)^2"), parse_expression("x^2+2x+1"))
    True
    >>> same_value(parse_expression("1/3"), parse_expression("0.3333333333"))
    False
    """
    import sympy

    try:
        if a == b:
            return True
        if a.is_Rational and b.is_Rational:
            return False
        symbols = sorted(a.free_symbols | b.free_symbols, key=lambda s: s.name)
        if not symbols:
            return bool(_close(a, b, sympy))
        agreed = 0
        for shift in range(len(_SAMPLE_POINTS)):
            point = {
                s: sympy.Rational(_SAMPLE_POINTS[(shift + i) % len(_SAMPLE_POINTS)])
                for i, s in enumerate(symbols)
            }
            verdict = _close(a.subs(point), b.subs(point), sympy)
            if verdict is False:
                return False
            agreed += verdict is True
        return agreed >= 2
    except (
        TypeError,
        ValueError,
        ZeroDivisionError,
        OverflowError,
        RecursionError,
        AttributeError,
    ):
        return False
