"""The plan behind every pass, and the preview built from it: no model call, no change, no drift."""

from __future__ import annotations

import asyncio
import copy

from hypothesis import given

from hermeslite.context import ContextCompressor
from hermeslite.context.messages import SUMMARY_KEY

from ..builders import Transcript
from .scripted import Scripted, long_session, make
from .test_properties import COMPRESS_SETTINGS, Scenario, scenarios


def state(c: ContextCompressor) -> tuple:
    return (c.previous_summary, c.anchors.to_dict(), c.guard.failures, c.guard.cooldown_until, c.guard.ineffective)


async def test_preview_calls_nothing_changes_nothing_and_matches_the_pass():
    msgs = long_session(turns=30)
    frozen = copy.deepcopy(msgs)
    summarizer = Scripted()
    c = make(summarizer)
    before = state(c)
    preview = c.preview(msgs, "database schema")
    assert not summarizer.calls and state(c) == before and msgs == frozen
    assert preview.summary_call and preview.no_call is None and preview.focus == "database schema"
    assert preview.messages == len(msgs) and preview.tokens_before == sum(make().plan(msgs).tokens)
    result = await c.compress(msgs, "database schema", force=True)
    assert len(summarizer.calls) == 1
    assert preview.summarized.count == result.dropped
    assert preview.head.count + preview.tail.count + preview.summarized.count == len(msgs) - 1  # all but system
    assert preview.summarized.first == preview.head.last + 1 if preview.head.count else preview.summarized.first == 2
    assert preview.tail.last == len(msgs)
    # An estimate, but an honest one: within a fifth of what the pass produced.
    assert abs(preview.estimated_after - result.tokens_after) <= result.tokens_after * 0.2
    text = "\n".join(preview.lines())
    assert f"Summarize: {result.dropped} messages (#{preview.summarized.first}-#{preview.summarized.last})" in text
    assert "Model call: yes" in text and "nothing was sent or changed" in text


async def test_a_prune_only_pass_is_previewed_exactly():
    summarizer = Scripted()
    c = make(summarizer, ctx=60_000)
    msgs = long_session(turns=12, chars=6_000)
    preview = c.preview(msgs, force=False)
    result = await c.compress(msgs)
    assert result.pruned_only and not summarizer.calls
    assert preview.estimated_after == result.tokens_after
    assert (
        preview.pruned == len(result.archived) and preview.pruned_tokens == result.tokens_before - result.tokens_after
    )
    assert not preview.summary_call and preview.no_call == "the prune is enough"
    assert "Model call: no (the prune is enough)" in preview.lines()


async def test_without_a_summarizer_the_preview_sizes_the_code_built_checkpoint():
    c = ContextCompressor(make().config, context_length=20_000, summarize=None, today=lambda: "2026-11-22")
    msgs = long_session(turns=30)
    preview = c.preview(msgs)
    assert not preview.summary_call and "no summarizer is configured" in preview.no_call
    result = await c.compress(msgs, force=True)
    assert result.fallback_used
    assert abs(preview.estimated_after - result.tokens_after) <= result.tokens_after * 0.05


async def test_a_second_pass_is_previewed_as_updating_the_checkpoint():
    c = make(Scripted())
    first = await c.compress(long_session(turns=30), force=True)
    grown = first.messages + long_session(turns=10)[1:]
    fresh = make(Scripted())
    preview = fresh.preview(grown)
    assert preview.updates_checkpoint and "folding in the earlier checkpoint" in "\n".join(preview.lines())
    assert fresh.previous_summary is None  # planning read the checkpoint without adopting it


def test_a_short_session_previews_as_no_change():
    preview = make().preview(Transcript().user("hi").build())
    assert not preview.changes and not preview.summary_call
    assert "After: no change, nothing would be removed" in preview.lines()


async def test_handoff_plan_keeps_only_the_system_prompt_and_the_latest_turn():
    msgs = long_session(turns=30)
    msgs += Transcript(None).user("Now port the CLI to click.").assistant("Will do.").build()
    c = make(Scripted())
    result = await c.execute(c.plan(msgs, "cli", force=True, handoff=True))
    assert result.messages[0]["role"] == "system"
    seeded = result.messages[1]
    assert seeded.get(SUMMARY_KEY) and seeded["content"].endswith("Now port the CLI to click.")
    assert [m["role"] for m in result.messages] == ["system", "user", "assistant"]


@given(scenarios())
@COMPRESS_SETTINGS
def test_the_preview_agrees_with_the_pass(scn: Scenario):
    """Property: previewing calls no model and changes no state, and what it promises is what
    `compress` then does: a summary call exactly when it says so, the same number of
    messages summarized, and the exact size when nothing is summarized."""
    previewer = scn.compressor()
    before = state(previewer)
    preview = previewer.preview(scn.messages, scn.focus, force=scn.force)
    assert scn.summarizers[-1].calls == 0
    assert state(previewer) == before
    doer = scn.compressor()
    result = asyncio.run(doer.compress(scn.messages, focus_topic=scn.focus, force=scn.force))
    assert (scn.summarizers[-1].calls > 0) == preview.summary_call
    if result.summary is not None:
        assert preview.summarized.count == result.dropped
    elif not result.aborted and preview.summarized.count == 0:
        assert preview.estimated_after == result.tokens_after


def test_a_preview_of_a_short_session_counts_small_spans_in_tokens_never_as_zero_k():
    """A span of a few dozen tokens read `~0.0k tokens`."""
    from hermeslite.context.result import format_tokens

    assert [format_tokens(n) for n in (0, 37, 999, 1_000, 4_210, 96_400)] == ["0", "37", "999", "1.0k", "4.2k", "96k"]
    text = "\n".join(make(Scripted()).preview(long_session(turns=30)).lines())
    assert "0.0k" not in text and "~0." not in text
