"""The one count of "tokens the next request carries", for every place that shows or acts on it.

The status-bar meter, `/context`, the warning bar, the preflight decision and
the compaction cards all read this, so they agree at any moment. The count is
the provider's own figure for the last request plus a calibrated estimate of
what was appended since (tool schemas included in both); after the transcript
is rewritten (a compaction, an undo) that figure describes messages that are
gone, so the whole request is estimated, calibrated, until the next report.
It moves as soon as a message is appended, not when the next reply arrives.
The calibration outlives the process: each turn's usage row keeps our
estimate beside the provider's count, and a resumed session replays them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from hermeslite.context.calibration import Calibration
from hermeslite.llm.model_names import same_model
from hermeslite.store.errors import StoreError
from hermeslite.store.sessions import SessionStore
from hermeslite.store.usage import UsageRecord


@dataclass(frozen=True)
class RequestTokens:
    """The count and how it was made, for `/context` to say which part is which."""

    total: int
    reported: int | None  # the provider's prompt tokens for the last request, when still the base
    estimated: int  # calibrated estimate of what was appended since (of everything without a base)
    calibration: Calibration


class RequestSize:
    """Keeps the last report, the estimate of that same request, and the calibration learned so far.

    `estimate` gives the raw estimate of the request as it would be sent now
    (transcript plus tool schemas).
    """

    def __init__(self, estimate: Callable[[], int]) -> None:
        self._estimate = estimate
        self.calibration = Calibration()
        self._base: tuple[int, int] | None = None  # (reported, our estimate of that request)
        self._in_flight: int | None = None

    def sending(self) -> None:
        """A request is about to leave: remember its estimate to pair with the provider's count."""
        self._in_flight = self._estimate()

    def reported(self, prompt_tokens: int | None) -> int | None:
        """The provider's count for the request last sent; a reply without usage keeps the old base.
        Returns our estimate of that request when the pair taught something, to be stored with it."""
        sent, self._in_flight = self._in_flight, None
        if sent is None or not prompt_tokens or prompt_tokens <= 0:
            return None
        self.calibration = self.calibration.learn(prompt_tokens, sent)
        self._base = (prompt_tokens, sent)
        return sent

    def rewritten(self) -> None:
        """The transcript was replaced: the last report no longer describes a prefix of it."""
        self._base = None

    def model_changed(self, calibration: Calibration) -> None:
        """Another model tokenizes differently: forget the old model's report, and go on with
        `calibration`, what this session had learned on the new one (see `saved_calibration`)."""
        self._base = None
        self.calibration = calibration

    def now(self) -> RequestTokens:
        estimate = self._estimate()
        if self._base is None:
            return RequestTokens(
                self.calibration.scale(estimate), None, self.calibration.scale(estimate), self.calibration
            )
        reported, at_report = self._base
        since = self.calibration.scale(estimate - at_report)
        return RequestTokens(max(0, reported + since), reported, since, self.calibration)


def learned_calibration(records: Iterable[UsageRecord], model: str | None) -> Calibration:
    """The calibration a session had learned for `model` when it was saved: its turn requests'
    (provider count, our estimate) pairs replayed in order. Other models tokenize differently,
    and summary and flush requests were never estimated, so neither teaches anything here."""
    calibration = Calibration()
    for r in records:
        if r.kind == "turn" and same_model(r.model, model) and r.estimated_tokens:
            calibration = calibration.learn(r.prompt_tokens, r.estimated_tokens)
    return calibration


def saved_calibration(store: SessionStore, session_id: str, model: str | None) -> Calibration:
    """What `session_id` had learned about `model`'s tokenizer, from its stored usage; none when the
    store cannot be read now (the meter then reads uncalibrated until the next reply teaches it)."""
    try:
        return learned_calibration(store.usage(session_id), model)
    except StoreError:
        return Calibration()


def carried_calibration(own: Calibration, previous: Calibration, same_model_as_previous: bool) -> Calibration:
    """The calibration a session opened from another one (/new, /resume, /handoff) goes on with.

    Its own, when it learned one: a resumed session's pairs were measured on its
    own content, which the previous session's were not. Otherwise the previous
    session's on the same model (a new or handed-off session has no turns yet, and
    a tokenizer's ratio is closer than none), else none: another model tokenizes
    differently. /model follows the same rule within a session (`model_changed`).
    """
    if own.samples or not same_model_as_previous:
        return own
    return previous if previous.samples else own
