"""Render docs/screenshot.svg: the TUI mid-conversation, pressure meter and warning bar showing.

The conversation is scripted (tests/server.py stands in for the model), so
the picture is the same on every run: a reply with Markdown, a finished tool
call, and the provider reporting 44k prompt tokens against a 50k compaction
threshold, which turns the meter amber and brings up the warning bar.

Run: `python benchmarks/screenshot.py [--out docs/screenshot.svg] [--size 100x36]`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SCHEMA_REPLY = """Here is a first cut of the **orders** schema:

```sql
CREATE TABLE orders (
    id          BIGSERIAL PRIMARY KEY,
    customer_id BIGINT NOT NULL REFERENCES customers(id),
    placed_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX orders_customer_idx ON orders (customer_id);
```

- one row per checkout, line items in `order_items`
- the index keeps *orders by customer* fast
"""

TESTS_REPLY = "All **4 tests pass**. Next I would add `order_items` and a migration for it."


async def render(out: Path, size: tuple[int, int]) -> None:
    from hermeslite.config import Settings
    from hermeslite.llm.litellm_client import LiteLLMClient
    from hermeslite.llm.settings import ModelConfig
    from hermeslite.store.sessions import SessionStore
    from hermeslite.tui.app import HermesApp
    from tests.server import Reply, ScriptedServer

    with tempfile.TemporaryDirectory() as tmp, ScriptedServer() as server:
        os.environ["HERMESLITE_HOME"] = tmp
        project = Path(tmp) / "shop"
        project.mkdir()
        server.enqueue(
            Reply.text(SCHEMA_REPLY, chunks=20, usage=(38_900, 120)),
            Reply.tool_calls([("terminal", {"command": "echo '4 passed in 0.31s'"})], text="Running the tests."),
            Reply.text(TESTS_REPLY, chunks=8, usage=(44_200, 30)),
        )
        model = ModelConfig(name="openai/gpt-4o", api_base=server.base_url, context_window=100_000)
        settings = replace(Settings(), model=model)
        llm = LiteLLMClient(model, retry_base_delay=0.01)
        app = HermesApp(
            settings,
            cwd=project,
            cwd_label="~/src/shop",
            llm=llm,
            motion=False,
            store=SessionStore(Path(tmp) / "sessions.db"),
        )
        async with app.run_test(size=size) as pilot:
            await app.host.ready()
            for text in ("Design the orders table for the shop", "run the order tests"):
                app.prompt.text = text
                await pilot.press("enter")
                await pilot.pause()
                await app.workers.wait_for_complete()
                while not app.feed.idle:
                    await pilot.pause(0.02)
            await pilot.pause(0.3)
            app.clear_notifications()
            await pilot.pause()
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(app.export_screenshot(title="hermeslite"), encoding="utf-8")
    print(f"wrote {out} ({out.stat().st_size:,} bytes)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshot.svg")
    parser.add_argument("--size", default="100x36", help="COLSxROWS")
    args = parser.parse_args()
    cols, rows = (int(n) for n in args.size.lower().split("x"))
    asyncio.run(render(args.out, (cols, rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
