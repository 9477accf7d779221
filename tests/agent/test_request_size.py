"""The one count of the next request: the provider's last report plus a calibrated estimate of what changed since."""

from __future__ import annotations

from hermeslite.agent.request_size import RequestSize, learned_calibration
from hermeslite.context.calibration import MAX_FACTOR, MIN_FACTOR, Calibration
from hermeslite.store.usage import UsageRecord


class Transcript:
    """Stands in for the agent's raw estimate of the next request."""

    def __init__(self, tokens: int) -> None:
        self.tokens = tokens

    def __call__(self) -> int:
        return self.tokens


def test_before_any_report_the_count_is_the_plain_estimate():
    size = RequestSize(Transcript(1_000))
    now = size.now()
    assert (now.total, now.reported, now.estimated) == (1_000, None, 1_000)
    assert now.calibration.samples == 0


def test_a_report_is_the_base_and_what_is_appended_since_is_estimated_in_its_scale():
    transcript = Transcript(1_000)
    size = RequestSize(transcript)
    size.sending()
    size.reported(1_250)  # this provider counts a quarter more than we estimate
    transcript.tokens += 400  # the reply and a new user message
    now = size.now()
    assert now.reported == 1_250 and now.estimated == 500 and now.total == 1_750
    assert now.calibration == Calibration(1.25, 1)


def test_a_reply_without_usage_keeps_the_last_base():
    transcript = Transcript(1_000)
    size = RequestSize(transcript)
    size.sending()
    size.reported(800)
    transcript.tokens = 1_200
    size.sending()
    size.reported(None)
    assert size.now().reported == 800 and size.now().total == 800 + round(200 * 0.8)


def test_a_rewrite_drops_the_base_but_keeps_the_calibration():
    transcript = Transcript(10_000)
    size = RequestSize(transcript)
    size.sending()
    size.reported(7_500)
    transcript.tokens = 4_000  # a compaction
    size.rewritten()
    now = size.now()
    assert now.reported is None and now.total == now.estimated == 3_000


def test_another_model_forgets_the_report_and_goes_on_with_the_calibration_given():
    size = RequestSize(Transcript(2_000))
    size.sending()
    size.reported(3_000)
    size.model_changed(Calibration())
    assert size.now().total == 2_000 and size.now().calibration == Calibration()
    size.model_changed(Calibration().learn(2_400, 2_000))  # what the session had learned on that model
    assert size.now().total == 2_400 and size.now().reported is None


def test_an_absurd_report_is_clipped():
    assert Calibration().learn(1, 10_000).factor == MIN_FACTOR
    assert Calibration().learn(10_000_000, 1_000).factor == MAX_FACTOR
    assert Calibration().learn(0, 1_000) == Calibration()


def test_a_shrinking_edit_lowers_the_count_from_the_base():
    transcript = Transcript(5_000)
    size = RequestSize(transcript)
    size.sending()
    size.reported(5_000)
    transcript.tokens = 4_000  # the checkpoint was edited shorter
    now = size.now()
    assert now.total == 4_000 and now.estimated == -1_000 and now.reported == 5_000


def test_a_saved_session_replays_its_turns_for_the_same_model_only():
    records = [
        UsageRecord("turn", "m", 1_200, estimated_tokens=1_000),
        UsageRecord("summary", "m", 5_000),  # never estimated
        UsageRecord("turn", "other", 3_000, estimated_tokens=1_000),  # another tokenizer
        UsageRecord("turn", "m", 2_600, estimated_tokens=2_000),
        UsageRecord("turn", "m", 800),  # recorded before estimates were kept
    ]
    learned = learned_calibration(records, "m")
    assert (learned.factor, learned.samples) == (1.3, 2)
    assert learned_calibration(records, "unseen") == Calibration()


def test_reported_hands_back_the_estimate_it_was_paired_with():
    size = RequestSize(Transcript(1_000))
    size.sending()
    assert size.reported(1_300) == 1_000
    size.sending()
    assert size.reported(None) is None
