"""A built-in, seeded arithmetic task set with exact answers and typical-slip distractors."""

from __future__ import annotations

import random
from fractions import Fraction

from protocol_runner.tasks.distractors import numeric_distractors
from protocol_runner.tasks.model import Task
from protocol_runner.tasks.taskset import TaskSet
from robustgraph.errors import ParameterError

__all__ = ["generate_arith"]

_OPS = ("+", "-", "*")


def _evaluate(operands: list[int], ops: list[str], *, precedence: bool = True) -> int:
    """Evaluate ``a op b op c ...``: with precedence (``*`` first) or strictly left to right."""
    if not precedence:
        value = operands[0]
        for op, x in zip(ops, operands[1:], strict=True):
            value = value + x if op == "+" else value - x if op == "-" else value * x
        return value
    terms, signs, current = [], [1], operands[0]
    for op, x in zip(ops, operands[1:], strict=True):
        if op == "*":
            current *= x
        else:
            terms.append(current)
            signs.append(1 if op == "+" else -1)
            current = x
    terms.append(current)
    return sum(s * t for s, t in zip(signs, terms, strict=True))


def _draw(rng: random.Random, terms: int, max_operand: int) -> tuple[list[int], list[str]]:
    operands = [rng.randint(2, max_operand) for _ in range(terms)]
    ops = [rng.choice(_OPS) for _ in range(terms - 1)]
    if len(ops) == 1:
        return operands, ops
    # Make operator precedence matter: a sum or difference first, a product after it.
    ops[0] = rng.choice(("+", "-"))
    ops[rng.randrange(1, len(ops))] = "*"
    return operands, ops


def _slips(operands: list[int], ops: list[str], answer: int) -> tuple[Fraction, ...]:
    """Operator-precedence slip first, then the last operator's sign flipped."""
    slips = [_evaluate(operands, ops, precedence=False)]
    flip = {"+": "-", "-": "+"}
    for i in range(len(ops) - 1, -1, -1):
        if ops[i] in flip:
            slips.append(_evaluate(operands, ops[:i] + [flip[ops[i]]] + ops[i + 1 :]))
            break
    return tuple(Fraction(s) for s in slips if s != answer)


def generate_arith(n: int, *, seed: int = 0, terms: int = 4, max_operand: int = 20) -> TaskSet:
    """``n`` integer arithmetic questions such as ``What is 7 + 3 * 12 - 5?`` with exact answers.

    Each expression (of three or more operands) starts with ``+`` or ``-`` and has a later ``*``,
    so that operator precedence matters. Every task
    carries at least three distractors, most plausible first: the left-to-right (precedence) slip,
    the last ``+``/``-`` flipped, a swap of two adjacent digits, off-by-one and a sign slip.

    Parameters
    ----------
    n : int
        Number of tasks (>= 1).
    seed : int
        The same seed gives the same tasks; no global random state is used.
    terms : int
        Most operands per expression (2..8); each task draws between ``min(3, terms)`` and
        ``terms``.
    max_operand : int
        Operands are drawn from ``2..max_operand`` (>= 2).

    Returns
    -------
    TaskSet
        Tasks with ids ``arith-<seed>-<i>``, kind ``math``, source ``arith``.

    Raises
    ------
    ParameterError
        For a parameter out of range.

    Examples
    --------
    >>> ts = generate_arith(2, seed=1)
    >>> [t.id for t in ts], len(ts[0].distractors) >= 3
    (['arith-1-0000', 'arith-1-0001'], True)
    """
    if n < 1:
        raise ParameterError(f"arith: n must be >= 1, got {n}")
    if not 2 <= terms <= 8:
        raise ParameterError(f"arith: terms must be in 2..8, got {terms}")
    if max_operand < 2:
        raise ParameterError(f"arith: max_operand must be >= 2, got {max_operand}")
    rng = random.Random(seed)
    tasks = []
    for i in range(n):
        operands, ops = _draw(rng, rng.randint(min(3, terms), terms), max_operand)
        answer = _evaluate(operands, ops)
        expression = " ".join(
            [str(operands[0])] + [f"{op} {x}" for op, x in zip(ops, operands[1:], strict=True)]
        )
        tasks.append(
            Task(
                id=f"arith-{seed}-{i:04d}",
                question=f"What is {expression}?",
                answer=str(answer),
                kind="math",
                distractors=numeric_distractors(answer, slips=_slips(operands, ops, answer)),
                source="arith",
            )
        )
    return TaskSet(tasks, name=f"arith:{n}:seed={seed}")
