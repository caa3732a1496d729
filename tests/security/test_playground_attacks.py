"""R15 (issue 15, outsider review): an attacker and a careless client against the playground's actions and the
failed-call steps, on a real `tfrobot serve` over real HTTP.

The server hosts a scripted robot (`play`) whose rules ask for a tool that leaves a mark on disk when it runs
(`r15_tools:mark`), a second scripted robot (`other`) for cross-robot requests, and one robot per provider
whose `base_url` is a loopback fake (`tests.fake_provider`) that, for a message marked `[leak]`, refuses the
key the way some gateways do: its error message quotes the key it got. Two bearer tokens: a reader and a
writer (the writer's secret is the local secret `tests.robot_servers` probes with).
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import httpx
import pytest

from tests.fake_provider import (
    KEY_ENV,
    MODEL,
    PROVIDERS,
    _error_body,
    _Handler,
    base_url,
    fake_provider,
    robot_file,
    with_fault,
)
from tests.robot_servers import LOCAL_TOKEN, serve_robots

READER = "r15-reader-token-0123456789"
KEYS = {provider: f"sk-r15-{provider}-canary-0123456789abcdef" for provider in PROVIDERS}
"""The provider keys the server holds (environment): none may ever appear in an answer or a log line."""
LEAK = "[leak]"

_TOOLS = '''"""A tool that must never run from the playground: it leaves a mark when it does."""

from pathlib import Path

from tfrobot.drive import tool

MARK = Path(__file__).with_name("ran.txt")


@tool
def mark(target: str) -> str:
    """Mark the target."""
    MARK.write_text(target)
    return f"marked {target}"
'''

_PLAY = (
    "name: {name}\ndescription: a playground target\nllm:\n  provider: scripted\n  params:\n    rules:\n"
    "      - {{user: mark, tool_calls: [{{name: mark, arguments: {{target: disk}}}}]}}\n"
    '      - {{after: "tool:*", reply: "Done: {{results}}"}}\n'
    '      - {{reply: "Echo: {{user}}"}}\n'
    "tools: [r15_tools:mark]\n"
    'prompt: {{template: "You are {{{{ robot }}}}.", defaults: {{robot: Play}}}}\n'
)


GATEWAY_HEADERS = {
    "Ocp-Apim-Subscription-Key": "apim-r15-canary-0123456789abcdef",
    "X-Portkey-Virtual-Key": "portkey-r15-canary-0123456789abcdef",
    "X-Api-Key": "xapikey-r15-canary-0123456789abcdef",
}
"""Credential headers an OpenAI-compatible gateway takes (Azure API Management, Portkey, a generic one), as a
robot file sets them (`extra_params.extra_headers`, a deployment setting)."""
_GATEWAY = (
    "name: gateway\nllm:\n  provider: openai\n  model: gpt-4o\n  params:\n    base_url: {url}\n    max_retries: 0\n"
    "    extra_params:\n      extra_headers: " + json.dumps(GATEWAY_HEADERS) + "\ntools: [weather]\n"
)


class _Quoting(_Handler):
    """The fake provider, recording each request body, and answering a `[leak]` request with a 401 whose
    message quotes the key it was sent (as an OpenAI-compatible gateway may)."""

    received: ClassVar[list[tuple[str, dict[str, Any]]]] = []

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length", "0")))
        body = json.loads(raw or b"{}")
        provider = self.path.split("/", 2)[1]
        type(self).received.append((provider, body))
        if LEAK in json.dumps(body) and _newest_marked(body):
            key = self._sent_key()
            error = _error_body(provider, 401)
            error["error"]["message"] = f"Incorrect API key provided: {key}. Check your key."
            self._send(401, json.dumps(error).encode(), "application/json")
            return
        self.rfile = io.BytesIO(raw)
        super().do_POST()

    def _sent_key(self) -> str:
        auth = self.headers.get("authorization", "")
        key = auth.removeprefix("Bearer ").strip() or self.headers.get("x-api-key", "")
        key = key or self.headers.get("x-goog-api-key", "")
        if not key:
            match = re.search(r"[?&]key=([^&]+)", self.path)
            key = match[1] if match else "?"
        return key


def _newest_marked(body: dict[str, Any]) -> bool:
    """Whether the newest `[fault:…]`/`[leak]` marker of the request is `[leak]` (later turns send `[fault:ok]`)."""
    text = json.dumps(body)
    return text.rfind(LEAK) > text.rfind("[fault:")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The server's URL and its configuration directory (where the tool's mark would appear)."""
    config = tmp_path_factory.mktemp("r15-play")
    (config / "r15_tools.py").write_text(_TOOLS)
    with fake_provider(_Quoting) as root:
        robots = {"play.yaml": _PLAY.format(name="play"), "other.yaml": _PLAY.format(name="other")}
        robots["gateway.yaml"] = _GATEWAY.replace("{url}", base_url(root, "openai"))
        for provider in PROVIDERS:
            robots[f"leak_{provider}.yaml"] = robot_file(f"leak_{provider}", provider, base_url(root, provider))
        tokens = (
            f'[[tokens]]\nname = "writer"\nscopes = ["read", "write"]\nsecret = "{LOCAL_TOKEN}"\n'
            f'[[tokens]]\nname = "reader"\nscopes = ["read"]\nsecret = "{READER}"\n'
        )
        env: dict[str, str | None] = {KEY_ENV[p]: KEYS[p] for p in PROVIDERS}
        with serve_robots(config, robots, env, settings=tokens) as url:
            yield url, config


