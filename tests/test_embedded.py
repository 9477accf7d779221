"""The embedded SmolLM2 model end to end: no key, no network, a real (tiny) model.

These are the slowest tests in the suite (the model reads prompts at roughly 75
tokens a second on two cores), and the most honest: the whole path from the
command line through preflight compression to a real model's answer.
"""

from __future__ import annotations

import pytest

from hermeslite.agent.tool_asks import TOOLS_HINT
from hermeslite.store.sessions import SessionStore
from tests.builders import assert_valid
from tests.cli_process import hermeslite

pytestmark = pytest.mark.slow

PASTE = ("The deployment log shows the billing service restarting after each health check timeout. " * 70)[:6000]


def test_answers_with_no_key_and_no_model_configured_and_says_what_it_cannot_do(tmp_path):
    done = hermeslite(["-p", "List the files in this directory."], tmp_path / "home", tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    # Before the reply: which model this is and what it cannot do; after it: the hint, on stderr, not in the reply.
    assert lines[0].startswith("hermeslite: no model configured and no provider key set: this is the small embedded")
    assert lines[-1] == f"note: {TOOLS_HINT}"
    assert TOOLS_HINT not in done.stdout


def test_session_outgrows_the_window_and_keeps_answering(tmp_path):
    home = tmp_path / "home"
    # The model's tokenizer counts each note at ~1.3k tokens (our chars/4 estimate says ~1.8k and is
    # calibrated down to that), so the fifth note is the first whose request crosses the 6.1k threshold.
    prompts = [f"Note {n}: {PASTE}\nReply with one short sentence." for n in range(6)]
    outputs = []
    for n, prompt in enumerate(prompts):
        args = ["-p", prompt] + (["--continue"] if n else [])
        done = hermeslite(args, home, tmp_path)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip(), f"turn {n} gave no answer"
        outputs.append(done)
    store = SessionStore(home / "data" / "sessions.db")
    session = store.latest_session_id()
    records = store.compactions(session)
    assert any(r.trigger == "preflight" and r.tokens_after < r.tokens_before for r in records), records
    assert any("compressing (preflight)" in o.stderr for o in outputs)
    transcript = store.load_transcript(session)
    assert_valid(transcript)
    assert transcript[-1]["role"] == "assistant"
    total_chars = sum(len(str(m.get("content"))) for m in transcript)
    assert total_chars < 4 * 8192, "the transcript kept growing past the embedded model's window"
