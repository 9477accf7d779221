"""The user guide's example command file and skill load as it says and do what it says."""

from __future__ import annotations

import re
from pathlib import Path

from hermeslite.extensions.command_files import load_command_files
from hermeslite.extensions.skills import load_skills

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide.md"


def example(heading: str) -> str:
    text = GUIDE.read_text(encoding="utf-8")
    section = text[text.index(f"\n## {heading}\n") :]
    return re.search(r"```markdown\n(.*?)```", section, re.S).group(1)


def test_the_guide_command_example_expands_as_shown(tmp_path: Path):
    path = tmp_path / ".hermeslite" / "commands" / "review.md"
    path.parent.mkdir(parents=True)
    path.write_text(example("Custom commands"), encoding="utf-8")
    loaded = load_command_files(tmp_path)
    assert loaded.problems == ()
    (review,) = loaded.commands
    assert (review.name, review.argument_hint) == ("review", "<file> [focus]")
    assert review.expand('src/app.py "error handling"').startswith(
        "Review src/app.py for bugs, unclear names and missing tests, paying most attention to error handling."
    )
    guide = GUIDE.read_text(encoding="utf-8")
    assert '`/review src/app.py "error handling"` sends' in guide


def test_the_guide_skill_example_loads(tmp_path: Path):
    path = Path.home() / ".agents" / "skills" / "release-notes" / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text(example("Skills"), encoding="utf-8")
    loaded = load_skills(tmp_path)
    assert loaded.problems == () and [s.name for s in loaded.skills] == ["release-notes"]
    assert loaded.get("release-notes").description.startswith("Write release notes from the git history.")