def _client(url: str, token: str | None = LOCAL_TOKEN) -> httpx.Client:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.Client(base_url=url, headers=headers, timeout=60)


def _act(robot: str, component: str, action: str) -> str:
    return f"/api/robots/{robot}/components/{component}/actions/{action}"


PLAY = _act("play", "llm", "aplay")
USER = {"role": "user", "content": "mark the disk"}


def _no_key_in(text: str, where: str) -> None:
    for provider, key in KEYS.items():
        assert key not in text, f"{where}: {provider}'s API key is shown: {text[:2000]}"


# --- 1. the playground: who may send, what runs, what is stored ------------------------------------------


def test_aplay_needs_a_write_token(served: tuple[str, Path]) -> None:
    """Attack: send a playground request with no token and with a read token."""
    url, _ = served
    body = {"messages": [USER], "offer_tools": True}
    with _client(url, None) as anonymous, _client(url, READER) as reader:
        assert anonymous.post(PLAY, json=body).status_code == 401
        assert reader.post(PLAY, json=body).status_code == 403
        assert reader.post(_act("play", "prompt", "arender_draft"), json={"template": "x"}).status_code in (200, 403)


def test_aplay_refuses_a_cross_site_simple_request(served: tuple[str, Path]) -> None:
    """Attack: what a foreign page can send without a preflight (text/plain, a form), and a foreign Origin."""
    url, _ = served
    body = json.dumps({"messages": [USER]})
    with _client(url) as client:
        plain = client.post(PLAY, content=body, headers={"Content-Type": "text/plain"})
        form = client.post(PLAY, content=f"x={body}", headers={"Content-Type": "application/x-www-form-urlencoded"})
        foreign = client.post(
            PLAY, content=body, headers={"Content-Type": "application/json", "Origin": "http://evil.test"}
        )
    assert plain.status_code == 415, plain.text
    assert form.status_code == 415, form.text
    assert foreign.status_code == 403, foreign.text


def test_offered_tools_are_never_run(served: tuple[str, Path]) -> None:
    """Attack: the model answers the playground with a call of a tool that has side effects; offering the
    robot's tools (asked, or implied by tool messages) must not run it."""
    url, config = served
    sends = [
        {"messages": [USER], "offer_tools": True},
        {
            "messages": [
                USER,
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [{"id": "c1", "name": "mark", "arguments": '{"target": "a"}'}],
                },
                {"role": "tool", "content": "marked a", "tool_call_id": "c1", "name": "mark"},
                {"role": "user", "content": "mark the disk again"},
            ]
        },
    ]
    with _client(url) as client:
        for body in sends:
            answer = client.post(PLAY, json=body)
            assert answer.status_code == 200, answer.text
            assert answer.json()["message"]["tool_calls"], answer.text  # the model asked for the tool …
    assert not (config / "ran.txt").exists(), "the playground ran the tool the model called"  # … and it did not run


