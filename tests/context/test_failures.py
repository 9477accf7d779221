"""A compaction stops on the same account failures the LLM layer reports as auth errors."""

from hermeslite.context.failures import QUOTA_PHRASES, should_abort


def test_every_quota_phrase_the_classifier_knows_aborts_a_compaction():
    for phrase in QUOTA_PHRASES:
        assert should_abort(RuntimeError(f"Error code: 429 - {phrase.upper()} on this key")), phrase


def test_timeouts_and_server_errors_fall_back_instead():
    assert not should_abort(TimeoutError("Request timed out after 60 s"))
    assert not should_abort(RuntimeError("InternalServerError: upstream returned 502"))
