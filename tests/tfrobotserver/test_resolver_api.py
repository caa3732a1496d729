"""The resolver against the real API: schemas from GET …/actions, fetches as POSTs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from tfrobotserver.app.factory import create_app
from tfrobotserver.app.settings import ServerSettings
from tfrobotserver.resolver import (
    ActionSchemas,
    FetchCache,
    element_namespace,
    resolve_params,
    root_namespace,
)
from tfrobotserver.robot.demo import build_demo_robot

BASE = "/api/robots/demo/components/memory/actions"


class Api:
    """A synchronous facade: the resolver's fetch is a plain callable, as in the console."""

    def __init__(self, client: httpx.Client) -> None:
        self.client = client
        self.catalog = {
            a["name"]: ActionSchemas(a["name"], a["paramsSchema"], a["retSchema"]) for a in client.get(BASE).json()
        }
        self.calls: list[str] = []

    def fetch(self, action: str, params: dict[str, Any]) -> Any:
        self.calls.append(action)
        response = self.client.post(f"{BASE}/{action}", json=params)
        response.raise_for_status()
        return response.json()


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Api]:
    with TestClient(
        create_app(ServerSettings(data_dir=tmp_path), robots=[build_demo_robot()]), base_url="http://127.0.0.1"
    ) as client:
        yield Api(client)


def test_row_action_from_a_real_page(api: Api) -> None:
    ret = api.catalog["aget_docs"].ret_schema
    page = api.fetch("aget_docs", {"page": 1, "page_size": 3})
    container = root_namespace(ret, page)
    assert container == {"allDocIds": [1, 2, 3], "page": 1, "pageSize": 3}
    element = element_namespace(ret, "items", page["items"][1])
    got = resolve_params(api.catalog["aupdate_doc"], element, container, api.fetch, catalog=api.catalog)
    assert got.params == {
        "doc_id": 2, "doc_version": 1, "keywords": ["topic-2", "txt"], "metadata": {"seeded": True, "n": 2}
    }  # fmt: skip
    assert got.missing == []
    batch = resolve_params(api.catalog["adelete_docs"], {}, container, api.fetch, catalog=api.catalog)
    assert api.fetch("adelete_docs", batch.params) == 3


def test_create_form_fetches_user_and_options_once(api: Api) -> None:
    cache = FetchCache()
    got = resolve_params(api.catalog["acreate_doc"], {}, {}, api.fetch, catalog=api.catalog, cache=cache)
    assert got.params == {"file_type": "pdf", "owner_id": "local"}
    assert got.missing == ["file_uri"]
    assert [c.action for c in got.fetches] == ["aget_doc_types", "aget_current_user"]
    again = resolve_params(api.catalog["acreate_doc"], {}, {}, api.fetch, catalog=api.catalog, cache=cache)
    assert (again.params, again.fetches) == (got.params, [])
    created = api.fetch("acreate_doc", {**got.params, "file_uri": "s3://new.pdf"})
    assert created["docMetadata"] == {"owner": "local"}
