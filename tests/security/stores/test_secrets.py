"""Secrets never leave (THREATS.md): no answer or log line shows a credential, and no setting that decides where
the server's keys, files or traffic go can be changed over HTTP.

The attacker holds a read token and a write token of a real `tfrobot serve` (`conftest.target`) and tries
every listing, every action of every robot (each with both tokens, an empty body and one with every
required parameter), the chat endpoint, and every setting of every provider the LLM registry knows.
"""

from __future__ import annotations

from typing import Any

import pytest

from tfrobot.brain.chain.llms import providers
from tfrobotserver.robot.factory.brain.llm_writable import WRITABLE

from .conftest import SECRETS, RecordingEndpoint, Target, action_url, every_action, leaked, sample_params

pytestmark = pytest.mark.asyncio(loop_scope="module")

ROUTING = frozenset({
    "url", "urls", "host", "headers", "header", "proxy", "proxies", "client", "path", "paths", "root", "roots",
    "endpoint", "timeout", "retries", "key", "token", "secret", "query", "http",
})  # fmt: skip
"""Words of setting names that say they decide where requests go, what they carry or how long they hold a
connection (`base_url`, `media_roots`, `http_client`, `max_retries` …)."""
TRANSPORT_EXTRAS = ("extra_headers", "extra_query", "extra_body", "timeout", "http_options", "base_url", "api_key")
"""SDK call options that route or decorate a request (in `extra_params`, passed to the SDK's create call)."""


async def test_no_listing_action_error_or_log_line_shows_a_credential(target: Target) -> None:
    """Regression: a read token listing `GET …/components` got `memory_url` with its password, and the dry
    run showed the request's `extra_headers`; the start-up line printed the server's DSN with its password."""
    answers: list[tuple[str, str]] = []
    async with target.client(target.server.read) as reader, target.client() as writer:
        for path in ("/api/robots", "/openapi.json"):
            answers.append((path, (await reader.get(path)).text))
        for robot in ("demo", "vault"):
            components = await reader.get(f"/api/robots/{robot}/components")
            answers.append((f"{robot} components", components.text))
            for component in components.json():
                listing = f"/api/robots/{robot}/components/{component['name']}/actions"
                answers.append((listing, (await reader.get(listing)).text))
        for robot, component, name, info in await every_action(target):
            url = action_url(robot, component, name)
            for client in (reader, writer):
                for params in ({}, sample_params(info["paramsSchema"])):
                    response = await client.post(url, json=params)
                    answers.append((f"{url} {params}", response.text + str(response.headers)))
        for body in ({"message": "hi", "dryRun": True}, {"message": "hi"}):
            answers.append((f"vault chat {body}", (await writer.post("/api/robots/vault/chat", json=body)).text))
        refused = await writer.post(action_url("vault", "llm", "aset_llm"), json={"params": {"temperature": "hot"}})
        answers.append(("aset_llm echoing the file's settings", refused.text))
        assert refused.status_code == 422, refused.text
    shown = {where: names for where, text in answers if (names := leaked(text))}
    assert shown == {}, shown
    log = target.log_text()
    assert "data: " in log
    assert leaked(log) == [], [line for line in log.splitlines() if leaked(line)]
    print(f"\nsecrets ({target.store}): {len(answers)} answers (listings, every action x 2 tokens x 2 bodies, chat) "
          f"and {len(log.splitlines())} log lines searched for {len(SECRETS)} credentials: none shown")  # fmt: skip


