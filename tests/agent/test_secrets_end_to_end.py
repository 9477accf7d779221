"""A session that shows the model a project's secrets every way a user would, then compacts: none of them
reaches any request the provider receives, the summary requests included, nor the session database.

Real agent loop, real tools (the terminal runs the commands), real litellm over HTTP to the scripted
server. The model reads `.env`, `.pgpass`, a kubeconfig, a login script, the environment and a big log
whose output cap cuts through a private key and a token; then `/compress` runs, answered on the live
request first (refused, so the serialized prompt is asked too).
"""

from __future__ import annotations

import base64
import json

from hermeslite.agent import events as ev
from tests.secret_samples import ALNUM, B64, B64URL, HEX, fake
from tests.server import Reply
from tests.summary_requests import checkpoint, is_extension_summary, is_serialized_summary

LIMIT = 20_000  # tools.output_limit: the head keeps 8,000 characters, the tail 12,000


def pem(kind: str, lines: int, seed: int) -> tuple[str, list[str]]:
    body = [fake(64, B64, seed=seed * 100 + n) for n in range(lines)]
    return f"-----BEGIN {kind}-----\n" + "\n".join(body) + f"\n-----END {kind}-----\n", body


class Secrets:
    """Every credential of the session, and the pieces of each that must not be found anywhere."""

    def __init__(self) -> None:
        self.github = "ghp_" + fake(36, ALNUM, seed=1)
        self.stripe = "sk_live_" + fake(40, ALNUM, seed=2)
        self.db_password = fake(20, ALNUM, seed=3)
        self.pg_password = fake(18, ALNUM + "!#%", seed=4)
        self.pgpass_password = fake(16, ALNUM, seed=5)
        self.kube_key, self.kube_key_body = pem("RSA PRIVATE KEY", 25, 6)
        self.kube_token = fake(48, ALNUM, seed=7)
        self.docker_pat = "dckr_pat_" + fake(27, B64URL, seed=8)
        self.docker_password = fake(18, ALNUM, seed=9)
        self.square = "EAAA" + fake(10, ALNUM, seed=10) + "-" + fake(49, B64URL, seed=10)
        self.twilio_sid, self.twilio_token = "AC" + fake(32, HEX, seed=11), fake(32, HEX, seed=12)
        self.log_key, self.log_key_body = pem("OPENSSH PRIVATE KEY", 20, 13)
        self.log_token = "ghp_" + fake(36, ALNUM, seed=14)

    def pieces(self) -> dict[str, list[str]]:
        """Label -> substrings that would betray the secret (8 characters each, or a whole key line)."""
        encoded = base64.b64encode(self.kube_key.encode()).decode()
        bodies = {
            "github": self.github[4:],
            "stripe": self.stripe[8:],
            "DATABASE_URL password": self.db_password,
            "PGPASSWORD": self.pg_password,
            ".pgpass password": self.pgpass_password,
            "kubeconfig client-key-data": encoded[60:-60],
            "kubeconfig token": self.kube_token,
            "docker PAT": self.docker_pat[9:],
            "docker --password-stdin": self.docker_password,
            "square": self.square[4:],
            "twilio auth token": self.twilio_token,
            "token cut by the head": self.log_token[4:],
        }
        found = {label: [body[i : i + 8] for i in range(len(body) - 7)] for label, body in bodies.items()}
        found["key cut by the tail"] = self.log_key_body
        found["kubeconfig key (decoded)"] = self.kube_key_body
        return found


