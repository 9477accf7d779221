"""Credentials that config files and login commands hold, in the shapes users paste and tools print,
and look-alikes that must stay readable.

The families: PostgreSQL's `.pgpass`, kubeconfig users (base64 PEM keys, tokens,
passwords), registry logins that read the password from stdin, Square and Docker
Hub tokens, and Twilio's SID beside its secret. Values are generated from a
seed, as in `secret_samples`, so no key-shaped literal sits in the repository.
`redact_bench.py` reports recall on CASES and the changed lines of LOOKALIKES.
"""

from __future__ import annotations

import base64
import string
from dataclasses import dataclass

from .secret_samples import ALNUM, B64, B64URL, HEX, fake


@dataclass(frozen=True)
class Case:
    family: str
    text: str
    secret: str  # what must not survive redaction; a base64 PEM's middle, its ends encode the header and footer


def _pem(kind: str, lines: int, seed: int) -> tuple[str, str]:
    """A PEM block of `kind` with `lines` full base64 lines, and its body."""
    body = "\n".join(fake(64, B64, seed=seed * 100 + n) for n in range(lines)) + "\n" + fake(28, B64, seed=seed) + "="
    return f"-----BEGIN {kind}-----\n{body}\n-----END {kind}-----\n", body


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _kubeconfig(user_fields: str) -> str:
    ca = _b64(_pem("CERTIFICATE", 12, 7)[0])
    return (
        "apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n"
        f"    certificate-authority-data: {ca}\n    server: https://10.0.0.1:6443\n  name: prod\n"
        "contexts:\n- context:\n    cluster: prod\n    user: admin\n  name: prod\ncurrent-context: prod\n"
        f"users:\n- name: admin\n  user:\n{user_fields}"
    )


def pgpass_cases() -> list[Case]:
    pw = [fake(14, ALNUM + "!@#%", seed=n) for n in range(8)]
    return [
        Case("pgpass", f"localhost:5432:app:alice:{pw[0]}\n", pw[0]),
        Case("pgpass", f"$ cat ~/.pgpass\ndb.internal:6432:*:deploy:{pw[1]}\n*:*:*:postgres:{pw[2]}\n", pw[1]),
        Case("pgpass", f"*:*:*:postgres:{pw[2]}", pw[2]),
        Case("pgpass", f"     1\t10.0.3.7:5432:orders:svc_orders:{pw[3]}\n     2\t", pw[3]),
        Case("pgpass", f"/var/run/postgresql:5432:app:app:{pw[4]}", pw[4]),
        Case("pgpass", f"echo 'pg.example.com:5432:app:alice:{pw[5]}' >> ~/.pgpass && chmod 600 ~/.pgpass", pw[5]),
        Case("pgpass", f"/home/me/.pgpass:3:replica:5433:app:bob:{pw[6]}", pw[6]),
        Case("pgpass", f'export PGPASSFILE=/tmp/pgp && printf "%s\\n" "db:5432:app:ci:{pw[7]}" > "$PGPASSFILE"', pw[7]),
    ]


def kubeconfig_cases() -> list[Case]:
    rsa, _ = _pem("RSA PRIVATE KEY", 25, 1)
    ec, _ = _pem("EC PRIVATE KEY", 3, 2)
    pkcs8, _ = _pem("PRIVATE KEY", 25, 3)
    cert = _b64(_pem("CERTIFICATE", 12, 4)[0])
    token = fake(40, ALNUM, seed=5)
    bootstrap = fake(6, string.ascii_lowercase + string.digits, seed=6) + "." + fake(16, "abcdef0123456789", seed=6)
    password = fake(18, ALNUM + "-_", seed=8)
    wrapped = _b64(ec)
    wrapped = "\n".join(wrapped[i : i + 76] for i in range(0, len(wrapped), 76))
    return [
        Case(
            "kubeconfig",
            _kubeconfig(f"    client-certificate-data: {cert}\n    client-key-data: {_b64(rsa)}\n"),
            _b64(rsa)[60:-60],
        ),
        Case("kubeconfig", _kubeconfig(f"    client-key-data: {_b64(ec)}\n"), _b64(ec)[60:-60]),
        Case("kubeconfig", f'{{"client-key-data": "{_b64(pkcs8)}"}}', _b64(pkcs8)[60:-60]),
        Case("kubeconfig", _kubeconfig(f"    token: {token}\n"), token),
        Case("kubeconfig", _kubeconfig(f"    token: {bootstrap}\n"), bootstrap),
        Case("kubeconfig", _kubeconfig(f"    username: admin\n    password: {password}\n"), password),
        Case("kubeconfig", f"data:\n  tls.key: {_b64(rsa)}\n  tls.crt: {cert}\n", _b64(rsa)[60:-60]),
        Case("kubeconfig", f"$ base64 id_ec\n{wrapped}\n", wrapped.replace("\n", "")[60:-60]),
    ]


