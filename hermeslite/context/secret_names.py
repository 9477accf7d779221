"""Whether a name (`DB_PASSWORD`, `apiKey`, `x-auth-token`) labels a credential, and how surely.

An assignment is masked only when its name says it holds a secret. Some names
say so plainly (`password`, `client_secret`, `id_token`); others only suggest
it (`token`, `key`), and for those the value must look like a credential too.
"""

from __future__ import annotations

import re
from enum import IntEnum

# Reads a name backwards from its end: the characters names are made of.
_NAME_BACKWARDS = re.compile(r"[A-Za-z0-9_.-]{1,64}")
_NAME_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")  # OPENAI_API_KEY, apiKey, X-Api-Key

# The last word of a name that plainly holds a secret.
_STRONG = frozenset(
    "password passwd passphrase secret secrets credential credentials apikey accesskey secretkey privatekey"
    " accesstoken authtoken apitoken clientsecret pgpassword dbpassword bearer".split()
)
# Words that hold a secret only with a qualifier before them (MYSQL_PWD, but not the shell's PWD).
_QUALIFIED = frozenset("pwd pw pass".split())
# Qualifiers that turn `token` or `key` into a credential's name.
_CREDENTIAL_QUALIFIERS = frozenset(
    "api access secret private client app master encryption signing license service account subscription"
    " admin session consumer deploy ssh webhook auth id refresh bearer oauth personal bot integration"
    " sas storage shared".split()
)
# `token_value`, `secret_data`, `key_material`: the last word only describes what the name before it holds.
_CONTENT_WORDS = frozenset("value data material string".split())


class Strength(IntEnum):
    NONE = 0  # not a credential's name
    KEYLIKE = 1  # `key`, `cache_key`: a credential only if the value looks random
    WEAK = 2  # `token`, `auth`: any quoted literal; a bare word needs a digit or a symbol
    STRONG = 3  # `password`, `api_key`, `SECRET_TOKEN`


def name_before(text: str, end: int) -> tuple[str, int]:
    """The name that ends at `end`, and where it starts."""
    found = _NAME_BACKWARDS.match(text[max(0, end - 64) : end][::-1])
    if found is None:
        return "", end
    return found.group()[::-1], end - found.end()


def strength(name: str) -> Strength:
    """How surely `name` labels a credential."""
    words = [w.lower() for w in _NAME_WORD.findall(name)]
    while len(words) > 1 and words[-1].isdigit():  # access_token2, key_1
        words.pop()
    if words[-2:] == ["key", "material"]:
        return Strength.STRONG
    if len(words) > 1 and words[-1] in _CONTENT_WORDS:
        words.pop()
    if not words or words[-1].isdigit():
        return Strength.NONE
    last, before = words[-1], words[-2] if len(words) > 1 else ""
    if last in _STRONG or (last == "auth" and name.isupper()):
        return Strength.STRONG
    if last in _QUALIFIED:
        return Strength.STRONG if before else Strength.NONE
    if last == "token":
        return Strength.STRONG if before in _CREDENTIAL_QUALIFIERS or name.isupper() else Strength.WEAK
    if last == "key":  # ANCHORS_KEY and cache_key name dictionary keys: their values must look random
        return Strength.STRONG if before in _CREDENTIAL_QUALIFIERS or before in _STRONG else Strength.KEYLIKE
    if last == "auth":
        return Strength.WEAK
    return Strength.NONE
