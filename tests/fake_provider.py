"""A loopback HTTP server that answers like each LLM provider: successes and every failure a user meets.

Robot files point a provider's `base_url` at it (robot files are deployment settings, so that is allowed);
the provider's official SDK then sends its real request over real HTTP and parses the answer. The path
says who answers (``/{provider}`` then the path the SDK appends: `base_url()`), the user's message how:
a marker ``[fault:MODE]`` in it picks the mode (the last marker of the request: the newest turn's; ``ok``
after a failure), so one robot per provider meets every failure.

Modes: none (a tool call for `weather`, then the answer), a failure (``401``, ``403``, ``404``, ``429``,
``500``, ``timeout``, ``html``) answered to the first request, the same with ``-late`` answered only after
the tool ran (so a stream has begun: the SSE `error` event), ``slow`` (the answer's text streamed over
about a second, for clients that hang up mid-stream) and ``slow-…`` (a second's pause after the tool ran,
then the mode after the dash: a turn that fails after its client is gone). Error bodies, statuses and
headers are the ones the providers document (OpenAI "Error codes", Anthropic "Errors", Gemini
"Troubleshooting", Zhipu "错误码", Volcengine Ark "错误码"); `refused` is not a mode but a closed port
(`closed_port()`).
"""

from __future__ import annotations

import json
import re
import socket
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PROVIDERS = ("openai", "anthropic", "gemini", "zhipu", "doubao")
"""Every provider of the registry but the offline `scripted` one."""
FAULTS = ("401", "403", "404", "429", "500", "timeout", "html")
"""The failure modes the server answers (with `missing_key` and `refused`, every failure a user meets)."""
API_SUFFIX = {"openai": "/v1", "anthropic": "", "gemini": "", "zhipu": "/api/paas/v4", "doubao": "/api/v3"}
"""What goes after ``/{provider}/{mode}`` in the `base_url` (the SDK appends its own path to it)."""
KEY_ENV = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "zhipu": "ZAI_API_KEY",
    "doubao": "ARK_API_KEY",
}
"""The variable each SDK reads its key from."""
MODEL = {"openai": "gpt-4o", "anthropic": "claude-sonnet-4-6", "gemini": "gemini-2.5-flash", "zhipu": "glm-4.6"}
ANSWER = "Paris is 18C."
RETRY_AFTER = "7"
HANG = 3.0
"""How long `timeout` waits before answering: longer than the robots' `timeout` setting."""
SLOW_STEP = 0.3
"""Seconds between two events of a `slow` answer."""
_MARKER = re.compile(r"\[fault:([\w-]+)\]")


def with_fault(message: str, mode: str) -> str:
    """`message` asking the fake to answer in `mode`."""
    return f"{message} [fault:{mode}]"