def _conversations(client: httpx.Client, robot: str) -> int:
    page = client.post(_act(robot, "conversations", "aget_conversations"), json={"page_size": 100}).json()
    return len(page["items"])


BAD_BODIES: dict[str, dict[str, Any]] = {
    "nul in content": {"messages": [{"role": "user", "content": "a\u0000b"}]},
    "nul in a tool call id": {
        "messages": [
            USER,
            {"role": "assistant", "content": "", "tool_calls": [{"id": "c\u00001", "name": "mark", "arguments": "{}"}]},
            {"role": "tool", "content": "r", "tool_call_id": "c\u00001"},
        ]
    },
    "nul in model": {"messages": [USER], "model": "m\u0000"},
    "unknown role": {"messages": [{"role": "developer", "content": "x"}]},
    "no messages": {"messages": []},
    "last is assistant": {"messages": [USER, {"role": "assistant", "content": "x"}]},
    "only a tool result": {"messages": [{"role": "tool", "content": "r", "tool_call_id": "c1"}]},
    "tool result without id": {"messages": [USER, {"role": "tool", "content": "r"}]},
    "tool result answering no call": {"messages": [USER, {"role": "tool", "content": "r", "tool_call_id": "nope"}]},
    "call with empty id": {
        "messages": [
            USER,
            {"role": "assistant", "content": "", "tool_calls": [{"id": "", "name": "mark", "arguments": "{}"}]},
            {"role": "tool", "content": "r", "tool_call_id": ""},
        ]
    },
    "arguments not json": {
        "messages": [
            USER,
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": "c1", "name": "mark", "arguments": "{not json"}],
            },
            {"role": "tool", "content": "r", "tool_call_id": "c1"},
        ]
    },
    "arguments a json list": {
        "messages": [
            USER,
            {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "name": "mark", "arguments": "[1, 2]"}]},
            {"role": "tool", "content": "r", "tool_call_id": "c1"},
        ]
    },
    "content not a string": {"messages": [{"role": "user", "content": {"a": 1}}]},
    "tool_calls not a list": {"messages": [USER, {"role": "assistant", "content": "", "tool_calls": "x"}, USER]},
    "params not writable": {"messages": [USER], "params": {"base_url": "http://127.0.0.1:9/steal"}},
    "params api_key": {"messages": [USER], "params": {"api_key": "sk-mine"}},
    "unknown provider": {"messages": [USER], "provider": "nope"},
    "nan temperature": {"messages": [USER], "params": {"temperature": float("nan")}},
}
"""Bodies a client may send by mistake or on purpose; every one is a 4xx naming the field (or a 200 for what is
a fine request), never a 5xx."""


@pytest.mark.parametrize("robot", ["play", *(f"leak_{p}" for p in PROVIDERS)])
@pytest.mark.parametrize("case", list(BAD_BODIES))
def test_a_bad_playground_body_is_a_4xx_and_stores_nothing(served: tuple[str, Path], case: str, robot: str) -> None:
    """Attack: malformed, mismatched and hostile playground messages, to the scripted LLM and through each
    provider's adapter (the fake answers what gets through)."""
    url, _ = served
    with _client(url) as client:
        before = _conversations(client, robot)
        raw = json.dumps(BAD_BODIES[case], allow_nan=True)
        answer = client.post(_act(robot, "llm", "aplay"), content=raw, headers={"Content-Type": "application/json"})
        assert answer.status_code < 500, f"{case}: {answer.status_code} {answer.text[:500]}"
        if answer.status_code != 200:
            assert answer.json().get("errors") or answer.json().get("message"), answer.text
        assert _conversations(client, robot) == before, f"{case}: the playground stored a conversation"


