"""/model with no name opens a picker: it fills off the frame, typing narrows it, Enter switches through
/model NAME's checks (the next request goes to the new model), Escape leaves the model as it was."""

from __future__ import annotations

from hermeslite.tui.screens.model_picker import ModelPicker
from tests.server import MODEL
from tests.tui.pilot import SIZE, ready, send, settle, until


def shown(app) -> list[str]:
    options = app.screen.query_one("#picker-list")
    return [options.get_option_at_index(i).id for i in range(options.option_count)]


async def open_picker(pilot) -> None:
    await send(pilot, "/model", wait=False)
    await until(pilot, lambda: isinstance(pilot.app.screen, ModelPicker))
    await until(pilot, lambda: bool(shown(pilot.app)))


async def test_typing_narrows_and_enter_switches_the_next_request(make_app, scripted_server, monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    app = make_app()
    make_app.store.create_session("openai/recent-model", str(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await open_picker(pilot)
        everything = shown(app)
        assert everything[:2] == [MODEL, "openai/recent-model"]  # configured, then recent
        assert "openai/gpt-4o" in everything and len(everything) > 20  # known for the keyed provider
        label = app.screen.query_one("#picker-list").get_option_at_index(everything.index("openai/gpt-4o")).prompt
        assert "128k window" in label.plain and "per Mtok" in label.plain
        await pilot.press(*"recent")
        await until(pilot, lambda: shown(app) == ["openai/recent-model"])
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(app.screen, ModelPicker)
        assert app.host.model_name == "openai/recent-model"
        await send(pilot, "hello")
        assert scripted_server.requests[-1]["model"] == "recent-model"
        assert make_app.store.get_session(app.host.agent.session_id).model == "openai/recent-model"


async def test_escape_leaves_the_model_unchanged(make_app, scripted_server):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await open_picker(pilot)
        await pilot.press("down", "escape")
        await settle(pilot)
        assert not isinstance(app.screen, ModelPicker)
        assert app.host.model_name == MODEL
        await send(pilot, "hello")
        assert scripted_server.requests[-1]["model"] == "test-model"


async def test_a_name_nothing_matches_goes_through_the_same_checks(make_app, scripted_server):
    from hermeslite.tui.widgets.message import ErrorLine

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await open_picker(pilot)
        await pilot.press(*"nosuchprovider/x")
        await until(pilot, lambda: shown(app) == [])
        assert "No model matches" in str(app.screen.query_one("#picker-status").render())
        await pilot.press("enter")
        await settle(pilot)
        assert len(app.chat.query(ErrorLine)) == 1 and app.host.model_name == MODEL
