"""The places a credential stands that a plain `NAME=value` rule misses: other syntaxes, headers, command lines."""

from __future__ import annotations

import json
import string

import pytest

from hermeslite.context.redact import MARK, redact_secrets

from ..secret_samples import fake

M = MARK
VAULT = fake(24, seed=21)
MAPBOX = "eyJ1" + fake(56, seed=22) + "." + fake(22, seed=23)
TELEGRAM = fake(35, string.ascii_letters + string.digits + "-_", seed=24)

SHAPES = [
    # aligned and typed assignments
    ('password       = "rootpasswd"', f'password       = "{M}"'),
    ("db_password    : hunter22", f"db_password    : {M}"),
    ('var dbToken string = "s3cr3t-value"', f'var dbToken string = "{M}"'),
    ('var apiToken: String = "s3cr3t-value"', f'var apiToken: String = "{M}"'),
    ('const authToken: string = "s3cr3t-value";', f'const authToken: string = "{M}";'),
    ("apiToken := `s3cr3t-value`", f"apiToken := `{M}`"),
    ('$dbToken .= "s3cr3t-value";', f'$dbToken .= "{M}";'),
    ("'password' => 'hunter2',", f"'password' => '{M}',"),
    ('  "apiToken" => "s3cr3t-value"', f'  "apiToken" => "{M}"'),
    ('System.setProperty("SONAR_TOKEN", "s3cr3t-value");', f'System.setProperty("SONAR_TOKEN", "{M}");'),
    ('os.environ.setdefault("API_TOKEN", "s3cr3t-value")', f'os.environ.setdefault("API_TOKEN", "{M}")'),
    # Makefile assignments
    ("API_TOKEN ?= s3cr3t-value", f"API_TOKEN ?= {M}"),
    ('API_TOKEN ::= "s3cr3t-value"', f'API_TOKEN ::= "{M}"'),
    ('API_TOKEN :::= "s3cr3t-value"', f'API_TOKEN :::= "{M}"'),
    # unquoted values that start with a word and a dot
    (f"VAULT_TOKEN=hvs.{VAULT}", f"VAULT_TOKEN=hvs.{M}"),
    (f"MAPBOX_TOKEN=pk.{MAPBOX}", f"MAPBOX_TOKEN=pk.{M}"),
    (f"token: s.{VAULT}", f"token: {M}"),
    # XML
    ('<add key="ClearTextPassword" value="hal+9ooo_da!sY" />', f'<add key="ClearTextPassword" value="{M}" />'),
    ("<password>hunter22</password>", f"<password>{M}</password>"),
    ("<apiToken>\n    s3cr3t-value\n</apiToken>", f"<apiToken>\n    {M}\n</apiToken>"),
    # properties, YAML and .env lines
    ("spring.datasource.password=Sup3rS3cret!", f"spring.datasource.password={M}"),
    ("client_secret=abc", f"client_secret={M}"),
    ("secrets: hunter2hunter2", f"secrets: {M}"),
    ("DB_PW=jkl012", f"DB_PW={M}"),
    ("MYSQL_PASS=ghi789", f"MYSQL_PASS={M}"),
    ("export SECRET_TOKEN=mypassword", f"export SECRET_TOKEN={M}"),
    ("MISTRAL_API_KEY=abc123secret # used for tests", f"MISTRAL_API_KEY={M} # used for tests"),
    ('{"secret_value": "opaque-0123"}', f'{{"secret_value": "{M}"}}'),
    ('{"key_material": "CPU"}', f'{{"key_material": "{M}"}}'),
    ("openai_key=xyzzyplugh1234567890abcd", f"openai_key={M}"),
    # form bodies: every secret pair, not only the last
    ("password=mysecret&username=bob&token=opaqueValue", f"password={M}&username=bob&token={M}"),
    # command lines
    ("curl -u admin:hunter2 https://api.example.com", f"curl -u admin:{M} https://api.example.com"),
    ("curl --user 'deploy:s3cr3t' https://x.example", f"curl --user 'deploy:{M}' https://x.example"),
    ("mysqldump --password hunter22 shop", f"mysqldump --password {M} shop"),
    ("curl -sS -uadmin:hunter2 https://x.example", f"curl -sS -uadmin:{M} https://x.example"),
    ("curl --user 'deploy:two words' https://x.example", f"curl --user 'deploy:{M}' https://x.example"),
    (
        "echo '{}' | curl -X POST https://x.example -u admin:hunter2",
        f"echo '{{}}' | curl -X POST https://x.example -u admin:{M}",
    ),
    ("mysql -uroot -phunter22 -h db shop", f"mysql -uroot -p{M} -h db shop"),
    ("mysqldump -u root -p'two words' shop", f"mysqldump -u root -p'{M}' shop"),
    ("sshpass -p hunter22 ssh deploy@host", f"sshpass -p {M} ssh deploy@host"),
    ("docker login -u bob -p hunter22 registry.example", f"docker login -u bob -p {M} registry.example"),
    ("openssl rsa -in key.pem -passin pass:hunter22", f"openssl rsa -in key.pem -passin pass:{M}"),
    (
        "aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCY",
        f"aws configure set aws_secret_access_key {M}",
    ),
    ("tool --api-key=abc123 --verbose", f"tool --api-key={M} --verbose"),
    ("sh -c 'export MY_TOKEN=xyz'", f"sh -c 'export MY_TOKEN={M}'"),
    ('docker run -e "DB_PASSWORD=pw1" app', f'docker run -e "DB_PASSWORD={M}" app'),
    # headers, cookies, auth pairs
    ("Authorization: Api-Token 22cb987851bc5659", f"Authorization: Api-Token {M}"),
    ('curl -H "Authorization: Bearer sk-abcdef1234567890"', f'curl -H "Authorization: Bearer sk-{M}"'),
    ("Cookie: sessionid=abc123; csrftoken=def456", f"Cookie: sessionid={M}; csrftoken={M}"),
    ("Set-Cookie: sid=31d4d96e407aad42; Path=/; HttpOnly", f"Set-Cookie: sid={M}; Path=/; HttpOnly"),
    ('requests.get(url, auth=("bob", "hunter2"))', f'requests.get(url, auth=("bob", "{M}"))'),
    ("HTTPBasicAuth('bob', 'hunter2')", f"HTTPBasicAuth('bob', '{M}')"),
    # .netrc
    ("machine api.example.com login bob password hunter2", f"machine api.example.com login bob password {M}"),
    (
        "machine api.example.com\n  login bob\n  password hunter2\n",
        f"machine api.example.com\n  login bob\n  password {M}\n",
    ),
    # URLs
    ("https://app.example/callback?code=4/0AfJohXn9k2&state=xyz", f"https://app.example/callback?code={M}&state=xyz"),
    ("https://x.test/cb?client%5Fsecret=ENC_SECRET&view=public", f"https://x.test/cb?client%5Fsecret={M}&view=public"),
    ("/resume?token=SEMI_SECRET;view=public", f"/resume?token={M};view=public"),
    ("//user:NET_SECRET@x.test/path", f"//user:{M}@x.test/path"),
    (
        "git remote set-url origin https://MYPASSWORDWASPASTEDHERE@github.com/o/r.git",
        f"git remote set-url origin https://{M}@github.com/o/r.git",
    ),
    # tokens that identify themselves
    (f"bot123456789:{TELEGRAM}", f"bot123456789:{M}"),
    (f"TELEGRAM_BOT_TOKEN=987654321:{TELEGRAM}", f"TELEGRAM_BOT_TOKEN=987654321:{M}"),
    ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0", f"eyJ{M}"),
    ("id_token: eyJhbGciOiJSUzI1NiJ9=.eyJzdWIiOjF9==.c2lnbmF0dXJl=", f"id_token: eyJ{M}"),
]