def test_deep_nesting_and_lone_surrogates_are_4xx(served: tuple[str, Path]) -> None:
    """Attack: a body nested 100,000 deep, and a lone surrogate in a message (valid JSON, not valid text)."""
    url, _ = served
    deep = '{"messages": [{"role": "user", "content": "x"}], "params": ' + "[" * 100_000 + "]" * 100_000 + "}"
    lone = '{"messages": [{"role": "user", "content": "a\\ud800b"}]}'
    lone_id = (
        '{"messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": "", "tool_calls": '
        '[{"id": "\\udc00", "name": "mark"}]}, {"role": "tool", "content": "r", "tool_call_id": "\\udc00"}]}'
    )
    with _client(url) as client:
        for name, raw in {"deep": deep, "lone surrogate": lone, "lone surrogate id": lone_id}.items():
            answer = client.post(PLAY, content=raw, headers={"Content-Type": "application/json"})
            assert 400 <= answer.status_code < 500, f"{name}: {answer.status_code} {answer.text[:300]}"


def test_a_huge_playground_body_is_a_413(served: tuple[str, Path]) -> None:
    """Attack: a 20 MiB message (over the 16 MiB default body limit)."""
    url, _ = served
    with _client(url) as client:
        answer = client.post(PLAY, json={"messages": [{"role": "user", "content": "x" * (20 << 20)}]})
    assert answer.status_code == 413, answer.text[:300]


def test_many_tool_messages_are_answered(served: tuple[str, Path]) -> None:
    """Attack: 5,000 tool calls and results in one draft (under the body limit): answered, not a 5xx."""
    url, _ = served
    calls = [{"id": f"c{i}", "name": "mark", "arguments": "{}"} for i in range(5000)]
    results = [{"role": "tool", "content": "r", "tool_call_id": f"c{i}"} for i in range(5000)]
    body = {"messages": [USER, {"role": "assistant", "content": "", "tool_calls": calls}, *results]}
    with _client(url) as client:
        answer = client.post(PLAY, json=body)
    assert answer.status_code < 500, answer.text[:300]


def test_astep_request_of_another_robots_conversation_is_a_404(served: tuple[str, Path]) -> None:
    """Attack: a step of robot `play`'s conversation asked for through robot `other`."""
    url, _ = served
    with _client(url) as client:
        chat = client.post("/api/robots/play/chat", json={"message": "hello"}).json()
        cid = chat["conversationId"]
        rows = client.post(_act("play", "conversations", "aget_messages"), json={"conversation_id": cid}).json()
        msg_id = next(r["msgId"] for r in rows["items"] if r["role"] == "user")
        own = client.post(_act("play", "llm", "astep_request"), json={"conversation_id": cid, "msg_id": msg_id})
        assert own.status_code == 200, own.text
        cross = client.post(_act("other", "llm", "astep_request"), json={"conversation_id": cid, "msg_id": msg_id})
        assert cross.status_code == 404, cross.text
        assert "hello" not in cross.text
        for step in (-1, 10**6, 2**63):
            far = client.post(
                _act("play", "llm", "astep_request"), json={"conversation_id": cid, "msg_id": msg_id, "step": step}
            )
            assert 400 <= far.status_code < 500, f"step {step}: {far.status_code} {far.text[:300]}"
        wrong_msg = client.post(_act("play", "llm", "astep_request"), json={"conversation_id": cid, "msg_id": "x" * 20})
        assert wrong_msg.status_code == 404, wrong_msg.text


# --- 2. failed-call steps: the key a provider quotes, and the next turns ---------------------------------


