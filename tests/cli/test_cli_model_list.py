"""The line chat's /model with no name prints a numbered list; /model N picks from it, through the real
process and the scripted server."""

from __future__ import annotations

from tests.cli_process import env_for, hermeslite, model_args, sessions_db
from tests.server import MODEL


def test_model_lists_and_a_number_picks(scripted_server, tmp_path):
    home = tmp_path / "home"
    (home / "data").mkdir(parents=True)
    store = sessions_db(home)
    store.create_session("openai/recent-model", str(tmp_path))
    store.close()
    env = {**env_for(home), "OPENAI_API_KEY": "sk-test"}
    done = hermeslite(
        [*model_args(scripted_server)], home, tmp_path, env=env, input="/model\n/model 2\nhello\n/model 999\n/quit\n"
    )
    listed = done.stdout.splitlines()
    assert listed[0].startswith(f" 1. {MODEL} ") and "configured" in listed[0]
    assert listed[1].startswith(" 2. openai/recent-model ") and "recent" in listed[1]
    assert listed[2].startswith(" 3. openai/gpt-4o ") and "128k window · $2.50 in / $10.00 out per Mtok" in listed[2]
    assert "/model N or /model NAME switches." in listed
    assert f"Model {MODEL} · window" in done.stderr
    assert "Switched to openai/recent-model: window" in done.stderr
    assert scripted_server.requests[-1]["model"] == "recent-model"  # the turn after /model 2 went there
    assert "No model 999 in the list" in done.stderr and done.returncode == 1  # a bad number fails, one line
    assert "Traceback" not in done.stderr


def test_a_number_before_any_list_is_refused(scripted_server, tmp_path):
    done = hermeslite([*model_args(scripted_server)], tmp_path / "home", tmp_path, input="/model 1\nhi\n/quit\n")
    assert "No model 1 in the list" in done.stderr and done.returncode == 1
    assert scripted_server.requests[-1]["model"] == "test-model"


def test_a_list_asked_for_first_reads_litellm_s_bundled_table_not_the_network(scripted_server, tmp_path):
    """/model before anything else loaded litellm: the list comes from the table in the wheel, as every
    other lookup does, with no fetch of litellm's remote price map (a proxy that refuses every connection
    makes such a fetch fail loudly)."""
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    (home / "config" / "config.yaml").write_text(
        f"model:\n  name: {MODEL}\n  api_base: {scripted_server.base_url}\n  context_window: 32000\n"
    )
    env = {key: value for key, value in env_for(home).items() if key != "LITELLM_LOCAL_MODEL_COST_MAP"}
    env |= {"OPENAI_API_KEY": "sk-test", "HTTPS_PROXY": "http://127.0.0.1:9", "NO_PROXY": "127.0.0.1,localhost"}
    done = hermeslite([], home, tmp_path, env=env, input="/model\n/quit\n")
    assert done.stdout.startswith(f" 1. {MODEL} "), done.stderr
    assert "cost map" not in done.stderr and "LiteLLM" not in done.stderr, done.stderr
