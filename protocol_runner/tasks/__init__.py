"""Task sets: questions with exact answers, read from JSONL or local dataset files."""

from protocol_runner.tasks.model import TASK_KINDS, Task

__all__ = ["TASK_KINDS", "Task"]
