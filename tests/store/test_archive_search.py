"""Full-text search over the session archive: ranking, unicode, hostile queries, scale, and the
index kept in step with the archive (compactions, failed transactions, deletions, old databases)."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

import pytest

from hermeslite.store.archive_search import EXCERPT_CHARS, MAX_TERMS, match_expression, search_terms
from hermeslite.store.schema import MIGRATIONS
from hermeslite.store.sessions import CompactionRecord, SessionStore

# The version that added the search index; the databases main wrote before it are one step older.
INDEX_VERSION = next(n for n, steps in enumerate(MIGRATIONS, 1) if any("archive_fts" in s for s in steps))


@pytest.fixture
def store(tmp_path: Path):
    s = SessionStore(tmp_path / "sessions.db")
    yield s
    s.close()


def tool(text: str, name: str = "terminal", cid: str = "c1") -> dict:
    return {"role": "tool", "tool_call_id": cid, "name": name, "content": text}


def refs(hits) -> list[str]:
    return [h.ref for h in hits]


def index_in_step(path: Path) -> bool:
    """Every archived original indexed once, nothing else indexed, and FTS5's own check passes."""
    conn = sqlite3.connect(path)
    try:
        archive = conn.execute("SELECT session_id, ref FROM archive ORDER BY 1, 2").fetchall()
        docs = conn.execute("SELECT session_id, ref FROM archive_docs ORDER BY 1, 2").fetchall()
        doc_ids = {row[0] for row in conn.execute("SELECT id FROM archive_docs")}
        fts_ids = {row[0] for row in conn.execute("SELECT rowid FROM archive_fts")}
        conn.execute("INSERT INTO archive_fts (archive_fts) VALUES ('integrity-check')")
        return archive == docs and doc_ids == fts_ids and len(doc_ids) == len(docs)
    finally:
        conn.close()


# -- ranking and what is indexed ------------------------------------------------------------


def test_the_more_relevant_original_comes_first(store: SessionStore):
    sid = store.create_session("m", "/w")
    store.archive(
        sid,
        {
            "r000000000a": tool("deployed the billing service to staging without trouble"),
            "r000000000b": tool("billing: rounding error in invoice totals; the rounding mode is wrong for billing"),
            "r000000000c": tool("unrelated output about the cache warmer"),
            "r000000000d": {"role": "user", "content": "the rounding looks off"},
        },
    )
    hits = store.search_archive(sid, "billing rounding error", limit=5)
    assert refs(hits)[0] == "r000000000b"
    assert set(refs(hits)) == {"r000000000a", "r000000000b", "r000000000d"}
    assert refs(store.search_archive(sid, "billing rounding error", limit=1)) == ["r000000000b"]


def test_a_rare_exact_value_outranks_common_words(store: SessionStore):
    sid = store.create_session("m", "/w")
    originals = {f"r{n:010x}": tool(f"the build finished and the token cache was warmed, run {n}") for n in range(40)}
    originals["r00000000ff"] = tool("the build token is XK-4471-QZ")
    store.archive(sid, originals)
    hits = store.search_archive(sid, "build token XK-4471-QZ", limit=3)
    assert hits[0].ref == "r00000000ff"
    assert "XK-4471-QZ" in hits[0].excerpt
    assert (hits[0].role, hits[0].tool) == ("tool", "terminal")


def test_text_parts_and_tool_call_arguments_are_indexed_but_not_image_data(store: SessionStore):
    sid = store.create_session("m", "/w")
    store.archive(
        sid,
        {
            "r0000000001": {
                "role": "user",
                "content": [
                    {"type": "text", "text": "compare with the mockup"},
                    "a bare string part",
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,QUJDREVGR0hJSktMTU5PUA"}},
                ],
            },
            "r0000000002": {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c9",
                        "type": "function",
                        "function": {
                            "name": "read_file",
                            "arguments": json.dumps({"path": "config/feature_flags.toml"}),
                        },
                    },
                    "not a call",
                ],
            },
        },
    )
    assert refs(store.search_archive(sid, "mockup")) == ["r0000000001"]
    assert refs(store.search_archive(sid, "bare string")) == ["r0000000001"]
    assert store.search_archive(sid, "QUJDREVGR0hJSktMTU5PUA") == []
    hit = store.search_archive(sid, "feature_flags.toml")[0]
    assert (hit.ref, hit.role, hit.tool) == ("r0000000002", "assistant", None)
    assert "read_file" in hit.excerpt and "config/feature_flags.toml" in hit.excerpt


