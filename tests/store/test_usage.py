"""Per-request usage in the session store, and sessions written before the usage table existed."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from hermeslite.store.schema import MIGRATIONS, SCHEMA_VERSION
from hermeslite.store.sessions import SessionStore
from hermeslite.store.usage import UsageRecord, UsageTotals


def turn(prompt: int, read: int = 0, write: int = 0, out: int = 10, cost: float | None = 0.01) -> UsageRecord:
    return UsageRecord("turn", "anthropic/claude-sonnet-4-5", prompt, read, write, out, cost)


def test_records_come_back_in_order_with_every_field(tmp_path: Path) -> None:
    with SessionStore(tmp_path / "s.db") as store:
        sid = store.create_session("m", "/w")
        first, second = turn(2_000, write=1_900), UsageRecord("summary", None, 3_000, 2_800, 0, 400, None)
        store.record_usage(sid, first)
        store.record_usage(sid, second)
        assert store.usage(sid) == [first, second]
        assert store.usage(store.create_session("m", "/w")) == []


def test_usage_goes_with_its_session(tmp_path: Path) -> None:
    with SessionStore(tmp_path / "s.db") as store:
        sid = store.create_session("m", "/w")
        store.record_usage(sid, turn(100))
        store.delete_session(sid)
        assert store.usage(sid) == []


def test_an_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="usage kind"):
        UsageRecord("chat", None)


def test_totals_hit_rate_and_cost() -> None:
    totals = UsageTotals.of([turn(1_000, write=900), turn(1_200, read=900, write=250), turn(1_300, read=1_150)])
    assert (totals.requests, totals.prompt_tokens, totals.cache_read_tokens, totals.cache_write_tokens) == (
        3,
        3_500,
        2_050,
        1_150,
    )
    assert totals.uncached_tokens == 300
    assert totals.cache_hit_rate == pytest.approx(2_050 / 3_500)
    assert totals.cost == pytest.approx(0.03) and totals.priced
    later = totals + UsageTotals.of([turn(500, cost=None)])
    assert not later.priced and later.unpriced == 1 and later.cost == pytest.approx(0.03)
    assert later - totals == UsageTotals.of([turn(500, cost=None)])
    assert UsageTotals().cache_hit_rate == 0.0


def test_a_session_written_before_the_usage_table_opens_and_records(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    for statement in MIGRATIONS[0]:
        conn.execute(statement)
    conn.execute("PRAGMA user_version = 1")
    conn.execute("INSERT INTO sessions (id, created_at, updated_at, model, cwd) VALUES ('old', 1, 1, 'm', '/w')")
    conn.execute("""INSERT INTO messages (session_id, generation, seq, role, json, created_at)
                    VALUES ('old', 0, 0, 'user', '{"role": "user", "content": "hello"}', 1)""")
    conn.commit()
    conn.close()
    with SessionStore(path) as store:
        assert store.schema_version == SCHEMA_VERSION
        assert store.load_transcript("old")[0] == {"role": "user", "content": "hello"}  # then a no-reply note
        assert store.usage("old") == []
        store.record_usage("old", turn(700))
        assert [r.prompt_tokens for r in store.usage("old")] == [700]


def test_a_turns_estimate_is_kept_and_a_database_from_before_it_opens(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    conn = sqlite3.connect(path, isolation_level=None)
    for migration in MIGRATIONS[:6]:  # v6: usage rows without our estimate
        for statement in migration:
            conn.execute(statement)
    conn.execute("PRAGMA user_version = 6")
    conn.execute("INSERT INTO sessions (id, created_at, updated_at) VALUES ('old', 0, 0)")
    conn.execute("INSERT INTO usage (session_id, at, kind, model, prompt_tokens) VALUES ('old', 0, 'turn', 'm', 900)")
    conn.close()
    with SessionStore(path) as store:
        assert store.schema_version == SCHEMA_VERSION
        [old] = store.usage("old")
        assert (old.prompt_tokens, old.estimated_tokens) == (900, None)
        new = UsageRecord("turn", "m", 1_300, estimated_tokens=1_000)
        store.record_usage("old", new)
        assert store.usage("old") == [old, new]
