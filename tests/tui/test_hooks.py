"""Hooks in the app: a blocked command's panel, a hook's question in the approval dialog, a broken hook's line."""

from __future__ import annotations

from hermeslite.tui.screens.approval import ApprovalScreen
from hermeslite.tui.widgets.message import NoteLine, UserMessage
from hermeslite.tui.widgets.tool_panel import ToolPanel
from tests.envelope import unwrapped
from tests.hook_scripts import on, replying, script
from tests.server import Reply
from tests.tui.pilot import SIZE, answer_approval, ready, send, settle, until
from tests.tui.screen import screen_text


async def test_a_blocked_command_shows_why_in_its_panel_and_never_runs(make_app, scripted_server, tmp_path):
    block = script(tmp_path / "hooks", "block.sh", 'echo "no new files in this repo" >&2; exit 2')
    project = tmp_path / "project"
    scripted_server.enqueue(
        Reply.tool_calls([("terminal", {"command": "touch made.txt"})]), Reply.text("The hook said no.")
    )
    app = make_app(hooks=on("PreToolUse", block, matcher="terminal"), cwd=project)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "make a file")
        panel = app.chat.query_one(ToolPanel)
        assert panel.state == "error"
        panel.collapsed = False
        await settle(pilot)
        assert "blocked by a PreToolUse hook: no new files in this repo" in screen_text(app)
    assert not (project / "made.txt").exists()
    tool = [m for m in scripted_server.requests[-1]["messages"] if m["role"] == "tool"]
    assert unwrapped(tool[0]["content"]) == "error: blocked by a PreToolUse hook: no new files in this repo"


async def test_a_hook_that_asks_opens_the_approval_dialog(make_app, scripted_server, tmp_path):
    ask = replying(
        tmp_path / "hooks",
        "ask.sh",
        {"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "it writes to the repo"}},
    )
    project = tmp_path / "project"
    scripted_server.enqueue(Reply.tool_calls([("terminal", {"command": "touch asked.txt"})]), Reply.text("ok"))
    app = make_app(hooks=on("PreToolUse", ask), cwd=project)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "make a file", wait=False)
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        assert "a PreToolUse hook asks first: it writes to the repo" in screen_text(app)
        await answer_approval(pilot, "y")
        await settle(pilot)
    assert (project / "asked.txt").exists()


async def test_a_hanging_hook_is_one_note_and_the_command_runs(make_app, scripted_server, tmp_path):
    slow = script(tmp_path / "hooks", "slow.sh", "sleep 300")
    project = tmp_path / "project"
    scripted_server.enqueue(Reply.tool_calls([("terminal", {"command": "touch made.txt"})]), Reply.text("ok"))
    app = make_app(hooks=on("PreToolUse", slow, timeout=1), cwd=project)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "make a file")
        await until(pilot, lambda: not app.turns.turn_running)
        await settle(pilot)
        notes = [n.text for n in app.chat.query(NoteLine) if "PreToolUse hook" in n.text]
        assert notes == [
            f"PreToolUse hook `{slow}`: timed out after 1 s; its process group was killed; the terminal call goes on"
        ]
    assert (project / "made.txt").exists()


async def test_a_resumed_prompt_shows_what_was_typed_and_the_hooks_context_apart(make_app, scripted_server, tmp_path):
    """The context UserPromptSubmit and SessionStart hooks add was replayed inside the user's bubble."""
    hooks = tmp_path / "hooks"
    started = script(hooks, "start.sh", "cat > /dev/null; echo 'on branch main'")
    submitted = script(hooks, "submit.sh", "cat > /dev/null; echo 'ticket: the cache must stay'")
    config = {**on("SessionStart", started), **on("UserPromptSubmit", submitted)}
    project = tmp_path / "project"
    scripted_server.enqueue(Reply.text("noted"))
    app = make_app(hooks=config, cwd=project)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "what changed?")
        session_id = app.host.agent.session_id
        live_bubbles = [w.text for w in app.chat.query(UserMessage)]
    [sent] = [m["content"] for m in scripted_server.requests[-1]["messages"] if m["role"] == "user"]
    assert "on branch main" in sent and "ticket: the cache must stay" in sent  # the model still reads both
    again = make_app(hooks=config, cwd=project, session_id=session_id)
    async with again.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await settle(pilot)
        assert [w.text for w in again.chat.query(UserMessage)] == live_bubbles == ["what changed?"]
        notes = [n.text for n in again.chat.query(NoteLine)]
        assert "context from a SessionStart hook: on branch main" in notes
        assert "context from a UserPromptSubmit hook: ticket: the cache must stay" in notes
        assert "ticket: the cache must stay" in screen_text(again)
    saved = [m for m in make_app.store.load_transcript(session_id) if m.get("role") == "user"]
    assert saved[0]["content"] == sent  # what is saved is what was sent, unchanged
