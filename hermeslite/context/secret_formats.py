"""Credentials that say what they are: vendor tokens, private keys, JWTs and webhook URLs.

Many services mint keys with a fixed prefix and a fixed shape (`ghp_` + 36
characters, `AKIA` + 16), precisely so that scanners can find them. Such a key
is a secret wherever it appears, with or without a name like `API_KEY` beside
it, so these patterns need no context. The prefix stays visible (it tells a
reader which service the key was for); the part after it is masked.

Every pattern opens with a literal, which `re` can skip ahead to with a fast
scan; the check that the prefix starts a word sits in a look-behind after it.
Bodies ask for a minimum length (and where the vendor documents it, a digit or
an exact alphabet), so words such as `sk-learn`, `ghp_short` or C identifiers
like `hf_hub_download` are left alone.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from dataclasses import dataclass

# A prefix preceded by one of these is part of a longer word. "]" counts as a word character because
# it ends MARK: a key glued to one masked before it must read the same before and after the masking.
_WORD = "A-Za-z0-9_\\]-"
_B64 = "A-Za-z0-9+/"
_UUID = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"


@dataclass(frozen=True)
class TokenFormat:
    """One vendor's key shape: a visible `lead` (fixed width, opening with a literal) and a masked `body`."""

    vendor: str
    lead: str
    body: str
    word_start: bool = True  # the lead must start a word

    def branch(self, group: str) -> str:
        """The regex of this format without the lead's first character, its body in group `group`."""
        boundary = f"(?<![{_WORD}]{self.lead})" if self.word_start else ""
        return f"{self.lead[len(self.first()) :]}{boundary}(?P<{group}>{self.body})"

    def first(self) -> str:
        """The lead's first character, as written in the regex (`\\.` for a dot)."""
        return self.lead[:2] if self.lead.startswith("\\") else self.lead[:1]


def _by_first_character(formats: tuple[TokenFormat, ...]) -> re.Pattern[str]:
    """All formats in one pattern, branching on the lead's first character.

    One scan that checks each position's character against the set of first characters is
    several times faster than a scan per format; within a branch, longer leads come first so
    that `sk-proj-` wins over `sk-`.
    """
    branches: dict[str, list[str]] = {}
    ordered = sorted(enumerate(formats), key=lambda item: -len(item[1].lead))
    for index, fmt in ordered:
        branches.setdefault(fmt.first(), []).append(fmt.branch(f"secret{index}"))
    return re.compile("|".join(f"{first}(?:{'|'.join(rest)})" for first, rest in branches.items()))


def _each(vendor: str, leads: str, body: str) -> list[TokenFormat]:
    """Formats that share a body; one pattern per lead keeps each lead a literal of fixed width."""
    return [TokenFormat(vendor, lead, body) for lead in leads.split()]


_ALNUM = "[A-Za-z0-9]"
_HEX = "[a-fA-F0-9]"
_TOKEN = "[A-Za-z0-9_-]"
_END = "(?![A-Za-z0-9])"  # for bodies of an exact length

