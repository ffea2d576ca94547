"""A built-in, seeded arithmetic task set with exact answers and typical-slip distractors.

The same expressions come in three forms (``form``): ``math`` (the value), ``choice`` (pick the
value among ``options`` options: the value and its most plausible slips) and ``bool`` (is the
expression equal to a shown value, the value or its most plausible slip). The ``choice`` and
``bool`` forms give the ``fixed`` attack an out-of-distribution pool of the run's task kind
(:data:`protocol_runner.protocols.attacks.DEFAULT_OOD_POOLS`).
"""

from __future__ import annotations

import random
from fractions import Fraction

from protocol_runner.tasks.distractors import numeric_distractors
from protocol_runner.tasks.labels import choice_label
from protocol_runner.tasks.model import Task
from protocol_runner.tasks.taskset import TaskSet
from robustgraph.errors import ParameterError

__all__ = ["ARITH_FORMS", "generate_arith"]

_OPS = ("+", "-", "*")
ARITH_FORMS = ("math", "choice", "bool")
MAX_OPTIONS = 5


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


def _in_form(task: Task, form: str, options: int, seed: int, i: int) -> Task:
    """The math ``task`` as a choice or true/false question (its own seeded draw, so the
    expressions are the same in every form)."""
    rng = random.Random(f"arith-{form}|{seed}|{i}")
    expression = task.question.removeprefix("What is ").removesuffix("?")
    ident = f"arith-{form}-{seed}-{i:04d}"
    if form == "bool":
        truth = rng.random() < 0.5
        shown = task.answer if truth else task.distractors[0]
        return Task(ident, f"Is {expression} equal to {shown}?", "true" if truth else "false",
                    kind="bool", source="arith")
    values = [task.answer, *task.distractors[: options - 1]]
    rng.shuffle(values)
    right = values.index(task.answer)
    return Task(ident, task.question, choice_label(right), kind="choice", choices=tuple(values),
                distractors=tuple(choice_label(k) for k in range(len(values)) if k != right),
                source="arith")


def generate_arith(
    n: int, *, seed: int = 0, terms: int = 4, max_operand: int = 20, form: str = "math",
    options: int = 4,
) -> TaskSet:
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
    form : str
        ``math`` (answer the value), ``choice`` (pick it among ``options`` options, labels
        ``answer1..``) or ``bool`` (``Is 7 + 3 * 12 - 5 equal to 38?``, true or false with
        probability 1/2 by seed, the false ones showing the most plausible slip).
    options : int
        Options of a ``choice`` question (2..5).

    Returns
    -------
    TaskSet
        Tasks with ids ``arith-<seed>-<i>`` (other forms ``arith-<form>-<seed>-<i>``), kind
        ``math``, ``choice`` or ``bool``, source ``arith``.

    Raises
    ------
    ParameterError
        For a parameter out of range.

    Examples
    --------
    >>> ts = generate_arith(2, seed=1)
    >>> [t.id for t in ts], len(ts[0].distractors) >= 3
    (['arith-1-0000', 'arith-1-0001'], True)
    >>> print(generate_arith(1, seed=1, form="choice", options=2)[0].presented())
    What is 20 - 4 * 10?
    answer1: -20
    answer2: 160
    """
    if n < 1:
        raise ParameterError(f"arith: n must be >= 1, got {n}")
    if not 2 <= terms <= 8:
        raise ParameterError(f"arith: terms must be in 2..8, got {terms}")
    if max_operand < 2:
        raise ParameterError(f"arith: max_operand must be >= 2, got {max_operand}")
    if form not in ARITH_FORMS:
        raise ParameterError(f"arith: form must be one of {', '.join(ARITH_FORMS)}, got {form!r}")
    if not 2 <= options <= MAX_OPTIONS:
        raise ParameterError(f"arith: options must be in 2..{MAX_OPTIONS}, got {options}")
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
    if form != "math":
        tasks = [_in_form(t, form, options, seed, i) for i, t in enumerate(tasks)]
    return TaskSet(tasks, name=f"arith:{n}:seed={seed}")
