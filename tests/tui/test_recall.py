"""/recall in the TUI, and the model's recall(query=...) after a real compaction, through litellm."""

from __future__ import annotations

import re

from hermeslite.context.handoff import RECOVERY_NOTE
from hermeslite.tui.screens.text_viewer import TextViewer
from tests.server import Reply
from tests.summary_requests import answer_summaries
from tests.tui.pilot import SIZE, ready, send
from tests.tui.screen import screen_text

FILLER = "lorem ipsum dolor sit amet " * 40
VALUE = "KX-991-ALPHA"


async def compacted_session(pilot, scripted_server) -> None:
    """A tool prints a value once, more turns follow, then /compress summarizes it away."""
    scripted_server.enqueue(
        Reply.tool_calls([("terminal", {"command": f"echo the deploy key is {VALUE}"})]),
        Reply.text("The command printed the key."),
    )
    await send(pilot, "print the deploy key")
    for n in range(6):
        scripted_server.enqueue(Reply.text(f"answer {n}"))
        await send(pilot, f"turn {n}: {FILLER}")
    await send(pilot, "/compress")
    assert VALUE not in str(pilot.app.host.agent.messages), "the value should have been compacted away"


async def test_recall_searches_what_was_compacted_and_opens_one(make_app, scripted_server):
    answer_summaries(scripted_server)
    app = make_app(context_window=8_000)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await compacted_session(pilot, scripted_server)
        await send(pilot, "/recall deploy key")
        assert isinstance(app.screen, TextViewer)
        text = screen_text(app)
        assert 'Recall: "deploy key"' in text
        assert "output of terminal" in text and VALUE in text
        assert "/recall <id> shows" in text
        ref = re.search(r"\b(r[0-9a-f]{10}) · output of terminal", text).group(1)
        await pilot.press("escape")
        await pilot.pause()
        await send(pilot, f"/recall {ref}")
        text = screen_text(app)
        assert f"Recall {ref}" in text and "[original output of terminal call" in text and VALUE in text
        await pilot.press("escape")
        await pilot.pause()
        await send(pilot, "/recall kubernetes")
        assert 'No match for "kubernetes"' in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        await send(pilot, "/recall")
        assert "/recall <words> searches what compaction removed" in screen_text(app)


async def test_recall_before_any_compaction_says_there_is_nothing(make_app, scripted_server):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/recall anything")
        assert "Nothing in this session has been compacted yet" in screen_text(app)
        assert scripted_server.requests == []  # a lookup for the user, nothing sent to the model


async def test_the_model_gets_the_note_and_finds_the_value_with_a_query(make_app, scripted_server):
    answer_summaries(scripted_server)
    app = make_app(context_window=8_000)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await compacted_session(pilot, scripted_server)
        scripted_server.enqueue(
            Reply.tool_calls([("recall", {"query": "deploy key"})]), Reply.text(f"The key was {VALUE}.")
        )
        await send(pilot, "what was the deploy key?")
        first, second = scripted_server.requests[-2:]
        assert RECOVERY_NOTE in str(first["messages"])  # the checkpoint tells the model how
        result = second["messages"][-1]
        assert result["role"] == "tool" and VALUE in result["content"]
        assert result["content"].startswith('<tool_output>\n4 matches for "deploy key" among ')
