"""The diff of an edit (tools/edit_diff.py), what write_file and patch attach to their results, and
`tools.edits: ask`: the question carries the diff, nothing is written before the yes."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from hermeslite.tools.base import ApprovalRequest, ToolContext
from hermeslite.tools.edit_diff import MAX_DIFF_BYTES, edit_diff
from hermeslite.tools.files import PatchTool, WriteFileTool

TEN = "".join(f"line {n}\n" for n in range(1, 11))


def test_a_change_is_counted_and_shown_as_a_unified_diff():
    diff = edit_diff("a.txt", TEN.encode(), TEN.replace("line 5\n", "five\nfive and a half\n").encode())
    assert (diff.added, diff.removed, diff.created, diff.stat) == (2, 1, False, "+2 −1")
    assert diff.lines[:3] == ["--- a/a.txt", "+++ b/a.txt", "@@ -2,7 +2,8 @@"]
    assert "-line 5" in diff.lines and "+five and a half" in diff.lines
    assert diff.summary() == "a.txt: +2 −1"


def test_a_new_file_is_new_and_an_unchanged_one_has_no_diff():
    created = edit_diff("n.py", None, b"x = 1\n")
    assert created.created and created.stat == "new +1" and created.lines[0] == "--- /dev/null"
    assert created.summary() == "n.py: new file, +1 −0"
    same = edit_diff("a.txt", TEN.encode(), TEN.encode())
    assert same.text == "" and same.summary() == "a.txt: no change"


def test_binary_and_large_files_get_a_one_line_stat():
    binary = edit_diff("logo.png", b"\x89PNG\0\0" * 100, b"\x89PNG\0\1" * 300)
    assert binary.text == "" and binary.summary() == "logo.png: binary, 600 bytes → 1.8 kB" and binary.stat == "binary"
    big = b"x\n" * (MAX_DIFF_BYTES // 2 + 1)
    large = edit_diff("dump.sql", big, big + b"y\n")
    assert large.text == "" and large.summary() == "dump.sql: large, 1.0 MB → 1.0 MB, not diffed"
    unread = edit_diff("huge.log", None, b"short\n", before_size=50_000_000)
    assert not unread.created and unread.summary() == "huge.log: large, 50.0 MB → 6 bytes, not diffed"


def test_the_compact_form_keeps_change_lines_and_counts_the_rest():
    diff = edit_diff("a.txt", b"", "".join(f"{n}\n" for n in range(30)).encode())
    compact = diff.compact(5)
    assert compact[0] == "a.txt: +30 −0"
    assert compact[1:] == ["@@ -0,0 +1,30 @@", "+0", "+1", "+2", "+3", "… 26 more diff lines"]


def test_credentials_in_a_diff_are_masked():
    key = "sk-proj-" + "Ab3xY9" * 8
    diff = edit_diff(".env", b"A=1\n", f"A=1\nOPENAI_API_KEY={key}\n".encode())
    assert key not in diff.text and "OPENAI_API_KEY=" in diff.text


async def test_write_and_patch_results_carry_their_diff(ctx):
    written = await WriteFileTool().run({"path": "a.txt", "content": TEN}, ctx)
    assert written.diff is not None and written.diff.created and written.diff.added == 10
    patched = await PatchTool().run({"path": "a.txt", "old": "line 3\n", "new": "three\n"}, ctx)
    assert patched.diff is not None and patched.diff.stat == "+1 −1"
    rewritten = await WriteFileTool().run({"path": "a.txt", "content": "short\n"}, ctx)
    assert rewritten.diff is not None and (rewritten.diff.added, rewritten.diff.removed) == (1, 10)


class Asker:
    """An approver that records each request and answers from a script."""

    def __init__(self, *answers: bool) -> None:
        self.answers, self.requests = list(answers), []

    async def __call__(self, request: ApprovalRequest) -> bool:
        self.requests.append(request)
        return self.answers.pop(0)


def asking(ctx: ToolContext, asker: Asker) -> ToolContext:
    return replace(ctx, edits="ask", approve=asker)


async def test_ask_shows_the_diff_and_writes_only_after_a_yes(ctx):
    target = ctx.cwd / "a.txt"
    target.write_text(TEN)
    asker = Asker(False, True)
    ask_ctx = asking(ctx, asker)
    args = {"path": "a.txt", "old": "line 4\n", "new": "four\n"}
    denied = await PatchTool().run(args, ask_ctx)
    assert denied.is_error and "the user denied this edit" in denied.content and target.read_text() == TEN
    request = asker.requests[0]
    assert request.command == "patch a.txt" and request.diff is not None and "+four" in request.diff.lines
    assert request.scope == asker_scope(asker)
    allowed = await PatchTool().run(args, ask_ctx)
    assert not allowed.is_error and target.read_text() == TEN.replace("line 4\n", "four\n")


def asker_scope(asker: Asker) -> str:
    scopes = {request.scope for request in asker.requests}
    assert len(scopes) == 1  # one scope for every edit: "allow for this session" covers them all
    return scopes.pop()


async def test_ask_covers_new_files_and_every_edit_shares_one_scope(ctx):
    asker = Asker(True, True)
    ask_ctx = asking(ctx, asker)
    await WriteFileTool().run({"path": "sub/new.txt", "content": "hi\n"}, ask_ctx)
    await WriteFileTool().run({"path": "other.txt", "content": "there\n"}, ask_ctx)
    assert [r.command for r in asker.requests] == ["write sub/new.txt", "write other.txt"]
    assert asker_scope(asker) == "file edits by write_file and patch"
    assert (ctx.cwd / "sub/new.txt").read_text() == "hi\n"


async def test_an_edit_that_changes_nothing_is_not_asked_about(ctx):
    (ctx.cwd / "a.txt").write_text(TEN)
    asker = Asker()
    result = await WriteFileTool().run({"path": "a.txt", "content": TEN}, asking(ctx, asker))
    assert not result.is_error and asker.requests == []


async def test_accept_edits_mode_writes_without_the_question(ctx):
    (ctx.cwd / "a.txt").write_text(TEN)
    asker = Asker()
    result = await WriteFileTool().run(
        {"path": "a.txt", "content": "new\n"}, replace(asking(ctx, asker), mode="accept-edits")
    )
    assert not result.is_error and asker.requests == []
    assert (ctx.cwd / "a.txt").read_text() == "new\n"


async def test_headless_ask_refuses_with_the_hint_and_deny_refuses(ctx):
    (ctx.cwd / "a.txt").write_text(TEN)
    headless = replace(ctx, edits="ask")
    refused = await WriteFileTool().run({"path": "a.txt", "content": "new\n"}, headless)
    assert refused.is_error and "no one can approve this edit in headless mode" in refused.content
    assert "set tools.edits: auto" in refused.content and refused.diff is not None
    denied = await WriteFileTool().run({"path": "a.txt", "content": "new\n"}, replace(headless, approval_policy="deny"))
    assert denied.is_error and "tools.approval: deny" in denied.content
    assert (ctx.cwd / "a.txt").read_text() == TEN


async def test_a_file_changed_while_the_user_decides_is_not_overwritten(ctx):
    target = ctx.cwd / "a.txt"
    target.write_text(TEN)

    async def edit_meanwhile(request: ApprovalRequest) -> bool:
        await asyncio.to_thread(target.write_text, TEN + "typed in the editor\n")
        return True

    ask_ctx = replace(ctx, edits="ask", approve=edit_meanwhile)
    result = await PatchTool().run({"path": "a.txt", "old": "line 1\n", "new": "one\n"}, ask_ctx)
    assert result.is_error and "changed while the edit waited for approval" in result.content
    assert target.read_text() == TEN + "typed in the editor\n"
