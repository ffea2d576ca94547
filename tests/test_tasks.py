"""Task sets: the Task value, JSONL, the arithmetic generator, dataset adapters and specs."""

from __future__ import annotations

import doctest
import importlib
import json
from fractions import Fraction
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from protocol_runner.protocols.answers import is_correct
from protocol_runner.tasks import (
    Task,
    TaskFormatError,
    TaskSet,
    generate_arith,
    load_tasks,
    read_dataset,
    read_jsonl,
    write_jsonl,
)
from robustgraph.errors import ParameterError, RobustgraphError

DATA = Path(__file__).parent / "fixtures" / "datasets"
TWO = [{"label": "A", "text": "x"}, {"label": "B", "text": "y"}]


# --- the Task value ------------------------------------------------------------------------


@pytest.mark.parametrize("given", ["B", "b", "(B)", "2", "answer2", "Paris", "choice 2"])
def test_choice_answer_is_canonicalised(given):
    t = Task("q", "Capital of France?", given, kind="choice", choices=("Rome", "Paris", "Oslo"))
    assert t.answer == "answer2"
    assert t.answer_index == 1
    assert t.labels == ("answer1", "answer2", "answer3")


def test_ending_style_and_presentation():
    t = Task("h", "He opens the door and", "ending3", kind="choice", choices=("a", "b", "c", "d"))
    assert t.style == "ending" and t.answer_index == 2
    assert t.presented().splitlines() == [
        "He opens the door and",
        "ending1: a",
        "ending2: b",
        "ending3: c",
        "ending4: d",
    ]


@pytest.mark.parametrize("given, expected", [("yes", "true"), ("True", "true"), ("no", "false")])
def test_bool_answer_is_canonicalised(given, expected):
    t = Task("b", "?", given, kind="bool")
    assert t.answer == expected
    assert t.distractors == ("false" if expected == "true" else "true",)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"kind": "essay"}, "unknown kind"),
        ({"kind": "choice", "choices": ()}, "at least one option"),
        ({"kind": "choice", "choices": ("x", "y"), "answer": "E"}, "names none"),
        (
            {"kind": "choice", "choices": ("x", "y"), "answer": "A", "distractors": ("A",)},
            "not a wrong",
        ),
        ({"kind": "bool", "answer": "maybe"}, "not true/false"),
        ({"id": ""}, "non-empty"),
    ],
)
def test_invalid_tasks_raise_one_family(kwargs, message):
    fields = {"id": "t", "question": "q", "answer": "1", **kwargs}
    with pytest.raises(TaskFormatError, match=message) as info:
        Task(**fields)
    assert isinstance(info.value, RobustgraphError) and isinstance(info.value, ValueError)


# --- the task set --------------------------------------------------------------------------


def test_taskset_lookup_by_id_and_prompt():
    ts = TaskSet(
        [
            Task("a", "What is 2 + 3?", "5"),
            Task("b", "What is 2 + 3? Then double it.", "10"),
            Task("c", "Pick one.", "answer1", kind="choice", choices=("x", "y")),
        ],
        name="demo",
    )
    assert ts["b"].answer == "10" and ts[0].id == "a" and "c" in ts and len(ts[1:]) == 2
    assert ts.find_in("Solve.\nQuestion: What is 2 + 3?\nGive a number.").id == "a"
    assert ts.find_in("<<<BEGIN QUESTION>>>\nWhat is 2 + 3? Then double it.\n<<<END").id == "b"
    assert ts.find_in("inline: Pick one. answer1: x").id == "c"
    assert ts.find_in("What is 3 + 2?") is None
    with pytest.raises(TaskFormatError, match="duplicate task id 'a'"):
        TaskSet([Task("a", "q", "1"), Task("a", "r", "2")], name="dup")


# --- JSONL ---------------------------------------------------------------------------------


def test_jsonl_fixture_reads_every_kind():
    ts = read_jsonl(DATA / "tasks.jsonl")
    assert [t.kind for t in ts] == ["math", "choice", "bool", "text"]
    assert ts["m1"].distractors == ("48", "13")
    assert ts["c1"].answer_index == 1 and ts["b1"].answer == "true"
    assert ts["t1"].source == "hand-written"