def test_the_recall_tools_own_calls_and_results_are_not_searched(store: SessionStore):
    """They repeat what the archive holds; found again, they would crowd the originals out."""
    sid = store.create_session("m", "/w")
    call = {"id": "c5", "type": "function", "function": {"name": "recall", "arguments": '{"query": "deploy key"}'}}
    store.archive(
        sid,
        {
            "r0000000001": tool("the deploy key is KX-991"),
            "r0000000002": {"role": "assistant", "content": None, "tool_calls": [call]},
            "r0000000003": tool(
                '1 match for "deploy key": r0000000001 the deploy key is KX-991', name="recall", cid="c5"
            ),
            "r0000000004": {
                "role": "assistant",
                "content": "Checking the environment.",
                "tool_calls": [
                    call,
                    {
                        "id": "c6",
                        "type": "function",
                        "function": {"name": "terminal", "arguments": '{"command": "env"}'},
                    },
                ],
            },
        },
    )
    assert refs(store.search_archive(sid, "deploy key")) == ["r0000000001"]
    assert refs(store.search_archive(sid, "checking env")) == ["r0000000004"]
    assert store.archived_count(sid) == 4
    assert index_in_step(store.path)


def test_prefix_terms_from_three_characters(store: SessionStore):
    sid = store.create_session("m", "/w")
    store.archive(sid, {"r0000000001": tool("deployment finished"), "r0000000002": tool("an ox and a yak")})
    assert refs(store.search_archive(sid, "deploy")) == ["r0000000001"]
    assert store.search_archive(sid, "o") == []  # one or two letters match whole words only
    assert match_expression(["ox", "東"]) == 'body : ("ox" OR "東"*)'  # one CJK character is a prefix
    assert refs(store.search_archive(sid, "ox")) == ["r0000000002"]


def test_search_is_limited_to_the_session(store: SessionStore):
    a, b = store.create_session("m", "/w"), store.create_session("m", "/w")
    store.archive(a, {"r0000000001": tool("the password reset flow in session a")})
    store.archive(b, {"r0000000002": tool("the password reset flow in session b")})
    assert refs(store.search_archive(a, "password reset")) == ["r0000000001"]
    assert refs(store.search_archive(b, "password reset")) == ["r0000000002"]
    # a session id in the query is searched for as words, never used to reach another session
    assert store.search_archive(a, f'session : "{b}" OR password') != []
    assert refs(store.search_archive(a, f'session : "{b}" OR password')) == ["r0000000001"]


# -- unicode ----------------------------------------------------------------------------------


def test_case_and_accents_are_folded(store: SessionStore):
    sid = store.create_session("m", "/w")
    store.archive(
        sid,
        {
            "r0000000001": {"role": "user", "content": "Le café crème de Ångström à Zürich"},
            "r0000000002": {"role": "user", "content": "ПРИВЕТ, мир; Ελληνικά κείμενα"},
        },
    )
    for query in ("cafe creme", "CAFÉ", "angstrom", "zurich", "Zürich"):
        assert refs(store.search_archive(sid, query)) == ["r0000000001"], query
    for query in ("привет", "ΕΛΛΗΝΙΚΆ", "ελληνικά"):
        assert refs(store.search_archive(sid, query)) == ["r0000000002"], query
    assert store.search_archive(sid, "ελληνικα") == []  # unicode61 removes Latin accents only


