"""Outside review of the `otel` branch: a real `tfrobot serve` exporting to the OTLP/HTTP receiver on loopback,
its spans read against the current semantic conventions (GenAI agent spans, stable HTTP server spans)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.otlp_receiver import Receiver, otlp_receiver
from tests.robot_servers import post, serve_robots

WEATHER = "weather in Paris and Tokyo, chart it"


@contextmanager
def _served(tmp_path: Path) -> Iterator[tuple[str, Receiver]]:
    """The demo robot served with the standard OTLP endpoint set, and the receiver it exports to."""
    with otlp_receiver() as receiver:
        env: dict[str, str | None] = {
            "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint,
            "OTEL_BSP_SCHEDULE_DELAY": "50",
            "TFROBOT_OTEL": None,
            "OTEL_SDK_DISABLED": None,
            "OTEL_TRACES_EXPORTER": None,
            "OTEL_SEMCONV_STABILITY_OPT_IN": None,
        }
        with serve_robots(tmp_path, {}, env) as url:
            yield url, receiver


def _turn_and_request(receiver: Receiver, conversation_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The turn's `invoke_agent` span and the chat request's server span, once both arrived."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        spans = receiver.dump()
        turns = [s for s in spans if s["attributes"].get("gen_ai.conversation.id") == conversation_id]
        parents = [s for s in spans if turns and s["span_id"] == turns[0]["parent_span_id"]]
        if turns and parents:
            return turns[0], parents[0]
        time.sleep(0.05)
    raise AssertionError(f"the turn's spans did not arrive in 20 s: {receiver.dump()}")


@pytest.fixture(scope="module")
def served_turn(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, Any]]:
    """One chat call of the demo robot: its turn's span and its request's span, as the receiver got them."""
    with _served(tmp_path_factory.mktemp("served")) as (url, receiver):
        status, body = post(f"{url}/api/robots/demo/chat", {"message": WEATHER})
        assert status == 200, body
        return _turn_and_request(receiver, body["conversationId"])


def test_the_turn_span_names_the_served_robot_as_its_agent(served_turn: tuple[dict[str, Any], dict[str, Any]]) -> None:
    """The served robot's name is known but missing from `invoke_agent` (`gen_ai.agent.name`, span name)."""
    turn, _ = served_turn
    assert (turn["name"], turn["attributes"].get("gen_ai.agent.name")) == ("invoke_agent demo", "demo")


def test_the_request_span_uses_the_stable_http_attribute_names(
    served_turn: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    """The chat request's server span carries the pre-1.23 HTTP names (`http.method`), not the stable ones."""
    _, request = served_turn
    stable = {"http.request.method": "POST", "url.path": "/api/robots/demo/chat", "http.response.status_code": 200}
    assert {key: request["attributes"].get(key) for key in stable} == stable, request["attributes"]
