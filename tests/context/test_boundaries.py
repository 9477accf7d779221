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


def test_the_turn_in_progress_is_kept_whole_however_long():
    t = Transcript().user("old").assistant("ok").user("the real ask")
    for n in range(30):
        t.tool("terminal", {"command": str(n)}, "z" * 2000)
    msgs = t.build()
    for cap in (None, 100, 10**6):
        b = bounds(msgs, protect_first_n=0, protect_last_n=2, tail_cap=cap)
        assert b.tail_start == 3 and b.middle(msgs) == msgs[1:3]


def test_the_opening_exchange_gives_way_to_a_turn_that_does_not_fit_beside_it():
    t = Transcript().user("first " + "a" * 800).assistant("b" * 800).user("c").assistant("d").user("the ask")
    t.tool("terminal", {"command": "make"}, "z" * 2000)
    msgs = t.build()
    turn = sum(message_tokens(m) for m in msgs[6:])
    roomy = bounds(msgs, protect_first_n=2, tail_cap=turn + 1_000, head_cap=10**6)
    assert roomy.head_end == 3  # the opening exchange fits beside the turn
    tight = bounds(msgs, protect_first_n=2, tail_cap=turn + 10, head_cap=10**6)
    assert tight.head_end == 1 and 1 < tight.tail_start <= 5


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


def _chat(turns: int, chars: int = 400) -> list[dict]:
    t = Transcript()
    for n in range(turns):
        t.user(f"u{n} " + "a" * chars).assistant(f"r{n} " + "b" * chars)
    return t.build()


def test_a_cut_among_unsent_messages_moves_back_to_the_end_of_the_last_request_sent():
    msgs = _chat(12)
    msgs.append({"role": "user", "content": "the new ask"})
    per = message_tokens(msgs[1])
    plain = bounds(msgs, protect_first_n=0, tail_budget=per, protect_last_n=1)
    assert plain.tail_start == len(msgs) - 2  # the model's last reply and the new ask
    unsent = len(msgs) - 4  # the last request sent ended two turns earlier
    moved = bounds(msgs, protect_first_n=0, tail_budget=per, protect_last_n=1, unsent=unsent, tail_cap=per * 4)
    assert moved.tail_start == unsent
    assert all(m not in moved.middle(msgs) for m in msgs[unsent:])  # nothing no request carried is summarized


def test_unsent_messages_that_would_pass_the_tail_cap_are_summarized_as_before():
    msgs = _chat(12)
    msgs.append({"role": "user", "content": "the new ask"})
    per = message_tokens(msgs[1])
    unsent = len(msgs) - 4
    kept = sum(message_tokens(m) for m in msgs[unsent:-1])  # the latest user message is not counted
    fits = bounds(msgs, protect_first_n=0, tail_budget=per, protect_last_n=1, unsent=unsent, tail_cap=kept)
    assert fits.tail_start == unsent
    over = bounds(msgs, protect_first_n=0, tail_budget=per, protect_last_n=1, unsent=unsent, tail_cap=kept - 1)
    assert over.tail_start == len(msgs) - 2


def test_the_moved_cut_never_splits_a_tool_call_from_its_result():
    t = Transcript()
    for n in range(6):
        t.user(f"u{n} " + "a" * 400).assistant("b" * 400)
    t.user("read it").tool("read_file", {"path": "x.py"}, "c" * 400).tool("read_file", {"path": "y.py"}, "d" * 400)
    t.assistant("read both").user("now fix them")
    msgs = t.build()
    per = message_tokens(msgs[1])
    result_at = len(msgs) - 5  # the first read's result: sent, the second read not yet
    assert msgs[result_at]["role"] == "tool"
    plain = bounds(msgs, protect_first_n=0, tail_budget=1, protect_last_n=1)
    assert plain.tail_start == len(msgs) - 1
    b = bounds(msgs, protect_first_n=0, tail_budget=1, protect_last_n=1, unsent=result_at, tail_cap=per * 10)
    # Back to the first read's call: the call keeps its result.
    assert b.tail_start == result_at - 1 and msgs[b.tail_start].get("tool_calls")
    assert not b.middle(msgs)[-1].get("tool_calls")


def test_an_unsent_cut_inside_the_turn_in_progress_keeps_the_turn_whole():
    t = Transcript().user("u0 " + "a" * 400).assistant("b" * 400).user("the ask " + "a" * 400)
    t.tool("read_file", {"path": "x.py"}, "c" * 2_000).tool("read_file", {"path": "y.py"}, "d" * 2_000)
    msgs = t.build()
    plain = bounds(msgs, protect_first_n=0, tail_budget=1, protect_last_n=1)
    assert plain.tail_start == 3 and plain.middle(msgs) == msgs[1:3]
    # The last request sent carried the ask and the first read: the cut still comes before the ask.
    assert bounds(msgs, protect_first_n=0, tail_budget=1, protect_last_n=1, unsent=6, tail_cap=10**6) == plain


def test_the_cut_stays_when_the_unsent_messages_are_already_in_the_tail():
    msgs = _chat(12)
    msgs.append({"role": "user", "content": "the new ask"})
    per = message_tokens(msgs[1])
    wide = bounds(msgs, protect_first_n=0, tail_budget=per * 6, protect_last_n=1)
    assert wide.tail_start < len(msgs) - 2
    assert bounds(msgs, protect_first_n=0, tail_budget=per * 6, protect_last_n=1, unsent=len(msgs) - 2) == wide


def test_a_moved_cut_never_goes_before_the_floor_or_into_the_head():
    msgs = _chat(12)
    msgs.append({"role": "user", "content": "the new ask"})
    per = message_tokens(msgs[1])
    plain = bounds(msgs, protect_first_n=0, tail_budget=per, protect_last_n=1, tail_floor=20)
    assert plain.tail_start == len(msgs) - 2
    # Where an earlier summary stood (the floor) comes first: the cut is not moved back past it.
    assert bounds(msgs, protect_first_n=0, tail_budget=per, protect_last_n=1, unsent=18, tail_floor=20) == plain
    moved = bounds(msgs, protect_first_n=0, tail_budget=per, protect_last_n=1, unsent=20, tail_floor=20)
    assert moved.tail_start == 20
    headed = bounds(msgs, protect_first_n=3, tail_budget=per, protect_last_n=1, unsent=3)
    assert headed.head_end == 4 and headed.tail_start == len(msgs) - 2  # the last request ended in the head
