"""Output over the cap is kept whole in the archive, in bounded memory, up to a ceiling (tools/spill.py)."""

from __future__ import annotations

from pathlib import Path

from hermeslite.tools.base import ToolContext
from hermeslite.tools.spill import NOTE_ROOM, SpilledOutput, fit_result

KEY = "ghp_" + "Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lz9Xc8"


class Kept:
    """An archive that remembers what it was given."""

    def __init__(self) -> None:
        self.texts: list[tuple[str, str]] = []

    async def __call__(self, tool: str, text: str) -> str:
        self.texts.append((tool, text))
        return "r0123456789"


def context(tmp_path: Path, archive: Kept | None, *, limit: int = 2_000, ceiling: int = 1 << 20) -> ToolContext:
    return ToolContext(cwd=tmp_path, output_limit=limit, archive=archive, archive_ceiling=ceiling, spill_dir=tmp_path)


def streamed(lines: int, middle: str = "") -> list[str]:
    chunks = [f"line {i:05d}\n" for i in range(lines)]
    chunks.insert(lines // 2, middle)
    return chunks


async def run(spilled: SpilledOutput, chunks: list[str], ctx: ToolContext) -> str:
    try:
        for chunk in chunks:
            spilled.feed(chunk)
        return await spilled.result(ctx, "terminal")
    finally:
        spilled.close()


async def test_output_within_the_cap_comes_back_whole_and_is_not_archived(tmp_path):
    kept = Kept()
    ctx = context(tmp_path, kept)
    text = await run(SpilledOutput(2_000, 1 << 20, tmp_path), streamed(100), ctx)
    assert text == "".join(streamed(100)) and kept.texts == []


async def test_a_long_output_is_capped_for_the_model_and_kept_whole_and_redacted(tmp_path):
    kept = Kept()
    ctx = context(tmp_path, kept)
    chunks = streamed(20_000, f"needle-word {KEY}\n")
    text = await run(SpilledOutput(2_000, 1 << 20, tmp_path), chunks, ctx)
    assert len(text) <= 2_000 and text.startswith("line 00000") and "needle-word" not in text
    assert text.endswith('recall(id="r0123456789") shows its ends]')
    assert f"[{len(''.join(chunks)):,} characters in all; the whole output is in the session archive" in text
    [(tool, whole)] = kept.texts
    assert tool == "terminal" and "needle-word ghp_[REDACTED]" in whole and KEY[4:] not in whole
    assert whole == "".join(chunks).replace(KEY, "ghp_[REDACTED]")


async def test_past_the_ceiling_only_the_first_and_last_halves_are_archived_and_it_says_so(tmp_path):
    kept = Kept()
    ceiling = 4_096
    ctx = context(tmp_path, kept, ceiling=ceiling)
    chunks = streamed(50_000)  # 550 KB, more than a hundred ceilings
    spilled = SpilledOutput(2_000, ceiling, tmp_path)
    text = await run(spilled, chunks, ctx)
    assert "its first and last parts are in the session archive" in text
    [(_, whole)] = kept.texts
    data = "".join(chunks)
    head, marker, tail = whole.partition("\n…[")
    assert head == data[: ceiling // 2] and whole.endswith(data[-(ceiling // 2) :])
    omitted = len(data) - 2 * (ceiling // 2)
    assert marker and f"{omitted:,} bytes of the middle not archived" in tail


async def test_disk_stays_bounded_past_the_ceiling(tmp_path):
    ceiling = 8_192
    spilled = SpilledOutput(2_000, ceiling, tmp_path)
    try:
        for chunk in streamed(100_000):
            spilled.feed(chunk)
        files = [spilled._head, *spilled._tails]  # what is on disk is the point
        assert sum(file.seek(0, 2) for file in files) <= 2 * ceiling
    finally:
        spilled.close()


async def test_a_whole_result_over_the_cap_is_archived_once(tmp_path):
    kept = Kept()
    text = "".join(streamed(5_000, "middle-of-the-listing\n"))
    fitted = await fit_result(context(tmp_path, kept), "search_files", text)
    assert len(fitted) <= 2_000 and "middle-of-the-listing" not in fitted and "recall id r0123456789" in fitted
    assert kept.texts == [("search_files", text)]
    assert await fit_result(context(tmp_path, kept), "search_files", "short") == "short"


async def test_an_archive_that_fails_is_named_and_without_one_only_the_marker_tells(tmp_path):
    async def failing(tool: str, text: str) -> str:
        raise OSError("disk full")

    ctx = context(tmp_path, None)
    alone = await fit_result(ctx, "mcp__t__big", "x" * 50_000)
    assert len(alone) <= 2_000 and "chars omitted" in alone and "archive" not in alone  # a tool outside a session
    ctx.archive = failing
    fitted = await fit_result(ctx, "mcp__t__big", "x" * 50_000)
    assert fitted.endswith("[50,000 characters in all; the whole output could not be archived: disk full]")
    assert len(fitted) <= 2_000


def test_the_note_fits_the_room_kept_for_it():
    from hermeslite.tools.spill import archive_note

    longest = archive_note(10**12, "r0123456789", cut=True)
    marker = "\n…[999999999999 chars omitted]…\n"
    assert len(marker) + len(longest) + len("\n[exit code: 137 (killed by SIGKILL)]") <= NOTE_ROOM
