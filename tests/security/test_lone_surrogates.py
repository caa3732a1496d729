"""A client sending lone UTF-16 surrogates gets a 4xx from the chat and the actions, never a 500 (issue #14,
defect 8; THREATS.md: "NUL bytes, lone surrogates" are bad input).

Two ways to send one: the JSON escape `\\ud800` (what `json.dumps` writes for a Python string holding one),
and the bytes such a string encodes to with `surrogatepass` (not UTF-8). Text without one is served (200).
The message layer refuses what could never be stored (tests/schema/message/test_storable.py); here the
server's own parsing must refuse it first, with a clear error.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tfrobotserver.app.factory import create_app
from tfrobotserver.app.settings import ServerSettings
from tfrobotserver.robot.demo import build_demo_robot

SURROGATE = re.compile("[\ud800-\udfff]")
any_text = st.text(alphabet=st.characters(codec=None, categories=("Cs", "L", "N", "Zs")), min_size=1, max_size=8)
held = {"tried": 0}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    root: Path = tmp_path_factory.mktemp("surrogates")
    settings_ = ServerSettings(data_dir=root, database_url=f"sqlite+aiosqlite:///{root / 'server.sqlite3'}")
    with TestClient(create_app(settings_, robots=[build_demo_robot()]), base_url="http://127.0.0.1") as served:
        yield served
    print(f"\nlone surrogates: {held['tried']} requests tried, every one answered below 500")


def _bodies(payload: dict[str, object]) -> list[bytes]:
    escaped = json.dumps(payload).encode()  # `\ud800` escapes
    raw = json.dumps(payload, ensure_ascii=False).encode("utf-8", "surrogatepass")  # not UTF-8
    return [escaped, raw]


ROUTES = [
    ("/api/robots/demo/chat", lambda text: {"message": text, "dryRun": True}),
    ("/api/robots/demo/chat", lambda text: {"message": text}),
    ("/api/robots/demo/components/prompt/actions/arender", lambda text: {"variables": {"name": text}}),
]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(route=st.sampled_from(range(len(ROUTES))), text=any_text)
def test_text_with_a_lone_surrogate_is_a_4xx_and_text_without_one_is_served(
    client: TestClient, route: int, text: str
) -> None:
    path, payload = ROUTES[route]
    for body in _bodies(payload(text)):
        response = client.post(path, content=body, headers={"content-type": "application/json"})
        held["tried"] += 1
        assert response.status_code < 500, response.text
        if SURROGATE.search(text):
            assert response.status_code == 422, response.text
            assert response.json()["error"] == "invalid_params"
        else:
            assert response.status_code == 200, response.text
