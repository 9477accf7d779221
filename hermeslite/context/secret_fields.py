"""Credentials known by where they stand: `NAME=value`, `"password": "..."`, headers, URLs, command lines.

A value is masked here because a name or a position says it is a secret:
an assignment whose name is a credential's (in any of the syntaxes below), an
Authorization header, the password in a URL, a secret query parameter, a `.netrc` line, a cookie, or an
`auth=("user", "password")` pair. Command-line options (`curl -u`, `--password X`,
`mysql -pX`) are read by `secret_commands`, with the helpers below. Values that are code (`config.get(...)`,
`self.token`, `os.environ["KEY"]`) or templates (`${TOKEN}`, `<your key>`)
are left alone, so source code stays readable.

Each rule is a pattern plus a function that returns the spans to mask. The
patterns start with a literal `re` can skip ahead to, and match only up to
the operator: the value is read in a look-ahead, so a value never hides the
next assignment from the scan (a form body `password=a&token=b` has two).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable

from .secret_names import Strength, name_before, strength

Span = tuple[int, int]
MARK = "[REDACTED]"  # what a secret is replaced with; a name, type or value holding it was masked before


class KeySpans:
    """The vendor keys already found in the text (sorted spans of their masked parts).

    A name that runs into a key (`...ghp_xxxSTRIPE_SECRET=`) starts after it: that is how the
    name reads once the key is masked, so a second redaction judges it the same way.
    """

    def __init__(self, spans: list[Span]) -> None:
        self.spans = spans
        self.starts = [start for start, _ in spans]

    def name_start(self, start: int, end: int) -> int | None:
        """Where a name read as `start`..`end` begins after any key inside it; None if a key covers its end."""
        i = bisect.bisect_left(self.starts, end) - 1
        if i < 0 or self.spans[i][1] <= start:
            return start
        return self.spans[i][1] if self.spans[i][1] < end else None


FieldRule = tuple[re.Pattern[str], Callable[[re.Match[str], KeySpans], list[Span]]]

_TAILS = "key ken ret ets ord swd pwd ass ase uth ial als rer lue _pw".split()
_TAIL = "(?P<tail>" + "|".join(sorted({v for t in _TAILS for v in (t, t.upper(), t.capitalize())})) + ")"
_VALUE = (
    r"[rRbBuUfF]{0,2}\"(?:[^\"\\\r\n]|\\.)*+\""
    r"|[rRbBuUfF]{0,2}'[^'\r\n]*+'"
    r"|`[^`\r\n]*+`"
    r"|\\\"(?:[^\"\\\r\n]|\\[^\"\r\n])*+\\\""
    r"|(?:\r?\n[ \t]*)?[^\s\\]{1,256}+"
)  # bounded, so a long run of `password:password:...` stays linear; a longer value is extended when masked
# name, then: the end of a quoted key or subscript, a type (`name: str =`, Go's `var name string =`),
# spaces (aligned assignments), and one of = := ::= :::= ?= .= += ||= ??= => : , (setProperty) > (XML).
_ASSIGNMENT = re.compile(
    _TAIL
    + r"(?P<close>\\?[\"'`]?\]?)"
    + r"(?P<gap>[ \t]*:[ \t]*[A-Za-z_][\w.\[\]<>?|]*[ \t]*(?==)|[ \t]+[A-Za-z_][\w.\[\]*]*[ \t]*(?==)|[ \t]*)"
    + r"(?P<op>:{0,3}=(?![=~>])|[.?+]=|\|\|=|\?\?=|=>|:(?![:=/\\])|,|>(?!=))"
    + r"[ \t]*(?=(?P<value>"
    + _VALUE
    + "))"
)
_QUOTES = "\"'`"
_TEMPLATE_START = ("${", "$(", "{{", "{%", "#{", "%(", "%s", "<%")
_NOT_A_VALUE_START = "$<{[(%,;:=)*" + " \t"
_TYPE_NAMES = frozenset("str string int bytes bool boolean float number any object secretstr secretbytes".split())
_PLACEHOLDER_WORDS = re.compile(
    r"(?i)^(?:your|my|insert|enter)[_ -]|(?:^|[_ -])(?:required|placeholder|changeme|dummy|here)$"
)
_KEYWORDS = frozenset("none null nil true false undefined yes no on off".split())
_CODE = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::|->)[A-Za-z_$][\w$]*)*(?P<call>[(\[])?")
# Ordinary words: lower case, Capitalized or upper case, a few joined by spaces or hyphens.
_WORDS = re.compile(r"(?:[A-Za-z][a-z]{0,23}|[A-Z]{2,24})(?:[ -][a-z]{1,24}){0,3}")
_PATH_STARTS = ("/", "~/", "./", "../")
_PATH_SEGMENT = re.compile(r"[A-Za-z0-9_.][A-Za-z0-9_.-]*")
SYMBOL = re.compile(r"[0-9!@#%^&*+/=~?|'-]")
_BARE_END = re.compile(r"[\s\\]")
_FORM_NEXT = re.compile(r"&[\w.%-]+=")
_URL_BOUNDS = " \t\r\n\"'`<>("  # what a URL written in text or code starts after
_PROSE_PUNCTUATION = ".,;:"
_CLOSERS = {")": "(", "]": "[", "}": "{"}
_TRAILERS = frozenset(_PROSE_PUNCTUATION + "".join(_CLOSERS) + _QUOTES)
_QUOTE_TOKENS = re.compile(r"\\.|[\"'`]", re.DOTALL)
_LOOKBACK = 1_000  # how far back quote and bracket balance is read; lines are long only in minified data


def _line_start(text: str, pos: int) -> int:
    return max(text.rfind("\n", max(0, pos - _LOOKBACK), pos) + 1, pos - _LOOKBACK, 0)


def _open_quote(text: str, start: int, end: int) -> str | None:
    """The quote left open at `end` when reading `text` from `start` (backslash escapes honoured)."""
    quote = None
    for token in _QUOTE_TOKENS.findall(text, start, end):
        if quote is None and token in _QUOTES:
            quote = token
        elif token == quote:
            quote = None
    return quote


def _in_url_query(text: str, name_start: int) -> bool:
    """Whether the name at `name_start` is a parameter of a URL's query (`…?a=1&token=x`), where a `#`
    starts the fragment; a form body (`user=x&password=a#b`) has no `?` before its pairs."""
    if not name_start or text[name_start - 1] not in "?&":
        return False
    before = text[max(0, name_start - _LOOKBACK) : name_start]
    start = max(before.rfind(c) for c in _URL_BOUNDS) + 1
    return "?" in before[start:]


def trim_bare(text: str, raw: str, name_start: int) -> str:
    """An unquoted value without what closes around it: a form's next pair, `;`, and closing
    quotes, brackets and punctuation that belong to the text around the assignment, not to the value."""
    form = _FORM_NEXT.search(raw)
    if form:
        raw = raw[: form.start()]
    raw = raw.split(";", 1)[0]
    if "#" in raw and _in_url_query(text, name_start):
        raw = raw.split("#", 1)[0] or raw  # a URL's #fragment is not part of the query's value
    if raw[-1] not in _TRAILERS:
        return raw
    line = _line_start(text, name_start)
    prefix = text[line:name_start]
    quote = _open_quote(text, line, name_start)
    opened = {o: prefix.count(o) - prefix.count(c) for c, o in _CLOSERS.items()}
    while len(raw) > 1:
        last = raw[-1]
        if last in _PROSE_PUNCTUATION:
            pass
        elif last in _CLOSERS and opened[_CLOSERS[last]] > 0:
            opened[_CLOSERS[last]] -= 1
        elif last == quote:
            quote = None
        else:
            break
        raw = raw[:-1]
    return raw


def is_placeholder(value: str) -> bool:
    """A template, a reference or a mask rather than a literal: `${X}`, `<key>`, `$TOKEN`, `****`, `your-key-here`."""
    if not value or value[0] in _NOT_A_VALUE_START or value.startswith(_TEMPLATE_START):
        return True
    if _PLACEHOLDER_WORDS.search(value) and not any(c.isdigit() for c in value):
        return True
    return value.lower() in _KEYWORDS or (len(value) >= 3 and set(value) <= set("*xX."))


def _is_code(value: str) -> bool:
    """`config.get(...)`, `self.token`, `os.environ["KEY"]`, `Foo::bar`, but not `hvs.CAES8k2...`."""
    found = _CODE.match(value)
    if found is None or (found.group("call") is None and found.end() != len(value)):
        return False
    if found.group("call"):
        return True
    segments = re.split(r"\.|::|->", value)
    return len(segments) > 1 and not any(looks_random(s) for s in segments)


def _credential_for(power: Strength, value: str) -> bool:
    """Whether a quoted literal counts under a name of this strength: a `key` needs a random-looking
    value, and a `token` or `auth` anything but ordinary words (`{"token": "greeting"}`)."""
    if power is Strength.KEYLIKE:
        return looks_random(value)
    return power is not Strength.WEAK or _WORDS.fullmatch(value) is None


def looks_random(value: str) -> bool:
    return len(value) >= 16 and any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def is_literal(value: str) -> bool:
    return not (is_placeholder(value) or _is_code(value) or (value.isdigit() and len(value) <= 7) or _is_path(value))


def _is_path(value: str) -> bool:
    """A file that holds the credential (`client-key: ~/.kube/admin.key`), not the credential itself:
    an absolute, home or relative path of two or more plain segments, none of them random-looking."""
    if not value.startswith(_PATH_STARTS):
        return False
    segments = value.lstrip("~.").strip("/").split("/")
    return len(segments) >= 2 and all(_PATH_SEGMENT.fullmatch(s) and not looks_random(s) for s in segments)


def _quoted_content(value: str, begin: int) -> Span | None:
    """The span inside the quotes of a quoted value (Python string prefixes and JSON-escaped quotes
    allowed); an empty span for an f-string that builds the value from variables; None when unquoted."""
    if value.startswith('\\"'):
        return begin + 2, begin + len(value) - 2
    prefix = len(value) - len(value.lstrip("rRbBuUfF"))
    if prefix > 2 or len(value) < prefix + 2 or value[prefix] not in _QUOTES or value[-1] != value[prefix]:
        return None
    if "f" in value[:prefix].lower() and "{" in value:
        return begin, begin
    return begin + prefix + 1, begin + len(value) - 1


def _assignment(match: re.Match[str], keys: KeySpans) -> list[Span]:
    text, end = match.string, match.end("tail")
    _, start = name_before(text, end)
    name_start = keys.name_start(start, end)
    if name_start is None or text.endswith("//", 0, name_start):
        return []  # part of a vendor key, or a URL's user name (the userinfo rule reads URLs)
    name = text[name_start:end]
    if MARK in match.group("gap"):
        return []  # `token: [REDACTED] = ...` is the output of an earlier redaction, not a typed name
    power = strength(name)
    if power is Strength.NONE:
        return []
    op, close, gap, value = match.group("op"), match.group("close"), match.group("gap"), match.group("value")
    begin = match.start("value")
    if op == ">":
        return _xml_element(text, name_start, begin, value, power) if not (close or gap) else []
    quoted = _quoted_content(value, begin)
    if op == ",":  # f("NAME", "value"): System.setProperty, os.environ.setdefault, putenv; not a tuple
        call = re.search(r"[\w.]\([ \t]*\\?$", text[max(0, name_start - 40) : name_start - 1])
        if not (quoted and close and close[-1] in _QUOTES and name.isupper() and call):
            return []
    if quoted is not None:
        content = text[quoted[0] : quoted[1]]
        if not content or is_placeholder(content) or _is_path(content) or not _credential_for(power, content):
            return []
        return [quoted]
    if value[0] in "\r\n" or value[0] in _QUOTES:
        return []
    literal = trim_bare(text, value, name_start)
    if not is_literal(literal) or not _bare_value_counts(text, name, name_start, match, literal, power):
        return []
    end = begin + len(literal)
    if literal == value:  # the look-ahead stops after 256 characters: a longer value is masked to its end
        stop = _BARE_END.search(text, end)
        end = stop.start() if stop else len(text)
    return [(begin, end)]


def _bare_value_counts(
    text: str, name: str, name_start: int, match: re.Match[str], value: str, power: Strength
) -> bool:
    """Whether an unquoted value is a credential, given how surely the name says so and where it stands."""
    op = match.group("op")
    plain = op == "=" and not (match.group("close") or match.group("gap"))
    if plain and name.isupper():
        return True  # NAME=value: shell and .env files, where any literal is a value
    if power is Strength.KEYLIKE:
        return looks_random(value)
    before = text[name_start - 1] if name_start else "\n"
    line = _line_start(text, name_start)
    in_string = not match.group("close") and before in _QUOTES  # "name=value" is a string's whole content
    form = before in "&?" or _FORM_NEXT.match(text, match.start("value") + len(value)) is not None
    if in_string or form or name.startswith("--"):
        return True  # inside a string, in a form body, or a command-line flag: not code
    if SYMBOL.search(value[:64]):
        return True
    if power is not Strength.STRONG or text[line:name_start].strip(" \t-"):
        return False
    # A line of its own: password=foo in a .properties or .ini file, password: foo in YAML (not a type).
    end = match.start("value") + len(value)
    if value == match.group("value"):  # it may go on past the look-ahead's bound
        stop = _BARE_END.search(text, end)
        end = stop.start() if stop else len(text)
    rest = text[end : end + 200].split("\n", 1)[0]
    return plain or (op == ":" and value.lower() not in _TYPE_NAMES and not rest.strip(" \t\r\"'`)]},;"))


def _xml_element(text: str, name_start: int, begin: int, value: str, power: Strength) -> list[Span]:
    """<password>value</password>, also with the value on a line of its own."""
    if name_start == 0 or text[name_start - 1] != "<":
        return []
    offset = len(value) - len(value.lstrip())
    content = value[offset:].split("<", 1)[0]
    after = begin + offset + len(content)
    if not re.match(r"\s*</", text[after : after + 200]) or is_placeholder(content):
        return []
    if not _credential_for(power, content):
        return []
    return [(begin + offset, after)]


_TOKEN = r"[A-Za-z0-9_.~+/=-]"  # base64, base64url, hex and the like
_SCHEMES = frozenset(
    "bearer basic token bot jwt digest oauth apikey api-key api-token key sso-key ssws splunk negotiate ntlm"
    " geniekey dsn hmac".split()
)
# Authorization: <scheme> <credentials>, in a header, a curl -H, or a JSON/YAML field.
_AUTHORIZATION = re.compile(
    r"uthorization(?<=[Aa]uthorization)(?P<close>\\?[\"']?)[ \t]*[:=][ \t]*(?P<open>\\?[\"']?)"
    r"(?:(?P<scheme>[A-Za-z][A-Za-z0-9-]{1,20})[ \t]+)?(?P<credential>[^\s\"'\\,;]+)"
)
_BEARER = re.compile(rf"earer(?<=[Bb]earer)[ \t]+(?P<credential>(?={_TOKEN}*?\d){_TOKEN}{{16,}})")


def _authorization(match: re.Match[str], keys: KeySpans) -> list[Span]:
    credential, scheme = match.group("credential"), match.group("scheme")
    span = [match.span("credential")]
    if is_placeholder(credential) or _is_code(credential) or "(" in credential or credential.lower() in _SCHEMES:
        return []
    if scheme and scheme.lower() in _SCHEMES:
        return span
    start = match.start() - 1
    quoted = bool(match.group("open")) or (
        start > 0 and match.string[start - 1] in _QUOTES and not match.group("close")
    )
    if scheme:
        return span if SYMBOL.search(credential) and len(credential) >= 8 else []
    if quoted:
        return span
    return span if len(credential) >= 16 and any(c.isdigit() for c in credential) else []


# scheme://user:PASSWORD@host, scheme://TOKEN@host and //user:PASSWORD@host; the password may itself contain '@'.
_URL_USERINFO = re.compile(
    r"//(?<![^\s\"'(=:]//)(?:[^\s:/@?#\"'<>]*:(?P<password>[^\s/?#\"'<>]+)|(?P<token>[^\s:/@?#\"'<>]{12,}))@"
)


def _userinfo(match: re.Match[str], keys: KeySpans) -> list[Span]:
    if match.group("password") is not None:
        return [] if is_placeholder(match.group("password")) else [match.span("password")]
    token = match.group("token")
    has_digit = any(c.isdigit() for c in token)
    return [match.span("token")] if (has_digit or len(token) >= 16) and not is_placeholder(token) else []


# ?access_token=, &api_key=, &key=, &sig=, #access_token=, client%5Fsecret=; the value only.
_QUERY_WORD = r"(?:[A-Za-z0-9]++(?:[_.-]|%(?:25)?5[Ff]))*+"
_QUERY_PARAMS = tuple(
    re.compile(
        re.escape(lead)
        + "(?:"
        + _QUERY_WORD
        + r"(?i:token|secret|password|passwd|pwd|signature|sig|credential|auth|apikey)"
        r"|(?i:(?:api|access|secret|private|client|subscription)(?:[_.-]|%(?:25)?5[Ff])?)?(?i:key)"
        r"|(?P<code>code))=(?P<secret>[^&#;\s\"'`<>)]+)"
    )
    for lead in "?&#"
)


def _query_parameter(match: re.Match[str], keys: KeySpans) -> list[Span]:
    value = match.group("secret")
    if match.group("code") is not None and not (len(value) >= 8 and any(c.isdigit() for c in value)):
        return []  # ?code= is an OAuth code only when it looks like one, not ?code=python
    return [] if is_placeholder(value) else [match.span("secret")]


# .netrc: machine host login user password secret (one line, or one entry per line)
_NETRC = re.compile(r"password(?<![\w-]password)[ \t]+(?P<secret>[^\s]+)")
_NETRC_CONTEXT = re.compile(r"\b(?:login|machine)[ \t]+\S+")
# Cookie: a=1; b=2 / Set-Cookie: sid=...; Path=/ / curl --cookie "a=1"
# A cookie list as RFC 6265 spells it (no whitespace, quotes, commas or semicolons inside a value).
_COOKIE_PAIRS = r"[ \t]*(?P<pairs>[^\s;=\"',:]+=[^\s;\"',]*(?:;[ \t]*[^\s;=\"',:]+(?:=[^\s;\"',]*)?)*)"
_COOKIES = (
    re.compile(r"ookie(?<=[Cc]ookie)[ \t]*:" + _COOKIE_PAIRS),
    re.compile(r"--cookie[ \t=]+[\"']?" + _COOKIE_PAIRS),
)
_COOKIE_PAIR = re.compile(r"(?:^|;)[ \t]*(?P<name>[^=;\s]+)=(?P<value>[^;\s]*)")
_COOKIE_ATTRIBUTES = frozenset(
    "path domain expires max-age samesite secure httponly priority partitioned version comment".split()
)
# auth=("user", "password"), HTTPBasicAuth("user", "password")
_AUTH_PAIR = re.compile(
    r"uth(?<=[Aa]uth)(?:[ \t]*=[ \t]*\(|\()[ \t]*(?P<q>[\"'])[^\"'\r\n]*(?P=q)[ \t]*,[ \t]*"
    r"(?P<q2>[\"'])(?P<secret>[^\"'\r\n]+)(?P=q2)"
)


def _netrc(match: re.Match[str], keys: KeySpans) -> list[Span]:
    text, start = match.string, match.start()
    line = _line_start(text, start)
    if _NETRC_CONTEXT.search(text, line, start):
        return [match.span("secret")]
    end = text.find("\n", start)
    whole_line = text[line : len(text) if end < 0 else end].split()
    nearby = text[max(0, line - 200) : line]
    return [match.span("secret")] if len(whole_line) == 2 and _NETRC_CONTEXT.search(nearby) else []


def _cookie(match: re.Match[str], keys: KeySpans) -> list[Span]:
    base, spans = match.start("pairs"), []
    for pair in _COOKIE_PAIR.finditer(match.group("pairs")):
        if pair.group("name").lower() not in _COOKIE_ATTRIBUTES and pair.group("value"):
            spans.append((base + pair.start("value"), base + pair.end("value")))
    return spans


def _whole(group: str) -> Callable[[re.Match[str], KeySpans], list[Span]]:
    def spans(match: re.Match[str], keys: KeySpans) -> list[Span]:
        value = match.group(group)
        return [] if is_placeholder(value) else [match.span(group)]

    return spans


FIELD_RULES: tuple[FieldRule, ...] = (
    (_ASSIGNMENT, _assignment),
    (_AUTHORIZATION, _authorization),
    (_BEARER, _whole("credential")),
    (_URL_USERINFO, _userinfo),
    *((pattern, _query_parameter) for pattern in _QUERY_PARAMS),
    (_NETRC, _netrc),
    *((pattern, _cookie) for pattern in _COOKIES),
    (_AUTH_PAIR, _whole("secret")),
)