@pytest.mark.parametrize("text, expected", SHAPES)
def test_credentials_in_every_syntax_are_masked(text, expected):
    assert redact_secrets(text) == expected


@pytest.mark.parametrize(
    "text, secret",
    [
        ("PGPASSWORD=p'ass psql", "ass"),
        ('MY_SECRET=he"llo', "llo"),
        ("x-api-key: ab'cd", "cd"),
        ("MY_TOKEN=Tr0ub4dor&3'}", "3'}"),
        ("password: pw'}]", "pw'"),
    ],
)
def test_a_quote_or_bracket_inside_a_value_does_not_end_it(text, secret):
    assert secret not in redact_secrets(text)


@pytest.mark.parametrize(
    "content",
    [
        "export MY_TOKEN=xyz",
        "DB_PASSWORD=pw1",
        "spring.datasource.password=ab",
        "x-api-key: abc123",
        'sh -c "export MY_TOKEN=xyz" && echo done',
        "curl -H 'Authorization: Bearer f1' -v",
    ],
)
@pytest.mark.parametrize("indent", [None, 2])
def test_a_serialized_payload_still_parses_and_loses_the_secret(content, indent):
    payload = {"request": {"messages": [{"role": "user", "content": content}], "n": 1}}
    redacted = redact_secrets(json.dumps(payload, indent=indent))
    value = json.loads(redacted)["request"]["messages"][0]["content"]
    assert MARK in value
    assert value.count('"') == content.count('"') and value.count("'") == content.count("'")