def test_jsonl_round_trip(tmp_path):
    original = list(read_jsonl(DATA / "tasks.jsonl")) + list(generate_arith(5, seed=9))
    path = tmp_path / "out.jsonl"
    assert write_jsonl(original, path) == len(original)
    again = read_jsonl(path)
    assert list(again) == original
    assert [t.distractors for t in again] == [t.distractors for t in original]


@pytest.mark.parametrize(
    "line, message",
    [
        ('{"id": "x", "question": "q"', "invalid JSON"),
        ('["not", "an", "object"]', "expected a JSON object"),
        ('{"id": "x", "question": "q"}', "missing field 'answer'"),
        ('{"id": "x", "question": "q", "answer": "1", "colour": "red"}', "unknown field 'colour'"),
        ('{"id": "x", "question": "q", "answer": "1", "kind": "poem"}', "unknown kind"),
        ('{"id": "x", "question": "q", "answer": "1", "choices": "abc"}', "must be a list"),
        (
            '{"id": "x", "question": "q", "answer": "Z", "kind": "choice", "choices": ["a"]}',
            "names none",
        ),
        ('{"id": "m1", "question": "q", "answer": "1"}', "duplicate id 'm1'"),
        ('{"id": "x", "question": "q", "answer": NaN}', "'answer' is nan"),
        ('{"id": "x", "question": "q", "answer": "1", "distractors": [Infinity]}', "not a finite"),
    ],
)
def test_jsonl_errors_name_file_and_line(tmp_path, line, message):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "m1", "question": "q", "answer": "1"}\n\n' + line + "\n")
    with pytest.raises(TaskFormatError, match=message) as info:
        read_jsonl(path)
    text = str(info.value)
    assert text.startswith(f"{path}:3: ") and "\n" not in text


# --- the arithmetic generator --------------------------------------------------------------


def _evaluate(question: str) -> int:
    expression = question.removeprefix("What is ").removesuffix("?")
    assert set(expression) <= set("0123456789 +-*")
    return eval(expression)  # noqa: S307 -- the test's own oracle on a checked digits-and-operators string


def test_arith_answers_are_exact_and_seeded():
    a, b, c = generate_arith(60, seed=3), generate_arith(60, seed=3), generate_arith(60, seed=4)
    assert list(a) == list(b) and list(a) != list(c)
    for task in a:
        assert int(task.answer) == _evaluate(task.question)
        assert "*" in task.question and ("+" in task.question or "-" in task.question[8:])
        assert len(task.distractors) >= 3 and len(set(task.distractors)) == len(task.distractors)
        assert not any(is_correct(d, task) for d in task.distractors)
        assert is_correct(task.answer, task)


def test_arith_distractors_contain_typical_slips():
    precedence = swap = 0
    for task in generate_arith(100, seed=1):
        answer = int(task.answer)
        expression = task.question.removeprefix("What is ").removesuffix("?").split()
        left_to_right = int(expression[0])
        for op, x in zip(expression[1::2], expression[2::2], strict=True):
            left_to_right = {"+": left_to_right + int(x), "-": left_to_right - int(x)}.get(
                op, left_to_right * int(x)
            )
        values = [Fraction(d) for d in task.distractors]
        if left_to_right != answer:
            assert values[0] == left_to_right
            precedence += 1
        assert answer + 1 in values or answer - 1 in values or len(values) >= 4
        swap += any(sorted(str(abs(v))) == sorted(str(abs(answer))) and v != answer for v in values)
    assert precedence > 90 and swap > 50


@pytest.mark.parametrize("kwargs", [{"n": 0}, {"n": 5, "terms": 1}, {"n": 5, "max_operand": 1}])
def test_arith_rejects_bad_parameters(kwargs):
    with pytest.raises(ParameterError):
        generate_arith(**kwargs)


# --- dataset adapters ----------------------------------------------------------------------


def test_gsm8k():
    ts = read_dataset("gsm8k", DATA / "gsm8k.jsonl")
    assert [t.answer for t in ts] == ["31", "1250", "25"]
    assert ts[0].id == "gsm8k-00000" and ts[0].source == "gsm8k" and ts[0].kind == "math"
    assert len(ts[1].distractors) >= 3 and "1250" not in ts[1].distractors


