"""Cuts never leave part of a secret, and what compaction stores with a summary holds none."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hermeslite.context.anchors import Anchors, extract_anchors
from hermeslite.context.messages import ANCHORS_KEY
from hermeslite.context.redact import MARK, redact_slice
from hermeslite.context.summary_prompt import render_turns

from ..builders import Transcript
from ..secret_samples import vendor_samples
from .scripted import GOOD_SUMMARY, Scripted, long_session, make

SAMPLES = vendor_samples(11)
FILLER = "lorem ipsum dolor sit amet " * 600  # no 8-character run without a space


def fragments(secret: str) -> list[str]:
    return [secret[i : i + 8] for i in range(len(secret) - 7)]


def leaked(secret: str, text: str) -> list[str]:
    return [f for f in fragments(secret) if f in text]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    sample=st.sampled_from(SAMPLES),
    before=st.integers(0, 7_000),
    after=st.integers(0, 3_000),
    budget=st.integers(4_000, 14_000),
    in_arguments=st.booleans(),
)
def test_no_cut_leaves_a_fragment_of_a_secret(sample, before, after, budget, in_arguments):
    """Any key at any offset, any budget: the message cut and the transcript cut keep no 8 characters of it."""
    text = f"{FILLER[:before]} {sample.key} {FILLER[:after]}"
    if in_arguments:
        messages = Transcript(None).tool("terminal", {"command": text}, "ok").build()
    else:
        messages = Transcript(None).tool("terminal", {"command": "cat log"}, text).build()
    rendered = render_turns(messages, budget)
    assert leaked(sample.secret, rendered) == []


@settings(max_examples=200, deadline=None)
@given(sample=st.sampled_from(SAMPLES), offset=st.integers(0, 200), data=st.data())
def test_a_slice_through_a_key_masks_the_part_inside(sample, offset, data):
    text = f"{FILLER[:offset]} {sample.key} {FILLER[:50]}"
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    assert leaked(sample.secret, redact_slice(text, start, end)) == []


def test_anchors_hold_no_secrets():
    key = SAMPLES[0].key
    t = Transcript().user(f"deploy with OPENAI_API_KEY={key} please")
    t.tool(
        "terminal",
        {"command": f"curl -H 'Authorization: Bearer {key}' https://api.example.com"},
        f"error: 401 invalid key {key}\n[exit code: 1]",
    )
    t.tool("todo", {"todos": [{"content": f"rotate {key}", "status": "pending"}]}, "ok")
    anchors = extract_anchors(t.build())
    stored = json.dumps(anchors.to_dict())
    assert leaked(SAMPLES[0].secret, stored) == []
    assert MARK in stored


def test_anchors_read_back_from_an_older_session_are_redacted():
    key = SAMPLES[1].key
    raw = {
        "users": [f"my key is {key}"],
        "commands": [[f"export TOKEN={key}", 1]],
        "errors": [f"bad key {key}"],
        "failures": {f"export TOKEN={key}": [f"bad key {key}"]},
    }
    assert leaked(SAMPLES[1].secret, json.dumps(Anchors.from_dict(raw).to_dict())) == []


async def test_the_stored_handoff_and_its_anchors_hold_no_secrets():
    secret = SAMPLES[2]
    t = Transcript().user(f"use the key {secret.key} for the deploy")
    t.tool("terminal", {"command": f"export API_TOKEN={secret.key} && ./deploy.sh"}, "failed\n[exit code: 1]")
    summarizer = Scripted(GOOD_SUMMARY)
    result = await make(summarizer, protect_first_n=0).compress(t.build() + long_session(turns=25)[1:])
    handoff = [m for m in result.messages if ANCHORS_KEY in m]
    assert len(handoff) == 1, "the summary message carries the anchors"
    assert leaked(secret.secret, json.dumps(result.messages)) == []
    assert leaked(secret.secret, summarizer.calls[0][0]) == []