def _turn(client: httpx.Client, robot: str, message: str, cid: str | None = None) -> httpx.Response:
    body: dict[str, Any] = {"message": message}
    if cid:
        body["conversationId"] = cid
    return client.post(f"/api/robots/{robot}/chat", json=body)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_quoted_key_is_masked_in_the_chat_answer_and_the_stored_failure(
    served: tuple[str, Path], provider: str
) -> None:
    """Attack: the provider's refusal quotes the server's key; the chat error, the stored messages, the step's
    request and the server log must not show it."""
    url, config = served
    robot = f"leak_{provider}"
    with _client(url) as client:
        failed = _turn(client, robot, f"weather in Paris? {LEAK}")
        assert failed.status_code == 424, failed.text
        _no_key_in(failed.text, "the chat's error")
        cid = failed.json()["conversationId"]
        rows = client.post(_act(robot, "conversations", "aget_messages"), json={"conversation_id": cid})
        _no_key_in(rows.text, "aget_messages")
        msg_id = next(r["msgId"] for r in rows.json()["items"] if r["role"] == "user")
        step = client.post(_act(robot, "llm", "astep_request"), json={"conversation_id": cid, "msg_id": msg_id})
        _no_key_in(step.text, "astep_request")
    _no_key_in((config / "serve.log").read_text(errors="replace"), "the server log")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_quoted_key_is_masked_in_the_playground_and_acall(served: tuple[str, Path], provider: str) -> None:
    """Attack: the same refusal met by the playground and by `acall` (results, not HTTP errors)."""
    url, _ = served
    robot = f"leak_{provider}"
    with _client(url) as client:
        play = client.post(_act(robot, "llm", "aplay"), json={"messages": [{"role": "user", "content": f"hi {LEAK}"}]})
        assert play.status_code == 200, play.text
        assert play.json()["error"], play.text
        _no_key_in(play.text, "aplay")
        call = client.post(_act(robot, "llm", "acall"), json={"message": f"hi {LEAK}"})
        assert call.status_code == 200, call.text
        assert call.json()["error"], call.text
        _no_key_in(call.text, "acall")


def _empty_assistant(provider: str, body: dict[str, Any]) -> list[Any]:
    """The assistant records of a provider request that carry nothing (what a failed call's record would be
    if it were sent)."""
    if provider == "anthropic":
        return [m for m in body.get("messages", []) if m.get("role") == "assistant" and not m.get("content")]
    if provider == "gemini":
        return [
            c for c in body.get("contents", []) if c.get("role") == "model" and not any(p for p in c.get("parts", []))
        ]
    return [
        m
        for m in body.get("messages", [])
        if m.get("role") == "assistant" and not m.get("content") and not m.get("tool_calls")
    ]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_the_turn_after_a_failed_call_sends_a_well_formed_request(served: tuple[str, Path], provider: str) -> None:
    """Attack: a conversation whose first turn's call was refused (stored as a `call_failed` step) goes on;
    the next turn's requests must carry no empty assistant record (providers refuse one), and the step's
    re-rendered request neither."""
    url, _ = served
    robot = f"leak_{provider}"
    with _client(url) as client:
        failed = _turn(client, robot, f"weather in Paris? {LEAK}")
        cid = failed.json()["conversationId"]
        rows = client.post(_act(robot, "conversations", "aget_messages"), json={"conversation_id": cid}).json()
        trace = next(r["trace"] for r in rows["items"] if r["role"] == "user")
        assert [r.get("finish_reason") for r in trace] == ["call_failed"], trace
        start = len(_Quoting.received)
        ok = _turn(client, robot, with_fault("and in Tokyo?", "ok"), cid)
        assert ok.status_code == 200, ok.text
        sent = [body for p, body in _Quoting.received[start:] if p == provider]
        assert sent, "the next turn sent nothing"
        for body in sent:
            assert not _empty_assistant(provider, body), json.dumps(body)[:2000]
        msg_id = next(r["msgId"] for r in rows["items"] if r["role"] == "user")
        step = client.post(
            _act(robot, "llm", "astep_request"), json={"conversation_id": cid, "msg_id": msg_id, "step": 0}
        )
        assert step.status_code == 200, step.text
        assert not _empty_assistant(provider, step.json()["request"]), step.text


def _unanswered_or_orphans(provider: str, body: dict[str, Any]) -> list[str]:
    """Tool results of a provider request that answer no call made before them (providers refuse those)."""
    problems: list[str] = []
    made: set[str] = set()
    if provider == "anthropic":
        for m in body.get("messages", []):
            for block in m.get("content") if isinstance(m.get("content"), list) else []:
                if block.get("type") == "tool_use":
                    made.add(block["id"])
                if block.get("type") == "tool_result" and block.get("tool_use_id") not in made:
                    problems.append(f"tool_result {block.get('tool_use_id')} answers no tool_use")
        return problems
    if provider == "gemini":
        calls = 0
        for c in body.get("contents", []):
            for part in c.get("parts", []):
                calls += "functionCall" in part
                if "functionResponse" in part:
                    calls -= 1
                    if calls < 0:
                        problems.append("functionResponse answering no functionCall")
        return problems
    for m in body.get("messages", []):
        for call in m.get("tool_calls") or []:
            made.add(call["id"])
        if m.get("role") == "tool" and m.get("tool_call_id") not in made:
            problems.append(f"tool message {m.get('tool_call_id')} answers no call")
    return problems