FORMATS: tuple[TokenFormat, ...] = (
    # AI providers
    *_each("OpenAI project / service account / admin", "sk-proj- sk-svcacct- sk-admin-", f"{_TOKEN}{{20,}}"),
    *_each("Anthropic", "sk-ant-api\\d\\d- sk-ant-admin\\d\\d-", f"{_TOKEN}{{20,}}"),
    TokenFormat("Anthropic", "sk-ant-", f"(?!(?:api|admin)\\d\\d-){_TOKEN}{{20,}}"),
    TokenFormat("OpenRouter", "sk-or-v1-", f"{_TOKEN}{{20,}}"),
    # Any other sk- key (OpenAI legacy, DeepSeek, Moonshot, local proxies): a digit somewhere, 12+ characters.
    TokenFormat(
        "sk- keys",
        "sk-",
        f"(?!(?:proj|svcacct|admin|ant|or)-)(?:(?={_TOKEN}{{0,40}}\\d){_ALNUM}{_TOKEN}{{11,}}|{_ALNUM}{{20,}})",
    ),
    TokenFormat("ElevenLabs", "sk_", f"(?!(?:live|test|prod)_){_ALNUM}{{20,}}"),
    *_each(
        "Perplexity / Groq / xAI / Replicate / Tavily / Firecrawl", "pplx- gsk_ xai- r8_ tvly- fc-", f"{_ALNUM}{{20,}}"
    ),
    *_each("Fireworks", "fw_ fw- fpk_", f"{_ALNUM}{{20,}}"),
    *_each("Exa / fal / AgentMail", "exa_ fal_", f"{_ALNUM}{{16,}}"),
    *_each("AgentMail", "am_ am_org_", f"{_ALNUM}{{24,}}"),
    TokenFormat("Hugging Face", "hf_", f"{_ALNUM}{{30,}}"),
    TokenFormat("Hugging Face organization", "api_org_", f"{_ALNUM}{{30,}}"),
    # Code hosting and packages
    TokenFormat("GitHub", "gh[pousr]_", f"{_ALNUM}{{20,}}"),
    TokenFormat("GitHub fine-grained", "github_pat_", "[A-Za-z0-9_]{20,}"),
    *_each(
        "GitLab",
        "glpat- gloas- gldt- glrt- glrtr- glcbt- glptt- glft- glimt- glagent- glsoat- glffct- glwt- glcsoat-",
        "[A-Za-z0-9_-][A-Za-z0-9_.-]{15,}",
    ),
    TokenFormat("GitLab runner registration", "GR1348941", f"{_TOKEN}{{20,}}"),
    TokenFormat("npm", "npm_", f"{_ALNUM}{{20,}}"),
    *_each("Docker Hub", "dckr_pat_ dckr_oat_", f"{_TOKEN}{{20,}}"),
    TokenFormat("PyPI", "pypi-", f"(?={_TOKEN}{{0,60}}\\d){_TOKEN}{{20,}}"),
    TokenFormat("RubyGems", "rubygems_", f"{_HEX}{{48}}"),
    TokenFormat("Clojars", "CLOJARS_", f"{_ALNUM}{{60}}"),
    TokenFormat("Sourcegraph", "sgp_", "[A-Za-z0-9_]{32,}"),
    TokenFormat("JFrog API key", "AKCp", f"{_ALNUM}{{60,}}"),
    TokenFormat("JFrog reference token", "cmVmdGtu", f"{_ALNUM}{{40,}}"),
    TokenFormat("Pulumi", "pul-", f"{_HEX}{{40}}"),
    TokenFormat("Readme", "rdme_", "[a-z0-9]{70}"),
    # Chat and messaging
    TokenFormat("Slack", "xox[abprseo]-", "(?=[A-Za-z0-9-]*\\d)[A-Za-z0-9-]{10,}"),
    TokenFormat("Slack configuration refresh", "xoxe\\.xox[bp]-", "[A-Za-z0-9-]{20,}"),
    TokenFormat("Slack app", "xapp-", "[A-Za-z0-9-]{20,}"),
    TokenFormat("Slack webhook", "hooks\\.slack\\.com/(?:services|workflows|triggers)/", "[A-Za-z0-9/_+-]{20,}", False),
    TokenFormat("Discord webhook", "/api/webhooks/", "\\d{5,20}/[A-Za-z0-9_-]{30,}", False),
    TokenFormat("Microsoft Teams webhook", "\\.webhook\\.office\\.com/webhookb2/", "[A-Za-z0-9@/._-]{40,}", False),
    TokenFormat("Microsoft Teams webhook (legacy)", "outlook\\.office\\.com/webhook/", "[A-Za-z0-9@/._-]{40,}", False),
    TokenFormat("Sendinblue", "xkeysib-", f"{_HEX}{{64}}-{_ALNUM}{{16}}"),
    TokenFormat("SendGrid", "SG\\.", f"{_TOKEN}{{16,}}\\.{_TOKEN}{{16,}}"),
    TokenFormat("Mailgun", "key-", f"{_HEX}{{32}}{_END}"),
    TokenFormat("Mailgun public", "pubkey-", f"{_HEX}{{32}}{_END}"),
    TokenFormat("Twilio API key", "SK", f"{_HEX}{{32}}{_END}"),
    # Cloud
    *_each("AWS access key", "AKIA ASIA ABIA ACCA", f"[A-Z0-9]{{16}}{_END}"),
    TokenFormat("AWS access key", "A3T[A-Z0-9]", f"[A-Z0-9]{{16}}{_END}"),
    TokenFormat("Amazon Bedrock", "ABSK", f"[{_B64}]{{100,}}={{0,2}}"),
    TokenFormat("Amazon Bedrock (short-lived)", "bedrock-api-key-", f"[{_B64}]{{20,}}={{0,2}}"),
    TokenFormat("Google API key", "AIza", f"{_TOKEN}{{30,}}"),
    TokenFormat("Google OAuth client secret", "GOCSPX-", f"{_TOKEN}{{24,}}"),
    TokenFormat("Google OAuth access token", "ya29\\.", f"{_TOKEN}{{30,}}"),
    TokenFormat("Alibaba", "LTAI", f"{_ALNUM}{{20}}{_END}"),
    TokenFormat("DigitalOcean", "do[opr]_v1_", f"{_HEX}{{64}}"),
    TokenFormat("Heroku", "HRKU-", f"{_TOKEN}{{40,}}"),
    TokenFormat("Databricks", "dapi", f"{_HEX}{{32}}(?:-\\d+)?{_END}"),
    TokenFormat("Cloudflare origin CA", "v1\\.0-", f"{_HEX}{{24}}-{_HEX}{{100,}}"),
    TokenFormat("Fly.io", "fo1_", f"{_TOKEN}{{40,}}"),
    *_each("Fly.io machines", "fm1a_ fm1r_ fm2_", f"[{_B64}_-]{{40,}}={{0,2}}"),
    TokenFormat("Supabase", "sbp_", f"{_HEX}{{40}}"),
    TokenFormat("Supabase secret", "sb_secret_", f"{_TOKEN}{{20,}}"),
    *_each("PlanetScale", "pscale_tkn_ pscale_pw_ pscale_oauth_", "[A-Za-z0-9_.=-]{32,64}"),
    TokenFormat("Scalingo", "tk-us-", f"{_TOKEN}{{40,}}"),
    TokenFormat("Dynatrace", "dt0c01\\.", f"{_ALNUM}{{24}}\\.{_ALNUM}{{64}}"),
    TokenFormat("OpenShift", "sha256~", f"{_TOKEN}{{43}}"),
    TokenFormat("HashiCorp Terraform", "\\.atlasv1\\.", "[A-Za-z0-9_=-]{60,}", False),
    *_each("HashiCorp Vault", "hvs\\. hvb\\. hvr\\.", f"{_TOKEN}{{24,}}"),
    TokenFormat("Yandex", "t1\\.", f"[A-Za-z0-9_-]+={{0,2}}\\.{_TOKEN}{{80,}}={{0,2}}"),
    TokenFormat("Yandex API key", "AQVN", f"{_TOKEN}{{35,38}}{_END}"),
    TokenFormat("Yandex AWS key", "YC", f"{_TOKEN}{{38}}(?![A-Za-z0-9_-])"),
    TokenFormat("Azure DevOps / generic", "ATATT3", "[A-Za-z0-9_=-]{100,}"),
    # Secret managers
    *_each("Doppler", "dp\\.pt\\. dp\\.st\\. dp\\.sa\\. dp\\.ct\\. dp\\.scim\\. dp\\.audit\\.", f"{_TOKEN}{{40,}}"),
    TokenFormat("1Password service account", "ops_eyJ", f"[{_B64}]{{100,}}={{0,2}}"),
    TokenFormat(
        "1Password secret key",
        "A3-",
        "[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}",
    ),
    TokenFormat("age secret key", "AGE-SECRET-KEY-1", f"[02-9ac-hj-np-zAC-HJ-NP-Z]{{58}}{_END}"),
    # Payments and commerce
    *_each("Stripe", "sk_live_ sk_test_ sk_prod_ rk_live_ rk_test_ rk_prod_", f"{_ALNUM}{{10,}}"),
    TokenFormat("Stripe webhook", "whsec_", f"[{_B64}=]{{24,}}"),
    TokenFormat("Shopify", "shp(?:at|ca|pa|ss)_", f"{_HEX}{{32}}"),
    TokenFormat("Square", "sq0atp-", f"{_TOKEN}{{22,}}"),
    TokenFormat("Square", "sq0csp-", f"{_TOKEN}{{40,}}"),
    # Square access tokens are base64url (they hold `-` and `_`); Facebook's are alphanumeric.
    TokenFormat("Square / Facebook", "EAA[ACMU]", f"(?={_TOKEN}{{0,80}}\\d){_TOKEN}{{22,}}"),
    TokenFormat("Shippo", "shippo_(?:live|test)_", f"{_HEX}{{40}}"),
    *_each("Duffel", "duffel_test_ duffel_live_", "[A-Za-z0-9_=-]{40,}"),
    *_each("Flutterwave", "FLWSECK_TEST- FLWPUBK_TEST- FLWSECK- FLWPUBK-", f"{_HEX}{{12,}}(?:-X)?"),
    *_each("Lob", "live_ test_ live_pub_ test_pub_", f"{_HEX}{{31,35}}{_END}"),
    TokenFormat("EasyPost", "EZ[AT]K", f"{_ALNUM}{{54}}"),
    *_each("Plaid", "access-sandbox- access-development- access-production-", _UUID),
    # SaaS and developer tools
    TokenFormat("Notion", "ntn_", f"{_ALNUM}{{40,}}"),
    TokenFormat("Notion (legacy)", "secret_", f"{_ALNUM}{{43}}{_END}"),
    TokenFormat("Linear", "lin_api_", f"{_ALNUM}{{40}}"),
    TokenFormat("Linear OAuth", "lin_oauth_", f"{_ALNUM}{{40,}}"),
    TokenFormat("Sentry organization", "sntrys_", f"eyJ[{_B64}=_]{{50,}}"),
    TokenFormat("Sentry user", "sntryu_", f"{_HEX}{{64}}"),
    TokenFormat("Postman", "PMAK-", f"{_HEX}{{24}}-{_HEX}{{34}}"),
    TokenFormat("Grafana cloud", "glc_", f"[{_B64}]{{32,}}={{0,2}}"),
    TokenFormat("Grafana service account", "glsa_", f"{_ALNUM}{{32}}_{_HEX}{{8}}"),
    TokenFormat("Grafana API key", "eyJrIjoi", f"[{_B64}]{{50,}}={{0,2}}"),
    TokenFormat("New Relic", "NR(?:AK|JS|II|AA|RA|IQ|SP)-", f"{_TOKEN}{{19,}}"),
    TokenFormat("Figma", "figd_", f"{_TOKEN}{{40,}}"),
    *_each("Mapbox", "pk\\. sk\\. tk\\.", f"{_TOKEN}{{50,}}\\.{_TOKEN}{{20,}}"),
    TokenFormat("Adobe", "p8e-", f"{_ALNUM}{{32}}{_END}"),
    TokenFormat("Airtable", "pat", f"{_ALNUM}{{14}}\\.{_HEX}{{64}}"),
    TokenFormat("Atlassian", "ATCTT3", "[A-Za-z0-9_=-]{100,}"),
    TokenFormat("ClickHouse", "4b1d", f"{_ALNUM}{{38}}{_END}"),
    TokenFormat("Defined Networking", "dnkey-", "[A-Za-z0-9_=-]{40,}"),
    TokenFormat("Frame.io", "fio-u-", "[A-Za-z0-9_=-]{64}"),
    TokenFormat("HubSpot", "pat-(?:na1|eu1)-", _UUID),
    TokenFormat("Infracost", "ico-", f"{_ALNUM}{{32}}{_END}"),
    TokenFormat("Intra42", "s-s4t2(?:ud|af)-", f"{_HEX}{{64}}"),
    *_each("LaunchDarkly", "api- sdk- mob-", _UUID),
    TokenFormat("Octopus Deploy", "API-", f"[A-Z0-9]{{26}}{_END}"),
    TokenFormat("Prefect", "pnu_", f"{_ALNUM}{{36}}"),
    TokenFormat("Settlemint", "sm_(?:aat|pat|sat)_", f"{_ALNUM}{{16}}"),
    TokenFormat("Typeform", "tfp_", "[A-Za-z0-9_.=-]{40,}"),
    TokenFormat("Twitter bearer", "AAAAAAAAAAAAAAAAAAAAA", "[A-Za-z0-9%]{30,}"),
    *_each("Harness", "pat\\. sat\\.", f"{_TOKEN}{{20,}}\\.{_ALNUM}{{20,}}\\.{_ALNUM}{{20,}}"),
    TokenFormat("Authress", "\\.acc[_-]", f"[a-z0-9-]{{10,32}}\\.[{_B64}_=-]{{30,}}", False),
    TokenFormat("Sidekiq", "CONTRIBSYS__COM", "[^\\r\\n]{0,12}?[a-f0-9]{8}:[a-f0-9]{8}", False),
)

