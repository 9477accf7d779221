"""Which messages get the embedded model's "I cannot see your files" hint: asks only a tool can do."""

from __future__ import annotations

import pytest

from hermeslite.agent.tool_asks import asks_for_tools

TOOL_ASKS = [
    "list files in this directory",
    "List the files in the current directory please",
    "what files are here?",
    "Which files did I change?",
    "show me what's in config.yaml",
    "what is in src/app.py",
    "What does main.py do?",
    "read README.md and summarize it",
    "fix the bug in hermeslite/cli.py",
    "summarize my project",
    "look through this repo for TODOs",
    "run the tests",
    "please execute `make build`",
    "install the requirements with pip",
    "run pytest and tell me what fails",
    "delete the old logs in this folder",
    "count the lines of code in the project",
]
CHAT = [
    "hello",
    "Say hello in one short sentence.",
    "how do I list files in bash?",
    "How can I run the tests in a Django project?",
    "what is a git command to show the log?",
    "why does Python have a GIL?",
    "write a haiku about autumn",
    "explain how a hash map works",
    "what is 17 * 23?",
    "translate 'good morning' into French",
    "give me a recipe for pancakes",
    "run a marathon in under four hours: any tips?",
    "what does `ls -la` print?",
    "tell me a joke",
]


@pytest.mark.parametrize("text", TOOL_ASKS)
def test_an_ask_only_a_tool_can_answer_is_seen(text: str) -> None:
    assert asks_for_tools(text)


@pytest.mark.parametrize("text", CHAT)
def test_chat_and_how_to_questions_are_left_alone(text: str) -> None:
    assert not asks_for_tools(text)