def test_math_folder_and_math500():
    folder = read_dataset("math", DATA / "math")
    assert [t.answer for t in folder] == ["\\frac{7}{2}", "2\\sqrt{2}"]
    assert is_correct("x = 3.5", folder[0]) and is_correct("\\sqrt{8}", folder[1])
    five = read_dataset("math500", DATA / "math500.jsonl")
    assert five[0].id == "test/algebra/9001.json" and five[0].answer == "(3,2)"
    assert is_correct("The pair is $\\boxed{(3, 2)}$", five[0])
    assert not is_correct("\\boxed{(2, 3)}", five[0])


def test_arc_obqa_csqa_released_and_hub_layouts():
    arc = read_dataset("arc", DATA / "arc_challenge.jsonl")
    assert arc["Fixture_ARC_1"].answer == "answer2" and arc["Fixture_ARC_1"].choices[1] == "copper"
    assert arc["Fixture_ARC_2"].answer == "answer2"  # digit label "2" is the second option, "6"
    assert arc["Fixture_ARC_1"].distractors == ("answer1", "answer3", "answer4")
    obqa = read_dataset("openbookqa", DATA / "openbookqa.jsonl")
    hub = read_dataset("obqa", DATA / "openbookqa_hub.jsonl")
    assert obqa[0].answer == "answer2" and hub[0].choices[1] == "a candle flame"
    assert hub[0].question == "Which of these is a source of light?"
    csqa = read_dataset("csqa", DATA / "commonsenseqa.jsonl")
    assert csqa[0].answer == "answer5" and len(csqa[0].choices) == 5
    assert is_correct("Answer: coat rack", csqa[0]) and is_correct("E", csqa[0])


def test_hellaswag_int_and_string_labels():
    ts = read_dataset("hellaswag", DATA / "hellaswag.jsonl")
    assert [t.answer for t in ts] == ["ending3", "ending1"]
    assert ts[0].id == "11" and ts[0].question.startswith("Making tea: A man fills a kettle")
    assert is_correct("Final answer: ending3", ts[0]) and not is_correct("ending2", ts[0])


def test_boolq_and_rte():
    boolq = read_dataset("boolq", DATA / "boolq.jsonl")
    assert [t.answer for t in boolq] == ["true", "false"]
    assert "Question: is the sun a star?" in boolq[0].question
    glue = read_dataset("boolq", DATA / "boolq_superglue.jsonl")
    assert glue[0].answer == "true" and glue[0].id == "0"
    rte = read_dataset("rte", DATA / "rte.jsonl")
    assert [t.answer for t in rte] == ["true", "false"]
    assert is_correct("No.", rte[1]) and is_correct("not_entailment", rte[1])


def _write_parquet(path: Path, rows: list[dict]) -> None:
    pq.write_table(pa.Table.from_pylist(rows), path)


def test_parquet_hub_layouts(tmp_path):
    arc = tmp_path / "arc.parquet"
    _write_parquet(
        arc,
        [
            {
                "id": f"pq-{i}",
                "question": f"Question {i}?",
                "choices": {"text": ["w", "x", "y", "z"], "label": ["A", "B", "C", "D"]},
                "answerKey": "ABCD"[i % 4],
            }
            for i in range(6)
        ],
    )
    ts = load_tasks(f"arc:{arc}:4:offset=1")
    assert [t.id for t in ts] == ["pq-1", "pq-2", "pq-3", "pq-4"]
    assert [t.answer for t in ts] == ["answer2", "answer3", "answer4", "answer1"]
    rte = tmp_path / "rte.parquet"
    _write_parquet(
        rte,
        [
            {"sentence1": "It rained.", "sentence2": "The ground got wet.", "label": 0, "idx": 0},
            {"sentence1": "It rained.", "sentence2": "It was dry.", "label": 1, "idx": 1},
        ],
    )
    assert [t.answer for t in load_tasks(f"rte:{rte}")] == ["true", "false"]
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"PAR1 not really")
    with pytest.raises(TaskFormatError, match="not a readable Parquet file"):
        load_tasks(f"arc:{broken}")


