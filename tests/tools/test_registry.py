"""The registry turns every failure into an `error: ` result the model can act on; only cancellation escapes."""

import asyncio
import json
from typing import Any, ClassVar

import pytest

from hermeslite.tools.base import ToolResult
from hermeslite.tools.registry import ToolRegistry, default_registry, validate


class Echo:
    name = "echo"
    description = "Return the arguments."
    writes = False
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "text": {"type": "string"},
            "times": {"type": "integer"},
            "scale": {"type": "number"},
            "loud": {"type": "boolean"},
            "tags": {"type": "array"},
        },
        "required": ["text"],
    }

    def __init__(self):
        self.seen = None

    async def run(self, args, ctx):
        self.seen = args
        return ToolResult(json.dumps(args, sort_keys=True))


class Broken:
    name = "broken"
    description = "Always fails."
    writes = True
    parameters: ClassVar[dict[str, Any]] = {"type": "object", "properties": {}}

    def __init__(self, exc):
        self.exc = exc

    async def run(self, args, ctx):
        raise self.exc


@pytest.fixture
def registry():
    return ToolRegistry([Echo(), Broken(ValueError("boom"))])


async def test_valid_call_runs_the_tool(registry, ctx):
    result = await registry.execute("echo", '{"text": "hi", "times": 2}', ctx)
    assert not result.is_error and json.loads(result.content) == {"text": "hi", "times": 2}


async def test_dict_arguments_are_accepted(registry, ctx):
    result = await registry.execute("echo", {"text": "hi"}, ctx)
    assert json.loads(result.content) == {"text": "hi"}


async def test_unknown_tool_names_the_available_ones(registry, ctx):
    result = await registry.execute("delete_everything", "{}", ctx)
    assert result.is_error and result.content.startswith("error: ")
    assert "delete_everything" in result.content and "echo" in result.content and "broken" in result.content


async def test_bad_json_quotes_the_parse_problem(registry, ctx):
    result = await registry.execute("echo", '{"text": "hi",}', ctx)
    assert result.is_error and result.content.startswith("error: ")
    assert "not valid JSON" in result.content and "line 1 column" in result.content


@pytest.mark.parametrize("arguments, kind", [("[1, 2]", "an array"), ('"hi"', "a string"), ("3", "a number")])
async def test_arguments_must_be_an_object(registry, ctx, arguments, kind):
    result = await registry.execute("echo", arguments, ctx)
    assert result.is_error and f"must be a JSON object, got {kind}" in result.content


async def test_missing_required_argument(registry, ctx):
    result = await registry.execute("echo", '{"times": 1}', ctx)
    assert result.is_error and result.content.startswith("error: ")
    assert "missing required argument 'text'" in result.content
    assert '"text": string' in result.content, "the expected shape helps the model retry"


@pytest.mark.parametrize(
    "args, key",
    [
        ({"text": 5}, "text"),
        ({"text": "a", "times": "many"}, "times"),
        ({"text": "a", "times": 1.5}, "times"),
        ({"text": "a", "loud": "maybe"}, "loud"),
        ({"text": "a", "scale": "x"}, "scale"),
        ({"text": "a", "scale": True}, "scale"),
        ({"text": "a", "tags": "x"}, "tags"),
    ],
)
async def test_wrong_types_are_errors(registry, ctx, args, key):
    result = await registry.execute("echo", args, ctx)
    assert result.is_error and result.content.startswith("error: ") and repr(key) in result.content


async def test_numbers_and_booleans_sent_as_strings_are_converted(registry, ctx):
    echo = registry.get("echo")
    await registry.execute("echo", {"text": "a", "times": "3", "scale": "0.5", "loud": "true", "tags": None}, ctx)
    assert echo.seen == {"text": "a", "times": 3, "scale": 0.5, "loud": True}


async def test_empty_arguments_mean_no_arguments(registry, ctx):
    result = await registry.execute("echo", "", ctx)
    assert "missing required argument 'text'" in result.content


async def test_exception_in_a_tool_becomes_an_error_result(registry, ctx):
    result = await registry.execute("broken", "{}", ctx)
    assert result.is_error and result.content == "error: ValueError: boom"


async def test_cancellation_propagates(ctx):
    registry = ToolRegistry([Broken(asyncio.CancelledError())])
    with pytest.raises(asyncio.CancelledError):
        await registry.execute("broken", "{}", ctx)


def test_schemas_are_openai_function_tools(registry):
    schemas = registry.schemas()
    assert [s["function"]["name"] for s in schemas] == ["echo", "broken"]
    assert schemas[0] == {
        "type": "function",
        "function": {"name": "echo", "description": Echo.description, "parameters": Echo.parameters},
    }
    assert [s["function"]["name"] for s in registry.schemas(only={"broken", "absent"})] == ["broken"]


def test_duplicate_names_are_refused(registry):
    with pytest.raises(ValueError, match="already registered"):
        registry.register(Echo())


def test_default_registry_has_the_builtin_tools_and_extras():
    registry = default_registry(extra_tools=[Echo()])
    assert registry.names() == ["terminal", "read_file", "write_file", "patch", "search_files", "echo"]
    for schema in registry.schemas():
        params = schema["function"]["parameters"]
        assert params["type"] == "object" and set(params["required"]) <= set(params["properties"])
        json.dumps(schema)


def test_validate_keeps_unknown_keys_and_drops_null_optionals():
    schema = Echo.parameters
    assert validate({"text": "a", "extra": 1, "times": None}, schema) == {"text": "a", "extra": 1}
