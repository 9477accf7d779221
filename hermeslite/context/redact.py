"""Credentials must never reach the summarizer or the compaction record.

Compression sends old turns to a model (possibly another provider, with its own
logs) and keeps what comes back as the permanent stand-in for those turns, so a
key that a user pasted or a tool printed would outlive the turn that showed it.
Both the summarizer's input and its output therefore go through `redact_secrets`.

The rules favour leaving code and prose readable: a value is masked only when it
looks like a literal, never when it is a call, a subscript, an attribute or a
variable reference. The marker keeps the vendor prefix and the surrounding
structure, and is never matched again, so redacting twice changes nothing.
This runs on whole transcripts, so every pattern starts with a literal that `re`
can skip ahead to; word-start checks sit in look-behinds after that literal.
"""

from __future__ import annotations

import re

MARK = "[REDACTED]"


def _prefixed(lead: str, rest: str) -> re.Pattern[str]:
    """A vendor key: `lead` (fixed width) must start a word; `rest` holds the `secret` group."""
    return re.compile(f"{lead}(?<![A-Za-z0-9_-]{lead}){rest}")


def _led_by(leads: str, rest: str) -> tuple[re.Pattern[str], ...]:
    """One pattern per leading character: `re` finds a literal far faster than a class."""
    return tuple(re.compile(re.escape(lead) + rest) for lead in leads)


_ALNUM20 = r"(?P<secret>[A-Za-z0-9]{20,})"
_VENDOR_KEYS = (
    # OpenAI-style: sub-prefixed keys carry '-' and '_'; a bare sk- key is one alphanumeric run.
    _prefixed("sk-", r"(?:(?:proj|svcacct|admin|ant-(?:api|admin)\d\d|ant|or-v1)-(?P<secret>[A-Za-z0-9_-]{20,})"
                     r"|(?P<secret_bare>[A-Za-z0-9]{20,}))"),
    _prefixed("sk_(?:live|test)_", r"(?P<secret>[A-Za-z0-9]{16,})"),
    _prefixed("rk_(?:live|test)_", r"(?P<secret>[A-Za-z0-9]{16,})"),
    _prefixed("gh[pousr]_", r"(?P<secret>[A-Za-z0-9]{30,})"),
    _prefixed("github_pat_", r"(?P<secret>[A-Za-z0-9_]{30,})"),
    _prefixed("glpat-", r"(?P<secret>[A-Za-z0-9_-]{20,})"),
    _prefixed("xox[abprs]-", r"(?P<secret>[A-Za-z0-9-]{20,})"),
    _prefixed("xapp-", r"(?P<secret>[A-Za-z0-9-]{20,})"),
    _prefixed("A[KS]IA", r"(?P<secret>[A-Z0-9]{16})(?![A-Za-z0-9])"),
    _prefixed("AIza", r"(?P<secret>[A-Za-z0-9_-]{30,})"),
    _prefixed("hf_", r"(?P<secret>[A-Za-z0-9]{30,})"),
    _prefixed("pplx-", _ALNUM20),
    _prefixed("gsk_", _ALNUM20),
    _prefixed("xai-", _ALNUM20),
    _prefixed("r8_", _ALNUM20),
    _prefixed("npm_", _ALNUM20),
    _prefixed("pypi-", r"(?P<secret>[A-Za-z0-9]{16,}[A-Za-z0-9_-]*)"),
    _prefixed(r"SG\.", r"(?P<secret>[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,})"),
    _prefixed("do[opr]_v1_", r"(?P<secret>[A-Za-z0-9]{32,})"),
    _prefixed("tvly-", r"(?P<secret>[A-Za-z0-9_-]{20,})"),
)

