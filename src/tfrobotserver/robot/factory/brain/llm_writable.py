"""Which LLM settings `aset_llm` may change over HTTP; every other one is a deployment setting.

Settings that decide where the server's API key, its files or its users' traffic go are deployment
settings, set in the robot file (`llm.params`) or the server's environment, never over HTTP: the endpoint
(`base_url`), HTTP clients, headers and query parameters sent with every call (`extra_headers`,
`extra_query`, Gemini's `http_options`), `media_roots` (the folders whose files a message may attach),
and the time-outs and retries that decide how long the server holds a connection.

The rule is an allow-list (`WRITABLE`), not a deny-list: a setting is writable only once it has been
reviewed as harmless — sampling, reasoning and the scripted provider's rules — so a parameter that a new
SDK version or a new provider adds stays a deployment setting until someone adds it here. Vendor request
parameters travel in `extra_params`, so the list reaches into it, and into Gemini's `config` inside that.

When the provider changes over HTTP, the deployment settings of the robot file stay with the provider the
file configured: another provider gets none of them (an OpenAI `base_url` is never used with the
Anthropic key). A saved configuration holding deployment settings (saved by an older TFRobot, or set over
HTTP before this rule) has them replaced by the robot file's at start-up, with a warning.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeAlias

from tfrobotserver.actions.errors import ActionInputError

Rules: TypeAlias = "dict[str, bool | Rules]"
"""A setting name → True (writable whatever its value) or the rules of the mapping it holds."""

_SAMPLING = ("top_p", "top_k", "stop", "stop_sequences", "seed", "presence_penalty", "frequency_penalty")
WRITABLE: Rules = {
    "temperature": True,
    "max_tokens": True,
    "reasoning_replay": True,
    "prompt_cache": True,
    "rules": True,
    "fallback": True,
    "extra_params": {
        **dict.fromkeys(_SAMPLING, True),
        "logit_bias": True,
        "reasoning_effort": True,
        "verbosity": True,
        "thinking": True,
        "response_format": True,
        "reasoning": True,
        "text": True,
        "tool_choice": True,
        "parallel_tool_calls": True,
        "config": {
            **dict.fromkeys(_SAMPLING, True),
            "thinking_config": True,
            "candidate_count": True,
            "response_mime_type": True,
            "response_schema": True,
            "safety_settings": True,
        },
    },
}
"""The settings `aset_llm` may change (`LLMComponent.params`); everything else is a deployment setting."""

BASE_URL_ENV = {
    "openai": "OPENAI_BASE_URL",
    "openai-responses": "OPENAI_BASE_URL",
    "anthropic": "ANTHROPIC_BASE_URL",
    "gemini": "GOOGLE_GEMINI_BASE_URL",
    "zhipu": "ZHIPUAI_BASE_URL",
}
"""The environment variable each provider's SDK reads its endpoint from (the error names it)."""


def _split(params: Mapping[str, Any], rules: Rules) -> tuple[dict[str, Any], dict[str, Any]]:
    writable: dict[str, Any] = {}
    deployment: dict[str, Any] = {}
    for key, value in params.items():
        rule = rules.get(key, False)
        if rule is True:
            writable[key] = value
        elif isinstance(rule, dict) and isinstance(value, Mapping):
            inner_writable, inner_deployment = _split(value, rule)
            if inner_writable or not inner_deployment:
                writable[key] = inner_writable
            if inner_deployment:
                deployment[key] = inner_deployment
        else:
            deployment[key] = value
    return writable, deployment


def writable_part(params: Mapping[str, Any]) -> dict[str, Any]:
    """The settings of `params` that HTTP may change."""
    return _split(params, WRITABLE)[0]


def deployment_part(params: Mapping[str, Any]) -> dict[str, Any]:
    """The settings of `params` that only the robot file or the environment may set."""
    return _split(params, WRITABLE)[1]


def merged(first: Mapping[str, Any], second: Mapping[str, Any]) -> dict[str, Any]:
    """`first` and `second` together, mappings under one key merged in depth (`second` wins elsewhere)."""
    out = dict(first)
    for key, value in second.items():
        mine = out.get(key)
        out[key] = merged(mine, value) if isinstance(mine, Mapping) and isinstance(value, Mapping) else value
    return out


def _first_refused(params: Mapping[str, Any], rules: Rules, path: str) -> str | None:
    for key, value in params.items():
        rule = rules.get(key, False)
        if rule is True:
            continue
        if isinstance(rule, dict) and isinstance(value, Mapping):
            found = _first_refused(value, rule, f"{path}.{key}")
            if found is not None:
                return found
            continue
        return f"{path}.{key}"
    return None


def check_writable(provider: str, params: Mapping[str, Any]) -> None:
    """Refuse (422) `params` that set anything but the writable settings, saying where to set it instead."""
    path = _first_refused(params, WRITABLE, "params")
    if path is None:
        return
    name = path.rsplit(".", 1)[1]
    if name == "api_key":
        raise ActionInputError(path, "keys are not configuration; set the provider's environment variable", "***")
    where = f"the robot file (`llm.{path}`)"
    env = BASE_URL_ENV.get(provider) if name == "base_url" else None
    if env is not None:
        where += f" or {env} in the server's environment"
    raise ActionInputError(
        path,
        f"{name} is a deployment setting (it may decide where the server's key, files or traffic go, or it is not "
        f"reviewed as safe to change at run time), not writable over HTTP; set it in {where} and restart. "
        "Writable here: temperature, max_tokens, reasoning_replay, rules, fallback and, in extra_params, "
        "sampling and reasoning settings",
    )
