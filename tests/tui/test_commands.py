"""Slash commands in the running app: views, sessions, models, the dropdown and the palette."""

from __future__ import annotations

from hermeslite.tui.screens.session_picker import SessionPicker
from hermeslite.tui.screens.text_viewer import TextViewer
from hermeslite.tui.widgets.header import HeaderBar
from hermeslite.tui.widgets.message import AssistantMessage, NoteLine, UserMessage
from tests.server import Reply
from tests.tui.pilot import SIZE, ready, send, settle, until
from tests.tui.screen import Notifications, screen_text


async def test_context_shows_the_breakdown_against_window_and_threshold(make_app, scripted_server):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "hello")
        await send(pilot, "/context")
        assert isinstance(app.screen, TextViewer)
        text = screen_text(app)
        for part in (
            "system prompt",
            "memory",
            "tool schemas",
            "conversation",
            "tool results",
            "summary",
            "next request",
            "threshold",
        ):
            assert part in text, part
        assert "Window 100k tokens · compaction at 50k (50% of the window)" in text
        assert "Why there: compression.threshold" in text
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, TextViewer)


async def test_unknown_command_suggests_the_closest(make_app, scripted_server):
    app = make_app()
    shown = Notifications()
    async with app.run_test(size=SIZE, notifications=True, message_hook=shown) as pilot:
        await ready(pilot)
        await send(pilot, "/comprss database")
        note = app.chat.query(NoteLine).last().text
        assert note == "Unknown command /comprss. Did you mean /compress? Type /help for the list."
        assert not shown  # the line is in sight: a toast over it would say it twice
        assert scripted_server.requests == []  # nothing was sent to the model


async def test_undo_is_the_file_undo_and_another_agents_name_points_at_ours(make_app, scripted_server):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/undo")
        note = app.chat.query(NoteLine).last().text
        assert note == "Nothing undone: no turn of this session changed files, or their changes were all undone."
        await send(pilot, "/uncompact")
        note = app.chat.query(NoteLine).last().text
        assert note == "Unknown command /uncompact. Did you mean /uncompress? Type /help for the list."
        assert scripted_server.requests == []


async def test_a_path_is_a_message_not_a_command(make_app, scripted_server):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/etc/hosts looks empty")
        assert scripted_server.requests[-1]["messages"][-1]["content"] == "/etc/hosts looks empty"


async def test_help_lists_every_command_and_the_keys(make_app):
    from hermeslite.commands.registry import REGISTRY

    app = make_app()
    async with app.run_test(size=(100, 70)) as pilot:
        await ready(pilot)
        await send(pilot, "/help")
        assert isinstance(app.screen, TextViewer)
        text = app.screen.body  # the whole page: at 60 rows its last lines are a scroll away
        for name in REGISTRY:
            assert f"/{name}" in text
        assert "Shift+Enter / Ctrl+J" in text and "cancel the running turn" in text
        assert "Shift+Tab" in text and "next mode" in text


async def test_memory_todo_and_sessions_views(make_app, scripted_server, tmp_path):
    scripted_server.enqueue(
        Reply.tool_calls(
            [
                ("todo", {"todos": [{"id": "1", "content": "write the schema", "status": "in_progress"}]}),
                ("memory", {"action": "add", "target": "user", "content": "Prefers tabs."}),
            ]
        ),
        Reply.text("noted"),
    )
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "remember things")
        await send(pilot, "/todo")
        assert "write the schema (in_progress)" in screen_text(app)
        await pilot.press("escape")
        await send(pilot, "/memory")
        text = screen_text(app)
        assert "USER.md (about you)" in text and "• Prefers tabs." in text and "MEMORY.md" in text
        await pilot.press("escape")
        await send(pilot, "/sessions")
        assert app.host.agent.session_id in screen_text(app) and "remember things" in screen_text(app)