@pytest.mark.parametrize("provider", PROVIDERS)
def test_the_turn_after_a_call_failed_after_a_tool_ran_is_well_formed(served: tuple[str, Path], provider: str) -> None:
    """Attack: the call after a tool result is refused (the trace: call, result, `call_failed`); the next turn
    of that conversation must send no empty assistant record and no orphaned tool result."""
    url, _ = served
    robot = f"leak_{provider}"
    with _client(url) as client:
        failed = _turn(client, robot, with_fault("weather in Paris?", "401-late"))
        assert failed.status_code == 424, failed.text
        cid = failed.json()["conversationId"]
        start = len(_Quoting.received)
        ok = _turn(client, robot, with_fault("and in Tokyo?", "ok"), cid)
        assert ok.status_code == 200, ok.text
        sent = [body for p, body in _Quoting.received[start:] if p == provider]
        for body in sent:
            assert not _empty_assistant(provider, body), json.dumps(body)[:2000]
            assert not _unanswered_or_orphans(provider, body), json.dumps(body)[:2000]


def test_offering_tools_stores_nothing(served: tuple[str, Path]) -> None:
    """Attack: the playground's tool offer prepares a turn to read the robot's tools; it must store nothing."""
    url, _ = served
    with _client(url) as client:
        before = _conversations(client, "play")
        for _ in range(3):
            assert client.post(PLAY, json={"messages": [USER], "offer_tools": True}).status_code == 200
        assert _conversations(client, "play") == before


DRAFTS = {
    "globals": "{{ cycler.__init__.__globals__.os.environ }}",
    "lipsum": "{{ lipsum.__globals__['os'].environ }}",
    "class walk": "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "config": "{{ config }}{{ self }}{{ request }}",
    "huge output": "{{ 'x' * 1000000000 }}",
    "long loop": "{% for i in range(100000000) %}{{ i }}{% endfor %}",
    "nested loops": "{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}",
    "recursion": "{% macro m(n) %}{{ m(n) }}{% endmacro %}{{ m(1) }}",
    "pow": "{{ 10 ** 10 ** 10 }}",
    "nul": "a\u0000b",
}
"""Draft templates an attacker sends to `arender_draft`: a sandbox escape, unbounded work, a NUL."""


@pytest.mark.parametrize("case", list(DRAFTS))
def test_a_hostile_draft_template_is_bounded_and_shows_no_secret(served: tuple[str, Path], case: str) -> None:
    """Attack: draft templates that try to reach the process's environment or to run without bound."""
    url, _ = served
    with _client(url, READER) as reader:
        answer = reader.post(_act("play", "prompt", "arender_draft"), json={"template": DRAFTS[case]})
    assert answer.status_code < 500, f"{case}: {answer.status_code} {answer.text[:300]}"
    assert answer.status_code in (200, 403, 422), f"{case}: {answer.status_code} {answer.text[:300]}"
    _no_key_in(answer.text, f"arender_draft {case}")
    assert LOCAL_TOKEN not in answer.text
    assert READER not in answer.text


def _no_gateway_secret_in(text: str, where: str) -> list[str]:
    return [f"{where}: {name}" for name, value in GATEWAY_HEADERS.items() if value in text]


