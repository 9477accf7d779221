"""A failed command stays among the anchors until it is resolved (issue 19, item 3): by a later success of the
same target however it is spelled, or by the user dropping it; an open one outlives any number of others."""

from __future__ import annotations

import pytest

from hermeslite.context.anchors import MAX_COMMANDS, extract_anchors, failed, render_anchors
from hermeslite.context.open_failures import drop_resolved, dropped_by_user, target_of

from ..builders import Transcript

RETRY = "pytest -q tests/test_retry.py"
RETRY_ERROR = "E   AssertionError: expected 3 retries after a 503, got 5"


def failing(error: str = RETRY_ERROR) -> str:
    return f"FAILED\n{error}\n1 failed in 0.1s\n[exit code: 1]"


PASSED = "3 passed in 0.1s\n[exit code: 0]"


@pytest.mark.parametrize(
    ("success", "failure"),
    [
        ("pytest tests/test_retry.py -x", RETRY),  # options do not change the target
        ("python3 -m pytest tests/test_retry.py", RETRY),
        ("uv run pytest -q ./tests/test_retry.py", RETRY),
        ("pytest tests/", RETRY),  # a directory covers the files under it
        ("pytest", RETRY),  # the whole suite
        ("pytest tests/test_retry.py", "pytest tests/test_retry.py::test_503"),
        ("CI=1 pytest -q tests/test_retry.py", RETRY),
        ("cd app && make test", "cd app  &&  make test"),  # a compound command: only itself, spaces aside
    ],
)
def test_a_success_of_the_same_target_resolves_a_failure(success, failure):
    assert target_of(success).covers(target_of(failure))


@pytest.mark.parametrize(
    ("success", "failure"),
    [
        ("pytest tests/test_pool.py", RETRY),  # another file
        ("pytest -k retry", RETRY),  # a selection is not the whole suite
        ("pytest tests/test_retry.py::test_a", RETRY),  # one test passing says nothing of the file
        ("make", "make test"),  # another make target
        ("cd app && pytest", RETRY),  # a compound command resolves only itself
        ("ruff check tests/test_retry.py", RETRY),  # another program
    ],
)
def test_a_success_of_another_target_does_not(success, failure):
    assert not target_of(success).covers(target_of(failure))


def test_resolved_failures_go_and_open_ones_stay_newest_first():
    commands = [["pytest -q tests/test_pool.py", 0], ["pytest tests/test_pool.py", 1], [RETRY, 1], ["ls", 0]]
    assert drop_resolved(commands, failed) == [["pytest -q tests/test_pool.py", 0], [RETRY, 1], ["ls", 0]]
    # An older success resolves nothing newer: the list is newest first.
    assert drop_resolved([[RETRY, 1], ["pytest tests/test_retry.py", 0]], failed) == [
        [RETRY, 1],
        ["pytest tests/test_retry.py", 0],
    ]


def test_a_failure_rerun_with_other_flags_and_passing_leaves_the_anchors():
    t = Transcript().user("run the tests")
    t.tool("terminal", {"command": RETRY}, failing())
    t.tool("terminal", {"command": "python -m pytest tests/test_retry.py"}, PASSED)
    anchors = extract_anchors(t.build())
    assert anchors.commands == [["python -m pytest tests/test_retry.py", 0]] and anchors.failures == {}
    # Across compactions: the failure was recorded by an earlier one, the fix comes in a later one.
    older = extract_anchors(Transcript().user("go").tool("terminal", {"command": RETRY}, failing()).build())
    newer = extract_anchors(Transcript().user("again").tool("terminal", {"command": "pytest tests/"}, PASSED).build())
    merged = newer.merged_with(older)
    assert [RETRY, 1] not in merged.commands and RETRY_ERROR not in render_anchors(merged)


def test_an_open_failure_outlives_many_later_failures_that_were_fixed_and_passing_commands():
    stored = extract_anchors(Transcript().user("go").tool("terminal", {"command": RETRY}, failing()).build())
    for round_no in range(12):
        t = Transcript().user(f"round {round_no}")
        for n in range(5):  # five failures a round, each fixed by a rerun spelled differently
            test = f"tests/unit/test_{round_no}_{n}.py"
            t.tool("terminal", {"command": f"pytest {test} -x"}, failing(f"E   AssertionError: case {n}"))
            t.tool("terminal", {"command": f"pytest -q {test}"}, PASSED)
        for n in range(MAX_COMMANDS):
            t.tool("terminal", {"command": f"git log -{n + 1} --oneline  # {round_no}"}, "abc fix\n[exit code: 0]")
        stored = extract_anchors(t.build()).merged_with(stored)
    assert [RETRY, 1] in stored.commands and RETRY_ERROR in stored.failures[RETRY]
    assert [c for c in stored.commands if failed(c)] == [[RETRY, 1]]  # the fixed ones are gone


def test_the_user_can_drop_a_failure():
    commands = [[RETRY, 1], ["pytest tests/test_pool.py", 1], ["ls", 0]]
    assert dropped_by_user("Drop the failure of pytest tests/test_retry.py, it is flaky.", commands, failed) == {RETRY}
    assert dropped_by_user("forget the failing `pytest -q tests/test_retry.py`", commands, failed) == {RETRY}
    assert dropped_by_user("The retry test fails, fix it.", commands, failed) == set()
    assert dropped_by_user("ignore the failed ls", commands, failed) == set()  # ls did not fail
    older = extract_anchors(Transcript().user("go").tool("terminal", {"command": RETRY}, failing()).build())
    newer = extract_anchors(Transcript().user("Ignore the failing pytest tests/test_retry.py for now.").build())
    merged = newer.merged_with(older)
    assert [RETRY, 1] not in merged.commands and RETRY not in merged.failures
