"""The modes in the app: Shift+Tab cycles them, the status bar shows the one on, /mode and /context
say it, and in plan mode the model's plan comes up as a card: Approve leaves plan mode and tells the
model to proceed, Keep planning closes it."""

from __future__ import annotations

import pytest

from hermeslite.agent.modes import APPROVED, PLAN_LINE
from hermeslite.tools.landlock import abi_version
from hermeslite.tui.screens.plan_card import PlanCard
from hermeslite.tui.screens.text_viewer import TextViewer
from tests.server import Reply
from tests.tui.pilot import SIZE, answer_approval, ready, send, settle, until

needs_landlock = pytest.mark.skipif(abi_version() < 1, reason="plan mode needs Landlock")


def badge(app) -> str:
    return str(app.mode_badge.render())


def user_texts(request: dict) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "user" and isinstance(m["content"], str)]


@needs_landlock
async def test_shift_tab_cycles_the_modes_and_the_status_bar_and_store_follow(make_app, scripted_server, tmp_path):
    app = make_app(cwd=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert badge(app).startswith("default")
        seen = []
        for _ in range(3):
            await pilot.press("shift+tab")
            await settle(pilot)
            seen.append((app.host.agent.mode, badge(app)))
        assert [mode for mode, _ in seen] == ["accept-edits", "plan", "default"]
        assert "accept edits" in seen[0][1] and "plan mode" in seen[1][1] and seen[2][1].startswith("default")
        assert app.focused is app.prompt  # the key never took the focus away from the input

        await send(pilot, "/mode plan")
        agent = app.host.agent
        assert agent.deps.store.load_mode(agent.session_id) == "plan"
        await send(pilot, "/context")
        assert isinstance(app.screen, TextViewer) and "Mode: plan" in app.screen.body


@needs_landlock
async def test_the_plan_card_approves_with_one_key_and_the_model_is_told_to_proceed(
    make_app, scripted_server, tmp_path
):
    app = make_app(cwd=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/mode plan")
        scripted_server.enqueue(Reply.text("1. Add a helper.\n2. Call it from main."))
        await send(pilot, "how would you add a helper?")
        await until(pilot, lambda: isinstance(app.screen, PlanCard))
        assert "Add a helper" in app.screen.plan
        assert scripted_server.requests[-1]["messages"][0]["content"].endswith(PLAN_LINE)

        await pilot.press(*"was a k")  # a follow-up typed as the card opened: no key of it answers the card
        assert isinstance(app.screen, PlanCard) and "keys typed" in str(app.screen.query_one("#plan-title").render())
        assert app.host.agent.mode == "plan"
        scripted_server.enqueue(Reply.text("Doing it."))
        await answer_approval(pilot, "a")
        await until(pilot, lambda: len(scripted_server.requests) == 2)
        await settle(pilot)

        assert app.host.agent.mode == "default" and badge(app).startswith("default")
        last = scripted_server.requests[-1]
        assert user_texts(last)[-1] == APPROVED
        assert not last["messages"][0]["content"].endswith(PLAN_LINE)  # the stored prompt, byte for byte
        assert {"write_file", "patch"} <= {t["function"]["name"] for t in last["tools"]}
        assert not isinstance(app.screen, PlanCard)


@needs_landlock
async def test_keep_planning_closes_the_card_and_stays_in_plan_mode(make_app, scripted_server, tmp_path):
    app = make_app(cwd=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/mode plan")
        scripted_server.enqueue(Reply.text("1. Rename the module."))
        await send(pilot, "plan a rename")
        await until(pilot, lambda: isinstance(app.screen, PlanCard))
        await answer_approval(pilot, "k")
        await settle(pilot)

        assert not isinstance(app.screen, PlanCard) and app.focused is app.prompt
        assert app.host.agent.mode == "plan" and len(scripted_server.requests) == 1


async def test_no_plan_card_outside_plan_mode(make_app, scripted_server, tmp_path):
    app = make_app(cwd=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        scripted_server.enqueue(Reply.text("1. Rename the module."))
        await send(pilot, "plan a rename")
        assert not isinstance(app.screen, PlanCard)


@needs_landlock
async def test_quick_presses_each_move_one_step(make_app, scripted_server, tmp_path):
    app = make_app(cwd=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("shift+tab", "shift+tab")
        await settle(pilot)
        assert app.host.agent.mode == "plan" and "plan mode" in badge(app)


async def test_without_a_kernel_sandbox_the_cycle_skips_plan_mode_and_says_why(make_app, scripted_server, tmp_path):
    app = make_app(cwd=tmp_path, tools={"sandbox": "off"})
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("shift+tab")
        await settle(pilot)
        assert app.host.agent.mode == "accept-edits"
        await pilot.press("shift+tab")
        await settle(pilot)
        assert app.host.agent.mode == "default" and badge(app).startswith("default")
        await send(pilot, "/mode plan")
        assert app.host.agent.mode == "default"
        assert "plan mode refused: it needs the kernel sandbox" in app.chat.query("ErrorLine").last().text


@needs_landlock
async def test_resume_opens_a_session_in_its_own_mode_and_new_keeps_the_current_one(
    make_app, scripted_server, tmp_path
):
    """The mode is the session's state: /resume of a plan-mode session is in plan mode (the status bar
    and the tools say so), /resume of a default one leaves it, and /new goes on in the mode on."""
    store = make_app.store
    planned = store.create_session("openai/test-model", str(tmp_path))
    store.append_message(planned, {"role": "system", "content": "sys"})
    store.append_message(planned, {"role": "user", "content": "plan the split"})
    store.append_message(planned, {"role": "assistant", "content": "1. Split app.py."})
    store.save_mode(planned, "plan")
    store.release(planned)
    app = make_app(cwd=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        first = app.host.agent.session_id
        assert app.host.agent.mode == "default" and badge(app).startswith("default")
        await send(pilot, f"/resume {planned}")
        await until(pilot, lambda: app.host.agent.session_id == planned)
        await settle(pilot)
        agent = app.host.agent
        assert agent.mode == "plan" and "plan mode" in badge(app)
        assert {"write_file", "patch"}.isdisjoint(s["function"]["name"] for s in agent.tool_schemas())
        await send(pilot, "/new")
        await until(pilot, lambda: app.host.agent.session_id not in (planned, first))
        await settle(pilot)
        assert app.host.agent.mode == "plan" and "plan mode" in badge(app)
        await send(pilot, "/mode default")
        await send(pilot, f"/resume {planned}")
        await until(pilot, lambda: app.host.agent.session_id == planned)
        await settle(pilot)
        assert app.host.agent.mode == "plan" and "plan mode" in badge(app)
        assert store.load_mode(planned) == "plan"
