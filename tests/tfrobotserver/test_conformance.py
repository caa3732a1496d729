"""Every vector in conformance/resolver passes the Python resolver (the TS console runs the same)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tfrobotserver.resolver import (
    ActionSchemas,
    FetchCache,
    ResolverError,
    canonical_json,
    element_namespace,
    resolve_params,
    root_namespace,
)

VECTORS = sorted((Path(__file__).parents[2] / "conformance" / "resolver").glob("*.json"))


def test_vectors_exist() -> None:
    assert len(VECTORS) >= 20


class Recorder:
    """The fetch function of a vector: answers from `fetchResponses`, records every call."""

    def __init__(self, responses: list[dict[str, Any]]) -> None:
        self.responses = responses
        self.calls: list[dict[str, Any]] = []

    def __call__(self, action: str, params: dict[str, Any]) -> Any:
        self.calls.append({"action": action, "params": params})
        for entry in self.responses:
            if entry["action"] == action and ("params" not in entry or entry["params"] == params):
                return entry["result"]
        raise AssertionError(f"unexpected fetch {action}({canonical_json(params)})")


def _scopes(vector: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    scope = vector.get("scope")
    if scope is None:
        return vector["elementScope"], vector["containerScope"]
    ret_schema = vector["actions"][scope["action"]]["retSchema"]
    container = root_namespace(ret_schema, scope["data"])
    element: dict[str, Any] = {}
    if "collection" in scope:
        element = element_namespace(ret_schema, scope["collection"], scope["data"][scope["collection"]][scope["index"]])
    expected = vector["expected"]
    assert container == expected["containerScope"]
    assert element == expected["elementScope"]
    return element, container


@pytest.mark.parametrize("path", VECTORS, ids=[p.stem for p in VECTORS])
def test_vector(path: Path) -> None:
    vector = json.loads(path.read_text(encoding="utf-8"))
    catalog = {
        name: ActionSchemas(name, spec["paramsSchema"], spec.get("retSchema", {}))
        for name, spec in vector["actions"].items()
    }
    target = catalog[vector["resolve"]]
    fetch = Recorder(vector.get("fetchResponses", []))
    expected = vector["expected"]
    if "rounds" in vector:
        cache = FetchCache()
        for round_, want in zip(vector["rounds"], expected["rounds"], strict=True):
            before = len(fetch.calls)
            got = resolve_params(
                target, round_["elementScope"], round_["containerScope"], fetch, catalog=catalog, cache=cache
            )
            assert got.params == want["params"]
            assert got.missing == want["missing"]
            assert [{"action": c.action, "params": c.params} for c in got.fetches] == want["fetches"]
            assert fetch.calls[before:] == want["fetches"]
        return
    element, container = _scopes(vector)
    if "error" in expected:
        with pytest.raises(ResolverError) as info:
            resolve_params(target, element, container, fetch, catalog=catalog)
        assert info.value.code == expected["error"]["code"]
        assert info.value.chain == expected["error"]["chain"]
        for fragment in expected["error"]["messageContains"]:
            assert fragment in str(info.value)
        assert fetch.calls == expected["fetches"]
        return
    got = resolve_params(target, element, container, fetch, catalog=catalog)
    assert got.params == expected["params"]
    assert got.missing == expected["missing"]
    assert [{"action": c.action, "params": c.params} for c in got.fetches] == expected["fetches"]
    assert fetch.calls == expected["fetches"]
