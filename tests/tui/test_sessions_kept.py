"""What the app leaves behind: no empty sessions; start-up warnings as notices."""

from __future__ import annotations

from tests.server import Reply
from tests.tui.pilot import SIZE, ready, send, until


async def test_an_app_quit_at_once_keeps_no_session(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert make_app.store.list_sessions() != []  # the session exists while the app runs
        await pilot.press("ctrl+c", "ctrl+c")
        await pilot.pause()
    assert make_app.store.list_sessions() == []


async def test_a_closed_terminal_quits_cleanly_and_keeps_no_empty_session(make_app):
    """Closing the terminal window sends SIGHUP; unhandled, it ended the process with the empty
    session left behind, listed ever after as "(untitled)"."""
    import os
    import signal

    hangups: list[int] = []
    previous = signal.signal(signal.SIGHUP, lambda number, frame: hangups.append(number))  # the unfixed fate
    try:
        app = make_app()
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            os.kill(os.getpid(), signal.SIGHUP)
            await until(pilot, lambda: hangups or not app.is_running, timeout=2)
            assert hangups == [] and not app.is_running
    finally:
        signal.signal(signal.SIGHUP, previous)
    assert make_app.store.list_sessions() == []


async def test_only_sessions_with_a_user_message_are_kept(make_app, scripted_server):
    scripted_server.enqueue(Reply.text("hello back"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "hello")
        kept = app.host.agent.session_id
        await send(pilot, "/new")
        await send(pilot, "/new")
        assert len(make_app.store.list_sessions()) == 2  # the first /new's empty session is gone
    assert [s.id for s in make_app.store.list_sessions()] == [kept]


async def test_a_session_with_only_a_command_of_the_user_is_kept(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "!echo kept")
    [info] = make_app.store.list_sessions()
    assert info.title == "!echo kept"


async def test_start_up_warnings_are_chat_lines_not_repeated_in_toasts(make_app):
    warning = "unknown key 'compresion' in ./hermeslite.yaml (ignored)"
    app = make_app(notices=(warning,), context_window=None)  # an unknown model: the window is assumed
    toasts: list[str] = []
    shown = app.notify
    app.notify = lambda message, **kw: (toasts.append(message), shown(message, **kw))  # type: ignore[method-assign]
    async with app.run_test(size=(140, 24)) as pilot:
        await ready(pilot)
        await pilot.pause()
        notes = [n.text for n in app.chat.query("NoteLine")]
        assert f"⚠ {warning}" in notes
        assumed = next(n for n in notes if "is unknown; assuming" in n)
        assert assumed and not toasts  # the lines are in sight: a toast over them would repeat them


async def test_quitting_while_the_session_is_being_created_keeps_none(make_app, scripted_server):
    import asyncio
    import threading

    from hermeslite.agent import factory as real_factory

    entered, release, done = threading.Event(), threading.Event(), threading.Event()

    class SlowFactory:
        """The real factory, held back mid-build until the app has quit."""

        @staticmethod
        def build_agent(*args, **kwargs):
            entered.set()
            release.wait(10)
            try:
                return real_factory.build_agent(*args, **kwargs)
            finally:
                done.set()

    app = make_app()
    host = app.host

    async def slow() -> SlowFactory:
        return SlowFactory()

    host._factory = slow
    host.start()
    await asyncio.to_thread(entered.wait, 10)
    host.close()  # the app quits while the thread builds the agent
    release.set()
    await asyncio.to_thread(done.wait, 10)
    await asyncio.sleep(0.1)
    assert make_app.store.list_sessions() == []


async def test_a_kept_session_is_named_at_quit_so_it_can_be_resumed(make_app, scripted_server):
    """Quitting printed nothing: the id to pass to --resume came from the closing app (tui/__init__.py)."""
    from tests.tui.pilot import SIZE, ready, send

    used, unused = make_app(), make_app()
    async with used.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "hello")
        session = used.host.agent.session_id
    async with unused.run_test(size=SIZE) as pilot:
        await ready(pilot)
    assert used.host.kept_session == session and unused.host.kept_session is None  # an empty one is deleted