_PEM_HEAD = r"-----BEGIN (?P<kind>[A-Z0-9 ]{0,24})PRIVATE KEY(?: BLOCK)?-----"
_PEM_GAP = r"(?:\\+[rn]|\s)*"  # real newlines, or escaped ones inside a JSON string
_PEM_BLOCK = re.compile(
    # The body never holds "-----", so a BEGIN without its END costs no more than the text up to the next one.
    _PEM_HEAD + _PEM_GAP + r"(?P<secret>[^\s\\-](?:[^-]|-(?!----))*?)" + _PEM_GAP + r"-----END (?P=kind)PRIVATE KEY"
)
# A key cut off before its END line (`head id_rsa`, a truncated tool output): mask its base64 lines.
_PEM_TRUNCATED = re.compile(
    _PEM_HEAD + _PEM_GAP + r"(?P<secret>[A-Za-z0-9+/=]{16,}(?:(?:\\+[rn]|[\r\n])+[A-Za-z0-9+/=]{16,})*)"
)
_JWT = _prefixed("eyJ", r"(?P<secret>[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*)")
# scheme://user:PASSWORD@host or scheme://TOKEN@host; the password may itself contain '@'.
_URL_USERINFO = re.compile(
    r"://(?<=[A-Za-z0-9]://)(?:[^\s:/@?#\"'<>]*:(?P<secret>[^\s/?#\"'<>]+)"
    r"|(?P<secret_token>(?=[^\s:/@?#\"'<>]*\d)[^\s:/@?#\"'<>]{16,}))@"
)
# ?access_token=, &api_key=, &key=, &sig=, #access_token= (OAuth fragments); the value only.
_QUERY_PARAMS = _led_by("?&#", (
    r"(?:(?:[A-Za-z0-9]++[_.-])*+(?i:token|secret|password|passwd|pwd|signature|sig|credential|auth|apikey)"
    r"|(?i:(?:api|access|secret|private|client|subscription)[_.-]?)?(?i:key))"
    r"=(?P<secret>[^&#\s\"'<>)]+)"
))
_TOKEN = r"[A-Za-z0-9_.~+/=-]"  # base64, base64url, hex and the like
_BEARER = re.compile(rf"earer(?<=[Bb]earer)[ \t]+(?P<secret>(?={_TOKEN}*?\d){_TOKEN}{{16,}})")
# Authorization: <scheme> <credentials>, in a header, a curl -H, or a JSON/YAML field.
_AUTHORIZATION = re.compile(
    r"uthorization(?<=[Aa]uthorization)\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?"
    rf"(?:(?:[Bb]earer|[Bb]asic|[Tt]oken|Bot|JWT|[Dd]igest|OAuth|ApiKey|SSWS)[ \t]+(?P<secret>{_TOKEN}{{6,}})"
    rf"|(?P<secret_raw>(?={_TOKEN}*?\d){_TOKEN}{{16,}}))(?![(\w])"
)