def test_cjk_runs_match_whole_or_by_their_beginning(store: SessionStore):
    """unicode61 makes one token of each run of CJK text between spaces or punctuation: a query
    finds a run it equals or begins, not a word in the middle of one."""
    sid = store.create_session("m", "/w")
    store.archive(
        sid,
        {
            "r0000000001": {"role": "user", "content": "設定ファイルを読む。東京都に住む"},
            "r0000000002": {"role": "user", "content": "部署 デプロイ 完了"},
        },
    )
    assert refs(store.search_archive(sid, "デプロイ")) == ["r0000000002"]
    assert refs(store.search_archive(sid, "東京")) == ["r0000000001"]  # the start of 東京都に住む
    assert refs(store.search_archive(sid, "設定ファイル")) == ["r0000000001"]
    assert store.search_archive(sid, "住む") == []  # inside a run: not found


def test_lone_surrogates_in_an_original_do_not_break_search(store: SessionStore):
    sid = store.create_session("m", "/w")
    store.archive(sid, {"r0000000001": tool("broken \ud800 bytes near the marker zebra")})
    hit = store.search_archive(sid, "zebra")[0]
    assert "zebra" in hit.excerpt and "bytes" in hit.excerpt


# -- queries are words, never syntax ------------------------------------------------------------

HOSTILE = [
    "'; DROP TABLE archive; --",
    '"unbalanced',
    'say "hello" twice',
    "NEAR(alpha beta)",
    "alpha AND beta",
    "alpha NOT beta",
    "alpha OR",
    "-beta",
    "*",
    "alpha*",
    "body:alpha",
    "session:x",
    "^alpha",
    "(alpha",
    "alpha)",
    "{alpha beta}",
    "a + b",
    "100%",
    "c:\\path\\to",
    "NOT",
    "AND OR NOT NEAR",
    "\x00alpha",
    "alpha\nbeta",
    "'",
    '"',
    "''",
    '""',
    ":",
    "?",
    "[alpha]",
    "alpha_beta",
    "e=mc^2",
]


@pytest.mark.parametrize("query", HOSTILE)
def test_hostile_queries_never_raise(store: SessionStore, query: str):
    sid = store.create_session("m", "/w")
    texts = {"r0000000001": "alpha beta gamma", "r0000000002": "only alpha here"}
    store.archive(sid, {ref: tool(text) for ref, text in texts.items()})
    hits = store.search_archive(sid, query)
    words = set(search_terms(query))
    assert set(refs(hits)) == {ref for ref, text in texts.items() if words & set(text.split())}
    assert index_in_step(store.path)


def test_operators_are_plain_words(store: SessionStore):
    sid = store.create_session("m", "/w")
    store.archive(
        sid,
        {
            "r0000000001": tool("only apple here"),
            "r0000000002": tool("apple and banana"),
            "r0000000003": tool("near the river"),
        },
    )
    # AND would require both, NOT would exclude banana, NEAR would be a proximity group: none of that
    assert set(refs(store.search_archive(sid, "apple AND banana"))) == {"r0000000001", "r0000000002"}
    assert "r0000000002" in refs(store.search_archive(sid, "apple NOT banana"))
    assert "r0000000003" in refs(store.search_archive(sid, "NEAR(apple river)"))
    # -banana is the word banana, not its exclusion; banana* is the word, not a prefix marker
    assert refs(store.search_archive(sid, "-banana")) == ["r0000000002"]
    assert store.search_archive(sid, "'; DROP TABLE archive; --") == []
    assert store.archived_count(sid) == 3


def test_match_expression_quotes_every_term():
    terms = search_terms('x"y NEAR(a) AND b* body:c')
    assert terms == ["x", "y", "near", "a", "and", "b", "body", "c"]
    assert match_expression(terms) == 'body : ("x" OR "y" OR "near"* OR "a" OR "and"* OR "b" OR "body"* OR "c")'
    assert len(search_terms(" ".join(f"w{n}" for n in range(100)))) == MAX_TERMS
    assert search_terms("*** -- () ''") == []


def test_a_query_without_words_finds_nothing(store: SessionStore):
    sid = store.create_session("m", "/w")
    store.archive(sid, {"r0000000001": tool("anything")})
    assert store.search_archive(sid, "  ** -- ") == []
    assert store.search_archive(sid, "anything", limit=0) == []