def test_parquet_files_are_held_to_the_input_budgets(tmp_path, monkeypatch):
    """A Parquet task file obeys the bytes budget, and its row groups' uncompressed size (from
    its metadata) the decompressed-bytes budget, before any row is decoded (issue 31)."""
    path = tmp_path / "arc.parquet"
    _write_parquet(path, [{"id": f"q{i}", "question": f"{i} " + "x" * 2_000, "choices": {
        "text": ["a", "b"], "label": ["A", "B"]}, "answerKey": "A"} for i in range(50)])
    assert len(load_tasks(f"arc:{path}")) == 50
    monkeypatch.setenv("ROBUSTGRAPH_MAX_INFLATED", "50000")
    with pytest.raises(ParameterError, match="uncompressed bytes: .* ROBUSTGRAPH_MAX_INFLATED"):
        load_tasks(f"arc:{path}")
    monkeypatch.setenv("ROBUSTGRAPH_MAX_BYTES", "100")
    with pytest.raises(ParameterError, match="Parquet file's bytes: .* ROBUSTGRAPH_MAX_BYTES"):
        load_tasks(f"arc:{path}")


@pytest.mark.parametrize(
    "fmt, record, message",
    [
        ("gsm8k", {"question": "q", "answer": "no marker"}, "no '#### <number>'"),
        ("gsm8k", {"answer": "#### 3"}, "missing field 'question'"),
        ("math", {"problem": "p", "solution": "no box"}, "no \\\\boxed"),
        ("arc", {"question": "q", "choices": {"label": ["A"], "text": ["x", "y"]}}, "equal-length"),
        ("arc", {"question": "q", "choices": TWO, "answerKey": ""}, "unlabelled test split"),
        ("csqa", {"question": "q", "choices": TWO, "answerKey": "C"}, "not one of the labels"),
        ("hellaswag", {"ctx": "c", "endings": ["a", "b"], "label": ""}, "unlabelled test split"),
        ("hellaswag", {"ctx": "c", "endings": ["a", "b"], "label": 5}, "outside 0..1"),
        ("boolq", {"question": "q", "passage": "p", "answer": "maybe"}, "true/false or 1/0"),
        ("rte", {"premise": "p", "hypothesis": "h", "label": -1}, "unlabelled test split"),
        ("rte", {"premise": "p", "label": 0}, "missing field 'hypothesis' \\(or 'sentence2'\\)"),
    ],
)
def test_adapter_errors_name_file_and_line(tmp_path, fmt, record, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(record) + "\n")
    with pytest.raises(TaskFormatError, match=message) as info:
        read_dataset(fmt, path)
    assert str(info.value).startswith(f"{path}:1: ")


# --- specs ---------------------------------------------------------------------------------


def test_specs():
    assert len(load_tasks("arith:100")) == 100
    seeded = load_tasks("arith:10:seed=3:terms=3:max=9")
    assert seeded.name == "arith:10:seed=3:terms=3:max=9"
    assert all(t.question.count(" ") <= 6 for t in seeded)
    assert list(seeded) != list(load_tasks("arith:10:seed=4:terms=3:max=9"))
    assert len(load_tasks(f"gsm8k:{DATA / 'gsm8k.jsonl'}:2")) == 2
    assert len(load_tasks(f"gsm8k:{DATA / 'gsm8k.jsonl'}:limit=1")) == 1
    assert [t.id for t in load_tasks(f"jsonl:{DATA / 'tasks.jsonl'}")] == ["m1", "c1", "b1", "t1"]
    assert len(load_tasks(str(DATA / "tasks.jsonl"))) == 4
    assert len(load_tasks(f"math:{DATA / 'math'}")) == 2


def test_spec_path_with_colon(tmp_path):
    folder = tmp_path / "a:b"
    folder.mkdir()
    write_jsonl(generate_arith(3), folder / "t.jsonl")
    assert len(load_tasks(f"jsonl:{folder / 't.jsonl'}:2")) == 2


