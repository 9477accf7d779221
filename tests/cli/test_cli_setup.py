"""`hermeslite setup` as a user runs it: answers on stdin (or options), one real request that proves the
choice, a minimal config written only when it works, and the key kept out of the file unless asked."""

from __future__ import annotations

import stat
from pathlib import Path

import yaml

from hermeslite.provider_setup import FIRST_RUN_MARKER, PROVIDERS
from tests.cli_process import env_for, hermeslite
from tests.fake_anthropic import FakeAnthropic
from tests.server import MODEL, Reply, ScriptedServer


def number(pid: str) -> str:
    return str(next(n for n, p in enumerate(PROVIDERS, 1) if p.id == pid))


def config_of(home: Path) -> dict:
    return yaml.safe_load((home / "config" / "config.yaml").read_text())


def test_an_openai_compatible_server_is_checked_and_written(scripted_server: ScriptedServer, home, workdir):
    answers = f"{number('compatible')}\n{MODEL}\n{scripted_server.base_url}\n\n"
    done = hermeslite(["setup"], home, workdir, input=answers)
    assert done.returncode == 0, done.stderr
    assert "checking openai/test-model with one short request" in done.stderr
    assert done.stdout.startswith(f"wrote {home / 'config' / 'config.yaml'}: model {MODEL}")
    assert config_of(home) == {"model": {"name": MODEL, "api_base": scripted_server.base_url}}
    [probe] = scripted_server.requests
    assert probe["max_tokens"] == 1 and probe["model"] == "test-model"
    assert (home / "state" / FIRST_RUN_MARKER).exists()
    # The next run uses it, with nothing said about picking a model.
    chat = hermeslite(["-p", "hello"], home, workdir)
    assert chat.returncode == 0 and chat.stdout == "ok\n", chat.stderr
    assert "no model configured" not in chat.stderr


def test_a_rejected_key_is_named_and_nothing_is_written(scripted_server: ScriptedServer, home, workdir):
    scripted_server.enqueue(Reply.error(401, "Incorrect API key provided: sk-wrong", code="invalid_api_key"))
    args = ["setup", "--provider", "compatible", "--model", MODEL, "--api-base", scripted_server.base_url]
    done = hermeslite(args, home, workdir, input="sk-wrong\nn\n")
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("hermeslite: setup: ") and "API key" in last and "(401)" in last, last
    assert last.endswith("; nothing was written")
    assert not (home / "config").exists()


def test_nothing_listening_is_said_plainly(home, workdir):
    args = ["setup", "--provider", "compatible", "--model", MODEL, "--api-base", "http://127.0.0.1:9/v1"]
    done = hermeslite(args, home, workdir, input="\n")
    assert done.returncode == 1
    assert "nothing is listening on 127.0.0.1:9" in done.stderr
    assert not (home / "config").exists()


def test_a_pasted_anthropic_key_is_checked_but_only_its_variable_is_written(
    fake_anthropic: FakeAnthropic, home, workdir
):
    args = ["setup", "--api-base", fake_anthropic.base_url]
    done = hermeslite(args, home, workdir, input=f"{number('anthropic')}\n\nsk-ant-pasted-key\nn\n")
    assert done.returncode == 0, done.stderr
    assert [x.status for x in fake_anthropic.exchanges] == [200]  # the check went through with the pasted key
    text = (home / "config" / "config.yaml").read_text()
    assert "sk-ant-pasted-key" not in text
    assert config_of(home)["model"] == {
        "name": "anthropic/claude-sonnet-4-5",
        "api_base": fake_anthropic.base_url,
        "api_key_env": "ANTHROPIC_API_KEY",
    }
    assert "add `export ANTHROPIC_API_KEY=<your key>` to your shell profile" in done.stderr


def test_a_key_is_saved_when_asked_owner_only_and_never_printed(fake_anthropic: FakeAnthropic, home, workdir):
    args = ["setup", "--provider", "anthropic", "--model", "anthropic/claude-sonnet-4-5"]
    done = hermeslite([*args, "--api-base", fake_anthropic.base_url], home, workdir, input="sk-ant-saved\ny\n")
    assert done.returncode == 0, done.stderr
    path = home / "config" / "config.yaml"
    assert config_of(home)["model"]["api_key"] == "sk-ant-saved"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    shown = hermeslite(["config"], home, workdir)
    assert "sk-ant-saved" not in shown.stdout and "api_key: (set, not shown)" in shown.stdout
    chat = hermeslite(["-p", "hello"], home, workdir)  # no ANTHROPIC_API_KEY in the environment: the saved key
    assert chat.returncode == 0, chat.stderr
    assert len(fake_anthropic.exchanges) == 2


def test_an_existing_config_keeps_its_other_settings_and_a_backup(scripted_server: ScriptedServer, home, workdir):
    path = home / "config" / "config.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(
        "# mine\nmodel:\n  name: ollama/llama3.1\n  context_window: 4096\n  timeout: 90\ntools:\n  approval: auto\n"
    )
    args = ["setup", "--provider", "compatible", "--model", MODEL, "--api-base", scripted_server.base_url]
    done = hermeslite(args, home, workdir, input="\n")
    assert done.returncode == 0, done.stderr
    assert config_of(home) == {
        "model": {"name": MODEL, "api_base": scripted_server.base_url, "timeout": 90},
        "tools": {"approval": "auto"},
    }
    assert (path.parent / "config.yaml.bak").read_text().startswith("# mine")


def test_the_embedded_model_and_a_named_variable(home, workdir):
    done = hermeslite(["setup"], home, workdir, input=f"{number('local')}\n\n")
    assert done.returncode == 0, done.stderr
    assert config_of(home) == {"model": {"name": "local/smollm2"}}
    missing = hermeslite(["setup", "--provider", "openai", "--key-env", "WORK_OPENAI_KEY"], home, workdir, input="\n")
    assert missing.returncode == 2
    assert "WORK_OPENAI_KEY is not set in this shell" in missing.stderr
    assert config_of(home) == {"model": {"name": "local/smollm2"}}
    env = {**env_for(home), "WORK_OPENAI_KEY": "sk-work"}
    skipped = hermeslite(
        ["setup", "--provider", "openai", "--key-env", "WORK_OPENAI_KEY", "--no-check"],
        home,
        workdir,
        input="\n",
        env=env,
    )
    assert skipped.returncode == 0, skipped.stderr
    assert config_of(home)["model"] == {"name": "openai/gpt-4o", "api_key_env": "WORK_OPENAI_KEY"}