def test_a_gateway_credential_header_is_masked_in_every_request_view(served: tuple[str, Path]) -> None:
    """Attack: a read-token holder opens the Request view of a step, the dry run and the configuration of a robot
    that reaches its provider through a gateway; a write-token holder sends the step to the playground."""
    url, _ = served
    leaks: list[str] = []
    with _client(url) as writer, _client(url, READER) as reader:
        turn = _turn(writer, "gateway", with_fault("weather in Paris?", "ok"))
        assert turn.status_code == 200, turn.text
        cid = turn.json()["conversationId"]
        rows = reader.post(_act("gateway", "conversations", "aget_messages"), json={"conversation_id": cid}).json()
        msg_id = next(r["msgId"] for r in rows["items"] if r["role"] == "user")
        step = reader.post(_act("gateway", "llm", "astep_request"), json={"conversation_id": cid, "msg_id": msg_id})
        assert step.status_code == 200, step.text
        leaks += _no_gateway_secret_in(step.text, "astep_request")
        dry = reader.post(_act("gateway", "llm", "adry_run"), json={"message": "hi"})
        leaks += _no_gateway_secret_in(dry.text, "adry_run")
        leaks += _no_gateway_secret_in(reader.get("/api/robots/gateway/components").text, "GET components")
        play = writer.post(_act("gateway", "llm", "aplay"), json={"messages": [USER]})
        leaks += _no_gateway_secret_in(play.text, "aplay")
    assert not leaks, f"gateway credentials shown: {leaks}"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_quoted_key_is_masked_in_the_stream(served: tuple[str, Path], provider: str) -> None:
    """Attack: the same refusal met by a streaming turn (the SSE `error` event and the stored failed turn)."""
    url, _ = served
    robot = f"leak_{provider}"
    with _client(url) as client:
        answer = client.post(
            f"/api/robots/{robot}/chat",
            json={"message": f"weather in Paris? {LEAK}"},
            headers={"Accept": "text/event-stream"},
        )
        _no_key_in(answer.text, "the chat's stream")
        assert "error" in answer.text, answer.text[:1000]
        listed = client.post(_act(robot, "conversations", "aget_conversations"), json={"page_size": 100})
        for item in listed.json()["items"]:
            rows = client.post(
                _act(robot, "conversations", "aget_messages"), json={"conversation_id": item["conversationId"]}
            )
            _no_key_in(rows.text, "aget_messages")


def test_the_mcp_conversation_resource_keeps_each_turns_trace_once(served: tuple[str, Path]) -> None:
    """Trace sent once: `aget_messages` no longer repeats the records inside `message`; the MCP resource (built
    from it) must still carry each turn's steps, once, and its failure."""
    url, _ = served
    headers = {"Accept": "application/json, text/event-stream"}
    with _client(url) as client:
        ok = _turn(client, "leak_openai", with_fault("weather in Paris?", "ok"))
        cid = ok.json()["conversationId"]
        failed = _turn(client, "leak_openai", f"and Tokyo? {LEAK}", cid)
        assert failed.status_code == 424, failed.text
        uri = f"tfrobot://leak_openai/conversations/{cid}"
        call = {"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": uri}}
        answer = client.post("/api/robots/leak_openai/mcp", json=call, headers=headers)
    assert answer.status_code == 200, answer.text
    read = json.loads(answer.json()["result"]["contents"][0]["text"])
    users = [m for m in read["messages"] if m["role"] == "user"]
    assert [len(m["trace"]) for m in users] == [2, 1], users  # weather call + its result; the failed call
    assert all("records" not in m["message"].get("intermediate_trace", {}) for m in users)
    assert users[1]["message"]["intermediate_trace"]["failure"]["kind"] == "auth", users[1]


def test_astep_request_of_a_message_of_another_conversation_is_a_404(served: tuple[str, Path]) -> None:
    """Attack: a turn's message id asked for under another conversation of the same robot."""
    url, _ = served
    with _client(url) as client:
        first = _turn(client, "play", "secret plans").json()["conversationId"]
        second = _turn(client, "play", "hello").json()["conversationId"]
        rows = client.post(_act("play", "conversations", "aget_messages"), json={"conversation_id": first}).json()
        msg_id = next(r["msgId"] for r in rows["items"] if r["role"] == "user")
        answer_id = next(r["msgId"] for r in rows["items"] if r["role"] == "assistant")
        crossed = client.post(_act("play", "llm", "astep_request"), json={"conversation_id": second, "msg_id": msg_id})
        assert crossed.status_code == 404, crossed.text
        assert "secret plans" not in crossed.text
        answer = client.post(_act("play", "llm", "astep_request"), json={"conversation_id": first, "msg_id": answer_id})
        assert 400 <= answer.status_code < 500, answer.text