@pytest.mark.parametrize(
    "spec, error, message",
    [
        ("squad:data.jsonl", ParameterError, "unknown source 'squad'"),
        ("arith", ParameterError, "unknown source"),
        ("arith:many", ParameterError, "N must be an integer"),
        ("arith:5:seed=x", ParameterError, "seed must be an integer"),
        ("arith:5:colour=red", ParameterError, "unknown option 'colour'"),
        ("arith:0", ParameterError, "n must be >= 1"),
        ("gsm8k:", ParameterError, "missing the file path"),
        ("gsm8k:/no/such/file.jsonl", TaskFormatError, "no such file"),
        ("gsm8k:/no/such/file.jsonl:5:offset=-1", ParameterError, "offset must be >= 0"),
        ("gsm8k:/no/such/file.jsonl:offset=1:offset=2", ParameterError, "given twice"),
        ("no/such/tasks.jsonl", TaskFormatError, "no/such/tasks.jsonl: no such file"),
    ],
)
def test_bad_specs_are_one_line_errors(spec, error, message):
    with pytest.raises(error, match=message) as info:
        load_tasks(spec)
    assert "\n" not in str(info.value) and isinstance(info.value, RobustgraphError)


def test_unknown_file_type_and_empty_folder(tmp_path):
    (tmp_path / "data.csv").write_text("a,b\n")
    with pytest.raises(TaskFormatError, match="unknown file type '.csv'"):
        load_tasks(f"gsm8k:{tmp_path / 'data.csv'}")
    (tmp_path / "empty").mkdir()
    with pytest.raises(TaskFormatError, match="holds no"):
        load_tasks(f"math:{tmp_path / 'empty'}")


# --- docstring examples --------------------------------------------------------------------


@pytest.mark.parametrize(
    "module",
    [
        "protocol_runner.protocols.answers",
        "protocol_runner.tasks.arith",
        "protocol_runner.tasks.bool_sets",
        "protocol_runner.tasks.choice_sets",
        "protocol_runner.tasks.commonsense30",
        "protocol_runner.tasks.distractors",
        "protocol_runner.tasks.jsonl",
        "protocol_runner.tasks.labels",
        "protocol_runner.tasks.latex",
        "protocol_runner.tasks.math_sets",
        "protocol_runner.tasks.mathexpr",
        "protocol_runner.tasks.model",
        "protocol_runner.tasks.records",
        "protocol_runner.tasks.spec",
        "protocol_runner.tasks.taskset",
    ],
)
def test_docstring_examples_run(module):
    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0


# -- commonsense30: the SAC paper's App. C Table 8 ------------------------------------------------
def test_commonsense30_is_table_8():
    """30 instances, unique qids, each answer parses under its own kind and native labels."""
    from protocol_runner.protocols.answers import extract_answer

    tasks = load_tasks("commonsense30")
    assert len(tasks) == 30 and len({t.id for t in tasks}) == 30
    kinds = [t.kind for t in tasks]
    assert kinds.count("bool") == 15 and kinds.count("choice") == 15
    assert sum(t.answer == "true" for t in tasks if t.kind == "bool") == 11
    styles = {t.style for t in tasks if t.kind == "choice"}
    assert styles == {"option", "answer", "solution", "ending"}
    for task in tasks:
        assert extract_answer(f"Reasoning.\nAnswer: {task.answer}", task) == task.answer
        assert is_correct(task.answer, task)
        assert "Table 8" in task.source
    # spot checks against the table: labels as released, in the native style
    assert tasks["0c7abae6"].answer == "false"
    assert tasks["25040642"].answer == "solution2" and tasks["25040642"].labels == (
        "solution1", "solution2")
    assert tasks["612a4066"].answer == "answer3" and len(tasks["612a4066"].choices) == 3
    assert tasks["e47d4d28"].answer == "ending2"
    assert tasks["263ebb80"].presented().splitlines()[1:] == ["option1: needle", "option2: floss"]


def test_commonsense30_spec_options_and_errors():
    assert [t.id for t in load_tasks("commonsense30:2:offset=15")] == ["263ebb80", "c3a49074"]
    assert load_tasks("commonsense30:limit=3").name == "commonsense30:limit=3"
    for bad in ("commonsense30:x", "commonsense30:offset=-1", "commonsense30:a:b"):
        with pytest.raises(ParameterError):
            load_tasks(bad)


@pytest.mark.parametrize("style", ["option", "solution"])
def test_native_choice_styles_are_kept(style):
    t = Task("p", "Pick.", f"{style} 2", kind="choice", choices=("x", "y"))
    assert t.answer == f"{style}2" and t.labels == (f"{style}1", f"{style}2")
    assert is_correct(f"{style}2", t) and is_correct("B", t) and not is_correct("answer1", t)