# Assignments: NAME=v, name: v, "name": "v", \"name\": \"v\", and headers. A match starts at the
# separator; the look-behinds cheaply check the name's last three letters (last letter first),
# and `_names_a_secret` then checks the whole name.
_TAILS = "key ken ret ord swd pwd ass ase uth ial als".split()
_TAIL = "(?:" + "|".join(f"{t}|{t.upper()}|{t.capitalize()}" for t in _TAILS) + ")"
_LAST = "[" + "".join(sorted({c for t in _TAILS for c in (t[-1], t[-1].upper())})) + "]"
# What may sit between a name and its separator: "k": 'k': \"k\": k = "k" : d["k"] = k :=
_GAPS = ("", "[ \t\"']", r'\\"', "[\"'][ \t]", r"[\"']\]", r"[\"']\][ \t]", "[ \t]:")
_NOT_TEMPLATE = r"(?![$<{\[%,;)\s])"  # "${VAR}", "<your key>", "{{ x }}", "[PAD]", "%(pw)s", ", x, "
_NOT_CODE = r"(?![A-Za-z_]\w*(?:\.[A-Za-z_]|[(\[]))(?!\d{1,7}\b)"  # a.b, f(x), xs[0], a small number
_BARE = r"[^\s\"'`\\$<{\[(:=,;%][^\s\"'`\\;]*[^\s\"'`\\,;.)}]"
_ASSIGNMENTS = _led_by(":=", (
    "(?:" + "|".join(f"(?<={_LAST}{gap}[:=])(?<={_TAIL}{gap}[:=])" for gap in _GAPS) + r")(?![=:])[ \t]*(?:"
    rf'"{_NOT_TEMPLATE}(?P<secret_dq>(?:[^"\\\r\n]|\\.)++)(?<!\s)"'
    rf'|\\"{_NOT_TEMPLATE}(?P<secret_eq>(?:[^"\\\r\n]|\\[^"\r\n])++)(?<!\s)\\"'
    rf"|'{_NOT_TEMPLATE}(?P<secret_sq>[^'\r\n]++)(?<!\s)'"
    # NAME=value with an upper-case name and no spaces is shell or .env: any literal counts.
    rf"|(?<=[A-Z]=){_NOT_CODE}(?!(?:None|null|true|false|True|False)\b)(?P<secret_env>{_BARE})"
    # Elsewhere a bare word is more likely a variable or a type, so ask for a digit or a symbol early on
    # (bounded, so a long run of separators is not rescanned from each one).
    rf"|{_NOT_CODE}(?=[^\s\"'`\\;]{{0,63}}?[0-9!@#%^&*+/=~?|-])(?P<secret_bare>{_BARE})"
    ")"
))
_NAME_BACKWARDS = re.compile(r":?[ \t]*\]?(?:[\"']\\?)?([A-Za-z0-9_.-]+)")  # the _GAPS, reversed
_NAME_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")  # OPENAI_API_KEY, apiKey, X-Api-Key
_SECRET_WORDS = frozenset(
    "token secret password passwd passphrase pass auth credential credentials apikey accesskey"
    " secretkey privatekey accesstoken authtoken apitoken clientsecret pgpassword dbpassword".split()
)
# A bare `key` is a dict key or a sort key far more often than a credential.
_KEY_QUALIFIERS = frozenset(
    "api access secret private client app master encryption signing license service account subscription"
    " admin session consumer deploy ssh webhook auth".split()
)


def _names_a_secret(text: str, separator: int) -> bool:
    """Whether the name just before `separator` ends in a credential word."""
    # Reading backwards makes this one anchored attempt instead of a search.
    found = _NAME_BACKWARDS.match(text[max(0, separator - 48) : separator][::-1])
    if found is None:
        return False
    name = found.group(1)[::-1]
    words = _NAME_WORD.findall(name) or [""]
    last = words[-1].lower()
    if last == "key":  # any FOO_KEY in an upper-case (environment) name
        return len(words) > 1 and (words[-2].lower() in _KEY_QUALIFIERS or name.isupper())
    if last == "pwd":  # MYSQL_PWD, but not the shell's PWD
        return len(words) > 1
    return last in _SECRET_WORDS


def _mask(match: re.Match[str]) -> str:
    """The match with its secret replaced by MARK. Every pattern closes a `secret*` group last."""
    begin, end = match.span(match.lastgroup)
    text = match.string
    if MARK in text[begin:end]:
        return match.group()
    return text[match.start() : begin] + MARK + text[end : match.end()]


def _mask_if_secret_name(match: re.Match[str]) -> str:
    return _mask(match) if _names_a_secret(match.string, match.start()) else match.group()


# Whole structures first, then vendor prefixes (so `KEY=sk-...` keeps its `sk-`), then the
# context rules, which leave a value alone once it holds MARK.
_RULES = (
    (_PEM_BLOCK, _mask),
    (_PEM_TRUNCATED, _mask),
    (_JWT, _mask),
    *((pattern, _mask) for pattern in _VENDOR_KEYS),
    (_URL_USERINFO, _mask),
    *((pattern, _mask) for pattern in _QUERY_PARAMS),
    (_BEARER, _mask),
    (_AUTHORIZATION, _mask),
    *((pattern, _mask_if_secret_name) for pattern in _ASSIGNMENTS),
)


def redact_secrets(text: str) -> str:
    """`text` with credentials replaced by MARK; everything else is returned unchanged."""
    # A match that is left alone still hides what it spans from its own rule, and a later rule may
    # mask that span; so run again until nothing changes. Text without secrets takes one pass.
    for _ in range(8):
        redacted = text
        for pattern, replace in _RULES:
            redacted = pattern.sub(replace, redacted)
        if redacted == text:
            break
        text = redacted
    return text