@pytest.mark.parametrize("provider", PROVIDERS)
def test_two_failed_turns_then_one_that_works(served: tuple[str, Path], provider: str) -> None:
    """Attack: two refused turns in a row (two `call_failed` records, two user messages without answers), then
    one that goes through: its requests carry no empty assistant record."""
    url, _ = served
    robot = f"leak_{provider}"
    with _client(url) as client:
        cid = _turn(client, robot, f"one {LEAK}").json()["conversationId"]
        assert _turn(client, robot, f"two {LEAK}", cid).status_code == 424
        start = len(_Quoting.received)
        ok = _turn(client, robot, with_fault("three", "ok"), cid)
        assert ok.status_code == 200, ok.text
        for body in [b for p, b in _Quoting.received[start:] if p == provider]:
            assert not _empty_assistant(provider, body), json.dumps(body)[:2000]
            assert not _unanswered_or_orphans(provider, body), json.dumps(body)[:2000]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_edited_reasoning_for_the_same_model_is_not_a_5xx(served: tuple[str, Path], provider: str) -> None:
    """Attack: an assistant message claiming reasoning of the very model it is replayed to (no signature, no
    provider block), with and without tool calls, and a reasoning-only assistant message."""
    url, _ = served
    robot = f"leak_{provider}"
    model = MODEL.get(provider, "doubao-seed-1-6")
    calls = [{"id": "c1", "name": "weather", "arguments": '{"city": "Paris"}'}]
    drafts = [
        [USER, {"role": "assistant", "content": "a", "reasoning": "I think", "model": f"{provider}:{model}"}, USER],
        [
            USER,
            {"role": "assistant", "content": "", "reasoning": "r", "model": f"{provider}:{model}", "tool_calls": calls},
            {"role": "tool", "content": "18C", "tool_call_id": "c1", "name": "weather"},
        ],
        [USER, {"role": "assistant", "content": "", "reasoning": "only", "model": f"{provider}:{model}"}, USER],
        [USER, {"role": "assistant", "content": "", "model": f"{provider}:{model}"}, USER],
        [USER, {"role": "system", "content": "late system"}, USER],
    ]
    with _client(url) as client:
        for i, messages in enumerate(drafts):
            answer = client.post(_act(robot, "llm", "aplay"), json={"messages": messages})
            assert answer.status_code < 500, f"draft {i}: {answer.status_code} {answer.text[:500]}"


ODD_ORDERS: dict[str, list[dict[str, Any]]] = {
    "tool result first": [{"role": "tool", "content": "r", "tool_call_id": "c1"}, USER],
    "call never answered": [
        USER,
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "name": "weather", "arguments": "{}"}]},
        USER,
    ],
    "result without a name": [
        USER,
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "name": "weather", "arguments": "{}"}]},
        {"role": "tool", "content": "r", "tool_call_id": "c1"},
    ],
    "two results for one call": [
        USER,
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "name": "weather", "arguments": "{}"}]},
        {"role": "tool", "content": "r", "tool_call_id": "c1"},
        {"role": "tool", "content": "r2", "tool_call_id": "c1"},
    ],
    "duplicate call ids": [
        USER,
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": "c1", "name": "weather", "arguments": "{}"},
                {"id": "c1", "name": "weather", "arguments": "{}"},
            ],
        },
        {"role": "tool", "content": "r", "tool_call_id": "c1"},
    ],
    "result of an unknown tool": [
        USER,
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "name": "nope", "arguments": "{}"}]},
        {"role": "tool", "content": "r", "tool_call_id": "c1", "name": "nope", "is_error": True},
    ],
    "system only then user": [{"role": "system", "content": "s"}, {"role": "system", "content": "t"}, USER],
}
"""Message orders no stored step has, which the playground's editor can still produce."""


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("case", list(ODD_ORDERS))
def test_odd_message_orders_are_not_a_5xx(served: tuple[str, Path], provider: str, case: str) -> None:
    """Attack: orders of calls and results that providers' adapters may not expect."""
    url, _ = served
    with _client(url) as client:
        answer = client.post(_act(f"leak_{provider}", "llm", "aplay"), json={"messages": ODD_ORDERS[case]})
    assert answer.status_code < 500, f"{case}: {answer.status_code} {answer.text[:500]}"
