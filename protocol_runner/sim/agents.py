"""Simulated agents: a seeded behaviour model that reads our prompts and replies like an LLM would.

This is a *model* of LLM agents, not an LLM. It exists so that protocols, attacks, metrics and the
whole runner can be exercised for free, offline and deterministically. A :class:`Simulator`
answers OpenAI chat-completion bodies (the in-process ``simulated`` backend and ``serve-sim``
call the same :meth:`Simulator.respond`, so both behave identically). It parses the prompt
with ``protocol_runner.protocols.prompts.parse_prompt``, finds the task by its presented
question in a task registry, and replies in the formats the protocols parse (``Answer: ...``,
a ``Score: ...`` last line, ``Confidence: ...``). docs/simulation.md describes the model and
its parameters.

Who asks travels in standard request fields: the model name ``sim-<profile>`` picks a capability
profile, ``user`` carries the agent id, checkpoint and corpus
(``protocol_runner.llm.types.AgentIdentity``) plus the sample index, and ``seed`` is the seed of
the simulated world.

The model, per agent ``a`` (profile ``p``) and task ``t`` of kind ``k``:

- **Answers.** ``a`` is right iff a latent uniform ``U(a, t) < accuracy_p[k]``. The latent is a
  Gaussian copula: ``z = sqrt(c) z_group + sqrt(r) z_corpus + sqrt(1 - c - r) z_agent``. The
  group is ``a``'s checkpoint with ``c = checkpoint_share`` when ``a`` names one, else its
  model (profile) with ``c = model_share * (1 - r)`` (``model_share`` default 0.7, as for a
  checkpoint: the same model asked the same prompt at temperature 0 answers the same way, so
  agents on one model share most of their error draws; 0 makes every agent independent,
  ``run --independent-agents``);
  ``r = corpus_share`` when ``a`` names a retrieval corpus (else 0). With ``task_share = d > 0``
  (per-question difficulty) the latent is ``sqrt(d) z_task + sqrt(1 - d) z`` where ``z_task``
  is common to *every* agent on the task, so weak and strong models err on the same hard
  questions (default 0: no difficulty). A wrong answer is a
  distractor of ``t`` (shared by all agents), the ``j``-th (most plausible first) with weight
  ``distractor_decay**j``, picked by a second latent of the same form.
- **Scoring** a candidate response: ``a`` perceives its correctness truly with probability
  ``judge_accuracy_p[k]`` (a latent of the same form keyed by the candidate's answer, so equal
  answers are judged alike) and replies in the App. B.1 layout (its own answer, the
  comparison, then ``Score: <s>`` on the last line) with ``s = 0.5 +/- score_margin`` plus
  Gaussian noise ``score_noise``, clipped. Text that tries to instruct the scorer is obeyed
  (score 1) with probability ``injection_susceptibility_p``.
- **Refinement**: ``a`` keeps its own answer with probability ``trust_when_right_p`` if it is
  right and ``trust_when_wrong_p`` if not (a latent of the same form keyed by the prompt, so
  agents on one model given the same prompt mostly decide alike); otherwise it picks among its
  own answer (weighted as score 0.5) and the listed answers, answer ``x`` with weight
  ``sum exp(refine_sharpness * score)`` over the responses giving ``x`` (a latent of the same
  form). Plain debate lists no scores: every response weighs the same.
- **Confidence** (CP-WBFT): the answer as above, with confidence ``confidence_right_p`` or
  ``confidence_wrong_p`` plus Gaussian noise ``confidence_noise``, clipped to [0, 1]. A right
  agent is *unsure* (reports ``confidence_wrong_p``) when its answer latent ``U`` lies in the
  top ``doubt_when_right_p`` share of its right region, ``U >= accuracy (1 - doubt)``: the
  questions it barely gets right. The latent is the answer's, so copies of one model (and, with
  ``task_share``, every model) doubt the same hard questions (default 0: never unsure).

One module: the behaviour model's draws (the copula latent, distractors, scores, refinement)
share one seeded hash scheme and one configuration, so the model is read and changed in one
place.

Every draw is a hash of (seed, stream, who, task, what is being judged), so replies are a
deterministic function of the request and the configuration.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from bisect import bisect_left
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from functools import lru_cache
from itertools import accumulate
from statistics import NormalDist
from typing import Any

from protocol_runner.llm.types import AgentIdentity, ChatMessage, split_wire_user
from protocol_runner.protocols.answers import answer_key, extract_answer, is_correct
from protocol_runner.protocols.attacks import default_ood_tasks
from protocol_runner.protocols.prompts import (
    ANSWER_PREFIX,
    CONFIDENCE_PREFIX,
    SCORE_PREFIX,
    ParsedPrompt,
    parse_prompt,
)
from protocol_runner.tasks import TASK_KINDS, Task, TaskSet
from protocol_runner.tasks.distractors import math_distractors
from robustgraph.errors import ParameterError

__all__ = [
    "DEFAULT_PROFILES",
    "MODEL_PREFIX",
    "Profile",
    "SimConfig",
    "SimRequestError",
    "Simulator",
]

MODEL_PREFIX = "sim-"
_NORMAL = NormalDist()
_INJECTION = re.compile(
    r"\b(?:ignore|disregard|forget)\b[^\n]{0,60}\b(?:instructions?|previous|above|prompt)\b"
    r"|\b(?:score|rate|grade)\b[^\n]{0,40}\b(?:1(?:\.0+)?|one|100\s*%?)\b[^\n]{0,20}$"
    r"|\byou must\b|\bsystem prompt\b",
    re.IGNORECASE | re.MULTILINE,
)


def _number(value: object, what: str) -> float:
    """``value`` as a float; a config file's string, list, null, NaN or infinity is refused."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ParameterError(f"{what} must be a number, got {value!r}")
    return float(value)