def write_project(root, s: Secrets) -> None:
    (root / ".env").write_text(
        f"GITHUB_TOKEN={s.github}\nSTRIPE_SECRET_KEY={s.stripe}\n"
        f"DATABASE_URL=postgres://app:{s.db_password}@db.internal:5432/app\nDEBUG=true\n"
    )
    (root / ".pgpass").write_text(f"db.internal:5432:app:app:{s.pgpass_password}\n")
    client_key = base64.b64encode(s.kube_key.encode()).decode()
    (root / "kubeconfig").write_text(
        "apiVersion: v1\nkind: Config\ncurrent-context: prod\nusers:\n- name: admin\n  user:\n"
        f"    client-key-data: {client_key}\n- name: ci\n  user:\n    token: {s.kube_token}\n"
    )
    (root / "login.sh").write_text(
        f"echo {s.docker_pat} | docker login -u me --password-stdin\n"
        f"echo '{s.docker_password}' | docker login registry.example.com -u me --password-stdin\n"
        f"# the sandbox app's access token, for now: {s.square}\n"
        f"twilio api:core:messages:create --to +15550100 {s.twilio_sid} {s.twilio_token}\n"
    )
    # The head's cut (8,000 characters) falls 10 characters into the token's body; the tail's cut
    # (12,000 characters before the end) falls in the middle of the key, below its BEGIN line.
    head = "".join(f"boot step {n:05d} ok\n" for n in range(500))[: 8_000 - 14 - 1] + " "
    middle = "\n" + "".join(f"serve {n:06d} GET /health 200\n" for n in range(3_000))
    trailer = "".join(f"shutdown {n:05d}\n" for n in range(1_000))[: LIMIT - 8_000 - len(s.log_key) // 2]
    (root / "big.log").write_text(head + s.log_token + middle + s.log_key + trailer)


def leaks(secrets: Secrets, data: str | bytes) -> list[str]:
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    return [label for label, pieces in secrets.pieces().items() if any(p in text for p in pieces)]


async def test_no_secret_reaches_a_request_or_the_session_store(make_agent, scripted_server, tmp_path, monkeypatch):
    s = Secrets()
    write_project(tmp_path, s)
    monkeypatch.setenv("DEMO_GITHUB_TOKEN", s.github)
    monkeypatch.setenv("DEMO_PGPASSWORD", s.pg_password)
    monkeypatch.setenv("DEMO_DATABASE_URL", f"postgres://app:{s.db_password}@db.internal/app")

    def respond(body):
        if is_extension_summary(body):
            return Reply.text("I'm sorry, I can't help with that.")  # refused: the serialized prompt goes next
        if is_serialized_summary(body):
            return Reply.text(checkpoint("The agent read the project's configuration files."))
        return None

    scripted_server.responder = respond
    scripted_server.enqueue(
        Reply.tool_calls(
            [
                ("terminal", {"command": "cat .env .pgpass"}),
                ("read_file", {"path": "kubeconfig"}),
                ("read_file", {"path": "login.sh"}),
                ("terminal", {"command": "env | grep DEMO_ | sort"}),
                ("terminal", {"command": "cat big.log"}),
            ]
        ),
        Reply.text("Read them all."),
        Reply.text("The database is db.internal."),
        Reply.text("Nothing worth saving."),  # the memory flush before the compaction
    )
    # The DEMO_ variables are passed on purpose: redaction is what keeps them out of the session then.
    agent, rec = make_agent(
        tools={"output_limit": LIMIT, "pass_env": ["DEMO_GITHUB_TOKEN", "DEMO_PGPASSWORD", "DEMO_DATABASE_URL"]},
        memory={"flush_min_turns": 1},
        compression={"protect_first_n": 0, "protect_last_n": 2},
        context_window=20_000,
    )
    assert (await agent.run_turn("Check the deploy configuration for me.")).ok
    results = [m["content"] for m in agent.messages if m["role"] == "tool"]
    assert "DEBUG=true" in results[0] and "db.internal:5432:app:app:[REDACTED]" in results[0]
    assert "DEMO_PGPASSWORD=[REDACTED]" in results[3] and "chars omitted" in results[4]
    assert results[4].startswith("boot step 00000 ok") and "-----END OPENSSH PRIVATE KEY-----" in results[4]
    assert "ghp_[REDACTED]\n…[" in results[4]  # the head's cut went through the token

    assert (await agent.run_turn("Which database does it use?")).ok
    result = await agent.compress_now()
    assert result.changed and not result.fallback_used, result.error
    kinds = [
        "extension" if is_extension_summary(b) else "serialized" if is_serialized_summary(b) else "turn"
        for b in scripted_server.requests
    ]
    assert kinds.count("extension") == 1 and kinds.count("serialized") == 1 and kinds.count("turn") >= 3

    for body in scripted_server.requests:
        assert leaks(s, json.dumps(body)) == [], body["messages"][-1]
    shown = json.dumps([e.content for e in rec.of(ev.ToolFinished)])
    assert leaks(s, shown) == []

    db = tmp_path / "sessions.db"
    stored = b"".join(path.read_bytes() for path in (db, db.with_name("sessions.db-wal")) if path.exists())
    assert b"Check the deploy configuration" in stored and b"db.internal:5432:app:app:[REDACTED]" in stored
    assert leaks(s, stored) == []
