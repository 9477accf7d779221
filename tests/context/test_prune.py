"""The deterministic prune: informative placeholders, dedupe, images, arguments."""

import json

from hermeslite.context.messages import ARCHIVE_KEY
from hermeslite.context.prune import prune
from hermeslite.context.tool_summaries import summarize_tool_result

from ..builders import Transcript, assert_valid


def run(msgs, protect=100, minimum=0, force=False, never=frozenset({"memory", "todo"})):
    return prune(msgs, protect_tokens=protect, minimum_tokens=minimum, never_prune=never, force=force)


def test_old_terminal_output_becomes_an_informative_line():
    t = Transcript().user("run the tests")
    t.tool("terminal", {"command": "pytest -q"}, "F" * 300 + "\n" * 47 + "[exit code: 1]")
    for n in range(5):
        t.tool("terminal", {"command": f"echo {n}"}, "y" * 2000 + "\n[exit code: 0]")
    t.assistant("done")
    msgs = t.build()
    r = run(msgs, protect=600)
    line = r.messages[3]["content"]
    assert line.startswith("[terminal] ran `pytest -q` -> exit 1, 48 lines output")
    ref = r.messages[3][ARCHIVE_KEY]
    assert f"recall id {ref}" in line and r.archived[ref] is msgs[3]
    assert r.messages[-2]["content"] == msgs[-2]["content"], "the newest output is protected"
    assert r.saved_tokens > 0 and r.pruned == len(r.archived)
    assert_valid(r.messages)


def test_per_tool_summaries_say_what_happened():
    assert (
        summarize_tool_result("read_file", {"path": "a.py", "offset": 40}, "x" * 900)
        == "[read_file] read a.py from line 40 (900 chars)"
    )
    assert (
        summarize_tool_result("write_file", {"path": "b.py", "content": "1\n2\n3"}, "ok")
        == "[write_file] wrote b.py (3 lines)"
    )
    assert (
        summarize_tool_result("search_files", {"pattern": "TODO", "path": "src"}, "a:1\nb:2\n")
        == "[search_files] searched for 'TODO' in src -> 2 matches"
    )
    assert (
        summarize_tool_result("patch", {"path": "c.py"}, "Replaced 1 occurrence")
        == "[patch] patched c.py (Replaced 1 occurrence)"
    )
    assert summarize_tool_result("web_fetch", {"url": "https://x.test"}, "z" * 10).startswith(
        "[web_fetch] url=https://x.test"
    )
    assert summarize_tool_result("terminal", {"command": ["not", "a", "string"]}, "boom").startswith("[terminal]")


def test_identical_outputs_keep_only_the_newest():
    same = "identical listing\n" * 40
    t = Transcript().user("x")
    t.tool("terminal", {"command": "ls"}, same).tool("terminal", {"command": "ls"}, same).assistant("ok")
    msgs = t.build()
    r = run(msgs, protect=10**6)
    assert r.messages[3]["content"].startswith(
        "[terminal] ran `ls` -> exit ?, 40 lines output; same output as a later call"
    )
    assert r.messages[5]["content"] == same


def test_never_prune_tools_and_short_outputs_stay():
    t = Transcript().user("x")
    t.tool("memory", {"action": "add"}, "m" * 5000).tool("terminal", {"command": "true"}, "short")
    t.tool("terminal", {"command": "big"}, "b" * 5000).assistant("ok")
    msgs = t.build()
    r = run(msgs, protect=0)
    assert r.messages[3]["content"] == msgs[3]["content"]
    assert r.messages[5]["content"] == "short"


def test_small_saving_is_not_worth_it_unless_forced():
    t = Transcript().user("x").tool("terminal", {"command": "a"}, "a" * 1200)
    for _ in range(3):
        t.assistant("ok").user("more")
    msgs = t.build()
    assert run(msgs, protect=0, minimum=10_000).messages == msgs
    assert run(msgs, protect=0, minimum=10_000, force=True).messages != msgs


def test_old_images_are_stripped_but_the_newest_image_turn_kept():
    img = {"type": "image_url", "image_url": {"url": "data:image/png;base64," + "A" * 50_000}}
    t = Transcript().user([{"type": "text", "text": "look"}, img]).assistant("a cat")
    t.user([{"type": "text", "text": "and this"}, img]).assistant("a dog")
    for _ in range(4):
        t.user("next").assistant("ok")
    msgs = t.build()
    r = run(msgs, protect=0)
    first = r.messages[1]["content"]
    assert first[0]["text"] == "look" and "image removed to save context" in first[1]["text"]
    assert r.messages[3]["content"] == msgs[3]["content"]


def test_an_old_tool_results_images_are_stripped_and_a_recent_ones_kept():
    """A tool result with image parts (an MCP tool's screenshot, for a model that takes them) is text
    plus images: old, its images give way to a line with the recall id; recent, it stays whole."""
    img = {"type": "image_url", "image_url": {"url": "data:image/png;base64," + "A" * 50_000}}
    shot = [{"type": "text", "text": "the page"}, img]
    t = Transcript().user("look at the page")
    t.tool("mcp__browser__screenshot", {}, "placeholder")
    t.messages[-1]["content"] = shot
    t.assistant("seen")
    for _ in range(4):
        t.user("next").assistant("ok")
    t.user("and now")
    t.tool("mcp__browser__screenshot", {}, "placeholder")
    t.messages[-1]["content"] = shot
    msgs = t.assistant("done").build()
    r = run(msgs, protect=2_000)
    old = r.messages[3]
    assert old["content"][0] == {"type": "text", "text": "the page"}
    assert old["content"][1]["text"] == f"[image removed to save context; recall id {old[ARCHIVE_KEY]}]"
    assert r.archived[old[ARCHIVE_KEY]] is msgs[3]
    assert r.messages[-2]["content"] == shot  # the recent one is protected
    assert_valid(r.messages)


def test_big_arguments_shrink_to_valid_json_and_bad_json_is_left_alone():
    t = Transcript().user("write it")
    t.tool("write_file", {"path": "big.py", "content": "x = 1\n" * 2000}, "ok")
    t.messages.append(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "bad",
                    "type": "function",
                    "function": {"name": "write_file", "arguments": '{"content": "' + "z" * 900},
                }
            ],
        }
    )
    t.messages.append({"role": "tool", "tool_call_id": "bad", "content": "error: invalid arguments"})
    for _ in range(3):
        t.assistant("ok").user("more")
    msgs = t.build()
    r = run(msgs, protect=0)
    args = json.loads(r.messages[2]["tool_calls"][0]["function"]["arguments"])
    assert args["path"] == "big.py" and len(args["content"]) < 300 and "recall id r" in args["content"]
    assert r.messages[4]["tool_calls"] == msgs[4]["tool_calls"]