_PEM_HEAD = r"-----BEGIN (?P<kind>[A-Z0-9 ]{0,24})PRIVATE KEY(?: BLOCK)?-----"
_PEM_GAP = r"(?:\\+[rn]|\s)*"  # real newlines, or escaped ones inside a JSON string
# The body never holds "-----", so a BEGIN without its END costs no more than the text up to the next one.
_PEM_BLOCK = (
    _PEM_HEAD + _PEM_GAP + r"(?P<secret>[^\s\\-](?:[^-]|-(?!----))*?)" + _PEM_GAP + r"-----END (?P=kind)PRIVATE KEY"
)
# A key cut off before its END line (`head id_rsa`, a truncated tool output): mask its base64 lines.
_PEM_TRUNCATED = _PEM_HEAD + _PEM_GAP + r"(?P<secret>[A-Za-z0-9+/=]{16,}(?:(?:\\+[rn]|[\r\n])+[A-Za-z0-9+/=]{16,})*)"
_SEGMENT = r"[A-Za-z0-9_-]+={0,2}"

Check = Callable[[re.Match[str]], bool]


def _telegram_bot_id(match: re.Match[str]) -> bool:
    """The digits before the colon are a bot id: 8-12 of them, starting a word (or after `bot`)."""
    text, start = match.string, match.start()
    colon = start
    while start > 0 and text[start - 1].isdigit():
        start -= 1
    if not 8 <= colon - start <= 12:
        return False
    if text.endswith("bot", 0, start):
        start -= 3
    return start == 0 or not (text[start - 1].isalnum() or text[start - 1] in "_-:]")


