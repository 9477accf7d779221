"""`hermeslite -p ... --continue` after a provider stated its window: the next process starts from it.

Every `-p` is a new process. The first one that hits the server's real limit
learns it from the 400; the one after must not send an oversized request to
learn it again.
"""

from __future__ import annotations

from tests.cli_process import hermeslite, model_args, sessions_db
from tests.server import Reply, estimate_prompt_tokens
from tests.summary_requests import answer_summaries

LIMIT = 5_000  # the server's real window; the unknown test model is assumed to have 8,192
LEARNED = "Context window: 5,000 tokens, learned from the provider's context-length error; compaction at 3,750."
OVERFLOW_NOTICE = "The provider's context window is 5,000 tokens"


def words(tag: str, count: int) -> str:
    return " ".join(f"{tag}{n}" for n in range(count))


def test_the_window_a_provider_stated_is_used_by_the_next_process_from_its_first_request(scripted_server, tmp_path):
    home, server = tmp_path / "home", scripted_server
    answer_summaries(server)
    server.enqueue(Reply.text(words("a", 1_000)), Reply.text(words("b", 1_600)), Reply.text("third answer"))
    first = hermeslite(["-p", words("p", 1_000), *model_args(server)], home, tmp_path)
    assert first.returncode == 0, first.stderr
    server.overflow_above(LIMIT)
    before_second = len(server.requests)
    second = hermeslite(["-p", words("q", 1_000), "--continue", *model_args(server)], home, tmp_path)
    assert second.returncode == 0, second.stderr
    assert estimate_prompt_tokens(server.requests[before_second]) > LIMIT  # refused: the window is learned
    assert OVERFLOW_NOTICE in second.stderr and "compressing (reactive)" in second.stderr
    with sessions_db(home) as store:
        assert store.learned_window("openai/test-model") == LIMIT

    before_third = len(server.requests)
    third = hermeslite(["-p", "and now?", "--continue", "--verbose", *model_args(server)], home, tmp_path)
    assert third.returncode == 0, third.stderr
    assert third.stdout.strip() == "third answer"
    assert f"note: {LEARNED}" in third.stderr
    # The history is over the learned threshold (not the assumed one): compacted before sending,
    # so nothing the server saw from this process was over its limit.
    assert "compressing (preflight)" in third.stderr and OVERFLOW_NOTICE not in third.stderr
    sent = server.requests[before_third:]
    assert sent and all(estimate_prompt_tokens(body) <= LIMIT for body in sent)
    assert "Traceback" not in first.stderr + second.stderr + third.stderr


def test_a_run_whose_first_request_overflowed_keeps_no_session_but_the_next_run_knows_the_window(
    scripted_server, tmp_path
):
    """The provider's stated window is the model's, not the session's: the failed one-shot leaves
    nothing to --continue, and the conversation a new run starts on that model never sends the server
    a request over its limit (with the window forgotten, the third run would overflow to learn it again)."""
    home, server = tmp_path / "home", scripted_server
    answer_summaries(server)
    server.overflow_above(LIMIT)
    first = hermeslite(["-p", words("p", 3_000), *model_args(server)], home, tmp_path)
    assert first.returncode != 0 and OVERFLOW_NOTICE in first.stderr, first.stderr
    with sessions_db(home) as store:
        assert store.list_sessions() == []  # nothing to --continue: the run never got a reply

    before = len(server.requests)
    server.enqueue(Reply.text(words("b", 1_600)), Reply.text("third answer"))
    second = hermeslite(["-p", words("q", 1_000), "--verbose", *model_args(server)], home, tmp_path)
    assert second.returncode == 0, second.stderr
    assert f"note: {LEARNED}" in second.stderr
    third = hermeslite(["-p", "and now?", "--continue", *model_args(server)], home, tmp_path)
    assert third.returncode == 0, third.stderr
    assert third.stdout.strip() == "third answer"
    assert "compressing (preflight)" in third.stderr
    sent = server.requests[before:]
    assert all(estimate_prompt_tokens(body) <= LIMIT for body in sent), [estimate_prompt_tokens(b) for b in sent]
    assert OVERFLOW_NOTICE not in second.stderr + third.stderr
    assert "Traceback" not in first.stderr + second.stderr + third.stderr