async def test_no_provider_setting_that_routes_keys_files_or_traffic_is_writable(target: Target) -> None:
    """Regression: a write token set OpenAI's `base_url` to its own URL (or `media_roots` to `/`) and the server
    sent its key, and every later turn, there. Every setting of every registered provider is tried."""
    attacker = RecordingEndpoint()
    await attacker.start()
    evil = f"http://127.0.0.1:{attacker.port}/v1"
    url = action_url("vault", "llm", "aset_llm")
    tried = 0
    try:
        async with target.client() as writer:
            for provider, cls in sorted(providers().items()):
                for name, info in cls.model_fields.items():
                    writable = WRITABLE.get(name) is True
                    words = set(name.split("_"))
                    routing = bool(words & ROUTING) or "Path" in str(info.annotation) or info.exclude is True
                    assert not (writable and routing), f"{provider}.{name} is writable but looks like routing"
                    if writable or name == "model" or isinstance(WRITABLE.get(name), dict):
                        continue  # the model is aset_llm's own parameter; extra_params is tried key by key below
                    value: Any = ["/"] if "Path" in str(info.annotation) else evil
                    tried += await _refused(
                        writer, url, {"provider": provider, "params": {name: value}}, f"params.{name}"
                    )
                for extra in TRANSPORT_EXTRAS:
                    params = {"extra_params": {extra: {"Authorization": "Bearer x", "base_url": evil}}}
                    tried += await _refused(
                        writer, url, {"provider": provider, "params": params}, "params.extra_params"
                    )
                config = {"extra_params": {"config": {"http_options": {"base_url": evil}}}}
                tried += await _refused(writer, url, {"provider": provider, "params": config}, "params.extra_params")
            base_url = await _refused(writer, url, {"params": {"base_url": evil}}, "params.base_url")
            assert base_url == 1
            reply = await writer.post(action_url("vault", "llm", "acall"), json={"message": "hi"})
            assert reply.status_code == 200, reply.text
            components = (await writer.get("/api/robots/vault/components")).json()
        llm = next(c["config"] for c in components if c["name"] == "llm")
        assert llm["params"]["base_url"].startswith(f"http://127.0.0.1:{target.openai_endpoint.port}/v1")
        assert attacker.requests == []
    finally:
        await attacker.stop()
    print(f"\nsettings ({target.store}): {tried} changes of {len(providers())} providers' routing settings over HTTP: "
          "all refused (422, naming where to set them); the attacker's endpoint got 0 requests")  # fmt: skip


async def _refused(client: Any, url: str, body: dict[str, Any], path: str) -> int:
    response = await client.post(url, json=body)
    assert response.status_code == 422, (body, response.text)
    error = response.json()["errors"][0]
    assert error["path"].startswith(path), (body, error)
    assert "robot file" in error["message"] or "environment variable" in error["message"], error
    return 1


async def test_a_provider_change_over_http_takes_none_of_the_file_s_endpoint_or_headers(target: Target) -> None:
    """Regression: after `provider: anthropic` over HTTP, the robot file's OpenAI `base_url` (and its headers)
    went along, so the Anthropic key was sent to the OpenAI endpoint."""
    url = action_url("vault", "llm", "aset_llm")
    openai_before = len(target.openai_endpoint.requests)
    async with target.client() as writer:
        moved = await writer.post(url, json={"provider": "anthropic", "model": "claude-sonnet-4-6"})
        assert moved.status_code == 200, moved.text
        assert moved.json()["config"]["params"] == {"temperature": 0.2}
        reply = await writer.post(action_url("vault", "llm", "acall"), json={"message": "hi"})
        assert reply.json()["error"].startswith("InvalidRequestError"), reply.text
        back = await writer.post(url, json={"provider": "openai", "model": "gpt-4o"})
        assert set(back.json()["config"]["params"]) == {"base_url", "max_retries", "timeout", "temperature",
                                                        "extra_params"}  # fmt: skip
    assert len(target.openai_endpoint.requests) == openai_before
    (sent,) = target.anthropic_endpoint.requests
    headers = sent.split(b"\r\n\r\n", 1)[0].decode()
    assert leaked(headers) == ["anthropic key"], headers  # the operator's key to the operator's endpoint, and
    # none of the OpenAI robot file's headers went along
    print(f"\nprovider change ({target.store}): the Anthropic call went to ANTHROPIC_BASE_URL with its own key; "
          "0 requests to the file's OpenAI endpoint, none of its headers carried")  # fmt: skip
