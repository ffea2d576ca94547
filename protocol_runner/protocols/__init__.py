"""Consensus protocols among LLM agents on a graph: SAC and its baselines on one round engine
(:mod:`~protocol_runner.protocols.engine`), the attacks, the prompts every protocol builds and
the answer parsing every protocol shares; :data:`~protocol_runner.protocols.registry.PROTOCOLS`
maps each name ``robustgraph run --protocols`` accepts to its class.
"""

from robustgraph.lazy import lazy_exports

_EXPORTS = {
    "answers": ("answer_key", "equivalent", "extract_answer", "is_correct", "strip_thinking"),
    "attacks": (
        "ATTACKS", "AttackSpec", "INJECTION_TEXT", "Message", "adversary_message", "fixed_question",
        "parse_attack", "wrong_answers",
    ),
    "cpwbft": ("CONFIDENCE_THRESHOLD", "CPWBFT", "cpwbft_aggregate"),
    "crs": (
        "CONTRIBUTIONS", "CrS", "CrSBiased", "CrSConfig", "CrSRandom", "CrSTruth", "JudgeOnly",
        "shapley_contributions", "update_credibility",
    ),
    "debate": ("Debate",),
    "engine": (
        "EngineConfig", "Network", "Outcome", "Protocol", "QueryContext", "Reply", "RoundProtocol",
        "key_of", "plurality",
    ),
    "majority": ("Majority",),
    "prompts": (
        "ANSWER_PREFIX", "CONFIDENCE_PREFIX", "DEFAULT_QUOTE_CHARS", "DOCUMENT_CHARS",
        "PROMPT_KINDS", "ParsedPrompt", "SYSTEM_PROMPT", "answer_messages", "confidence_messages",
        "debate_messages", "parse_answer", "parse_confidence", "parse_prompt", "parse_score",
        "quote", "refine_messages", "score_messages",
    ),
    "registry": ("PROTOCOLS",),
    "sac": ("SAC", "sac_filter"),
}
__all__ = sorted(name for names in _EXPORTS.values() for name in names)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