# "-----BEGIN" in base64: a whole PEM file encoded once more (kubeconfig `client-key-data`, a
# Kubernetes secret's `tls.key`, `base64 id_rsa`), on one line or wrapped at 64 or 76 characters.
_PEM_BASE64 = (
    r"LS0tLS1CRUdJTi(?<![A-Za-z0-9+/]LS0tLS1CRUdJTi)"
    r"(?P<secret>[A-Za-z0-9+/]{40,}(?:(?:\\+[rn]|\r?\n)(?=[A-Za-z0-9+/]{20})[A-Za-z0-9+/]+)*={0,2})"
)
_PEM_BASE64_HEAD = 56  # characters that decode to the header line, "-----BEGIN ENCRYPTED PRIVATE KEY-----"


def _private_key_base64(match: re.Match[str]) -> bool:
    """Whether the encoded header names a private key: a certificate or a public key is not a secret."""
    head = re.sub(r"\\+[rn]|\s", "", match.group())[:_PEM_BASE64_HEAD]
    try:
        decoded = base64.b64decode(head[: len(head) // 4 * 4])
    except ValueError:
        return False
    return b"PRIVATE KEY" in decoded


# Twilio's account SID (or API key SID) and, beside it, the auth token or key secret that goes with it:
# `-u ACxxxx:token`, `Client("ACxxxx", "token")`, `twilio ... ACxxxx token`.
# One pattern per SID kind, so each opens with a literal.
_TWILIO_PAIRS = tuple(
    rf"{sid}(?<![A-Za-z0-9_]{sid})[0-9a-f]{{32}}"
    r"(?:[\"']?[ \t]*[,:][ \t]*[\"']?|[\"']?[ \t]+[\"']?)(?P<secret>[A-Za-z0-9]{32})(?![A-Za-z0-9])"
    for sid in ("AC", "SK")
)

SHAPES: tuple[tuple[re.Pattern[str], Check | None], ...] = (
    (re.compile(_PEM_BLOCK), None),
    (re.compile(_PEM_TRUNCATED), None),
    (re.compile(_PEM_BASE64), _private_key_base64),
    *((re.compile(pair), None) for pair in _TWILIO_PAIRS),
    # JWTs: a JSON header, then a payload and usually a signature; base64url, sometimes padded with '='.
    (
        re.compile(
            rf"eyJ(?<![{_WORD}]eyJ)(?P<secret>[A-Za-z0-9_-]{{8,}}={{0,2}}\.(?:eyJ{_SEGMENT}(?:\.(?:{_SEGMENT})?)?"
            rf"|[A-Za-z0-9_-]{{10,}}={{0,2}}\.(?:{_SEGMENT})?))"
        ),
        None,
    ),
    # Two dotted base64 parts that both open like JSON ("ey..."), as some generators write JWTs.
    (
        re.compile(
            rf"ey(?<![{_WORD}]ey)(?!J)(?P<secret>{_ALNUM}{{17,}}\.ey[A-Za-z0-9/\\_-]{{17,}}\."
            rf"(?:[A-Za-z0-9/\\_-]{{10,}}={{0,2}})?)"
        ),
        None,
    ),
    # A whole JWT, base64-encoded once more (Kubernetes secrets, CI variables).
    (re.compile(rf"ZXlK(?<![{_WORD}]ZXlK)(?P<secret>[{_B64}]{{40,}}={{0,2}})"), None),
    # Telegram bot tokens: the bot's numeric id stays, the part after the colon is the secret.
    (re.compile(r":(?<=\d{8}:)(?P<secret>[A-Za-z0-9_-]{30,})"), _telegram_bot_id),
    # Azure AD client secrets: three characters, a digit, "Q~", then 31-34 more.
    (re.compile(r"Q~(?<=[A-Za-z0-9_~.-]{3}\dQ~)(?P<secret>[A-Za-z0-9_~.-]{31,34})(?![A-Za-z0-9_~.-])"), None),
    # fal.ai keys: a UUID, a colon, 32 hex digits.
    (re.compile(rf":(?<={_UUID}:)(?P<secret>{_HEX}{{32}}){_END}"), None),
    # Facebook app tokens: app id | secret.
    (re.compile(rf"\|(?<=\d{{15}}\|)(?P<secret>{_TOKEN}{{27,}})"), None),
)

KEYS = _by_first_character(FORMATS)
RULES: tuple[tuple[re.Pattern[str], Check | None], ...] = (*SHAPES, (KEYS, None))

# A line that ends in a word and a next line that opens with one: where a wrapped key may continue.
_LINE_BREAK = re.compile(r"\n(?<=[A-Za-z0-9_-]\n)(?=[A-Za-z0-9_-]{6})")
_KEY_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_KEY_RUN = re.compile(r"[A-Za-z0-9_.-]{16,}")
_DIGIT = re.compile(r"\d")
_LETTER = re.compile(r"[A-Za-z]")
_WRAP_REACH = 300  # how much of the next line a wrapped key may take


def _random_run(text: str) -> bool:
    """Whether `text` opens with 16+ key characters mixing letters and digits, as the rest of a key does."""
    run = _KEY_RUN.match(text)
    return run is not None and _DIGIT.search(run.group()) is not None and _LETTER.search(run.group()) is not None


def wrapped_keys(text: str) -> list[tuple[int, int, int]]:
    """Keys that a line break cut in two (`ghp_abc` at the end of one line, the rest on the next):
    (where the key starts, where its masked part starts, where it ends), both lines counted.

    A key that is complete before the break is left to the ordinary scan, so a line that merely
    follows a key is never joined to it.
    """
    found = []
    for brk in _LINE_BREAK.finditer(text):
        newline = brk.start()
        rest = text[newline + 1 : newline + 1 + _WRAP_REACH]
        if not _random_run(rest):
            continue  # `sk-learn` then `classifier_v2`: two words, not one key
        start = newline
        while start > newline - 100 and start > 0 and text[start - 1] in _KEY_CHARACTERS:
            start -= 1
        before = 1 if start > 0 else 0
        head = text[start - before : newline]
        if KEYS.match(head, before) is not None:
            continue
        joined = head + rest
        match = KEYS.match(joined, before)
        if match is None or match.end() <= len(head):
            continue
        secret_start, secret_end = (start - before + i for i in match.span(match.lastgroup or 0))
        found.append((start, secret_start, secret_end + (1 if secret_end > newline else 0)))
    return found