def docker_login_cases() -> list[Case]:
    pat = "dckr_pat_" + fake(27, B64URL, seed=20)
    oat = "dckr_oat_" + fake(32, B64URL, seed=21)
    pw = [fake(16, ALNUM, seed=22 + n) for n in range(5)]
    return [
        Case("docker-login", f"echo {pat} | docker login -u me --password-stdin", pat[9:]),
        Case("docker-login", f"echo '{pat}' | docker login --username me --password-stdin docker.io", pat[9:]),
        Case("docker-login", f"DOCKER_HUB_TOKEN: {oat}", oat[9:]),
        Case("docker-login", f"echo {pw[0]} | docker login -u me --password-stdin registry.example.com", pw[0]),
        Case("docker-login", f'echo -n "{pw[1]}" | podman login quay.io -u me --password-stdin', pw[1]),
        Case("docker-login", f"printf '%s' '{pw[2]}' | helm registry login ghcr.io -u me --password-stdin", pw[2]),
        Case("docker-login", f"docker login -u me --password-stdin <<< '{pw[3]}'", pw[3]),
        Case("docker-login", f"docker login -u me -p {pw[4]} registry.example.com", pw[4]),
        Case("docker-login", f"{pat}\n", pat[9:]),
    ]


def vendor_cases() -> list[Case]:
    square = "EAAA" + fake(60, B64URL, seed=30)
    square_dashed = "EAAA" + fake(20, ALNUM, seed=31) + "-" + fake(19, ALNUM, seed=32) + "_" + fake(20, ALNUM, seed=33)
    sid = "AC" + fake(32, HEX, seed=34)
    auth = fake(32, HEX, seed=35)
    key_sid, key_secret = "SK" + fake(32, HEX, seed=36), fake(32, ALNUM, seed=37)
    return [
        Case("square", square, square[4:]),
        Case("square", f"SQUARE_ACCESS_TOKEN={square}", square[4:]),
        Case(
            "square", f"curl -H 'Authorization: Bearer {square_dashed}' https://connect.squareup.com", square_dashed[4:]
        ),
        Case("square", f"token {square_dashed}.", square_dashed[4:]),
        Case("twilio", f"twilio api:core:messages:create --from +15550100 {sid} {auth}", auth),
        Case("twilio", f"curl -X POST https://api.twilio.com/2010-04-01/Accounts -u {sid}:{auth}", auth),
        Case("twilio", f"http -a {sid}:{auth} https://api.twilio.com/2010-04-01/Accounts.json", auth),
        Case("twilio", f'client = Client("{sid}", "{auth}")', auth),
        Case("twilio", f"new Twilio('{key_sid}', '{key_secret}', {{ accountSid }})", key_secret),
    ]


CASES: list[Case] = [*pgpass_cases(), *kubeconfig_cases(), *docker_login_cases(), *vendor_cases()]

# Text shaped like the cases above that holds no credential.
LOOKALIKES: list[str] = [
    '{"token": "greeting"}',
    '{"token": "Bearer", "type": "access"}',
    "<token>none yet</token>",
    '{"auth": "not set"}',
    "12:00:00:00:00",
    "fe80:0:0:0:1",
    "src/main.c:12:5:error:expected",
    "main.c:12:5: error: expected ';' before '}' token",
    "aa:bb:cc:dd:ee",
    "root:x:0:0:root:/root:/bin/bash",
    "docker:x:999:alice,bob",
    "host:port:database:username:*",
    "localhost:5432:app:alice:$PGPASSWORD",
    "Format of ~/.pgpass: hostname:port:database:username:password",
    "2024-05-01 12:00:01:123 INFO ready",
    "echo $CR_PAT | docker login ghcr.io -u me --password-stdin",
    'echo "$DOCKER_TOKEN" | docker login -u me --password-stdin',
    "cat ~/token.txt | docker login -u me --password-stdin",
    "aws ecr get-login-password | docker login --username AWS --password-stdin 123.dkr.ecr.eu-west-1.amazonaws.com",
    "docker login -u me --password-stdin < token.txt",
    "echo hello | grep h",
    "users:\n- name: admin\n  user:\n    client-certificate: /home/me/.kube/admin.crt\n    client-key: /home/me/.kube/admin.key\n",
    f"    certificate-authority-data: {_b64(_pem('CERTIFICATE', 12, 9)[0])}",
    f"    client-certificate-data: {_b64(_pem('CERTIFICATE', 12, 10)[0])}",
    f"ssh-rsa.pub: {_b64('ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ me@host')}",
    "    token: ''",
    "    token: <paste your token here>",
    "    token: ${KUBE_TOKEN}",
    "EAAA is a prefix Square uses for access tokens",
    "EAAAHELLO_WORLD_CONSTANT_NAME_FOR_SQUARE",
    f"Account SID AC{fake(32, HEX, seed=40)} is shown in the console",
    f"the SID is AC{fake(32, HEX, seed=41)}, see the docs",
    "twilio phone-numbers:list --properties sid,phoneNumber",
    "dckr_pat_ prefixes Docker Hub personal access tokens",
    "the docker_pat variable is read from the vault",
    "DOCKER_PAT=${{ secrets.DOCKER_PAT }}",
]
