"""Skills: the folders they are read from and which wins a name, the format's name and description
rules, the system prompt's list within its budget, and the folders read_file may read."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermeslite.extensions.skills import CATALOG_INTRO, MAX_FILES_LISTED, load_skills, open_skill
from hermeslite.paths import config_dir


def skill(folder: Path, name: str, front: str | None = None, body: str = "Do it well.") -> Path:
    path = folder / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    front = f"name: {name}\ndescription: What {name} does and when to use it." if front is None else front
    path.write_text(f"---\n{front}\n---\n{body}\n", encoding="utf-8")
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


def folders(project: Path) -> dict[str, Path]:
    return {
        "user": config_dir() / "skills",
        "user, shared": Path.home() / ".agents" / "skills",
        "project": project / ".hermeslite" / "skills",
        "project, shared": project / ".agents" / "skills",
    }


def test_skills_are_read_from_the_four_folders_in_name_order(project: Path):
    where = folders(project)
    for scope, folder in where.items():
        skill(folder, scope.replace(", ", "-"))
    loaded = load_skills(project)
    assert loaded.problems == ()
    assert [(s.name, s.scope) for s in loaded.skills] == [
        ("project", "project"),
        ("project-shared", "project, shared"),
        ("user", "user"),
        ("user-shared", "user, shared"),
    ]
    assert loaded.get("project").location == ".hermeslite/skills/project/SKILL.md"
    assert loaded.get("user-shared").location == "~/.agents/skills/user-shared/SKILL.md"
    assert [s.name for s in load_skills(project, shared=False).skills] == ["project", "user"]


def test_the_users_skill_wins_a_name_and_the_projects_is_named(project: Path):
    where = folders(project)
    skill(where["project"], "review", body="the project's")
    skill(where["user, shared"], "review", body="mine")
    loaded = load_skills(project)
    assert [(s.name, s.scope) for s in loaded.skills] == [("review", "user, shared")]
    assert loaded.problems == (
        "skill .hermeslite/skills/review/SKILL.md is skipped: a skill named review is already "
        "~/.agents/skills/review/SKILL.md (the user's skills win over the project's)",
    )


def test_the_formats_rules_skip_or_note_each_fault_in_one_line(project: Path):
    folder = folders(project)["project"]
    skill(folder, "no-name", front="description: Takes its folder's name.")
    skill(folder, "other-folder", front="name: renamed\ndescription: Loaded under its own name.")
    skill(folder, "bad-name", front="name: Bad_Name\ndescription: x")
    skill(folder, "Bad Folder", front="description: no name and a folder that is not one")
    skill(folder, "no-description", front="name: no-description")
    skill(folder, "long", front=f"name: long\ndescription: {'word ' * 300}")
    (folder / "bare").mkdir()
    (folder / "bare" / "SKILL.md").write_text("Just a body.\n", encoding="utf-8")
    (folder / "dir" / "SKILL.md").mkdir(parents=True)
    (folder / "not-a-skill").mkdir()  # no SKILL.md: not a skill, nothing to say
    loaded = load_skills(project)
    assert [s.name for s in loaded.skills] == ["long", "no-name", "renamed"]
    assert len(loaded.get("long").description) == 1024 and loaded.get("long").description.endswith("…")
    where = ".hermeslite/skills"
    assert sorted(loaded.problems) == sorted(
        [
            f"skill {where}/Bad Folder/SKILL.md is skipped: it has no name, and its folder's name 'Bad Folder' "
            "is not a skill name (1 to 64 lowercase letters, digits and single hyphens)",
            f"skill {where}/bad-name/SKILL.md is skipped: 'Bad_Name' is not a skill name "
            "(1 to 64 lowercase letters, digits and single hyphens)",
            f"skill {where}/bare/SKILL.md is skipped: it has no front matter (--- name: ... description: ... ---)",
            f"skill {where}/dir/SKILL.md is skipped: it is a directory",
            f"skill {where}/long/SKILL.md: its description is longer than 1024 characters; the model sees the "
            "first 1024",
            f"skill {where}/no-description/SKILL.md is skipped: it has no description in its front matter",
            f"skill {where}/other-folder/SKILL.md: its name renamed differs from its folder other-folder "
            "(loaded as renamed)",
        ]
    )


@pytest.mark.parametrize("name", ["a", "pdf-processing", "x1-2y", "a" * 64])
def test_names_the_format_allows(project: Path, name: str):
    skill(folders(project)["project"], name)
    assert [s.name for s in load_skills(project).skills] == [name]


@pytest.mark.parametrize("name", ["-pdf", "pdf-", "pdf--x", "PDF", "a" * 65, "pdf_x", "pdf.x"])
def test_names_the_format_refuses(project: Path, name: str):
    skill(folders(project)["project"], "folder", front=f"name: {name}\ndescription: x")
    loaded = load_skills(project)
    assert loaded.skills == () and "is not a skill name" in loaded.problems[0]


def test_the_catalog_lists_names_and_descriptions_within_its_budget(project: Path):
    folder = folders(project)["project"]
    for n in range(10):
        skill(folder, f"skill-{n}", front=f"name: skill-{n}\ndescription: Does thing {n}.\n  Over two lines.")
    loaded = load_skills(project)
    full = loaded.catalog(100_000)
    assert full.splitlines()[0] == CATALOG_INTRO
    assert full.splitlines()[1:] == [f"- skill-{n}: Does thing {n}. Over two lines." for n in range(10)]
    more = "- (7 more skills not listed: the list is capped at skills.catalog_chars; the user can see them all with /skills)"
    budget = len(CATALOG_INTRO) + 3 * 41 + 1 + len(more)
    capped = loaded.catalog(budget)
    assert len(capped) == budget and len(loaded.catalog(budget - 1).splitlines()) == 1 + 2 + 1
    assert capped.splitlines()[1:] == [
        "- skill-0: Does thing 0. Over two lines.",
        "- skill-1: Does thing 1. Over two lines.",
        "- skill-2: Does thing 2. Over two lines.",
        "- (7 more skills not listed: the list is capped at skills.catalog_chars; the user can see them all "
        "with /skills)",
    ]
    assert load_skills(project / "nowhere").catalog(8000) == ""


def test_read_file_may_read_the_users_skill_folders_but_not_through_a_link_to_home(project: Path):
    where = folders(project)
    mine = skill(where["user, shared"], "mine")
    skill(where["project"], "theirs")
    (where["user"]).mkdir(parents=True)
    (where["user"] / "everything").symlink_to(Path.home())
    skill(Path.home().parent, Path.home().name, front="name: everything\ndescription: a skill in the home folder")
    loaded = load_skills(project)
    assert {s.name for s in loaded.skills} == {"mine", "theirs", "everything"}
    assert loaded.readable_roots() == (mine.parent.resolve(),)


def test_opening_a_skill_reads_its_body_now_and_lists_the_files_beside_it(project: Path):
    path = skill(folders(project)["project"], "pdf", body="Run scripts/extract.py on the file.")
    for name in ("scripts/extract.py", "references/spec.md", ".git/config", "node_modules/x.js", ".env"):
        (path.parent / name).parent.mkdir(parents=True, exist_ok=True)
        (path.parent / name).write_text("x", encoding="utf-8")
    loaded = load_skills(project)
    path.write_text("---\nname: pdf\ndescription: x\n---\nEdited since the start.\n", encoding="utf-8")
    opened = open_skill(loaded.get("pdf"))
    assert opened.body == "Edited since the start."
    assert opened.files == ("references/spec.md", "scripts/extract.py") and opened.complete


def test_a_large_skill_folder_lists_a_bounded_number_of_files(project: Path):
    path = skill(folders(project)["project"], "big")
    for n in range(MAX_FILES_LISTED + 5):
        (path.parent / f"f{n:03}.txt").write_text("x", encoding="utf-8")
    opened = open_skill(load_skills(project).get("big"))
    assert len(opened.files) == MAX_FILES_LISTED and not opened.complete