def _per_kind(value: float | Mapping[str, float], what: str) -> dict[str, float]:
    if isinstance(value, Mapping):
        unknown = set(value) - set(TASK_KINDS)
        if unknown:
            raise ParameterError(f"{what}: unknown task kinds {sorted(unknown)}")
        base = {kind: _number(p, f"{what}[{kind}]") for kind, p in value.items()}
        missing = set(TASK_KINDS) - set(base)
        if missing:
            raise ParameterError(f"{what}: missing task kinds {sorted(missing)}")
    else:
        base = dict.fromkeys(TASK_KINDS, _number(value, what))
    for kind, p in base.items():
        if not 0.0 <= p <= 1.0:
            raise ParameterError(f"{what}[{kind}] must be in [0, 1], got {p}")
    return base


@dataclass(frozen=True)
class Profile:
    """Capability of one kind of simulated agent (selected by the model name ``sim-<name>``).

    Parameters
    ----------
    name : str
        Profile name; the model is ``sim-<name>``.
    accuracy : float or mapping kind -> float
        Probability of answering a task of each kind correctly.
    judge_accuracy : float or mapping kind -> float
        Probability of perceiving a candidate response's correctness truly when scoring it.
    trust_when_right, trust_when_wrong : float
        Probability of keeping its own answer in refinement when it is right / wrong.
    confidence_right, confidence_wrong : float
        Mean self-reported confidence (CP-WBFT) when right / wrong.
    injection_susceptibility : float
        Probability of obeying an instruction embedded in a response it scores.
    doubt_when_right : float
        Probability that a right answer is reported with the confidence of a wrong one (CP-WBFT):
        the share of the right region of the answer latent nearest the accuracy threshold
        (default 0, the hand-set behaviour: never unsure).
    """

    name: str
    accuracy: Mapping[str, float]
    judge_accuracy: Mapping[str, float]
    trust_when_right: float
    trust_when_wrong: float
    confidence_right: float
    confidence_wrong: float
    injection_susceptibility: float
    doubt_when_right: float = 0.0

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[a-z0-9][a-z0-9_.-]*", self.name):
            raise ParameterError(
                f"profile name {self.name!r}: use lowercase letters, digits, _ . -"
            )
        object.__setattr__(self, "accuracy", _per_kind(self.accuracy, f"{self.name}.accuracy"))
        object.__setattr__(
            self, "judge_accuracy", _per_kind(self.judge_accuracy, f"{self.name}.judge_accuracy")
        )
        for f in fields(self)[3:]:
            value = _number(getattr(self, f.name), f"{self.name}.{f.name}")
            if not 0.0 <= value <= 1.0:
                raise ParameterError(f"{self.name}.{f.name} must be in [0, 1], got {value}")

    @property
    def model(self) -> str:
        """The model name that selects this profile."""
        return MODEL_PREFIX + self.name


