"""Front matter as other agents' files write it: strict YAML, and the one-line forms their parsers
accept though YAML does not; what cannot be read is one reason, naming the line."""

from __future__ import annotations

import pytest

from hermeslite.extensions.frontmatter import parse
from hermeslite.extensions.reading import Refused


def test_a_file_without_front_matter_is_all_body():
    document = parse("Review $ARGUMENTS.\n---\nnot front matter\n")
    assert document.fields == {} and document.body == "Review $ARGUMENTS.\n---\nnot front matter\n"


def test_yaml_front_matter_and_body_split_at_the_closing_fence():
    document = parse("---\ndescription: Review a file\nargument-hint: '[file]'\n---\nBody $1\n")
    assert document.text("description") == "Review a file"
    assert document.text("argument-hint") == "[file]"
    assert document.body == "Body $1\n"


def test_windows_line_ends_and_a_closing_dots_line_work():
    document = parse("---\r\ndescription: x\r\n...\r\nBody\r\n")
    assert document.text("description") == "x" and document.body == "Body\r\n"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("argument-hint: [file] [focus]", "[file] [focus]"),  # not YAML at all: the raw text
        ("argument-hint: [message]", "[message]"),  # a YAML list: the raw text, as written
        ("description: Use this when: the tests fail", "Use this when: the tests fail"),
        ("description: 123", "123"),
        ("description: yes", "yes"),
        ('description: "quoted: with colon"', "quoted: with colon"),
    ],
)
def test_one_line_values_other_agents_accept_are_read_as_written(line: str, expected: str):
    key = line.split(":", 1)[0]
    assert parse(f"---\n{line}\nname: x\n---\nbody").text(key) == expected


def test_a_folded_yaml_description_is_read_by_yaml():
    document = parse("---\ndescription: >\n  two\n  lines\n---\nbody")
    assert document.text("description") == "two lines"


def test_an_empty_value_counts_as_absent():
    assert parse("---\ndescription:\n---\nbody").text("description") is None


def test_a_nested_value_where_text_is_wanted_is_refused():
    document = parse("---\ndescription:\n  a: b\n---\nbody")
    with pytest.raises(Refused, match="description in its front matter must be text"):
        document.text("description")


def test_broken_yaml_that_is_not_flat_names_the_line():
    with pytest.raises(Refused, match=r"^its front matter is not valid YAML \(line 3: .+\)$"):
        parse("---\nname: x\n  bad: [indent\n---\nbody")


def test_an_unclosed_front_matter_is_refused():
    with pytest.raises(Refused, match="opens with --- but never closes"):
        parse("---\ndescription: x\nbody without a fence")


def test_a_front_matter_that_is_a_list_is_refused():
    with pytest.raises(Refused, match="not a set of `key: value` lines"):
        parse("---\n- a\n- b\n---\nbody")


def test_yaml_tags_build_no_objects():
    """safe_load refuses the tag; the flat fallback keeps the value as inert text."""
    document = parse("---\ndescription: !!python/object/apply:os.system ['touch /tmp/x']\n---\nbody")
    assert document.text("description") == "!!python/object/apply:os.system ['touch /tmp/x']"
