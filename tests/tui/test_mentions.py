"""@file mentions in the running app: `@` opens the project's files, typing narrows them, Tab completes,
Esc closes, and sending attaches the file: the scripted server receives its content while the bubble
shows what was typed and a note names the file (also when the session is resumed)."""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

from hermeslite.agent.file_index import LIMIT, FileIndex
from hermeslite.tui.widgets.message import NoteLine, UserMessage
from tests.patience import patience
from tests.server import Reply
from tests.tui.pilot import SIZE, ready, send, settle, until
from tests.tui.screen import screen_text
from tests.tui.test_queue import sent_user_texts

CACHE = "def get(key):\n    return STORE[key]\n"


def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    for path, text in {
        "src/cache.py": CACHE,
        "src/app.py": "app\n",
        "build/cache.js": "x\n",
        ".gitignore": "build/\n",
    }.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


async def test_at_completes_a_project_file_and_sending_attaches_it(make_app, scripted_server, tmp_path):
    scripted_server.enqueue(Reply.text("It reads the store."))
    app = make_app(cwd=project(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        mentions = app.prompt.mentions
        await until(pilot, lambda: mentions.listed_at is not None)
        await pilot.press(*"what does @src/ca")
        await until(pilot, lambda: mentions.open)
        assert "src/cache.py" in screen_text(app)
        assert "build/cache.js" not in screen_text(app)  # .gitignore respected
        await pilot.press("tab")
        assert app.prompt.text == "what does @src/cache.py "
        assert not mentions.open
        await pilot.press(*"do")
        await send(pilot, app.prompt.text)
        [sent] = sent_user_texts(scripted_server)
        assert sent.startswith("what does @src/cache.py do\n\n")
        assert CACHE in sent
        assert [w.text for w in app.chat.query(UserMessage)] == ["what does @src/cache.py do"]
        assert "attached: src/cache.py (2 lines)" in [n.text for n in app.chat.query(NoteLine)]
        assert "It reads the store." in screen_text(app)


async def test_escape_closes_the_list_and_enter_then_sends_as_typed(make_app, scripted_server, tmp_path):
    scripted_server.enqueue(Reply.text("ok"))
    app = make_app(cwd=project(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await until(pilot, lambda: app.prompt.mentions.listed_at is not None)
        await pilot.press(*"@src/nope")
        assert not app.prompt.mentions.open  # nothing matches
        app.prompt.clear()
        await pilot.press(*"@src/app")
        await until(pilot, lambda: app.prompt.mentions.open)
        await pilot.press("escape")
        assert not app.prompt.mentions.open and app.prompt.text == "@src/app"
        await pilot.press("enter")
        await settle(pilot)
        assert sent_user_texts(scripted_server) == ["@src/app"]
        assert "not attached: @src/app: no such file" in [n.text for n in app.chat.query(NoteLine)]


async def test_a_resumed_session_shows_the_typed_text_and_the_attachment_note(make_app, scripted_server, tmp_path):
    root = project(tmp_path)
    scripted_server.enqueue(Reply.text("first"))
    app = make_app(cwd=root)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "read @src/cache.py and @src/app.py")
        session_id = app.host.agent.session_id
        note = "attached: src/cache.py (2 lines), src/app.py (1 line)"
        assert note in [n.text for n in app.chat.query(NoteLine)]
    again = make_app(cwd=root, session_id=session_id)
    async with again.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await settle(pilot)
        assert [w.text for w in again.chat.query(UserMessage)] == ["read @src/cache.py and @src/app.py"]
        assert note in [n.text for n in again.chat.query(NoteLine)]


class HeldIndex(FileIndex):
    """The real index, except that matching `held` waits until `release` is set: a slow scan, by events."""

    def __init__(self, held: str) -> None:
        super().__init__()
        self.held = held
        self.reached = threading.Event()
        self.release = threading.Event()

    def match(self, query: str, limit: int = LIMIT, *, cancelled: Callable[[], bool] = lambda: False) -> list[str]:
        if query != self.held:
            return super().match(query, limit, cancelled=cancelled)
        self.reached.set()
        assert self.release.wait(patience(5)), "the UI thread waited on the matching"
        return super().match(query, limit)  # to the end, as a scan past its last check would


async def test_typing_never_waits_for_matching_and_an_older_querys_answer_is_dropped(
    make_app, scripted_server, tmp_path
):
    """The matcher ran on the UI thread: with 50,000 files a key could wait ~150 ms for it."""
    app = make_app(cwd=project(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        mentions = app.prompt.mentions
        await until(pilot, lambda: mentions.listed_at is not None)
        held = HeldIndex("s")
        held.replace(mentions.index.paths)
        mentions.index = held
        await pilot.press("@", "s")
        await until(pilot, held.reached.is_set)
        await pilot.press(*"rc/app")  # typed while "s" is still being matched
        assert app.prompt.text == "@src/app"

        def listed() -> list[str]:
            return [str(mentions.get_option_at_index(i).prompt) for i in range(mentions.option_count)]

        await until(pilot, lambda: mentions.open and listed() == ["src/app.py"])
        held.release.set()
        await settle(pilot)  # the held worker has finished and its answer (both src files) came back
        assert mentions.open and listed() == ["src/app.py"]
        await pilot.press("tab")
        assert app.prompt.text == "@src/app.py "
