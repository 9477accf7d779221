"""The first start with nothing configured and no key: the app says it runs the embedded model, and
offers once to connect a provider, checked with one real request before anything is saved."""

from __future__ import annotations

from pathlib import Path

import yaml

from hermeslite.config import Settings
from hermeslite.llm.settings import ModelConfig
from hermeslite.provider_setup import FIRST_RUN_MARKER, PROVIDERS, first_run_due
from hermeslite.store.sessions import SessionStore
from hermeslite.tui.app import HermesApp
from hermeslite.tui.screens.first_run import FirstRunScreen
from hermeslite.tui.widgets.header import HeaderBar
from hermeslite.tui.widgets.message import NoteLine
from tests.server import MODEL, ScriptedServer
from tests.tui.pilot import SIZE, send, settle, until
from tests.tui.screen import screen_text

COMPATIBLE = next(n for n, p in enumerate(PROVIDERS) if p.id == "compatible")


def unconfigured_app(tmp_path: Path) -> HermesApp:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    return HermesApp(
        Settings(model=ModelConfig()),
        cwd=project,
        store=SessionStore(tmp_path / "sessions.db"),
        first_run=True,
        model_note=("no model configured and no provider key set: this is the small embedded model", True),
    )


async def choose(pilot, index: int) -> None:
    for _ in range(index):
        await pilot.press("down")
    await pilot.press("enter")


def notes(app: HermesApp) -> list[str]:
    return [n.text for n in app.chat.query(NoteLine)]


async def test_connecting_a_server_checks_it_saves_it_and_the_session_goes_on_with_it(
    tmp_path: Path, home: Path, scripted_server: ScriptedServer
):
    app = unconfigured_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, FirstRunScreen))
        await until(pilot, lambda: "Connect a provider?" in screen_text(app))
        await choose(pilot, COMPATIBLE)
        app.screen.query_one("#first-run-model").value = MODEL
        app.screen.query_one("#first-run-url").value = scripted_server.base_url
        await pilot.press("enter")
        await until(pilot, lambda: not isinstance(app.screen, FirstRunScreen), timeout=60)
        await settle(pilot)
        assert app.query_one(HeaderBar).model == MODEL and app.query_one(HeaderBar).origin == ""
        assert scripted_server.requests[0]["max_tokens"] == 1  # the check: one short request
        saved = yaml.safe_load((home / "config" / "config.yaml").read_text())
        assert saved["model"] == {"name": MODEL, "api_base": scripted_server.base_url}
        assert any(n.startswith(f"Connected {MODEL}; saved in ") for n in notes(app))
        await send(pilot, "hello")
        assert scripted_server.requests[-1]["messages"][-1]["content"] == "hello"
    assert (home / "state" / FIRST_RUN_MARKER).exists()
    assert not first_run_due(config_found=False, model_named=False, environ={})


async def test_a_failed_check_says_why_and_saves_nothing(tmp_path: Path, home: Path):
    app = unconfigured_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, FirstRunScreen))
        await choose(pilot, COMPATIBLE)
        app.screen.query_one("#first-run-url").value = "http://127.0.0.1:9/v1"
        await pilot.press("enter")
        await until(pilot, lambda: "nothing is listening on 127.0.0.1:9" in screen_text(app), timeout=60)
        assert isinstance(app.screen, FirstRunScreen)
        await pilot.press("escape")
        await settle(pilot)
    assert not (home / "config" / "config.yaml").exists()


async def test_skipping_keeps_the_embedded_model_says_so_and_is_not_asked_again(tmp_path: Path, home: Path):
    app = unconfigured_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, FirstRunScreen))
        await pilot.press("escape")
        await settle(pilot)
        header = app.query_one(HeaderBar)
        assert (header.model, header.origin) == ("local/smollm2", "no key: chat only, no tools")
        assert "local/smollm2 (no key: chat only, no tools)" in screen_text(app)
        assert "Kept the embedded model; `hermeslite setup` connects a provider any time." in notes(app)
    assert not first_run_due(config_found=False, model_named=False, environ={})


def test_the_screen_is_due_only_when_nothing_is_configured_and_no_key_is_set(home: Path):
    assert first_run_due(config_found=False, model_named=False, environ={})
    assert not first_run_due(config_found=True, model_named=False, environ={})
    assert not first_run_due(config_found=False, model_named=True, environ={})
    assert not first_run_due(config_found=False, model_named=False, environ={"GEMINI_API_KEY": "k"})