# -- scale ------------------------------------------------------------------------------------


def test_a_large_archive(store: SessionStore):
    sid = store.create_session("m", "/w")
    words = "parser cache retry session token schema handler worker queue client server payload".split()
    bulk = {
        f"r{n:010x}": tool(" ".join(words[(n + k) % len(words)] for k in range(60)) + f" item{n}")
        for n in range(20_000)
    }
    bulk["rffffffffff"] = tool("x" * 2_000_000 + " needle-value Q7-ZETA " + "y" * 1_000_000)
    store.archive(sid, bulk)
    assert store.archived_count(sid) == 20_001
    started = time.perf_counter()
    hits = store.search_archive(sid, "needle value Q7-ZETA cache", limit=3)
    elapsed = time.perf_counter() - started
    assert hits[0].ref == "rffffffffff"
    assert len(hits[0].excerpt) <= EXCERPT_CHARS + 2  # an excerpt, not the megabytes around it
    assert "needle-value Q7-ZETA" in hits[0].excerpt
    assert refs(store.search_archive(sid, "item12345")) == [f"r{12345:010x}"]
    assert elapsed < 2.0  # generous: a shared CI machine; the benchmark measures the real figure
    assert index_in_step(store.path)


# -- the index in step with the archive ----------------------------------------------------------


def test_index_follows_a_compaction(store: SessionStore):
    sid = store.create_session("m", "/w")
    store.append_message(sid, {"role": "user", "content": "run the migration"})
    store.append_message(sid, tool("applied migration 0042_add_invoice_index in 3.2 s"))
    new = [{"role": "user", "content": "run the migration"}, tool("[pruned; recall id r0000000042]")]
    store.apply_compaction(
        sid,
        new,
        {"r0000000042": tool("applied migration 0042_add_invoice_index in 3.2 s")},
        CompactionRecord("manual", 100, 20, 2, 2),
    )
    hit = store.search_archive(sid, "0042_add_invoice_index")[0]
    assert hit.ref == "r0000000042" and "3.2" in hit.excerpt
    # archiving the same id again keeps the first original and one index row
    store.archive(sid, {"r0000000042": tool("something else entirely")})
    assert store.search_archive(sid, "entirely") == []
    assert index_in_step(store.path)


def test_index_rolls_back_with_a_failed_compaction(store: SessionStore):
    sid = store.create_session("m", "/w")
    store.archive(sid, {"r0000000001": tool("kept before the failure")})
    record = CompactionRecord("manual", 100, 20, 2, 2)
    record.trigger = ""  # the compactions table's CHECK (a trigger is never empty) fails after the archive rows went in
    with pytest.raises(sqlite3.IntegrityError):
        store.apply_compaction(
            sid, [{"role": "user", "content": "x"}], {"r0000000002": tool("written in the failed transaction")}, record
        )
    assert store.search_archive(sid, "failed transaction") == []
    assert store.recall(sid, "r0000000002") is None
    assert refs(store.search_archive(sid, "kept failure")) == ["r0000000001"]
    assert index_in_step(store.path)


def test_deleting_a_session_removes_its_index_rows(store: SessionStore):
    a, b = store.create_session("m", "/w"), store.create_session("m", "/w")
    store.archive(a, {f"r{n:010x}": tool(f"row {n} of a") for n in range(50)})
    store.archive(b, {"r0000000001": tool("row of b")})
    assert store.delete_session(a)
    conn = sqlite3.connect(store.path)
    assert conn.execute("SELECT COUNT(*) FROM archive_docs").fetchone()[0] == 1
    assert conn.execute("SELECT COUNT(*) FROM archive_fts").fetchone()[0] == 1
    conn.close()
    assert refs(store.search_archive(b, "row")) == ["r0000000001"]
    assert index_in_step(store.path)


