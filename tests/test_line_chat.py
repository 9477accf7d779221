"""The line chat in process, over a real agent (litellm over HTTP to the scripted server, a real store):
every command the registry gives it runs its handler and answers in one piece."""

from __future__ import annotations

import io

import pytest

from hermeslite.commands.registry import COMMANDS, LINE
from hermeslite.headless import HeadlessPrinter
from hermeslite.line_chat import LineChat

LINE_COMMANDS = [spec for spec in COMMANDS if spec.available_in(LINE)]


def chat_on(agent) -> tuple[LineChat, io.StringIO, io.StringIO]:
    out, err = io.StringIO(), io.StringIO()
    agent.subscribe(HeadlessPrinter(out, err))  # as the line chat runs: events are printed
    return LineChat(agent, agent.deps.settings, agent.deps.store, out, err), out, err


@pytest.mark.parametrize("spec", LINE_COMMANDS, ids=[s.name for s in LINE_COMMANDS])
async def test_every_line_command_reaches_its_handler(make_agent, spec):
    agent, _ = make_agent()
    chat, out, err = chat_on(agent)
    await chat.handle(spec.slash)
    said = out.getvalue() + err.getvalue()
    assert "Unknown command" not in said and "works only in" not in said
    assert not any(line.startswith(f"{spec.slash}: ") for line in said.splitlines()), said  # the handler raised
    assert said.strip() or chat.done, f"{spec.slash} printed nothing"


async def test_a_handler_that_raises_is_one_line_and_fails_the_chat(make_agent):
    agent, _ = make_agent()
    chat, _, err = chat_on(agent)
    await chat.handle("/resume no-such-session")
    assert err.getvalue().startswith("/resume: ") and len(err.getvalue().splitlines()) == 1
    assert chat.failed and "Traceback" not in err.getvalue()
    await chat.handle("/bogus")
    assert "Unknown command /bogus. Type /help for the list." in err.getvalue()
