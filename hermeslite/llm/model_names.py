"""Whether two model names are the same model: the one rule for every comparison of model identity.

`claude-sonnet-4-5` and `anthropic/claude-sonnet-4-5` reach the same model:
litellm sends a bare name to the provider it infers from the name, and a
prefixed one to the provider named. So a bare name and a prefixed name whose
rest is that bare name are one model, for the config's window rule, windows
learned from providers and the tokenizer calibration alike.

This is a plain prefix rule, not litellm's `get_llm_provider`: that would
import litellm (seconds) wherever names are compared, store look-ups and
`--model` parsing included, and a bare name litellm cannot place fails at its
first request anyway, before anything learned about it could matter. Two
different prefixes stay two models (`openrouter/anthropic/x` is a router, with
its own limits, not `anthropic/x`; `azure/gpt-4o` is a deployment, not
`openai/gpt-4o`).
"""

from __future__ import annotations


def same_model(a: str | None, b: str | None) -> bool:
    """True when `a` and `b` name one model: equal, or one is the other without its provider prefix."""
    if not a or not b:
        return False
    if a == b:
        return True
    if "/" in a and "/" not in b:
        return a.split("/", 1)[1] == b
    if "/" in b and "/" not in a:
        return b.split("/", 1)[1] == a
    return False
