"""Is a model usable at all? Checked before its first request, so a missing key is one line at once.

Without this check a missing OpenAI key reached the user as "server error
(500): Missing credentials ...; try again in a moment" after about 11 s of
retries, and `/model typo/name` was accepted and failed only at the next
message. Two questions are answered locally, without a request:

- Does litellm know the provider? `get_llm_provider` resolves the prefix
  (`openai/`, `ollama/`, ...) or a well-known bare name (`gpt-4o`); an
  unknown one is a FatalError naming the model.
- Is the key there? `model.api_key_env` must name a set variable. Otherwise
  `litellm.validate_environment` lists the provider's usual variables that are
  missing; any missing one is an AuthError that says which to set.

Endpoints that need no key are not asked for one: an OpenAI-compatible
`api_base` (llama.cpp, vLLM, LM Studio: the client sends a placeholder key)
and Ollama, whose default endpoint is local (validate_environment would ask
for OLLAMA_API_BASE). Another provider's `api_base` (a proxy in front of
Anthropic, say) still needs that provider's key: litellm refuses to send the
request without one, and reported that as a rejected key although nothing was sent. Providers that
find credentials outside the environment (AWS profiles and roles for bedrock
and sagemaker, Google application-default credentials for vertex_ai, Azure AD
tokens) are not judged here either: a missing variable proves nothing for
them, and a real 401 is still reported as an AuthError and never retried.
"""

from __future__ import annotations

import os
from types import ModuleType

from .errors import AuthError, FatalError

KEYLESS_PROVIDERS = frozenset({"ollama", "ollama_chat"})
AMBIENT_CREDENTIAL_PROVIDERS = frozenset(
    {"bedrock", "bedrock_converse", "sagemaker", "sagemaker_chat", "vertex_ai", "vertex_ai_beta", "azure", "azure_ai"}
)
PROVIDERS_URL = "https://docs.litellm.ai/docs/providers"


def check_model(
    litellm: ModuleType, name: str, *, api_base: str | None, api_key_env: str | None, has_key: bool = False
) -> None:
    """Raise FatalError for a provider litellm does not know, AuthError for a key that is not set.

    `has_key`: the config holds the key itself (model.api_key), so no variable is needed.
    """
    provider = provider_of(litellm, name, api_base)
    if has_key:
        return
    if api_key_env:
        if not os.environ.get(api_key_env):
            raise AuthError(
                f"model.api_key_env names {api_key_env}, but {api_key_env} is not set; "
                f"export {api_key_env}=<your key> or change model.api_key_env.",
                brief="no API key",
            )
        return
    if keyless_endpoint(provider, api_base) or provider in AMBIENT_CREDENTIAL_PROVIDERS:
        return
    missing = [
        str(key) for key in litellm.validate_environment(model=name, api_base=api_base).get("missing_keys") or []
    ]
    if not missing:
        return
    if len(missing) == 1:
        unset, todo = f"{missing[0]} is not set", f"export {missing[0]}=<your key>"
    else:
        unset, todo = f"none of {', '.join(missing)} is set", "export the one your account uses"
    raise AuthError(
        f"No API key for {name}: {unset}; {todo}, or name the variable that holds the key in model.api_key_env.",
        brief="no API key",
    )


def keyless_endpoint(provider: str, api_base: str | None) -> bool:
    """Whether `provider` at `api_base` is reached without a key: Ollama, or an OpenAI-compatible server."""
    return provider in KEYLESS_PROVIDERS or bool(api_base and provider == "openai")


def provider_of(litellm: ModuleType, name: str, api_base: str | None) -> str:
    """litellm's provider for `name` (an api_base can identify it too); FatalError when it has none."""
    try:
        _, provider, _, _ = litellm.get_llm_provider(model=name, api_base=api_base)
    except Exception:  # litellm.BadRequestError "LLM Provider NOT provided" and lookalikes
        raise FatalError(
            f"litellm does not know the provider of the model {name!r}: write it as "
            "provider/model, e.g. openai/gpt-4o, anthropic/claude-sonnet-4-5, ollama/llama3.1, "
            f"or openai/<name> with model.api_base (providers: {PROVIDERS_URL}).",
            brief="unknown provider",
        ) from None
    return str(provider)
