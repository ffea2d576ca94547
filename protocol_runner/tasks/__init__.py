"""Task sets: questions with exact answers, read from JSONL or local dataset files."""

from protocol_runner.tasks.arith import generate_arith
from protocol_runner.tasks.errors import TaskFormatError
from protocol_runner.tasks.jsonl import read_jsonl, write_jsonl
from protocol_runner.tasks.model import TASK_KINDS, Task
from protocol_runner.tasks.spec import FORMATS, load_tasks, read_dataset
from protocol_runner.tasks.taskset import TaskSet

__all__ = [
    "FORMATS",
    "TASK_KINDS",
    "Task",
    "TaskFormatError",
    "TaskSet",
    "generate_arith",
    "load_tasks",
    "read_dataset",
    "read_jsonl",
    "write_jsonl",
]
