"""The first-run screen: nothing configured and no key set, so offer to connect a provider.

It opens once, over the chat, on the first start with no config file, no
`--model` and no provider key (see `provider_setup.first_run_due`). Picking a
provider asks for what that provider needs (its key or its server's URL),
checks it with one short request, and dismisses with the choice; the app
writes the config and switches the session to it. Esc at any point keeps the
embedded model, and either way the screen is not shown again.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from hermeslite.config import ConfigError, display_path
from hermeslite.display import neutralize
from hermeslite.provider_setup import (
    PROVIDERS,
    Choice,
    Provider,
    check,
    check_url,
    first_run_done,
    key_answer,
    provider_by_id,
    target_file,
    write_config,
)

if TYPE_CHECKING:
    from ..surface import CommandSurface

INTRO = (
    "No model is configured and no provider key is set, so this is the small embedded model: "
    "it chats, but cannot run commands or read files. Connect a provider?"
)
HINT = "Enter checks it with one short request, then saves it · Esc keeps the embedded model"


class FirstRunScreen(ModalScreen[Choice | None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "skip", "Skip")]
    DEFAULT_CSS = """
    FirstRunScreen { align: center middle; }
    #first-run { width: 90%; max-width: 90; height: auto; max-height: 90%;
                 border: round $accent; background: $surface; padding: 0 1; }
    #first-run-intro { margin-bottom: 1; }
    #first-run-list { height: auto; max-height: 9; border: none; }
    #first-run-form { height: auto; display: none; margin-bottom: 1; }
    #first-run-form Horizontal { height: 1; }
    #first-run-form Label { width: 7; color: $text-muted; }
    #first-run-form Input { border: none; height: 1; width: 1fr; padding: 0 1; }
    #first-run-status { color: $text-muted; }
    #first-run-status.error { color: $error; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.provider: Provider | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="first-run"):
            yield Static(INTRO, id="first-run-intro")
            yield OptionList(*(Option(self._label(p), id=p.id) for p in PROVIDERS), id="first-run-list")
            with Vertical(id="first-run-form"):
                with Horizontal(id="first-run-model-row"):
                    yield Label("model")
                    yield Input(id="first-run-model")
                with Horizontal(id="first-run-url-row"):
                    yield Label("URL")
                    yield Input(id="first-run-url", placeholder="e.g. http://127.0.0.1:8080/v1")
                with Horizontal(id="first-run-key-row"):
                    yield Label("key")
                    yield Input(id="first-run-key", password=True)
            yield Static("↑↓ and Enter choose · Esc keeps the embedded model", id="first-run-status", markup=False)

    @staticmethod
    def _label(provider: Provider) -> str:
        has = f"  ({provider.key_env} is set)" if provider.key_env and os.environ.get(provider.key_env) else ""
        return provider.label + has

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        provider = provider_by_id(str(event.option.id))
        if provider.id == "local":
            self.dismiss(None)
            return
        self.provider = provider
        self.query_one(OptionList).display = False
        self.query_one("#first-run-form").display = True
        model = self.query_one("#first-run-model", Input)
        model.value = provider.model
        url = self.query_one("#first-run-url", Input)
        self.query_one("#first-run-url-row").display = provider.asks_url or provider.api_base is not None
        url.value = provider.api_base or ""
        key = self.query_one("#first-run-key", Input)
        self.query_one("#first-run-key-row").display = provider.key_env is not None
        if provider.key_env:
            key.placeholder = (
                f"Enter: the key in {provider.key_env}"
                if os.environ.get(provider.key_env)
                else "paste it, or the name of the variable that holds it"
            )
        self._status(HINT)
        (url if provider.asks_url else key if provider.key_env else model).focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            choice = self._choice()
        except ValueError as exc:
            self._status(str(exc), error=True)
            return
        self._status(f"checking {choice.model} with one short request…")
        self.run_worker(self._check(choice), group="first-run", exclusive=True, exit_on_error=False)

    def _choice(self) -> Choice:
        assert self.provider is not None
        provider = self.provider
        model = self.query_one("#first-run-model", Input).value.strip() or provider.model
        shown = self.query_one("#first-run-url-row").display
        api_base = check_url(self.query_one("#first-run-url", Input).value) if shown else None
        key_env, key = None, None
        if provider.key_env:
            key_env, key = key_answer(provider, self.query_one("#first-run-key", Input).value, os.environ)
        return Choice(provider, model, api_base, key_env, key)

    async def _check(self, choice: Choice) -> None:
        problem = await check(choice)
        if problem is not None:
            self._status(f"{problem} (Esc keeps the embedded model)", error=True)
            return
        self.dismiss(choice)

    def _status(self, text: str, *, error: bool = False) -> None:
        status = self.query_one("#first-run-status", Static)
        status.update(neutralize(text))
        status.set_class(error, "error")

    def action_skip(self) -> None:
        self.dismiss(None)


async def connect(app: CommandSurface, choice: Choice | None) -> None:
    """What the screen's answer does: remember it was answered, then write the config and switch the
    session to the chosen model (a pasted key that is not saved serves this session only)."""
    first_run_done()
    if choice is None:
        await app.chat.add_note("Kept the embedded model; `hermeslite setup` connects a provider any time.")
        return
    try:
        written = write_config(choice, target_file())
    except (ConfigError, OSError) as exc:
        await app.report_error(f"The config could not be written: {exc}")
        return
    llm = await app.host.use_model(choice.model_config())
    app.header_bar.model, app.header_bar.origin = llm.model, ""
    await app.chat.add_note(f"Connected {llm.model}; saved in {display_path(written.path)}.")
    if choice.key and choice.key_env:
        await app.chat.add_note(
            f"The key is not saved: this session uses it; add `export {choice.key_env}=<your key>` to your "
            "shell profile for the next ones.",
            kind="warning",
        )
