"""A window that leaves the checkpoint too little for a model summary: no model call, the checkpoint by code."""

from __future__ import annotations

import asyncio

from hermeslite.context import CompressionConfig, ContextCompressor

from ..builders import FILLER, Transcript
from ..summary_requests import checkpoint

SCHEMAS = 1_725  # what hermeslite's own tool schemas take of every request


def _session() -> list[dict]:
    t = Transcript("You are a coding agent.")
    for n in range(4):
        t.user(f"turn {n}: {FILLER[:600]}").tool("terminal", {"command": f"make t{n}"}, "ok\n[exit code: 0]")
        t.assistant("done")
    return t.user("and the next one").build()


def _compressor(window: int, **cfg: object) -> tuple[ContextCompressor, list[str]]:
    prompts: list[str] = []

    async def summarize(prompt: str, model: str | None) -> str:
        prompts.append(prompt)
        return checkpoint()

    c = ContextCompressor(CompressionConfig(**cfg), context_length=window, summarize=summarize)
    c.request_overhead_tokens = SCHEMAS
    return c, prompts


def test_at_3500_tokens_the_checkpoint_is_built_by_code_without_asking_the_model():
    c, prompts = _compressor(3_500)
    plan = c.plan(_session(), force=True)
    assert plan.small_window and plan.no_call and "under the 400 (compression.min_summary_tokens)" in plan.no_call
    result = asyncio.run(c.compress(_session(), force=True))
    assert prompts == [] and result.fallback_used and result.changed
    assert result.error and result.error.startswith("skipped: the context window leaves the checkpoint ~")
    assert "without a model-written summary" in (result.summary or "")
    assert not c.guard.cooling_down()  # a skipped call is not a failure
    assert "Model call: no (skipped: the context window leaves" in "\n".join(c.preview(_session()).lines())


def test_a_window_with_room_for_a_summary_asks_the_model_and_the_floor_can_be_lowered():
    c, prompts = _compressor(32_000)
    assert not c.plan(_session(), force=True).small_window
    asyncio.run(c.compress(_session(), force=True))
    assert len(prompts) == 1
    c, prompts = _compressor(3_500, min_summary_tokens=0)
    assert not c.plan(_session(), force=True).small_window
    asyncio.run(c.compress(_session(), force=True))
    assert prompts
