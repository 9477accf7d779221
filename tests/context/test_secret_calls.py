"""A tool call's arguments are masked value by value and stay what the provider accepts."""

from __future__ import annotations

import json

from hermeslite.context.secret_calls import masked_arguments, with_masked_calls
from tests.secret_samples import fake

TOKEN = "ghp_" + fake(36, seed=21)


def _call(arguments: object) -> dict[str, object]:
    return {"id": "call_0", "type": "function", "function": {"name": "terminal", "arguments": arguments}}


def test_json_arguments_stay_json_with_nested_values_masked():
    raw = json.dumps({"command": f"curl -H 'Authorization: token {TOKEN}' x", "env": [{"k": TOKEN}], "n": 3})
    out = masked_arguments(raw)
    assert TOKEN not in out
    parsed = json.loads(out)
    assert parsed["n"] == 3 and "[REDACTED]" in parsed["command"] and "[REDACTED]" in parsed["env"][0]["k"]


def test_clean_arguments_are_returned_byte_for_byte():
    raw = '{"command":  "ls -la"}'  # the provider's own spacing: a cached prefix must keep matching
    assert masked_arguments(raw) is raw
    message = {"role": "assistant", "content": "", "tool_calls": [_call(raw)]}
    assert with_masked_calls(message) == message


def test_arguments_that_are_not_json_or_already_parsed_are_masked_too():
    assert TOKEN not in masked_arguments(f'{{"command": "echo {TOKEN}"')  # cut off mid-stream
    assert TOKEN not in json.dumps(masked_arguments({"command": f"export GITHUB_TOKEN={TOKEN}"}))


def test_the_message_keeps_ids_and_the_original_is_untouched():
    original = {"role": "assistant", "content": "", "tool_calls": [_call(json.dumps({"command": f"echo {TOKEN}"}))]}
    kept = with_masked_calls(original)
    assert kept["tool_calls"][0]["id"] == "call_0" and TOKEN not in json.dumps(kept)
    assert TOKEN in original["tool_calls"][0]["function"]["arguments"]  # the tool runs on this one
    assert with_masked_calls({"role": "user", "content": TOKEN})["content"] == TOKEN
