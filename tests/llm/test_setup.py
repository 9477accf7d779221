"""litellm stays out of import time, loads once, and never writes to stdout or stderr."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_python(code: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("LITELLM_", "OPENAI_")) and k not in ("TIKTOKEN_CACHE_DIR", "PYTHONWARNINGS")
    }
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_importing_the_llm_package_does_not_import_litellm():
    result = run_python("""
        import sys
        import hermeslite.llm
        import hermeslite.llm.classify, hermeslite.llm.litellm_client, hermeslite.llm.setup, hermeslite.llm.window
        from hermeslite.llm import LiteLLMClient
        from hermeslite.llm.settings import ModelConfig
        LiteLLMClient(ModelConfig(name="openai/gpt-4o"))
        print("litellm" in sys.modules)
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


def _module_scope_litellm_imports(path: Path) -> list[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    lines = []
    nodes = list(tree.body)
    while nodes:  # module level, including under if/try/with, but not inside functions or classes
        node = nodes.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if (isinstance(node, ast.Import) and any(a.name.split(".")[0] == "litellm" for a in node.names)) or (
            isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "litellm" and not node.level
        ):
            lines.append(node.lineno)
        elif isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            continue
        else:
            nodes.extend(child for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt))
    return lines


def test_no_module_imports_litellm_at_module_scope():
    offenders = {
        str(path.relative_to(ROOT)): lines
        for folder in ("hermeslite", "tests")
        for path in (ROOT / folder).rglob("*.py")
        if (lines := _module_scope_litellm_imports(path))
    }
    assert offenders == {}, f"import litellm inside functions (it takes seconds): {offenders}"


def test_loaded_litellm_is_configured_and_failing_calls_are_silent():
    """In a fresh process, outside pytest's capturing: every byte on stdout must be ours."""
    result = run_python("""
        import asyncio, json, logging, os, sys
        from hermeslite.llm.settings import ModelConfig
        from hermeslite.llm import LiteLLMClient, LLMError, ensure_loaded, load_litellm, prewarm
        from tests.server import Reply, ScriptedServer

        async def main():
            prewarm(); prewarm()
            module = await ensure_loaded()
            assert module is load_litellm()
            server = ScriptedServer()
            server.enqueue(Reply.error(401, "bad key"), Reply.context_length_exceeded(),
                           Reply.error(500, "boom"), Reply.error(500, "boom"),
                           Reply.disconnect(after_chunks=1), Reply.error(429, "slow"), Reply.error(429, "slow"),
                           Reply.error(404, "no such model"))
            client = LiteLLMClient(ModelConfig(name="openai/test-model", api_base=server.base_url),
                                   max_retries=1, retry_base_delay=0.01)
            kinds = []
            for _ in range(6):
                try:
                    async for _event in client.stream([{"role": "user", "content": "hi"}]):
                        pass
                except LLMError as err:
                    kinds.append(type(err).__name__)
            ok = [e async for e in client.stream([{"role": "user", "content": "hi"}])]
            server.close()
            streams = [type(h).__name__ for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy")
                       for h in logging.getLogger(name).handlers if isinstance(h, logging.StreamHandler)]
            return {
                "kinds": kinds,
                "ok": ok[-1].completion.message["content"],
                "flags": [module.suppress_debug_info, module.disable_hf_tokenizer_download, module.drop_params],
                "env": [os.environ.get("LITELLM_LOCAL_MODEL_COST_MAP"), os.environ.get("LITELLM_LOG"),
                        bool(os.environ.get("TIKTOKEN_CACHE_DIR"))],
                "stream_handlers": streams,
                "level": logging.getLogger("LiteLLM").level,
            }

        print("RESULT " + json.dumps(asyncio.run(main())))
    """)
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith("RESULT "), result.stdout
    report = json.loads(lines[0][len("RESULT ") :])
    assert report["kinds"] == [
        "AuthError",
        "ContextOverflow",
        "TransientError",
        "TransientError",
        "RateLimited",
        "FatalError",
    ]
    assert report["ok"] == "ok"
    assert report["flags"] == [True, True, True]
    assert report["env"] == ["True", "ERROR", True]
    assert report["stream_handlers"] == []
    assert report["level"] == 40  # logging.ERROR


def test_the_bundled_bpe_tables_load_offline_without_importing_litellm():
    """litellm counts tokens with tiktoken, which would download its tables; the
    environment points it at the copies in litellm's wheel instead."""
    code = (
        "import sys; from hermeslite.llm.setup import configure_environment; configure_environment();"
        "import tiktoken; n = len(tiktoken.get_encoding('o200k_base').encode('The quick brown fox jumps over the lazy dog.'));"
        "assert 8 <= n <= 12, n;"
        "assert 'litellm' not in sys.modules; print(n)"
    )
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": "/nonexistent",
        "NO_PROXY": "*",
        "HTTPS_PROXY": "http://127.0.0.1:9",
        "PYTHONPATH": str(ROOT),
    }
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr


def test_the_lean_import_leaves_nothing_changed_and_prices_replies_as_before():
    """litellm is imported with the collector off and pydantic's builds deferred (both restored
    after), with the first request's modules, and without its tiktoken step on the OpenAI path (its
    Anthropic path loads the tables whatever the setting): a priced reply costs exactly what it cost
    with litellm's token counter on."""
    result = run_python("""
        import asyncio, gc, json, sys
        import pydantic
        from hermeslite.llm.settings import ModelConfig
        from hermeslite.llm import LiteLLMClient, load_litellm
        from tests.fake_anthropic import FakeAnthropic
        from tests.server import ScriptedServer

        module = load_litellm()

        class Later(pydantic.BaseModel):
            x: int

        async def cost(server):
            client = LiteLLMClient(ModelConfig(name="anthropic/claude-sonnet-4-5", api_base=server.base_url,
                                               api_key="sk-test"))
            events = [e async for e in client.stream([{"role": "user", "content": "hi " * 2000}])]
            return events[-1].completion.usage.cost

        async def chat(server):
            client = LiteLLMClient(ModelConfig(name="openai/test-model", api_base=server.base_url))
            return [e async for e in client.stream([{"role": "user", "content": "hi"}])]

        with ScriptedServer() as openai_compatible:
            asyncio.run(chat(openai_compatible))
        import tiktoken.registry
        tables_loaded = list(tiktoken.registry.ENCODINGS)  # litellm imports tiktoken; loading its tables is the cost
        with FakeAnthropic(min_cacheable_tokens=10) as server:  # a cache write, then a cache read
            off = [asyncio.run(cost(server)), asyncio.run(cost(server))]
        module.disable_token_counter = False
        with FakeAnthropic(min_cacheable_tokens=10) as server:
            on = [asyncio.run(cost(server)), asyncio.run(cost(server))]
        print("RESULT " + json.dumps({
            "gc": gc.isenabled(),
            "defer": pydantic.BaseModel.model_config.get("defer_build"),
            "later_built": Later.__pydantic_complete__,
            "first_request_modules": "openai.resources.chat" in sys.modules,
            "tiktoken_tables": tables_loaded,
            "off": off,
            "on": on,
        }))
    """)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.splitlines()[-1][len("RESULT ") :])
    assert report["gc"] is True and report["defer"] is None and report["later_built"] is True
    assert report["first_request_modules"] is True
    assert report["tiktoken_tables"] == []
    assert report["off"] == report["on"] and all(c > 0 for c in report["off"])
    assert report["off"][0] != report["off"][1]  # the second read the prompt from the cache: priced apart
