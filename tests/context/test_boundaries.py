"""Head and tail cut points: whole tool groups, the latest ask kept verbatim."""

from hermeslite.context.boundaries import find_boundaries, head_end
from hermeslite.context.tokens import message_tokens

from ..builders import Transcript


def bounds(msgs, **kw):
    opts = {"protect_first_n": 3, "tail_budget": 200, "protect_last_n": 4, **kw}
    return find_boundaries(msgs, [message_tokens(m) for m in msgs], **opts)


def test_head_is_system_plus_first_messages_and_never_splits_a_group():
    t = (
        Transcript()
        .user("start")
        .tool("terminal", {"command": "a"}, "out")
        .parallel([("read_file", {"path": "x"}, "1"), ("read_file", {"path": "y"}, "2")])
    )
    msgs = t.build()
    assert head_end(msgs, 3) == 4  # system, user, call, result
    assert head_end(msgs, 4) == 7  # the parallel group is taken whole
    assert head_end(msgs, 0) == 1


def test_head_must_start_with_a_user_message():
    msgs = [
        {"role": "system", "content": "s"},
        {"role": "assistant", "content": "hi"},
        {"role": "user", "content": "u"},
    ]
    assert head_end(msgs, 3) == 1


def test_tail_never_starts_on_a_tool_result():
    t = Transcript().user("go")
    for n in range(20):
        t.parallel([("terminal", {"command": str(n)}, "x" * 400), ("terminal", {"command": "b"}, "y" * 400)])
    t.assistant("done")
    msgs = t.build()
    for budget in (50, 200, 333, 700, 1500):
        b = bounds(msgs, tail_budget=budget, protect_last_n=1)
        assert msgs[b.tail_start]["role"] != "tool"


def test_latest_user_message_is_lifted_out_of_the_middle():
    t = Transcript().user("old").assistant("ok").user("the real ask")
    for n in range(30):
        t.tool("terminal", {"command": str(n)}, "z" * 2000)
    msgs = t.build()
    b = bounds(msgs, protect_first_n=0, protect_last_n=2)
    assert b.lifted_user == 3 and b.tail_start > 4
    assert msgs[3] not in b.middle(msgs)


def test_tail_respects_budget_with_soft_ceiling_and_minimum():
    t = Transcript()
    for n in range(40):
        t.user(f"u{n} " + "a" * 400).assistant("b" * 400)
    msgs = t.build()
    per = message_tokens(msgs[1])
    b = bounds(msgs, protect_first_n=0, tail_budget=per * 10, protect_last_n=2)
    assert 10 <= len(msgs) - b.tail_start <= 15
    b = bounds(msgs, protect_first_n=0, tail_budget=1, protect_last_n=6)
    assert len(msgs) - b.tail_start == 6


def test_force_compacts_a_transcript_that_fits_the_tail():
    msgs = Transcript().user("a").assistant("b").user("c").assistant("d").build()
    assert bounds(msgs, protect_first_n=0, tail_budget=10**6).empty
    forced = bounds(msgs, protect_first_n=0, tail_budget=10**6, force=True)
    assert not forced.empty and forced.tail_start == 3
