"""/export in the app: the file is written into the project and a note says where."""

from __future__ import annotations

from hermeslite.tui.widgets.message import NoteLine
from tests.server import Reply
from tests.tui.pilot import SIZE, ready, send


async def test_app_export_writes_markdown_into_the_project(make_app, scripted_server, tmp_path):
    app = make_app(cwd=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        scripted_server.enqueue(Reply.text("hello back"))
        await send(pilot, "hello from the app")
        await send(pilot, "/export")
        path = tmp_path / f"hermeslite-{app.host.agent.session_id}.md"
        text = path.read_text()
        assert "hello from the app" in text and "hello back" in text
        notes = [n.text for n in app.chat.query(NoteLine)]
        assert any(n.startswith("exported this session (1 user message, 0 compactions) →") for n in notes)
