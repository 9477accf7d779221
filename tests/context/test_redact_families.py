"""`.pgpass` lines, kubeconfig users, registry logins, Square, Docker Hub and Twilio: every case masked,
every look-alike left as it was."""

from __future__ import annotations

import pytest

from hermeslite.context.redact import MARK, redact_secrets

from ..secret_families import CASES, LOOKALIKES, Case, _b64, _pem


def fragments(secret: str) -> list[str]:
    flat = secret.replace("\n", "")
    return [flat[i : i + 8] for i in range(0, max(1, len(flat) - 7))]


def leaked(case: Case, text: str) -> list[str]:
    flat = text.replace("\n", "")
    return [f for f in fragments(case.secret) if f in flat]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.family}:{c.text[:40]}")
def test_every_case_is_masked(case):
    redacted = redact_secrets(case.text)
    assert leaked(case, redacted) == []
    assert MARK in redacted


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.family}:{c.text[:40]}")
def test_redacting_a_case_twice_changes_nothing(case):
    once = redact_secrets(case.text)
    assert redact_secrets(once) == once


@pytest.mark.parametrize("text", LOOKALIKES)
def test_look_alikes_stay_unchanged(text):
    assert redact_secrets(text) == text


def test_a_pgpass_file_keeps_its_servers_and_users_visible():
    text = "localhost:5432:app:alice:pw-one-1\n*:*:*:postgres:pw-two-2\n"
    assert redact_secrets(text) == f"localhost:5432:app:alice:{MARK}\n*:*:*:postgres:{MARK}\n"


def test_an_escaped_colon_belongs_to_the_password():
    assert redact_secrets(r"db:5432:app:u:pa\:ss\:word") == f"db:5432:app:u:{MARK}"


def test_a_kubeconfig_keeps_its_certificates_and_masks_its_key():
    cert = _b64(_pem("CERTIFICATE", 4, 50)[0])
    key = _b64(_pem("RSA PRIVATE KEY", 4, 51)[0])
    text = f"    client-certificate-data: {cert}\n    client-key-data: {key}\n"
    assert redact_secrets(text) == f"    client-certificate-data: {cert}\n    client-key-data: LS0tLS1CRUdJTi{MARK}\n"


def test_a_password_piped_to_docker_login_keeps_the_command_readable():
    text = "echo 'hunter2-again' | docker login -u me --password-stdin registry.example.com"
    assert redact_secrets(text) == f"echo '{MARK}' | docker login -u me --password-stdin registry.example.com"


def test_an_echo_that_is_not_piped_to_a_login_is_left_alone():
    assert redact_secrets("echo hunter2 | tee out.txt") == "echo hunter2 | tee out.txt"


def test_the_twilio_sid_stays_visible_and_its_secret_goes():
    sid, token = "AC" + "0a1b2c3d" * 4, "9f8e7d6c" * 4
    assert redact_secrets(f"-u {sid}:{token}") == f"-u {sid}:{MARK}"