@pytest.mark.parametrize("separator", ["\x1b", "\u200b", "\x00", "\ufeff"])
def test_a_key_split_by_an_invisible_character_is_still_masked(separator):
    key = "ghp_" + fake(36, seed=31)
    redacted = redact_secrets(f"token {key[:10]}{separator}{key[10:]} end")
    assert key[10:] not in redacted and key[4:10] not in redacted
    assert redacted.endswith(" end")


def test_a_complete_key_at_the_end_of_a_line_does_not_swallow_the_next_line():
    key = "ghp_" + fake(36, seed=32)
    assert redact_secrets(f"Token: {key}\nbutton [ref=e3]: Copy\n") == f"Token: ghp_{M}\nbutton [ref=e3]: Copy\n"


def test_an_environment_dump_keeps_its_ordinary_lines():
    dump = (
        f"HOME=/home/user\nELEVENLABS_API_KEY=sk_{fake(32, seed=33)}\nEXA_API_KEY=exa_{fake(24, seed=34)}\n"
        "SHELL=/bin/bash\nUSER=dev\n"
    )
    assert (
        redact_secrets(dump)
        == f"HOME=/home/user\nELEVENLABS_API_KEY=sk_{M}\nEXA_API_KEY=exa_{M}\nSHELL=/bin/bash\nUSER=dev\n"
    )


@pytest.mark.parametrize(
    "text",
    [
        ".".join(["segment"] * 5_000) + ".token end",
        "a." * 20_000 + "=value",
        "a" * 50_000 + "=value",
        ("password: " + "x" * 50 + " ") * 2_000,
        "Cookie: " + "a=b; " * 20_000,
        "--" * 30_000,
        "ey" * 50_000,
        "-u " * 30_000,
        "password:" * 10_000,
        "password=" * 10_000,
        "x-api-key: " * 10_000,
        "PASSWORD=" + "a" * 100_000,
        "mysql " + "-x " * 30_000,
        "sshpass " * 20_000,
        "curl " + "-u a:" * 30_000,
    ],
)
def test_pathological_input_is_linear(text):
    """The patterns have no nested quantifiers over the same characters: these finish at once."""
    import time

    start = time.perf_counter()
    redact_secrets(text)
    assert time.perf_counter() - start < 2.0


def test_one_pass_is_enough_on_glued_fragments():
    """Spans are found on the original text in one pass: redacting the output again finds nothing new."""
    import random

    from ..secret_samples import NEGATIVES, vendor_samples

    pieces = [text for text, _ in SHAPES] + NEGATIVES + [s.key for s in vendor_samples(4)]
    pieces += [MARK, "=", ":", " ", "\n", '"', "'", "\\", "@", "/", "?", "&", "_", "-", "\x1b", "\u200b"]
    rng = random.Random(99)
    for _ in range(3_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 6)))
        once = redact_secrets(text)
        assert redact_secrets(once) == once, text


@pytest.mark.parametrize("cut", [4, 6, 10, 20])
def test_a_key_wrapped_onto_the_next_line_is_masked_on_both(cut):
    key = "ghp_" + fake(36, seed=35)
    redacted = redact_secrets(f"token {key[:cut]}\n{key[cut:]} rest\nnext line")
    assert redacted == f"token ghp_{M} rest\nnext line"


def test_lines_are_joined_only_behind_an_unfinished_key():
    text = "return\nvalue_x = 1\nsk-learn\nclassifier_v2 = fit()\n"
    assert redact_secrets(text) == text
