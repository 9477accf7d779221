"""The sandbox's small parts: which variables are secret, which folders are risky, which sockets hide."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from hermeslite.tools.environment import tool_environment
from hermeslite.tools.hidden import hidden_paths, kept_sockets, listening_sockets, reveal_paths
from hermeslite.tools.workplace import risky_workplace

SECRET = [
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "NPM_TOKEN",
    "PGPASSWORD",
    "MYSQL_PWD",
    "REDIS_PASS",
    "DATABASE_URL",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "AZURE_CLIENT_SECRET",
    "AZURE_STORAGE_CONNECTION_STRING",
    "OPENAI_API_KEY",
    "SENTRY_DSN",
    "SLACK_WEBHOOK_URL",
    "GPG_PASSPHRASE",
    "HF_TOKEN",
    "STRIPE_KEY",
]
PLAIN = ["PATH", "HOME", "PWD", "OLDPWD", "TOKENIZERS_PARALLELISM", "SSH_AUTH_SOCK", "AWS_REGION", "KEYMAP", "LANG"]


def test_secret_looking_variables_are_withheld_and_the_rest_kept():
    env = tool_environment({name: "x" for name in SECRET + PLAIN})
    assert not set(SECRET) & set(env)
    assert set(PLAIN) <= set(env)


def test_a_url_with_a_password_is_withheld_whatever_its_name():
    env = tool_environment({"REDIS_URL": "redis://:hunter2@cache:6379", "DOCS_URL": "https://user@example.com/a"})
    assert "REDIS_URL" not in env and env["DOCS_URL"] == "https://user@example.com/a"


def test_passthrough_and_hidden_names():
    env = tool_environment({"GITHUB_TOKEN": "t", "MY_VAR": "v"}, hidden=["MY_VAR"], passed=["GITHUB_TOKEN"])
    assert env["GITHUB_TOKEN"] == "t" and "MY_VAR" not in env


@pytest.mark.parametrize("folder", ["/", "/etc", "/usr/local/lib", "/home", "/opt", "/var"])
def test_system_folders_are_risky(folder, tmp_path):
    assert risky_workplace(Path(folder), tmp_path / "me")


def test_the_home_and_above_it_are_risky_and_a_project_is_not(tmp_path):
    home = tmp_path / "me"
    (home / "code" / "app").mkdir(parents=True)
    assert "your home folder" in risky_workplace(home, home)
    assert "holding your home folder" in risky_workplace(tmp_path, home)
    assert risky_workplace(home / "code" / "app", home) is None
    assert risky_workplace(Path("/srv/site"), home) is None


def test_a_listening_socket_anywhere_is_found_and_hidden(tmp_path):
    path = tmp_path / "server.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen()
    try:
        assert str(path) in listening_sockets()
        assert os.path.realpath(path) in hidden_paths({}, tmp_path)
        kept = kept_sockets({}, [str(tmp_path)])
        assert os.path.realpath(path) not in hidden_paths({}, tmp_path, kept), "a path in network_allow is kept"
    finally:
        server.close()


def test_the_ssh_agent_is_revealed_only_with_the_network(tmp_path):
    runtime = tmp_path / "run"
    runtime.mkdir()
    agent = runtime / "agent.sock"
    agent.write_text("")
    env = {"XDG_RUNTIME_DIR": str(runtime), "SSH_AUTH_SOCK": str(agent)}
    hidden = hidden_paths(env, tmp_path)
    assert str(runtime) in hidden
    assert reveal_paths(kept_sockets(env, network=False), hidden) == ()
    assert reveal_paths(kept_sockets(env, network=True), hidden) == (str(agent),)