async def test_new_then_resume_by_id_restores_the_conversation(make_app, scripted_server):
    scripted_server.enqueue(Reply.tool_calls([("terminal", {"command": "echo hi"})]), Reply.text("first answer"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "first question")
        first = app.host.agent.session_id
        await send(pilot, "/new")
        assert app.host.agent.session_id != first
        assert not app.chat.query(UserMessage)
        assert app.query_one(HeaderBar).session_title == "new session"
        await send(pilot, f"/resume {first}")
        assert app.host.agent.session_id == first
        assert [w.text for w in app.chat.query(UserMessage)] == ["first question"]
        assert app.chat.query(AssistantMessage).last().source == "first answer"
        assert app.chat.query_one("ToolPanel").state == "ok"
        assert app.query_one(HeaderBar).session_title == "first question"


async def test_resume_without_an_id_opens_the_picker(make_app, scripted_server):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "older session")
        older = app.host.agent.session_id
        await send(pilot, "/new")
        await send(pilot, "/resume")
        assert isinstance(app.screen, SessionPicker)
        assert "older session" in screen_text(app)
        picker_list = app.screen.query_one("#picker-list")
        index = next(i for i in range(picker_list.option_count) if picker_list.get_option_at_index(i).id == older)
        picker_list.highlighted = index
        await pilot.press("enter")
        await settle(pilot)
        assert app.host.agent.session_id == older


async def test_resume_an_unknown_id_is_one_error_line(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/resume nope-nothing")
        assert "/resume:" in app.chat.query("ErrorLine").last().text


async def test_model_shows_and_switches_the_model(make_app, scripted_server):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/model")  # the picker, which says what is in use above the list
        current = str(app.screen.query_one("#picker-current").render())
        assert current.startswith("Model openai/test-model · window 100,000 tokens")
        await pilot.press("escape")
        await send(pilot, "/model openai/other-model")
        assert app.query_one(HeaderBar).model == "openai/other-model"
        assert app.host.agent.deps.compressor.context_length == 8192  # unknown model: the default window
        notes = [note.text for note in app.chat.query(NoteLine)]
        assert any("Switched to openai/other-model" in note for note in notes)
        assert any("is unknown; assuming" in note for note in notes)  # kept in the chat, not only a toast
        await send(pilot, "hello")
        assert scripted_server.requests[-1]["model"] == "other-model"


async def test_model_without_a_key_or_a_known_provider_is_refused_at_once(make_app, scripted_server, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        llm = app.host.agent.deps.llm
        await send(pilot, "/model anthropic/claude-sonnet-4-5")
        assert (
            app.chat.query("ErrorLine")
            .last()
            .text.endswith(
                "/model: No API key for anthropic/claude-sonnet-4-5: ANTHROPIC_API_KEY is not set; export "
                "ANTHROPIC_API_KEY=<your key>, or name the variable that holds the key in model.api_key_env."
            )
        )
        await send(pilot, "/model nosuchprovider/x")
        assert "/model: litellm does not know the provider of the model 'nosuchprovider/x'" in (
            app.chat.query("ErrorLine").last().text
        )
        assert app.query_one(HeaderBar).model == "openai/test-model"
        assert app.host.agent.deps.llm is llm
        assert scripted_server.requests == []
        await send(pilot, "hello")
        assert scripted_server.requests[-1]["model"] == "test-model"


async def test_slash_dropdown_completes_commands(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("/", "c", "o", "m")
        completer = app.prompt.completer
        assert completer.open
        # a help too long for the screen ends in an ellipsis at its edge, not in the middle of a word
        row = next(r for r in screen_text(app).splitlines() if r.startswith("/compress [--preview] [--upto N] [focus]"))
        assert row.endswith("…") and len(row) == SIZE[0] and "compact the conversation now" in row
        await pilot.press("tab")
        assert app.prompt.text == "/compress "
        assert not completer.open
        await pilot.press(*"db")
        assert app.prompt.text == "/compress db" and not completer.open


async def test_slash_dropdown_arrows_move_and_escape_closes(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("/", "c", "o")
        completer = app.prompt.completer
        first, second = (str(completer.get_option_at_index(i).prompt).split()[0] for i in (0, 1))
        await pilot.press("down", "down", "up", "tab")
        assert app.prompt.text.rstrip() == second != first and not completer.open
        app.prompt.clear()
        await pilot.press("/", "c", "o")
        assert completer.open
        await pilot.press("escape")
        assert not completer.open and app.prompt.text == "/co"


async def test_enter_on_the_dropdown_runs_a_command_without_arguments(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("/", "h", "e")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, TextViewer)


async def test_commands_are_in_the_palette(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "/compress" in titles and "/compress --preview" in titles and "/context" in titles and "/quit" in titles
        helps = {c.title: c.help for c in app.get_system_commands(app.screen)}
        assert "[" not in helps["/compress"] and "focus topic" in helps["/compress"]  # no markup to lose
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"/context")
        await until(pilot, lambda: "where the tokens go" in screen_text(app))
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, TextViewer)


async def test_quit_exits(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/quit", wait=False)
        await pilot.pause()
    assert app.return_code == 0
