"""Fake credentials in each vendor's documented shape, and ordinary text that must never be masked.

Keys are built at run time from a seeded random generator (prefix, length and
alphabet as the vendor documents them), so no key-shaped literal sits in the
repository and every run of the tests sees the same values. The redaction tests
and `benchmarks/redact_bench.py` both draw on these tables.
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable
from dataclasses import dataclass

UPPER = string.ascii_uppercase
LOWER = string.ascii_lowercase
DIGITS = string.digits
ALNUM = UPPER + LOWER + DIGITS
HEX = "0123456789abcdef"
B64URL = ALNUM + "-_"
B64 = ALNUM + "+/"
BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def fake(length: int, alphabet: str = string.ascii_letters + string.digits, seed: int = 0) -> str:
    """A stand-in for a random credential body: `length` characters of `alphabet` ending in a digit,
    the same for the same arguments."""
    rng = random.Random(f"{length}-{seed}-{alphabet}")
    return "".join(rng.choice(alphabet) for _ in range(length - 1)) + rng.choice(DIGITS)


@dataclass(frozen=True)
class Sample:
    vendor: str
    key: str  # the whole credential as it would appear
    secret: str  # the part that must not survive redaction


Body = Callable[[random.Random], str]


def chars(alphabet: str, n: int) -> Body:
    """n characters from `alphabet`, with a digit among them when the alphabet has digits."""

    def make(rng: random.Random) -> str:
        body = [rng.choice(alphabet) for _ in range(n)]
        if any(c in DIGITS for c in alphabet) and not any(c in DIGITS for c in body):
            body[rng.randrange(n)] = rng.choice(DIGITS)
        return "".join(body)

    return make


def joined(*parts: Body | str) -> Body:
    return lambda rng: "".join(p if isinstance(p, str) else p(rng) for p in parts)


def uuid() -> Body:
    return joined(chars(HEX, 8), "-", chars(HEX, 4), "-", chars(HEX, 4), "-", chars(HEX, 4), "-", chars(HEX, 12))


# (vendor, visible prefix, body): the body is what redaction must remove.
FORMATS: list[tuple[str, str, Body]] = [
    ("OpenAI project key", "sk-proj-", chars(B64URL, 120)),
    ("OpenAI service account key", "sk-svcacct-", chars(B64URL, 100)),
    ("OpenAI legacy key", "sk-", chars(ALNUM, 48)),
    ("Anthropic API key", "sk-ant-api03-", chars(B64URL, 95)),
    ("Anthropic admin key", "sk-ant-admin01-", chars(B64URL, 95)),
    ("OpenRouter key", "sk-or-v1-", chars(HEX, 64)),
    ("DeepSeek key", "sk-", chars(HEX, 32)),
    ("Stripe live secret key", "sk_live_", chars(ALNUM, 99)),
    ("Stripe test secret key", "sk_test_", chars(ALNUM, 24)),
    ("Stripe restricted key", "rk_live_", chars(ALNUM, 99)),
    ("Stripe webhook secret", "whsec_", chars(ALNUM, 32)),
    ("ElevenLabs key", "sk_", chars(HEX, 48)),
    ("Groq key", "gsk_", chars(ALNUM, 52)),
    ("xAI key", "xai-", chars(ALNUM, 80)),
    ("Perplexity key", "pplx-", chars(ALNUM, 48)),
    ("Replicate token", "r8_", chars(ALNUM, 37)),
    ("Tavily key", "tvly-", chars(ALNUM, 32)),
    ("Firecrawl key", "fc-", chars(HEX, 32)),
    ("Fireworks key", "fw_", chars(ALNUM, 24)),
    ("Exa key", "exa_", chars(ALNUM, 32)),
    ("fal key", "fal_", chars(ALNUM, 32)),
    ("Hugging Face token", "hf_", chars(ALNUM, 34)),
    ("Hugging Face organization token", "api_org_", chars(ALNUM, 34)),
    ("GitHub personal token", "ghp_", chars(ALNUM, 36)),
    ("GitHub OAuth token", "gho_", chars(ALNUM, 36)),
    ("GitHub user-to-server token", "ghu_", chars(ALNUM, 36)),
    ("GitHub server-to-server token", "ghs_", chars(ALNUM, 36)),
    ("GitHub refresh token", "ghr_", chars(ALNUM, 36)),
    ("GitHub fine-grained token", "github_pat_", joined(chars(ALNUM, 22), "_", chars(ALNUM, 59))),
    ("GitLab personal token", "glpat-", chars(B64URL, 20)),
    ("GitLab deploy token", "gldt-", chars(B64URL, 20)),
    ("GitLab runner token", "glrt-", chars(B64URL, 20)),
    ("GitLab CI job token", "glcbt-", chars(B64URL, 20)),
    ("GitLab feed token", "glft-", chars(B64URL, 20)),
    ("Slack bot token", "xoxb-", joined(chars(DIGITS, 12), "-", chars(DIGITS, 13), "-", chars(ALNUM, 24))),
    ("Slack user token", "xoxp-", joined(chars(DIGITS, 12), "-", chars(DIGITS, 13), "-", chars(HEX, 32))),
    ("Slack app token", "xapp-", joined("1-A", chars(UPPER + DIGITS, 10), "-", chars(DIGITS, 13), "-", chars(HEX, 64))),
    (
        "Slack webhook",
        "https://hooks.slack.com/services/",
        joined("T", chars(UPPER + DIGITS, 8), "/B", chars(UPPER + DIGITS, 10), "/", chars(ALNUM, 24)),
    ),
    ("Discord webhook", "https://discord.com/api/webhooks/", joined(chars(DIGITS, 18), "/", chars(B64URL, 68))),
    (
        "Microsoft Teams webhook",
        "https://contoso.webhook.office.com/webhookb2/",
        joined(uuid(), "@", uuid(), "/IncomingWebhook/", chars(HEX, 32)),
    ),
    ("Telegram bot token", "123456789:", chars(B64URL, 35)),
    ("AWS access key", "AKIA", chars(UPPER + DIGITS, 16)),
    ("AWS temporary key", "ASIA", chars(UPPER + DIGITS, 16)),
    ("Google API key", "AIza", chars(B64URL, 35)),
    ("Google OAuth client secret", "GOCSPX-", chars(B64URL, 28)),
    ("Google OAuth access token", "ya29.", chars(B64URL, 120)),
    ("npm token", "npm_", chars(ALNUM, 36)),
    ("PyPI token", "pypi-", joined("AgEIcHlwaS5vcmc", chars(B64URL, 140))),
    ("RubyGems key", "rubygems_", chars(HEX, 48)),
    ("SendGrid key", "SG.", joined(chars(B64URL, 22), ".", chars(B64URL, 43))),
    ("Mailgun key", "key-", chars(HEX, 32)),
    ("Twilio API key", "SK", chars(HEX, 32)),
    ("Shopify access token", "shpat_", chars(HEX, 32)),
    ("Shopify shared secret", "shpss_", chars(HEX, 32)),
    ("Linear API key", "lin_api_", chars(ALNUM, 40)),
    ("Databricks token", "dapi", chars(HEX, 32)),
    ("DigitalOcean token", "dop_v1_", chars(HEX, 64)),
    ("Atlassian API token", "ATATT3", chars(B64URL, 186)),
    ("Azure AD client secret", "", joined(chars(ALNUM, 3), chars(DIGITS, 1), "Q~", chars(B64URL + ".~", 34))),
    ("Heroku key", "HRKU-", chars(B64URL, 60)),
    ("Postman key", "PMAK-", joined(chars(HEX, 24), "-", chars(HEX, 34))),
    ("Grafana cloud token", "glc_", chars(B64, 40)),
    ("Grafana service account token", "glsa_", joined(chars(ALNUM, 32), "_", chars(HEX, 8))),
    ("New Relic user key", "NRAK-", chars(UPPER + DIGITS, 27)),
    ("PlanetScale token", "pscale_tkn_", chars(B64URL, 43)),
    ("PlanetScale password", "pscale_pw_", chars(B64URL, 43)),
    ("Supabase token", "sbp_", chars(HEX, 40)),
    ("Cloudflare origin CA key", "v1.0-", joined(chars(HEX, 24), "-", chars(HEX, 146))),
    ("Figma token", "figd_", chars(B64URL, 40)),
    ("Mapbox secret token", "sk.", joined("eyJ1", chars(B64URL, 56), ".", chars(B64URL, 22))),
    ("Mapbox public token", "pk.", joined("eyJ1", chars(B64URL, 56), ".", chars(B64URL, 22))),
    ("Notion token", "ntn_", chars(ALNUM, 46)),
    ("Sourcegraph token", "sgp_", chars(HEX, 40)),
    ("Sentry user token", "sntryu_", chars(HEX, 64)),
    ("Sentry organization token", "sntrys_", joined("eyJpYXQiOjE2", chars(B64, 120), "=_", chars(B64, 43))),
    ("1Password service account", "ops_eyJ", chars(B64, 300)),
    (
        "1Password secret key",
        "A3-",
        joined(
            chars(UPPER + DIGITS, 6),
            "-",
            chars(UPPER + DIGITS, 11),
            "-",
            chars(UPPER + DIGITS, 5),
            "-",
            chars(UPPER + DIGITS, 5),
            "-",
            chars(UPPER + DIGITS, 5),
        ),
    ),
    ("Doppler service token", "dp.st.", chars(ALNUM, 43)),
    ("Doppler personal token", "dp.pt.", chars(ALNUM, 43)),
    ("Vault service token", "hvs.", chars(B64URL, 90)),
    ("Vault batch token", "hvb.", chars(B64URL, 90)),
    ("Vault recovery token", "hvr.", chars(B64URL, 90)),
    ("age secret key", "AGE-SECRET-KEY-1", chars(BECH32.upper(), 58)),
    ("Alibaba access key", "LTAI", chars(ALNUM, 20)),
    ("Fly.io token", "fo1_", chars(B64URL, 43)),
    ("Dynatrace token", "dt0c01.", joined(chars(UPPER + DIGITS, 24), ".", chars(UPPER + DIGITS, 64))),
    ("OpenShift token", "sha256~", chars(B64URL, 43)),
    ("JFrog API key", "AKCp", chars(ALNUM, 69)),
    ("Pulumi token", "pul-", chars(HEX, 40)),
    ("Prefect key", "pnu_", chars(ALNUM, 36)),
    ("Readme key", "rdme_", chars(LOWER + DIGITS, 70)),
    ("Clojars token", "CLOJARS_", chars(LOWER + DIGITS, 60)),
    ("Sendinblue key", "xkeysib-", joined(chars(HEX, 64), "-", chars(ALNUM, 16))),
    ("Square token", "sq0atp-", chars(B64URL, 22)),
    ("Shippo token", "shippo_live_", chars(HEX, 40)),
    ("Duffel token", "duffel_live_", chars(B64URL, 43)),
    ("Flutterwave secret key", "FLWSECK_TEST-", joined(chars(HEX, 32), "-X")),
    ("EasyPost key", "EZAK", chars(ALNUM, 54)),
    ("Plaid access token", "access-production-", uuid()),
    ("HubSpot token", "pat-na1-", uuid()),
    ("Intra42 secret", "s-s4t2ud-", chars(HEX, 64)),
    ("Octopus Deploy key", "API-", chars(UPPER + DIGITS, 26)),
    ("Scalingo token", "tk-us-", chars(B64URL, 48)),
    ("Typeform token", "tfp_", chars(B64URL, 59)),
    ("Infracost key", "ico-", chars(ALNUM, 32)),
    ("Twitter bearer token", "AAAAAAAAAAAAAAAAAAAAA", chars(ALNUM, 80)),
    ("Yandex API key", "AQVN", chars(B64URL, 36)),
    ("JWT", "eyJ", joined(chars(B64URL, 32), ".eyJ", chars(B64URL, 60), ".", chars(B64URL, 43))),
    ("JWT with padding", "eyJ", joined(chars(B64URL, 33), "=.eyJ", chars(B64URL, 61), "==.", chars(B64URL, 42), "=")),
    ("Grafana API key", "eyJrIjoi", chars(B64, 70)),
]


def vendor_samples(seed: int = 0) -> list[Sample]:
    """One credential per format above."""
    rng = random.Random(seed)
    samples = []
    for vendor, prefix, body in FORMATS:
        secret = body(rng)
        samples.append(Sample(vendor, prefix + secret, secret))
    return samples


# Where a self-identifying key may stand: with no name around it at all.
SETTINGS = [
    "{key}",
    "The key is {key} and it works.",
    "error: invalid credentials ({key}) for this request",
    "[{key}]",
    '"{key}"',
    "'{key}',",
    "export SOME_VARIABLE={key}",
    "curl https://api.example.com/v1 -H 'X-Client: {key}'",
    '{{"value": "{key}"}}',
    "<value>{key}</value>",
    "key\t{key}\n",
]

# Ordinary code, logs and prose that mention secrets without holding one: redaction must leave each unchanged.
NEGATIVES = [
    "api_key = config.get('openai', 'api_key')",
    "api_key = os.environ['OPENAI_API_KEY']",
    "const token = await getToken();",
    "token = tokenizer.encode(text)",
    "password_hash = hash(pw)",
    "password_hash = bcrypt.hashpw(password, salt)",
    "if not password:\n    raise ValueError('a password is required')",
    "def rotate_api_key(self, key_id: str) -> None:",
    "def get_secret(name: str) -> str:",
    "static int hf_hub_download_retry(struct hf_client *c);",
    "hf_model_path = hf_hub_download(repo_id, filename)",
    "self.token_count += len(tokens)",
    "max_tokens=4096, temperature=0.2",
    "MAX_TOKENS = 4096",
    "num_key_value_heads=8",
    "for key, value in sorted(d.items(), key=lambda kv: kv[1]):",
    "cache_key = f'{user.id}:{page}'",
    "SUMMARY_KEY = '_hl_summary'",
    "PRIMARY_KEY: id,",
    "token_type: bearer",
    '{"token_type": "bearer", "expires_in": 3600}',
    "password: str",
    "password: Optional[str] = None",
    "secret: SecretStr = Field(...)",
    "token: string;",
    "apiKey: process.env.API_KEY,",
    "API_KEY=${API_KEY}",
    "TOKEN=$(cat ~/.token)",
    "password = getpass.getpass('Password: ')",
    "auth_required: true",
    "headers = {'Authorization': f'Bearer {token}'}",
    "headers['Authorization'] = 'Bearer ' + token",
    "Authorization header missing or malformed",
    "Bearer tokens expire after one hour.",
    "The password must be at least 12 characters long.",
    "Reset your password at https://example.com/account/password",
    "commit 3f786850e387550fdab836ed7e6dc881de23001b",
    "Merge: 9fceb02 d3b0f4b",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "request id 123e4567-e89b-12d3-a456-426614174000 finished in 12 ms",
    "user_id = '550e8400-e29b-41d4-a716-446655440000'",
    "/home/user/projects/hermeslite/hermeslite/context/redact.py",
    "C:\\Users\\dev\\AppData\\Local\\tokens\\cache.json",
    "pip install scikit-learn tokenizers sentencepiece",
    "import sk_learn_helpers as skh",
    "git@github.com:owner/repo.git",
    "https://github.com/owner/repo/blob/main/docs/tokens.md#refresh-tokens",
    "https://example.com/search?q=password+reset&page=2",
    "https://example.com/users/john@doe.com/profile",
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
    "2024-05-01T12:00:00Z INFO auth: login succeeded for user=alice",
    "Run `pytest -q`; 48 passed, 2 skipped in 3.21s.",
    "ERROR tokenizer: unexpected token ';' at line 12, column 4",
    "printf 'password: %s\\n' \"$PASSWORD\"",
    'echo "token=$TOKEN" >> "$GITHUB_ENV"',
    "The eos_token is '</s>' and the pad_token is '[PAD]'.",
    "session_key_prefix = 'sess:'",
    "KEYBOARD_LAYOUT=us",
    "PASSAGE_COUNT=12",
    "PWD=/home/user/project",
    "login(user=user, password=password)",
    "connect(host=host, password=db_password)",
    "client = OpenAI(api_key=api_key)",
    "if token == previous_token:",
    "assert secret != ''",
    'let key = Key::new("id");',
    "Map<String, Token> tokens = new HashMap<>();",
    'type Token struct { Value string `json:"token"` }',
    "# The API key is read from the OPENAI_API_KEY environment variable.",
    "Set `password` in config.yaml, or pass --password-file.",
    "the authorization model is fully open",
    "Hello <@222589316709220353>, the deploy finished",
    "/metrics?token_count=17&session_id=public",
    "https://git@github.com/user/repo.git",
    "x-api-key: <your-api-key>",
    'password = ""',
    "PASSWORD=",
    "api_key: null",
    "docker run --rm -u 1000:1000 -v $PWD:/src image",
    "python -u -m uvicorn app.main:app",
    "sort -u names:all.txt",
    "mysql -u root -p shop",
    "mysql -u root -p$MYSQL_PASSWORD shop",
    "aws configure set region eu-west-1",
    "openssl enc -aes-256-cbc -pass env:ENC_PASS -in f",
]