def test_two_stores_on_one_file_see_each_others_archive(tmp_path: Path):
    path = tmp_path / "s.db"
    with SessionStore(path) as writer, SessionStore(path) as reader:
        sid = writer.create_session("m", "/w")
        writer.archive(sid, {"r0000000001": tool("written by the other process")})
        assert refs(reader.search_archive(sid, "other process")) == ["r0000000001"]


# -- databases written before the index ------------------------------------------------------


def old_database(path: Path, rows: list[tuple[str, str, str]]) -> str:
    """A database as hermeslite wrote it before the search index: the earlier migrations only,
    with a session and archive rows inserted as that version's store did."""
    conn = sqlite3.connect(path, isolation_level=None)
    for steps in MIGRATIONS[: INDEX_VERSION - 1]:
        for statement in steps:
            conn.execute(statement)
    conn.execute(f"PRAGMA user_version = {INDEX_VERSION - 1}")
    sid = "20250101-120000-abcdef"
    conn.execute(
        "INSERT INTO sessions (id, created_at, updated_at, title, model, cwd) VALUES (?, 1, 1, 't', 'm', '/w')", (sid,)
    )
    conn.executemany(
        "INSERT INTO archive (session_id, ref, json, created_at) VALUES (?, ?, ?, 1)",
        [(sid, ref, text) for _, ref, text in rows],
    )
    conn.close()
    return sid


def test_a_database_the_previous_version_wrote_opens_searchable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Written by this store's own code with the schema stopped one version short, as the release
    before the index wrote it: transcript, a compaction with its archive, usage."""
    from hermeslite.store import schema

    path = tmp_path / "previous.db"
    monkeypatch.setattr(schema, "MIGRATIONS", MIGRATIONS[: INDEX_VERSION - 1])
    monkeypatch.setattr(schema, "SCHEMA_VERSION", INDEX_VERSION - 1)
    with SessionStore(path) as old:
        assert old.schema_version == INDEX_VERSION - 1
        sid = old.create_session("m", "/w")
        old.append_message(sid, {"role": "user", "content": "read the flags"})
        old.apply_compaction(
            sid,
            [{"role": "user", "content": "read the flags"}],
            {"r00000000aa": tool('rollout_percentage = 35\nkill_switch = "off"', name="read_file")},
            CompactionRecord("manual", 10, 5, 1, 1),
        )
    monkeypatch.undo()
    with SessionStore(path) as store:
        assert store.schema_version == len(MIGRATIONS)
        hit = store.search_archive(sid, "rollout percentage")[0]
        assert (hit.ref, hit.tool) == ("r00000000aa", "read_file") and "35" in hit.excerpt
        assert store.load_transcript(sid)[0] == {"role": "user", "content": "read the flags"}
    assert index_in_step(path)


def test_an_old_database_opens_and_its_archive_becomes_searchable(tmp_path: Path):
    path = tmp_path / "old.db"
    sid = old_database(
        path,
        [
            ("", "r0000000001", json.dumps(tool("the staging URL was https://staging.example.test/v2"))),
            ("", "r0000000002", json.dumps({"role": "user", "content": [{"type": "text", "text": "résumé draft"}]})),
            ("", "r0000000003", json.dumps({"role": "user", "content": "lone \ud800 survives"}, ensure_ascii=True)),
            ("", "r0000000004", "{not json: damaged row"),
        ],
    )
    with SessionStore(path) as store:
        assert store.schema_version == len(MIGRATIONS)
        assert refs(store.search_archive(sid, "staging url")) == ["r0000000001"]
        assert refs(store.search_archive(sid, "resume")) == ["r0000000002"]
        assert refs(store.search_archive(sid, "survives")) == ["r0000000003"]
        assert store.archived_count(sid) == 4  # the damaged row is kept, just not searchable
        store.archive(sid, {"r0000000005": tool("added after the upgrade")})
        assert refs(store.search_archive(sid, "upgrade")) == ["r0000000005"]
    with SessionStore(path) as store:  # reopening does not index anything twice
        assert len(store.search_archive(sid, "staging", limit=10)) == 1
    assert index_in_step(path)  # the damaged row too, with no text