def _error_body(provider: str, status: int) -> dict[str, Any]:
    """The provider's documented error body for `status`."""
    message = {
        401: "Incorrect API key provided: sk-test. You can find your API key at https://platform.openai.com/account/api-keys.",
        403: "Project does not have access to model gpt-4o",
        404: "The model `gpt-nope` does not exist or you do not have access to it.",
        429: "Rate limit reached for gpt-4o on requests per min (RPM): Limit 3, Used 3, Requested 1.",
        500: "The server had an error while processing your request. Sorry about that!",
    }[status]
    if provider == "anthropic":
        kind = {401: "authentication_error", 403: "permission_error", 404: "not_found_error"}
        kind |= {429: "rate_limit_error", 500: "api_error"}
        return {"type": "error", "error": {"type": kind[status], "message": message}}
    if provider == "gemini":
        state = {401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED"}
        return {"error": {"code": status, "message": message, "status": state.get(status, "INTERNAL")}}
    if provider == "zhipu":
        code = {401: "1002", 403: "1220", 404: "1211", 429: "1302", 500: "500"}[status]
        return {"error": {"code": code, "message": message}}
    if provider == "doubao":
        code = {401: "AuthenticationError", 403: "AccessDenied", 404: "InvalidEndpointOrModel.NotFound"}
        code |= {429: "RateLimitExceeded.EndpointRPMExceeded", 500: "InternalServiceError"}
        return {"error": {"code": code[status], "message": message, "param": "", "type": code[status]}}
    kind = {401: "invalid_request_error", 403: "invalid_request_error", 404: "invalid_request_error"}
    kind |= {429: "requests", 500: "server_error"}
    code = {401: "invalid_api_key", 404: "model_not_found", 429: "rate_limit_exceeded"}.get(status)
    return {"error": {"message": message, "type": kind[status], "param": None, "code": code}}


def error_message(status: int) -> str:
    """The provider message the fake sends with `status` (what a typed error must quote)."""
    return str(_error_body("openai", status)["error"]["message"])


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the tests print what they measure."""

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", "0"))) or b"{}")
        provider = self.path.split("/", 2)[1]
        marked = _MARKER.findall(json.dumps(body))
        mode = marked[-1] if marked else "ok"  # the newest message's: earlier turns are in the history too
        streaming = bool(body.get("stream")) or ":streamGenerateContent" in self.path
        after_tool = _has_tool_result(provider, body)
        if mode.startswith("slow-"):
            mode = mode.removeprefix("slow-")
            if after_tool:
                time.sleep(4 * SLOW_STEP)
        fault = mode.removesuffix("-late")
        if mode in FAULTS or (mode.endswith("-late") and after_tool):
            self._fault(provider, fault)
            return
        if not after_tool:
            self._answer(provider, streaming, tool_call=True)
        else:
            self._answer(provider, streaming, tool_call=False, slow=mode == "slow")

    def _fault(self, provider: str, fault: str) -> None:
        if fault == "timeout":
            time.sleep(HANG)
            self._send(200, b"{}", "application/json")
            return
        if fault == "html":
            self._send(200, b"<!doctype html><html><body><h1>Welcome to nginx!</h1></body></html>", "text/html")
            return
        status = int(fault)
        headers = {"retry-after": RETRY_AFTER} if status == 429 else {}
        self._send(status, json.dumps(_error_body(provider, status)).encode(), "application/json", headers)

    def _send(self, status: int, data: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
        try:
            self.send_response(status)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(data)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up first (its timeout): fine
            return

    def _answer(self, provider: str, streaming: bool, *, tool_call: bool, slow: bool = False) -> None:
        if not streaming:
            self._send(200, json.dumps(_whole(provider, tool_call)).encode(), "application/json")
            return
        try:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            for event in _events(provider, tool_call):
                self._chunk(event)
                if slow:
                    time.sleep(SLOW_STEP)
            self._chunk(b"")
        except (BrokenPipeError, ConnectionResetError):
            return

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


def _has_tool_result(provider: str, body: dict[str, Any]) -> bool:
    text = json.dumps(body)
    return {
        "anthropic": '"tool_result"',
        "gemini": '"functionResponse"',
        "openai": '"role": "tool"',
        "zhipu": '"role": "tool"',
        "doubao": '"role": "tool"',
    }[provider] in text


_WORDS = ["Paris ", "is ", "18C", "."]


def _whole(provider: str, tool_call: bool) -> dict[str, Any]:
    """A whole (non-streamed) answer: the weather call, or the final text."""
    if provider == "anthropic":
        block = (
            {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"city": "Paris"}}
            if tool_call
            else {"type": "text", "text": ANSWER}
        )
        return {
            "id": "msg_1", "type": "message", "role": "assistant", "model": MODEL["anthropic"], "content": [block],
            "stop_reason": "tool_use" if tool_call else "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }  # fmt: skip
    if provider == "gemini":
        part = {"functionCall": {"name": "weather", "args": {"city": "Paris"}}} if tool_call else {"text": ANSWER}
        return {
            "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
            "modelVersion": MODEL["gemini"],
        }
    call = {"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": '{"city": "Paris"}'}}
    message = {"role": "assistant", "content": None, "tool_calls": [call]} if tool_call else {
        "role": "assistant", "content": ANSWER,
    }  # fmt: skip
    return {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": MODEL.get(provider, "m"),
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if tool_call else "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }  # fmt: skip


def _sse(data: dict[str, Any], event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n".encode()


def _events(provider: str, tool_call: bool) -> Iterator[bytes]:
    """A streamed answer as the provider sends it, text word by word."""
    if provider == "anthropic":
        start = {"id": "msg_1", "type": "message", "role": "assistant", "model": MODEL["anthropic"], "content": []}
        start |= {"stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 1}}
        yield _sse({"type": "message_start", "message": start}, "message_start")
        if tool_call:
            block = {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {}}
            yield _sse({"type": "content_block_start", "index": 0, "content_block": block}, "content_block_start")
            delta = {"type": "input_json_delta", "partial_json": '{"city": "Paris"}'}
            yield _sse({"type": "content_block_delta", "index": 0, "delta": delta}, "content_block_delta")
        else:
            block = {"type": "text", "text": ""}
            yield _sse({"type": "content_block_start", "index": 0, "content_block": block}, "content_block_start")
            for word in _WORDS:
                delta = {"type": "text_delta", "text": word}
                yield _sse({"type": "content_block_delta", "index": 0, "delta": delta}, "content_block_delta")
        yield _sse({"type": "content_block_stop", "index": 0}, "content_block_stop")
        stop = {"stop_reason": "tool_use" if tool_call else "end_turn", "stop_sequence": None}
        yield _sse({"type": "message_delta", "delta": stop, "usage": {"output_tokens": 5}}, "message_delta")
        yield _sse({"type": "message_stop"}, "message_stop")
        return
    if provider == "gemini":
        if tool_call:
            yield _sse(_whole("gemini", True))
            return
        for i, word in enumerate(_WORDS):
            chunk: dict[str, Any] = {
                "candidates": [{"content": {"role": "model", "parts": [{"text": word}]}, "index": 0}]
            }
            if i == len(_WORDS) - 1:
                chunk["candidates"][0]["finishReason"] = "STOP"
                chunk["usageMetadata"] = {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}
            yield _sse(chunk | {"modelVersion": MODEL["gemini"]})
        return
    base = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": MODEL.get(provider, "m")}
    if tool_call:
        call = {"index": 0, "id": "call_1", "type": "function"}
        call["function"] = {"name": "weather", "arguments": '{"city": "Paris"}'}
        delta: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
        yield _sse(base | {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
        yield _sse(base | {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    else:
        for word in _WORDS:
            yield _sse(base | {"choices": [{"index": 0, "delta": {"content": word}, "finish_reason": None}]})
        yield _sse(base | {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    yield _sse(base | {"choices": [], "usage": usage})
    yield b"data: [DONE]\n\n"


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up (its timeout, a closed keep-alive connection) is no error of the fake."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@contextmanager
def fake_provider(handler: type[BaseHTTPRequestHandler] = _Handler) -> Iterator[str]:
    """Serve on a free loopback port; yields ``http://127.0.0.1:PORT`` (see the module docstring for paths).
    `handler`: a subclass of the fake's handler that records or changes what it answers."""
    server = _Server(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def closed_port() -> int:
    """A loopback port nothing listens on (connections are refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def base_url(root: str, provider: str) -> str:
    """The `base_url` of a robot whose `provider` is this fake (see the module docstring)."""
    return f"{root}/{provider}{API_SUFFIX[provider]}"


def robot_file(name: str, provider: str, url: str, *, timeout: float = 1.0) -> str:
    """A robot file (YAML) for `provider` at `url`, with the demo's weather tool and no SDK retries."""
    model = MODEL.get(provider, "doubao-seed-1-6")
    params = {"base_url": url, "max_retries": 0, "timeout": timeout}
    return (
        f"name: {name}\nllm: {{provider: {provider}, model: {model}, params: {json.dumps(params)}}}\ntools: [weather]\n"
    )