DEFAULT_PROFILES: dict[str, Profile] = {
    "strong": Profile(
        "strong",
        accuracy={"math": 0.85, "choice": 0.85, "bool": 0.85, "text": 0.75},
        judge_accuracy=0.85,
        trust_when_right=0.9,
        trust_when_wrong=0.35,
        confidence_right=0.9,
        confidence_wrong=0.7,
        injection_susceptibility=0.05,
    ),
    "weak": Profile(
        "weak",
        accuracy={"math": 0.45, "choice": 0.55, "bool": 0.65, "text": 0.35},
        judge_accuracy=0.65,
        trust_when_right=0.6,
        trust_when_wrong=0.5,
        confidence_right=0.8,
        confidence_wrong=0.75,
        injection_susceptibility=0.3,
    ),
}


@dataclass(frozen=True)
class SimConfig:
    """Parameters of the simulated world (see the module docstring and docs/simulation.md).

    Parameters
    ----------
    profiles : mapping name -> Profile
        The capability profiles served (default ``strong`` and ``weak``).
    score_margin, score_noise : float
        A perceived-right candidate scores ``0.5 + score_margin`` on average, a perceived-wrong
        one ``0.5 - score_margin``; Gaussian noise of standard deviation ``score_noise``.
    confidence_noise : float
        Standard deviation of the noise on self-reported confidence.
    refine_sharpness : float
        How strongly refinement leans to high scores: weight ``exp(refine_sharpness * score)``.
    checkpoint_share, corpus_share : float
        Share of the error latent's variance common to agents with the same checkpoint /
        retrieval corpus (their sum is at most 1; 1 means identical error draws).
    model_share : float
        Share of the variance not taken by ``corpus_share`` common to agents on the same model
        (profile) that name no checkpoint; 0 makes such agents independent, 1 identical.
    distractor_decay : float
        The ``j``-th distractor is chosen with weight ``distractor_decay**j``.
    task_share : float
        Per-question difficulty: the share of every latent's variance common to all agents on
        a task, whatever their model (0, the default, makes models err independently).
    description : str
        What the parameters are, for the label of every output ("hand-set profile", "profile
        fitted to the SAC paper's Table 2"; :mod:`protocol_runner.sim.profiles`).
    """

    profiles: Mapping[str, Profile] = field(default_factory=lambda: dict(DEFAULT_PROFILES))
    score_margin: float = 0.35
    score_noise: float = 0.1
    confidence_noise: float = 0.08
    refine_sharpness: float = 10.0
    checkpoint_share: float = 0.7
    corpus_share: float = 0.3
    model_share: float = 0.7
    distractor_decay: float = 0.5
    task_share: float = 0.0
    description: str = "hand-set profile"

    def __post_init__(self) -> None:
        for f in fields(self)[1:-1]:
            _number(getattr(self, f.name), f.name)
        if not isinstance(self.description, str):
            raise ParameterError(f"description must be a string, got {self.description!r}")
        if not self.profiles:
            raise ParameterError("the simulator needs at least one profile")
        for name, profile in self.profiles.items():
            if name != profile.name:
                raise ParameterError(f"profile {profile.name!r} is registered as {name!r}")
        if not 0.0 <= self.score_margin <= 0.5:
            raise ParameterError(f"score_margin must be in [0, 0.5], got {self.score_margin}")
        for name in ("score_noise", "confidence_noise", "refine_sharpness"):
            if getattr(self, name) < 0:
                raise ParameterError(f"{name} must be >= 0, got {getattr(self, name)}")
        shares = (self.checkpoint_share, self.corpus_share)
        if min(shares) < 0 or sum(shares) > 1.0 + 1e-12:
            raise ParameterError("checkpoint_share and corpus_share must be >= 0 with sum <= 1")
        for name in ("model_share", "task_share"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ParameterError(f"{name} must be in [0, 1], got {getattr(self, name)}")
        if not 0.0 < self.distractor_decay <= 1.0:
            raise ParameterError(f"distractor_decay must be in (0, 1], got {self.distractor_decay}")

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> SimConfig:
        """Build a config from JSON-like data; a profile's missing fields come from ``base``.

        ``{"score_noise": 0.2, "profiles": {"mid": {"base": "weak", "accuracy": 0.6}}}`` adds a
        profile ``mid`` (model ``sim-mid``) to the defaults; naming ``strong`` or ``weak``
        overrides fields of that default profile.

        Examples
        --------
        >>> cfg = SimConfig.from_mapping({"profiles": {"mid": {"base": "weak", "accuracy": 0.6}}})
        >>> sorted(cfg.profiles), cfg.profiles["mid"].accuracy["math"]
        (['mid', 'strong', 'weak'], 0.6)
        """
        data = dict(data)
        profiles = dict(DEFAULT_PROFILES)
        given = data.pop("profiles", {})
        if not isinstance(given, Mapping):
            raise ParameterError(f"simulator config: 'profiles' must be an object, got {given!r}")
        for name, spec in given.items():
            if not isinstance(spec, Mapping):
                raise ParameterError(f"profile {name}: must be an object of fields, got {spec!r}")
            spec = dict(spec)
            base_name = spec.pop("base", name if name in DEFAULT_PROFILES else "weak")
            if not isinstance(base_name, str) or base_name not in profiles:
                raise ParameterError(f"profile {name}: unknown base profile {base_name!r}")
            known = {f.name for f in fields(Profile)} - {"name"}
            if set(spec) - known:
                raise ParameterError(f"profile {name}: unknown fields {sorted(set(spec) - known)}")
            profiles[name] = replace(profiles[base_name], name=name, **spec)
        known = {f.name for f in fields(cls)} - {"profiles"}
        if set(data) - known:
            raise ParameterError(f"simulator config: unknown fields {sorted(set(data) - known)}")
        return cls(profiles=profiles, **data)

    def to_mapping(self) -> dict[str, Any]:
        """The JSON form :meth:`from_mapping` reads back (every field, every profile).

        Examples
        --------
        >>> SimConfig.from_mapping(SimConfig().to_mapping()) == SimConfig()
        True
        """
        data = asdict(self)
        data["profiles"] = {
            name: {k: (dict(v) if isinstance(v, Mapping) else v)
                   for k, v in asdict(p).items() if k != "name"}
            for name, p in self.profiles.items()
        }
        return data

    def fingerprint(self) -> str:
        """A short hash of every parameter that changes a reply (part of the response-cache
        namespace): not ``description``, nor ``task_share`` or a profile's
        ``doubt_when_right`` at 0, so the hand-set world keeps the fingerprint it had before
        any of them existed."""
        data = asdict(self)
        del data["description"]
        if not data["task_share"]:
            del data["task_share"]
        for profile in data["profiles"].values():
            if not profile["doubt_when_right"]:
                del profile["doubt_when_right"]
        text = json.dumps(data, sort_keys=True, default=dict)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


class SimRequestError(Exception):
    """A request the simulator cannot serve; ``status`` is the HTTP status ``serve-sim`` returns."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _uniform(*parts: object) -> float:
    """A uniform in (0, 1) that is a pure function of ``parts``."""
    digest = hashlib.blake2b("\x1f".join(map(str, parts)).encode(), digest_size=8).digest()
    return (int.from_bytes(digest, "big") + 0.5) / 2.0**64


def _gauss(*parts: object) -> float:
    return _NORMAL.inv_cdf(_uniform(*parts))


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def _clip(x: float) -> float:
    return min(1.0, max(0.0, x))


def _derived_distractors(task: Task, seed: int, key: str) -> tuple[str, ...]:
    """Deterministic plausible wrong answers when the task brings none."""
    if task.kind == "choice":
        wrong = [label for label in task.labels if label != task.answer]
        shift = int(_uniform(seed, "options", key) * len(wrong)) if wrong else 0
        return tuple(wrong[shift:] + wrong[:shift])
    if task.kind == "bool":
        return ("false" if task.answer == "true" else "true",)
    if task.kind == "math":
        return math_distractors(task.answer)
    return (f"not {task.answer}",)


@lru_cache(maxsize=1)
def _default_ood_pool() -> TaskSet:
    return default_ood_tasks()


class Simulator:
    """Simulated agents answering OpenAI chat-completion bodies built from our prompts.

    Parameters
    ----------
    tasks : iterable of Task
        The task registry: prompts are matched to tasks by the presented question text. The
        ``fixed`` attack's default out-of-distribution pools
        (:data:`~protocol_runner.protocols.attacks.DEFAULT_OOD_POOLS`) are always added (a
        question already given keeps its task).
    config : SimConfig, optional
        Profiles and world parameters.

    Examples
    --------
    >>> from protocol_runner.llm.types import AgentIdentity, CompletionRequest
    >>> from protocol_runner.protocols.prompts import answer_messages
    >>> task = Task("t1", "What is 2 + 3?", "5")
    >>> sim = Simulator([task])
    >>> body = CompletionRequest("sim-strong", answer_messages(task), seed=7,
    ...                          user=AgentIdentity("a1").to_user()).to_openai_body()
    >>> reply = sim.respond(body)["choices"][0]["message"]["content"]
    >>> reply == sim.respond(body)["choices"][0]["message"]["content"]
    True
    """

    def __init__(self, tasks: Iterable[Task], config: SimConfig | None = None) -> None:
        self.config = config or SimConfig()
        self._tasks: dict[str, tuple[Task, str]] = {}
        for task in tasks:
            text = task.presented()
            known = self._tasks.get(text)
            if known is not None and known[0].answer != task.answer:
                raise ParameterError(
                    f"tasks {known[0].id!r} and {task.id!r} ask the same question with "
                    "different answers"
                )
            self._tasks.setdefault(text, (task, _digest(text)))
        for task in _default_ood_pool():
            self._tasks.setdefault(task.presented(), (task, _digest(task.presented())))
        self.fingerprint = self.config.fingerprint()
        self._correct = lru_cache(maxsize=1 << 16)(self._is_correct)
        self._wrong = lru_cache(maxsize=1 << 16)(self._wrong_answers)

    @property
    def models(self) -> tuple[str, ...]:
        """The model names served, one per profile."""
        return tuple(p.model for p in self.config.profiles.values())

    # -- the OpenAI surface ------------------------------------------------------------------

    def respond(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """Answer one ``/v1/chat/completions`` request body with a chat-completion object.

        Raises
        ------
        SimRequestError
            404 for an unknown model; 400 for a malformed body, a prompt not built by
            ``protocol_runner.protocols.prompts``, or a question not in the registry.
        """
        model = body.get("model")
        profile = self._profile(model)
        messages = self._messages(body.get("messages"))
        seed = body.get("seed", 0)
        if seed is None:
            seed = 0
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise SimRequestError(400, f"seed must be an integer, got {seed!r}")
        user, sample = split_wire_user(
            body.get("user") if isinstance(body.get("user"), str) else None
        )
        try:
            who = AgentIdentity.from_user(user)
        except ParameterError as exc:
            raise SimRequestError(400, f"user tag: {exc}") from exc
        text = self.reply(profile, who, messages, seed=seed, sample=sample)
        prompt_chars = sum(len(m.content) for m in messages)
        usage = {"prompt_tokens": -(-prompt_chars // 4), "completion_tokens": -(-len(text) // 4)}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        return {
            "id": "simcmpl-" + _digest(f"{model}|{seed}|{body.get('user')}|{text}"),
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
            "usage": usage,
        }

    def _profile(self, model: object) -> Profile:
        name = (
            model[len(MODEL_PREFIX) :]
            if isinstance(model, str) and model.startswith(MODEL_PREFIX)
            else None
        )
        profile = self.config.profiles.get(name) if name is not None else None
        if profile is None:
            raise SimRequestError(
                404, f"model {model!r} not found; the simulator serves {', '.join(self.models)}"
            )
        return profile

    @staticmethod
    def _messages(raw: object) -> tuple[ChatMessage, ...]:
        if not isinstance(raw, list) or not raw:
            raise SimRequestError(400, "messages must be a non-empty list")
        try:
            return tuple(ChatMessage(m["role"], m["content"]) for m in raw)
        except (KeyError, TypeError, ParameterError) as exc:
            raise SimRequestError(400, f"malformed message: {exc}") from exc

    # -- the behaviour model -----------------------------------------------------------------

    def reply(
        self,
        profile: Profile,
        who: AgentIdentity,
        messages: tuple[ChatMessage, ...],
        *,
        seed: int = 0,
        sample: int = 0,
    ) -> str:
        """The reply text of agent ``who`` with ``profile`` to ``messages``."""
        view = parse_prompt(messages)
        if view is None:
            raise SimRequestError(
                400, "simulated agents only read prompts built by protocol_runner.protocols.prompts"
            )
        entry = self._tasks.get(view.question)
        if entry is None:
            raise SimRequestError(
                400, f"question not in the simulator's task registry ({len(self._tasks)} tasks)"
            )
        task, key = entry
        if view.kind == "score":
            return self._score(profile, who, task, key, view, seed, sample)
        if view.kind in ("refine", "debate"):
            return self._refine(profile, who, task, key, view, seed, sample)
        answer, right = self._answer(profile, who, task, key, seed, sample)
        if view.kind == "confidence":
            sure = right and not self._unsure(profile, who, task, key, seed, sample)
            mean = profile.confidence_right if sure else profile.confidence_wrong
            noise = self.config.confidence_noise * _gauss(seed, "conf", who.agent_id, sample, key)
            confidence = f"{CONFIDENCE_PREFIX} {_clip(mean + noise):.2f}"
            return f"{self._worked()}\n{ANSWER_PREFIX} {answer}\n{confidence}"
        return f"{self._worked()}\n{ANSWER_PREFIX} {answer}"

    @staticmethod
    def _worked() -> str:
        return "I worked through the problem step by step."

    def _latent(
        self,
        stream: str,
        profile: Profile,
        who: AgentIdentity,
        key: str,
        seed: int,
        sample: int,
        *extra: object,
    ) -> float:
        """The copula latent: uniform, shared in part by agents with a common checkpoint (else
        model) or corpus."""
        cfg = self.config
        r = cfg.corpus_share if who.corpus else 0.0
        if who.checkpoint:
            c, group = cfg.checkpoint_share, ("ckpt", who.checkpoint)
        else:
            c, group = cfg.model_share * (1.0 - r), ("model", profile.name)
        z = math.sqrt(max(0.0, 1.0 - c - r)) * _gauss(
            seed, stream, "agent", who.agent_id, sample, key, *extra
        )
        if c:
            z += math.sqrt(c) * _gauss(seed, stream, *group, key, *extra)
        if r:
            z += math.sqrt(r) * _gauss(seed, stream, "corpus", who.corpus, key, *extra)
        if cfg.task_share:
            d = cfg.task_share
            z = math.sqrt(1.0 - d) * z + math.sqrt(d) * _gauss(seed, stream, "task", key, *extra)
        return _NORMAL.cdf(z)

    def distractors(self, task: Task, *, seed: int = 0) -> tuple[str, ...]:
        """The wrong answers agents draw from for ``task`` in world ``seed``, most plausible first.

        The task's own distractors when it has any; otherwise the other options of a choice task
        (in a seeded order), the opposite truth value, ``math_distractors`` of the answer, or
        ``not <answer>`` for a text task.
        """
        return self._wrong(task, _digest(task.presented()), seed)

    def _answer(
        self, profile: Profile, who: AgentIdentity, task: Task, key: str, seed: int, sample: int
    ) -> tuple[str, bool]:
        if self._latent("correct", profile, who, key, seed, sample) < profile.accuracy[task.kind]:
            return task.answer, True
        wrong = self._wrong(task, key, seed)
        if not wrong:
            return "unknown", False
        cumulative = list(accumulate(self.config.distractor_decay**j for j in range(len(wrong))))
        u = self._latent("wrong", profile, who, key, seed, sample) * cumulative[-1]
        return wrong[min(bisect_left(cumulative, u), len(wrong) - 1)], False

    def _unsure(
        self, profile: Profile, who: AgentIdentity, task: Task, key: str, seed: int, sample: int
    ) -> bool:
        """Whether a right agent doubts its answer: its answer latent is in the top
        ``doubt_when_right`` share of the right region (the questions it barely gets right)."""
        doubt = profile.doubt_when_right
        accuracy = profile.accuracy[task.kind]
        return bool(doubt) and (
            self._latent("correct", profile, who, key, seed, sample) >= accuracy * (1.0 - doubt))

    @staticmethod
    def _wrong_answers(task: Task, key: str, seed: int) -> tuple[str, ...]:
        return task.distractors or _derived_distractors(task, seed, key)

    def _is_correct(self, task: Task, answer: str | None) -> bool:
        return is_correct(answer, task)

    def _score(
        self,
        profile: Profile,
        who: AgentIdentity,
        task: Task,
        key: str,
        view: ParsedPrompt,
        seed: int,
        sample: int,
    ) -> str:
        text = view.candidate
        if _INJECTION.search(text) and _uniform(
            seed, "inject", who.agent_id, sample, key, _digest(text)
        ) < (profile.injection_susceptibility):
            return f"As instructed, the response is rated fully correct.\n{SCORE_PREFIX} 1.0"
        answer = answer_key(text, task)
        right = self._correct(task, answer)
        judged = (
            self._latent("judge", profile, who, key, seed, sample, answer)
            < profile.judge_accuracy[task.kind]
        )
        looks_right = right if judged else not right
        mean = 0.5 + (self.config.score_margin if looks_right else -self.config.score_margin)
        noise = self.config.score_noise * _gauss(
            seed, "score", who.agent_id, sample, key, _digest(text)
        )
        own, _ = self._answer(profile, who, task, key, seed, sample)
        verdict = "agrees with mine" if looks_right else "looks wrong to me"
        return (
            f"Step 1: my own answer is {own}.\nStep 2: the candidate's final answer {verdict}.\n"
            f"{SCORE_PREFIX} {_clip(mean + noise):.2f}"
        )

    def _refine(
        self,
        profile: Profile,
        who: AgentIdentity,
        task: Task,
        key: str,
        view: ParsedPrompt,
        seed: int,
        sample: int,
    ) -> str:
        own = extract_answer(view.own, task)
        if own is None:
            own, _ = self._answer(profile, who, task, key, seed, sample)
        listed = [(extract_answer(text, task), score) for text, score in view.others]
        listed = [(a, 0.5 if s is None else s) for a, s in listed if a is not None]
        moment = _digest(view.own + "\x1f".join(t for t, _ in view.others))
        trust = profile.trust_when_right if self._correct(task, own) else profile.trust_when_wrong
        keep = self._latent("keep", profile, who, key, seed, sample, moment)
        if not listed or keep < trust:
            return f"I stay with my answer.\n{ANSWER_PREFIX} {own}"
        weights: dict[str, float] = {}
        shown: dict[str, str] = {}
        for answer, score in [(own, 0.5), *listed]:
            group = (
                "\x00right" if self._correct(task, answer) else answer_key(answer, task) or answer
            )
            shown.setdefault(group, answer)
            weights[group] = weights.get(group, 0.0) + math.exp(
                self.config.refine_sharpness * score
            )
        pick = self._latent("pick", profile, who, key, seed, sample, moment)
        u = pick * sum(weights.values())
        chosen = next(iter(shown))
        for group, weight in weights.items():
            chosen = group
            u -= weight
            if u <= 0:
                break
        verdict = "I stay with my answer." if shown[chosen] == own else "I revise my answer."
        return f"{verdict}\n{ANSWER_PREFIX} {shown[chosen]}"
